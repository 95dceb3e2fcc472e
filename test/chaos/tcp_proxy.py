#!/usr/bin/env python3
"""A TCP proxy that a chaos test controls: 127.0.0.1:<listen> -> 127.0.0.1:<target>, byte for byte (TLS passes
through untouched). Signals change what it does:

  SIGUSR1  partition: nothing is forwarded any more in either direction, and new connections are accepted but not
           connected onward; every socket stays open, so the peers see silence, not a close (a network that drops
           packets). The bytes that arrive meanwhile are held.
  SIGUSR2  heal: the held bytes and connections go through, and forwarding resumes.
  SIGHUP   cut: every connection open now is closed (a peer that went away).

Usage: tcp_proxy.py LISTEN_PORT TARGET_PORT. It prints "listening <port>" once ready, then one line per state change
with the number of connections seen so far (on stdout, flushed). Stops on SIGTERM or SIGINT.
"""
import asyncio
import signal
import sys


class Proxy:
    def __init__(self, target):
        self.target = target
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.tasks = set()
        self.writers = set()
        self.accepted = 0

    def say(self, what):
        print("%s connections=%d open=%d" % (what, self.accepted, len(self.writers) // 2), flush=True)

    async def pump(self, reader, writer):
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                await self.flowing.wait()
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError, OSError):
            pass
        finally:
            writer.close()

    async def handle(self, client_reader, client_writer):
        self.accepted += 1
        await self.flowing.wait()
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            client_writer.close()
            return
        pair = {client_writer, up_writer}
        self.writers |= pair
        try:
            await asyncio.gather(self.pump(client_reader, up_writer), self.pump(up_reader, client_writer))
        finally:
            self.writers -= pair

    def cut(self):
        for w in list(self.writers):
            w.close()
        self.say("cut")


async def main(listen, target):
    proxy = Proxy(target)
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", listen)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def partition():
        proxy.flowing.clear()
        proxy.say("partitioned")

    def heal():
        proxy.flowing.set()
        proxy.say("healed")

    loop.add_signal_handler(signal.SIGUSR1, partition)
    loop.add_signal_handler(signal.SIGUSR2, heal)
    loop.add_signal_handler(signal.SIGHUP, proxy.cut)
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    print("listening %d" % server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await stop.wait()
    proxy.cut()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
