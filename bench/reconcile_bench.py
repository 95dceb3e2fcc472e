#!/usr/bin/env python3
"""The measuring side of `make bench-reconcile` (bench/reconcile-bench.sh starts the control plane and calls this).

Black-box: it talks to the apiserver over HTTPS, reads the operator's /metrics and /readyz, and reads /proc of the
operator, of kube-apiserver and of the peer. It never links against the operator.

Usage: reconcile_bench.py --state DIR --operator BIN --sample FILE --work DIR [--n N] [--conns C]
                          [--floor] [--peer BIN] [--timeout S]
  --state DIR     the control plane's state folder (test/harness/control-plane.sh): env, kube-apiserver.pid
  --operator BIN  codeflare-operator, run with its default flags plus --kubeconfig, --metrics-bind-address and
                  --health-probe-bind-address on free ports of 127.0.0.1
  --sample FILE   the CodeFlareWorkload to create N times under distinct names (bench-0, bench-1, ...)
  --work DIR      logs (operator.log, peer.log) and pid files (*.pid, for the caller's clean-up)
  --n N           workloads (and Foos, and floor objects) per phase (default 500)
  --conns C       keep-alive connections of the loader, and of the wide floor run (default 8)
  --floor         also run the bare-client floor (1 connection, then C connections)
  --peer BIN      also run client-go's sample-controller (its Foo CRD installed by the caller)
  --timeout S     give up on a phase after S seconds (default 120 + N/2)

Phases, one after the other on the same control plane:
  0. warm-up: max(50, N/5) workloads, RayClusters (server-side apply), status writes, then deleted: the apiserver's
              first requests of a kind cost it several times the later ones, which would count against phase 1.
  1. ours:    start the operator, wait for /readyz (caches synced), create N workloads in namespace bench-cfw over
              C connections, wait until each has status.observedGeneration == metadata.generation and its RayCluster
              exists (two watches, one of them metadata-only: cheaper than polling LISTs). Requests, reconciles and
              CPU are counted until the operator is idle; in a run longer than 60 s they include the operator's
              60 s check of the first RayClusters (no KubeRay runs here, so it writes NoStatusFromKubeRay).
  2. start-up: play KubeRay (a ready status on every RayCluster) and wait until the operator reports each workload
              Ready (the steady state of a real cluster), stop the operator, start it again with the N workloads in place, wait for /readyz and until N
              reconciles have run and the queue is empty; count what it wrote (it should write nothing) and the CPU it
              took. Then time the apiserver's own paginated LIST (limit=500) of the workloads
              (startup_to_list_ratio), of the RayClusters, and of both at once, as the operator lists them
              (startup_to_both_lists_ratio), and of the workloads from its watch cache (resourceVersion=0, as the
              operator's first list asks: startup_to_cached_list_ratio).
  2b. backlog: N workloads created in bench-backlog while the operator is stopped, then the operator started and
              timed from /readyz until each has its status and RayCluster: its own pace at the apiserver's limit,
              with no loader competing (ratio_backlog_to_floor_c1).
  3. floor:   the minimum requests for the same work, from this process: for each of N workloads (created first, not
              timed, in bench-floor-c1 / bench-floor-cC), POST the RayCluster `codeflare-operator render` makes for
              it (with the owner reference the operator sets), then PATCH the status the operator wrote in phase 1
              onto its status subresource; with 1 connection (the operator's default: 1 worker), then C.
  4. peer:    sample-controller on N Foos (namespace bench-foo): done when each Foo has status.availableReplicas
              written and its Deployment exists.
Output: key=value lines on stdout (figures, no thresholds); progress on stderr. Exit 1 when a phase fails or times out
(the figures measured until then are printed).
"""
import argparse
import concurrent.futures
import http.client
import json
import os
import re
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

import yaml

CLK_TCK = os.sysconf("SC_CLK_TCK")
CFW = "/apis/codeflare.dev/v1alpha1"
RAY = "/apis/ray.io/v1"
FOO = "/apis/samplecontroller.k8s.io/v1alpha1"
META_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"


def log(*a):
    print("reconcile_bench:", *a, file=sys.stderr, flush=True)


out_lines = []


def emit(key, value):
    if isinstance(value, float):
        value = ("%.3f" % value) if abs(value) < 100 else ("%.1f" % value)
    line = "%s=%s" % (key, value)
    out_lines.append(line)
    print(line, flush=True)


# --- /proc -----------------------------------------------------------------------------------------------------------

def cpu_ms(pid):
    """utime + stime of a process, in ms."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / CLK_TCK


def status_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def rss_kib(pid):
    return status_kib(pid, "VmRSS")


def hwm_kib(pid):
    return status_kib(pid, "VmHWM")


def rss_split_kib(pid):
    """(anonymous, file-backed) resident KiB: heap and stacks against the binary's and libraries' mapped pages."""
    return status_kib(pid, "RssAnon"), status_kib(pid, "RssFile") + status_kib(pid, "RssShmem")


def rss_file_by_object_kib(pid, top=4):
    """The file-backed resident KiB of the `top` largest mapped files (/proc/PID/smaps), as (key, KiB) pairs: the
    executable is "self", a library its file name up to ".so" with other characters than letters and digits made "_"
    (libstdc++.so.6 -> libstdc__)."""
    exe = os.path.realpath("/proc/%d/exe" % pid)
    by_path, path = {}, None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and not head[0].endswith(":"):
                path = head[5] if len(head) >= 6 and head[5].startswith("/") else None
            elif path and head and head[0] == "Rss:":
                by_path[path] = by_path.get(path, 0) + int(head[1])
    out = []
    for path, kib in sorted(by_path.items(), key=lambda kv: -kv[1])[:top]:
        name = "self" if os.path.realpath(path) == exe else re.sub(r"[^A-Za-z0-9]", "_",
                                                                   os.path.basename(path).split(".so")[0])
        out.append((name, kib))
    return out


def own_cpu_ms():
    t = os.times()
    return (t.user + t.system) * 1000.0


def free_ports(n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


# --- the apiserver ---------------------------------------------------------------------------------------------------

class Api:
    """HTTPS to the apiserver: one keep-alive connection per thread (http.client sets TCP_NODELAY)."""

    def __init__(self, url, token, ca_file):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.ctx = ssl.create_default_context(cafile=ca_file)
        self.auth = "Bearer " + token
        self.local = threading.local()
        self.lock = threading.Lock()
        self.connections = 0  # opened so far: keep-alive means about one per thread

    def conn(self, fresh=False):
        c = getattr(self.local, "conn", None)
        if c is None or fresh:
            if c is not None:
                c.close()
            c = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=60)
            self.local.conn = c
            with self.lock:
                self.connections += 1
        return c

    def request(self, method, path, body=None, ctype="application/json", accept="application/json"):
        headers = {"Authorization": self.auth, "Accept": accept}
        if body is not None:
            headers["Content-Type"] = ctype
            if isinstance(body, str):
                body = body.encode()
        for attempt in range(3):
            c = self.conn(fresh=attempt > 0)
            try:
                c.request(method, path, body=body, headers=headers)
                r = c.getresponse()
                data = r.read()
                return r.status, data
            except (http.client.HTTPException, OSError):
                if attempt == 2:
                    raise
        raise RuntimeError("unreachable")

    def ok(self, method, path, body=None, ctype="application/json", allow=()):
        status, data = self.request(method, path, body, ctype)
        if status >= 300 and status not in allow:
            raise RuntimeError("%s %s: HTTP %d: %s" % (method, path, status, data[:300].decode(errors="replace")))
        return status, data

    def get_json(self, path):
        return json.loads(self.ok("GET", path)[1])

    def ensure_namespace(self, ns):
        self.ok("POST", "/api/v1/namespaces",
                json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}), allow=(409,))

    def list_all(self, path, limit=500, from_cache=False):
        """A paginated LIST; returns the items. from_cache: the first request asks for resourceVersion=0 (the watch
        cache, as an informer's first list; kube-apiserver 1.20 then answers in one response)."""
        items, cont = [], ""
        while True:
            q = "?limit=%d" % limit + ("&continue=" + urllib.parse.quote(cont) if cont else
                                       "&resourceVersion=0" if from_cache else "")
            d = self.get_json(path + q)
            items += d.get("items") or []
            cont = (d.get("metadata") or {}).get("continue") or ""
            if not cont:
                return items


class Watch(threading.Thread):
    """Watches a collection from a given resourceVersion and calls on_event(type, object) for each event."""

    def __init__(self, api, path, rv, on_event, metadata_only=False):
        super().__init__(daemon=True)
        self.api, self.path, self.rv, self.on_event = api, path, rv, on_event
        self.accept = META_ACCEPT if metadata_only else "application/json"
        self.stopped = False
        self.error = None
        self.conn = None

    def run(self):
        while not self.stopped:
            try:
                self.conn = http.client.HTTPSConnection(self.api.host, self.api.port, context=self.api.ctx,
                                                        timeout=3600)
                q = "?watch=1&timeoutSeconds=3600&allowWatchBookmarks=true&resourceVersion=" + self.rv
                self.conn.request("GET", self.path + q, headers={"Authorization": self.api.auth,
                                                                  "Accept": self.accept})
                r = self.conn.getresponse()
                if r.status != 200:
                    raise RuntimeError("watch %s: HTTP %d" % (self.path, r.status))
                while not self.stopped:
                    line = r.readline()
                    if not line:
                        break
                    ev = json.loads(line)
                    obj = ev.get("object") or {}
                    rv = (obj.get("metadata") or {}).get("resourceVersion")
                    if rv:
                        self.rv = rv
                    if ev.get("type") == "ERROR":
                        raise RuntimeError("watch %s: %s" % (self.path, obj.get("message")))
                    if ev.get("type") != "BOOKMARK":
                        self.on_event(ev["type"], obj)
            except Exception as e:  # noqa: BLE001 - reported by the waiter
                if not self.stopped:
                    self.error = e
                return

    def stop(self):
        self.stopped = True
        try:
            if self.conn is not None and self.conn.sock is not None:
                self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class Progress:
    """Names done on each of two conditions; done when both hold for N names."""

    def __init__(self, n):
        self.n = n
        self.lock = threading.Lock()
        self.a, self.b = set(), set()
        self.done_at = None
        self.event = threading.Event()

    def mark(self, which, name, ok=True):
        with self.lock:
            s = self.a if which == "a" else self.b
            if ok:
                s.add(name)
            else:
                s.discard(name)
            if self.done_at is None and len(self.a) >= self.n and len(self.b) >= self.n:
                self.done_at = time.monotonic()
                self.event.set()

    def counts(self):
        with self.lock:
            return len(self.a), len(self.b)


def watch_pair(api, list_a, list_b, progress, a_done):
    """Starts two watches (list_a full objects judged by a_done, list_b metadata-only, existence) from the current
    resourceVersion of each collection."""
    watches = []
    for path, which, meta in ((list_a, "a", False), (list_b, "b", True)):
        rv = api.get_json(path + "?limit=1")["metadata"]["resourceVersion"]

        def on_event(typ, obj, which=which):
            name = obj["metadata"]["name"]
            if which == "a":
                progress.mark("a", name, typ != "DELETED" and a_done(obj))
            else:
                progress.mark("b", name, typ != "DELETED")

        w = Watch(api, path, rv, on_event, metadata_only=meta)
        w.start()
        watches.append(w)
    return watches


def create_many(api, path, bodies, conns):
    """POSTs the bodies over `conns` keep-alive connections; returns (seconds, first_create_monotonic)."""
    it = iter(bodies)
    lock = threading.Lock()
    errors = []

    def worker():
        while True:
            with lock:
                body = next(it, None)
            if body is None:
                return
            try:
                api.ok("POST", path, body)
            except Exception as e:  # noqa: BLE001
                errors.append(e)
                return

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return time.monotonic() - t0, t0


def wait_progress(progress, watches, deadline, what, pid=None):
    last = 0
    while not progress.event.wait(0.5):
        for w in watches:
            if w.error:
                raise RuntimeError("%s: %s" % (what, w.error))
        if pid is not None and not alive(pid):
            raise RuntimeError("%s: the process under test (pid %d) exited" % (what, pid))
        now = time.monotonic()
        if now >= deadline:
            return False
        if now - last >= 10:
            last = now
            a, b = progress.counts()
            log("%s: %d/%d done, %d/%d children" % (what, a, progress.n, b, progress.n))
    return True


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# --- the operator ----------------------------------------------------------------------------------------------------

def scrape(port):
    """The operator's /metrics as {(name, frozenset(labels)): value}."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", "/metrics")
        text = c.getresponse().read().decode()
    finally:
        c.close()
    return parse_metrics(text)


def apiserver_dry_runs(api):
    """Dry-run requests the apiserver has served so far (apiserver_request_total{dry_run!=""}), all verbs."""
    status, data = api.request("GET", "/metrics", accept="text/plain")
    if status != 200:
        return 0.0
    m = parse_metrics("\n".join(l for l in data.decode().splitlines() if l.startswith("apiserver_request_total{")))
    return sum(v for (_, labels), v in m.items() if dict(labels).get("dry_run", "") not in ("",))


def parse_metrics(text):
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        try:
            head, value = line.rsplit(" ", 1)
            value = float(value)
        except ValueError:
            continue
        if "{" in head:
            name, rest = head.split("{", 1)
            labels = {}
            for part in rest.rstrip("}").split('",'):
                if "=" in part:
                    k, v = part.split("=", 1)
                    labels[k.strip()] = v.strip().strip('"')
        else:
            name, labels = head, {}
        out[(name, frozenset(labels.items()))] = value
    return out


def metric_sum(m, name, by=None):
    """Sum of a metric's samples; with `by`, a dict label value -> sum."""
    if by is None:
        return sum(v for (n, _), v in m.items() if n == name)
    res = {}
    for (n, labels), v in m.items():
        if n == name:
            key = dict(labels).get(by, "")
            res[key] = res.get(key, 0) + v
    return res


def http_status(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        c.request("GET", path)
        return c.getresponse().status
    except OSError:
        return 0
    finally:
        c.close()


class Operator:
    def __init__(self, binary, kubeconfig, work):
        self.binary, self.kubeconfig, self.work = binary, kubeconfig, work
        self.proc = None
        self.starts = 0

    def start(self):
        self.metrics_port, self.probe_port = free_ports(2)
        self.starts += 1
        logf = open(os.path.join(self.work, "operator-%d.log" % self.starts), "wb")
        self.started_at = time.monotonic()
        self.proc = subprocess.Popen(
            [self.binary, "run", "--kubeconfig", self.kubeconfig,
             "--metrics-bind-address", "127.0.0.1:%d" % self.metrics_port,
             "--health-probe-bind-address", "127.0.0.1:%d" % self.probe_port],
            stdin=subprocess.DEVNULL, stdout=logf, stderr=subprocess.STDOUT)
        logf.close()
        with open(os.path.join(self.work, "operator.pid"), "w") as f:
            f.write(str(self.proc.pid))
        return self.proc.pid

    def ready(self):
        return http_status(self.probe_port, "/readyz") == 200

    def wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while not self.ready():
            if self.proc.poll() is not None:
                raise RuntimeError("the operator exited (status %s); see %s" % (self.proc.returncode, self.work))
            if time.monotonic() >= deadline:
                raise RuntimeError("the operator's /readyz not 200 after %d s" % timeout)
            time.sleep(0.05)
        return time.monotonic()

    def metrics(self):
        return scrape(self.metrics_port)

    def quiesce(self, timeout=20.0, still=1.0):
        """Waits until the reconcile counter has not moved for `still` seconds and the queue is empty."""
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while time.monotonic() < deadline:
            m = self.metrics()
            total = metric_sum(m, "controller_runtime_reconcile_total")
            busy = metric_sum(m, "workqueue_depth") + metric_sum(m, "controller_runtime_active_workers")
            if total != last or busy:
                last, since = total, time.monotonic()
            elif time.monotonic() - since >= still:
                return m
            time.sleep(0.1)
        return self.metrics()

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# --- the phases ------------------------------------------------------------------------------------------------------

def workload_body(template, name, ns):
    d = json.loads(template)
    d["metadata"] = {"name": name, "namespace": ns}
    return json.dumps(d)


def observed(obj):
    st = obj.get("status") or {}
    return st.get("observedGeneration") is not None and st.get("observedGeneration") == obj["metadata"].get(
        "generation")


def phase_ours(api, op, apiserver_pid, cfw_json, n, conns, timeout):
    ns = "bench-cfw"
    api.ensure_namespace(ns)
    pid = op.start()
    start_ready = op.wait_ready(120) - op.started_at
    time.sleep(1.0)  # let the first resyncs of the caches settle before the baseline
    rss_start = rss_kib(pid)
    m0 = op.metrics()
    dry0 = apiserver_dry_runs(api)
    cpu0, api0 = cpu_ms(pid), cpu_ms(apiserver_pid)
    progress = Progress(n)
    watches = watch_pair(api, "%s/namespaces/%s/codeflareworkloads" % (CFW, ns),
                         "%s/namespaces/%s/rayclusters" % (RAY, ns), progress, observed)
    bodies = [workload_body(cfw_json, "bench-%d" % i, ns) for i in range(n)]
    log("ours: creating %d workloads over %d connections" % (n, conns))
    load_s, t0 = create_many(api, "%s/namespaces/%s/codeflareworkloads" % (CFW, ns), bodies, conns)
    emit("n", n)
    emit("start_ready_seconds", start_ready)
    emit("loader_objects_per_second", n / load_s)
    finished = wait_progress(progress, watches, t0 + timeout, "ours", pid)
    for w in watches:
        w.stop()
    last_create = t0 + load_s
    if finished:
        done, elapsed = n, progress.done_at - t0
        rss_n = rss_kib(pid)
        rss_anon_n, rss_file_n = rss_split_kib(pid)
        file_by_object = rss_file_by_object_kib(pid)
        m1 = op.quiesce()
    else:
        # Time-boxed: the figures so far, per workload done (the caches hold all N workloads already).
        done, elapsed = min(progress.counts()), time.monotonic() - t0
        rss_n = rss_kib(pid)
        rss_anon_n, rss_file_n = rss_split_kib(pid)
        file_by_object = rss_file_by_object_kib(pid)
        m1 = op.metrics()
        emit("completed", done)
        emit("timed_out_seconds", timeout)
    cpu1, api1 = cpu_ms(pid), cpu_ms(apiserver_pid)
    dry1 = apiserver_dry_runs(api)
    per = max(done, 1)
    emit("objects_per_second", done / elapsed)
    emit("seconds", elapsed)
    # About 0 when the loader, not the operator, set the pace.
    emit("seconds_after_last_create", (progress.done_at if finished else time.monotonic()) - last_create)
    before = metric_sum(m0, "rest_client_requests_total", by="method")
    after = metric_sum(m1, "rest_client_requests_total", by="method")
    total = 0.0
    for verb in sorted(set(before) | set(after) | {"GET", "PATCH", "POST", "PUT", "DELETE"}):
        d = after.get(verb, 0) - before.get(verb, 0)
        total += d
        emit("requests_per_workload_%s" % verb, d / per)
    emit("requests_per_workload", total / per)
    # The server-side dry-run gate's share of those, as the apiserver counts them.
    emit("dry_run_requests_per_workload", (dry1 - dry0) / per)
    emit("reconciles_per_workload", (metric_sum(m1, "controller_runtime_reconcile_total")
                                     - metric_sum(m0, "controller_runtime_reconcile_total")) / per)
    emit("cpu_ms_per_workload", (cpu1 - cpu0) / per)
    emit("rss_start_kib", rss_start)
    emit("rss_at_n_kib", rss_n)
    emit("rss_anon_at_n_kib", rss_anon_n)
    emit("rss_file_at_n_kib", rss_file_n)
    for name, kib in file_by_object:
        emit("rss_file_at_n_kib_%s" % name, kib)
    emit("rss_peak_kib", hwm_kib(pid))
    emit("rss_per_workload_kib", (rss_n - rss_start) / n)  # every workload is cached, reconciled or not
    emit("apiserver_cpu_ms_per_workload", (api1 - api0) / per)
    # What the caches hold per workload (codeflare_informer_cache_bytes), by resource.
    for resource, value in sorted(metric_sum(m1, "codeflare_informer_cache_bytes", by="resource").items()):
        emit("cache_bytes_per_workload_%s" % resource, value / n)
    if not finished:
        raise RuntimeError("ours: only %d of %d workloads reconciled within %d s (figures above are for those)"
                           % (done, n, timeout))
    # The status the operator wrote, for the floor.
    first = api.get_json("%s/namespaces/%s/codeflareworkloads/bench-0" % (CFW, ns))
    return {"objects_per_second": done / elapsed, "cpu_ms": (cpu1 - cpu0) / per, "rss_n": rss_n,
            "done_at": progress.done_at,
            "status": first.get("status") or {}}


def versions(api, ns):
    """name -> resourceVersion of the workloads and RayClusters of `ns` (metadata-only LISTs)."""
    out = {}
    for kind, path in (("cfw", "%s/namespaces/%s/codeflareworkloads" % (CFW, ns)),
                       ("rc", "%s/namespaces/%s/rayclusters" % (RAY, ns))):
        status, data = api.request("GET", path, accept=META_ACCEPT.replace("PartialObjectMetadata",
                                                                          "PartialObjectMetadataList"))
        if status != 200:
            raise RuntimeError("GET %s: HTTP %d" % (path, status))
        for item in json.loads(data).get("items") or []:
            out[(kind, item["metadata"]["name"])] = item["metadata"]["resourceVersion"]
    return out


def ready(obj):
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (obj.get("status") or {}).get("conditions") or [])


def kuberay_status(api, op, n, conns, timeout):
    """Plays KubeRay before the restart: writes a ready status to every RayCluster and waits until the operator has
    reported each workload Ready, so that the restart finds workloads in the steady state of a real cluster (without
    it, the operator's 60 s check writes NoStatusFromKubeRay, whose message counts the seconds)."""
    ns = "bench-cfw"
    progress = Progress(n)
    for i in range(n):
        progress.mark("b", "bench-%d" % i)
    path = "%s/namespaces/%s/codeflareworkloads" % (CFW, ns)
    rv = api.get_json(path + "?limit=1")["metadata"]["resourceVersion"]
    w = Watch(api, path, rv, lambda typ, obj: progress.mark("a", obj["metadata"]["name"],
                                                            typ != "DELETED" and ready(obj)))
    w.start()
    m0 = op.metrics()
    body = json.dumps({"status": {"state": "ready", "desiredWorkerReplicas": 2, "availableWorkerReplicas": 2,
                                  "readyWorkerReplicas": 2}})
    it = iter(range(n))
    lock = threading.Lock()
    errors = []

    def worker():
        while True:
            with lock:
                i = next(it, None)
            if i is None:
                return
            try:
                api.ok("PATCH", "%s/namespaces/%s/rayclusters/bench-%d/status" % (RAY, ns, i), body,
                       ctype="application/merge-patch+json")
            except Exception as e:  # noqa: BLE001
                errors.append(e)
                return

    log("kuberay: writing a ready status to %d RayClusters" % n)
    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError("kuberay: %s" % errors[0])
    finished = wait_progress(progress, [w], t0 + timeout, "kuberay", op.proc.pid)
    w.stop()
    if not finished:
        raise RuntimeError("kuberay: not every workload Ready within %d s" % timeout)
    m1 = op.quiesce()
    emit("kuberay_status_objects_per_second", n / (progress.done_at - t0))
    by0 = metric_sum(m0, "rest_client_requests_total", by="method")
    by1 = metric_sum(m1, "rest_client_requests_total", by="method")
    emit("kuberay_status_write_requests_per_workload",
         sum(v - by0.get(verb, 0) for verb, v in by1.items() if verb != "GET") / n)


def phase_startup(api, op, n):
    op.stop()
    before = versions(api, "bench-cfw")
    log("start-up: restarting the operator with %d workloads in place" % n)
    pid = op.start()
    t_start = op.started_at
    t_ready = None
    deadline = t_start + 120 + n / 20.0
    while True:
        if op.proc.poll() is not None:
            raise RuntimeError("start-up: the operator exited (status %s)" % op.proc.returncode)
        if time.monotonic() >= deadline:
            raise RuntimeError("start-up: not every workload reconciled within %d s" % (deadline - t_start))
        if t_ready is None and op.ready():
            t_ready = time.monotonic()
        if t_ready is not None:
            m = op.metrics()
            busy = metric_sum(m, "workqueue_depth") + metric_sum(m, "controller_runtime_active_workers")
            if metric_sum(m, "controller_runtime_reconcile_total") >= n and not busy:
                t_done = time.monotonic()
                break
        time.sleep(0.05)
    startup_cpu = cpu_ms(pid)
    peak = hwm_kib(pid)
    m = op.quiesce()
    time.sleep(2.0)
    steady = rss_kib(pid)
    after = versions(api, "bench-cfw")
    by_verb = metric_sum(m, "rest_client_requests_total", by="method")
    emit("startup_ready_seconds", t_ready - t_start)
    emit("startup_seconds", t_done - t_start)
    emit("startup_reconciles", int(metric_sum(m, "controller_runtime_reconcile_total")))
    for verb in sorted(by_verb):
        emit("startup_requests_%s" % verb, int(by_verb[verb]))
    # Write requests (dry runs included), and the objects that really changed (resourceVersion moved).
    emit("startup_write_requests", int(sum(v for verb, v in by_verb.items() if verb != "GET")))
    changed = [k for k, rv in after.items() if before.get(k) != rv]
    emit("startup_changed_objects", len(changed))
    emit("startup_changed_workloads", sum(1 for kind, _ in changed if kind == "cfw"))
    emit("startup_changed_rayclusters", sum(1 for kind, _ in changed if kind == "rc"))
    if changed:  # one of them as it is now, with its managedFields, to see what was written
        kind, name = sorted(changed)[0]
        path = ("%s/namespaces/bench-cfw/codeflareworkloads/%s" % (CFW, name) if kind == "cfw"
                else "%s/namespaces/bench-cfw/rayclusters/%s" % (RAY, name))
        with open(os.path.join(op.work, "startup-changed-example.json"), "w") as f:
            json.dump(api.get_json(path), f, indent=1)
    emit("startup_cpu_ms", startup_cpu)  # the operator's CPU from its start until every workload is reconciled
    emit("startup_rss_peak_kib", peak)
    emit("startup_rss_steady_kib", steady)
    emit("startup_rss_peak_to_steady", peak / steady if steady else 0.0)
    # The apiserver's own time to list the workloads (every namespace, as the operator's informer lists them).
    times = []
    for _ in range(3):
        t0 = time.monotonic()
        items = api.list_all("%s/codeflareworkloads" % CFW, limit=500)
        times.append(time.monotonic() - t0)
    emit("apiserver_list_items", len(items))
    emit("apiserver_list_seconds", statistics.median(times))
    emit("startup_to_list_ratio", (t_done - t_start) / statistics.median(times))
    # The operator lists the children too: the apiserver's time for the RayClusters, and for both lists at once.
    rc_times, both_times = [], []
    for _ in range(3):
        t0 = time.monotonic()
        api.list_all("%s/rayclusters" % RAY, limit=500)
        rc_times.append(time.monotonic() - t0)
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda path: api.list_all(path, limit=500),
                          ["%s/codeflareworkloads" % CFW, "%s/rayclusters" % RAY]))
        both_times.append(time.monotonic() - t0)
    emit("apiserver_list_rayclusters_seconds", statistics.median(rc_times))
    emit("apiserver_list_both_seconds", statistics.median(both_times))
    emit("startup_to_both_lists_ratio", (t_done - t_start) / statistics.median(both_times))
    # The same list of the workloads from the watch cache (resourceVersion=0), the way the operator's first list asks.
    cached_times = []
    for _ in range(3):
        t0 = time.monotonic()
        api.list_all("%s/codeflareworkloads" % CFW, limit=500, from_cache=True)
        cached_times.append(time.monotonic() - t0)
    emit("apiserver_list_cached_seconds", statistics.median(cached_times))
    emit("startup_to_cached_list_ratio", (t_done - t_start) / statistics.median(cached_times))
    op.stop()


def warm_up(api, operator, sample, cfw_json, n, conns):
    """The apiserver's first requests of a kind cost it several times the later ones (its caches of schemas and
    converters fill): the same work as the phases, once, before any is measured, then removed."""
    ns = "bench-warmup"
    api.ensure_namespace(ns)
    log("warm-up: %d workloads, RayClusters, status writes and events" % n)
    bodies = [workload_body(cfw_json, "warm-%d" % i, ns) for i in range(n)]
    create_many(api, "%s/namespaces/%s/codeflareworkloads" % (CFW, ns), bodies, conns)
    rc = render_raycluster(operator, sample)
    name0 = rc["metadata"]["name"]
    rc_text = json.dumps(rc)
    for i in range(n):
        name = "warm-%d" % i
        d = json.loads(rc_text.replace('"%s"' % name0, '"%s"' % name))
        d["metadata"]["namespace"] = ns
        api.ok("PATCH", "%s/namespaces/%s/rayclusters/%s?fieldManager=bench&force=true" % (RAY, ns, name), json.dumps(d),
               ctype="application/apply-patch+yaml")
        api.ok("PATCH", "%s/namespaces/%s/codeflareworkloads/%s/status" % (CFW, ns, name),
               json.dumps({"status": {"observedGeneration": 1, "phase": "Pending"}}),
               ctype="application/merge-patch+json")
    for i in range(n):
        api.ok("DELETE", "%s/namespaces/%s/rayclusters/warm-%d" % (RAY, ns, i))
        api.ok("DELETE", "%s/namespaces/%s/codeflareworkloads/warm-%d" % (CFW, ns, i))


def phase_backlog(api, op, apiserver_pid, cfw_json, n, conns, timeout):
    """The operator's own pace at the apiserver's limit, the loader out of the way: N workloads created while it is
    stopped, then timed from its readiness (caches synced) until every one has its status and RayCluster."""
    ns = "bench-backlog"
    api.ensure_namespace(ns)
    op.stop()
    bodies = [workload_body(cfw_json, "backlog-%d" % i, ns) for i in range(n)]
    create_many(api, "%s/namespaces/%s/codeflareworkloads" % (CFW, ns), bodies, conns)
    progress = Progress(n)
    watches = watch_pair(api, "%s/namespaces/%s/codeflareworkloads" % (CFW, ns),
                         "%s/namespaces/%s/rayclusters" % (RAY, ns), progress, observed)
    log("backlog: %d workloads waiting; starting the operator" % n)
    pid = op.start()
    op.wait_ready(120)
    t0 = time.monotonic()
    cpu0, api0 = cpu_ms(pid), cpu_ms(apiserver_pid)
    finished = wait_progress(progress, watches, t0 + timeout, "backlog", pid)
    for w in watches:
        w.stop()
    elapsed = (progress.done_at if finished else time.monotonic()) - t0
    done = n if finished else min(progress.counts())
    emit("backlog_objects_per_second", done / elapsed)
    emit("backlog_cpu_ms_per_workload", (cpu_ms(pid) - cpu0) / max(done, 1))
    emit("backlog_apiserver_cpu_ms_per_workload", (cpu_ms(apiserver_pid) - api0) / max(done, 1))
    op.stop()
    return done / elapsed


def render_raycluster(operator, sample):
    out = subprocess.run([operator, "render", "-f", sample], check=True, capture_output=True).stdout
    for d in yaml.load_all(out, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        if isinstance(d, dict) and d.get("kind") == "RayCluster":
            return d
    raise RuntimeError("render of %s gave no RayCluster" % sample)


def phase_floor(api, apiserver_pid, operator, sample, cfw_json, status, n, conns):
    rc = render_raycluster(operator, sample)
    sample_name = rc["metadata"]["name"]
    rc_text = json.dumps(rc)
    status_patch = json.dumps({"status": status})
    figures = {}
    for c in (1, conns):
        ns = "bench-floor-c%d" % c
        api.ensure_namespace(ns)
        bodies = [workload_body(cfw_json, "bench-%d" % i, ns) for i in range(n)]
        api0 = cpu_ms(apiserver_pid)
        create_many(api, "%s/namespaces/%s/codeflareworkloads" % (CFW, ns), bodies, conns)
        api1 = cpu_ms(apiserver_pid)
        if c == 1:
            emit("loader_apiserver_cpu_ms_per_create", (api1 - api0) / n)
        uids = {w["metadata"]["name"]: w["metadata"]["uid"]
                for w in api.list_all("%s/namespaces/%s/codeflareworkloads" % (CFW, ns))}
        work = []
        for i in range(n):
            name = "bench-%d" % i
            d = json.loads(rc_text.replace('"%s"' % sample_name, '"%s"' % name))
            d["metadata"]["namespace"] = ns
            d["metadata"]["ownerReferences"] = [{
                "apiVersion": "codeflare.dev/v1alpha1", "kind": "CodeFlareWorkload", "name": name,
                "uid": uids[name], "controller": True, "blockOwnerDeletion": True}]
            work.append((name, json.dumps(d)))
        it = iter(work)
        lock = threading.Lock()
        errors = []

        def worker():
            while True:
                with lock:
                    item = next(it, None)
                if item is None:
                    return
                name, body = item
                try:
                    api.ok("POST", "%s/namespaces/%s/rayclusters" % (RAY, ns), body)
                    api.ok("PATCH", "%s/namespaces/%s/codeflareworkloads/%s/status" % (CFW, ns, name),
                           status_patch, ctype="application/merge-patch+json")
                except Exception as e:  # noqa: BLE001
                    errors.append(e)
                    return

        log("floor: %d RayClusters + status writes over %d connection(s)" % (n, c))
        conns0 = api.connections
        own0, api0 = own_cpu_ms(), cpu_ms(apiserver_pid)
        t0 = time.monotonic()
        threads = [threading.Thread(target=worker) for _ in range(c)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        own1, api1 = own_cpu_ms(), cpu_ms(apiserver_pid)
        if errors:
            raise RuntimeError("floor: %s" % errors[0])
        figures[c] = n / elapsed
        emit("floor_c%d_objects_per_second" % c, n / elapsed)
        emit("floor_c%d_apiserver_cpu_ms_per_object" % c, (api1 - api0) / n)
        emit("floor_c%d_client_cpu_ms_per_object" % c, (own1 - own0) / n)
        emit("floor_c%d_connections_opened" % c, api.connections - conns0)
    return figures


def phase_peer(api, apiserver_pid, binary, kubeconfig, work, n, conns, timeout):
    ns = "bench-foo"
    api.ensure_namespace(ns)
    logpath = os.path.join(work, "peer.log")
    logf = open(logpath, "wb")
    proc = subprocess.Popen([binary, "-kubeconfig", kubeconfig], stdin=subprocess.DEVNULL, stdout=logf,
                            stderr=subprocess.STDOUT)
    logf.close()
    with open(os.path.join(work, "peer.pid"), "w") as f:
        f.write(str(proc.pid))
    try:
        deadline = time.monotonic() + 120
        while True:  # sample-controller logs "Started workers" once its informers have synced
            with open(logpath, errors="replace") as f:
                if "Started workers" in f.read():
                    break
            if proc.poll() is not None:
                raise RuntimeError("peer: sample-controller exited (status %s); see %s" % (proc.returncode, logpath))
            if time.monotonic() >= deadline:
                raise RuntimeError("peer: sample-controller not started after 120 s; see %s" % logpath)
            time.sleep(0.05)
        time.sleep(1.0)
        pid = proc.pid
        rss_start = rss_kib(pid)
        cpu0, api0 = cpu_ms(pid), cpu_ms(apiserver_pid)
        progress = Progress(n)
        watches = watch_pair(api, "%s/namespaces/%s/foos" % (FOO, ns),
                             "/apis/apps/v1/namespaces/%s/deployments" % ns, progress,
                             lambda o: "availableReplicas" in (o.get("status") or {}))
        bodies = [json.dumps({"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo",
                              "metadata": {"name": "foo-%d" % i, "namespace": ns},
                              "spec": {"deploymentName": "foo-%d" % i, "replicas": 1}}) for i in range(n)]
        log("peer: creating %d Foos over %d connections" % (n, conns))
        _, t0 = create_many(api, "%s/namespaces/%s/foos" % (FOO, ns), bodies, conns)
        finished = wait_progress(progress, watches, t0 + timeout, "peer", pid)
        for w in watches:
            w.stop()
        if not finished:
            raise RuntimeError("peer: not every Foo done within %d s" % timeout)
        elapsed = progress.done_at - t0
        rss_n = rss_kib(pid)
        rss_anon_n, rss_file_n = rss_split_kib(pid)
        file_by_object = rss_file_by_object_kib(pid)
        time.sleep(2.0)  # no metrics to tell when it is idle: its events and resyncs settle
        cpu1, api1 = cpu_ms(pid), cpu_ms(apiserver_pid)
        emit("peer_objects_per_second", n / elapsed)
        emit("peer_seconds", elapsed)
        emit("peer_cpu_ms_per_object", (cpu1 - cpu0) / n)
        emit("peer_rss_start_kib", rss_start)
        emit("peer_rss_at_n_kib", rss_n)
        emit("peer_rss_anon_at_n_kib", rss_anon_n)
        emit("peer_rss_file_at_n_kib", rss_file_n)
        for name, kib in file_by_object:
            emit("peer_rss_file_at_n_kib_%s" % name, kib)
        emit("peer_rss_peak_kib", hwm_kib(pid))
        emit("peer_apiserver_cpu_ms_per_object", (api1 - api0) / n)
        return {"objects_per_second": n / elapsed, "cpu_ms": (cpu1 - cpu0) / n, "rss_n": rss_n}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def read_env(state):
    env = {}
    with open(os.path.join(state, "env")) as f:
        for line in f:
            if line.startswith("export ") and "=" in line:
                k, v = line[len("export "):].strip().split("=", 1)
                env[k] = v
    return env


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--state", required=True)
    p.add_argument("--operator", required=True)
    p.add_argument("--sample", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--n", type=int, default=500)
    p.add_argument("--conns", type=int, default=8)
    p.add_argument("--floor", action="store_true")
    p.add_argument("--peer")
    p.add_argument("--timeout", type=float)
    a = p.parse_args()
    timeout = a.timeout or 120 + a.n / 2.0
    env = read_env(a.state)
    with open(os.path.join(a.state, "kube-apiserver.pid")) as f:
        apiserver_pid = int(f.read().strip())
    api = Api(env["CFO_APISERVER_URL"], env["CFO_ADMIN_TOKEN"], env["CFO_CA_FILE"])
    kubeconfig = env["KUBECONFIG"]
    with open(a.sample) as f:
        docs = [d for d in yaml.load_all(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) if d]
    cfw_json = json.dumps(docs[0])
    os.makedirs(a.work, exist_ok=True)

    op = Operator(a.operator, kubeconfig, a.work)
    try:
        warm_up(api, a.operator, a.sample, cfw_json, max(50, a.n // 5), a.conns)
        ours = phase_ours(api, op, apiserver_pid, cfw_json, a.n, a.conns, timeout)
        kuberay_status(api, op, a.n, a.conns, timeout)
        phase_startup(api, op, a.n)
        backlog = phase_backlog(api, op, apiserver_pid, cfw_json, a.n, a.conns, timeout)
        if a.floor:
            floor = phase_floor(api, apiserver_pid, a.operator, a.sample, cfw_json, ours["status"], a.n, a.conns)
            emit("ratio_ours_to_floor_c1", ours["objects_per_second"] / floor[1])
            emit("ratio_ours_to_floor_c%d" % a.conns, ours["objects_per_second"] / floor[a.conns])
            # The same work with nothing else on the apiserver: the workloads waiting, then the operator alone.
            emit("ratio_backlog_to_floor_c1", backlog / floor[1])
        if a.peer:
            peer = phase_peer(api, apiserver_pid, a.peer, kubeconfig, a.work, a.n, a.conns, timeout)
            emit("ratio_ours_to_peer_objects_per_second", ours["objects_per_second"] / peer["objects_per_second"])
            emit("ratio_ours_to_peer_cpu_per_object", ours["cpu_ms"] / peer["cpu_ms"] if peer["cpu_ms"] else 0.0)
            emit("ratio_ours_to_peer_rss_at_n", ours["rss_n"] / peer["rss_n"])
    except RuntimeError as e:
        log("failed: %s" % e)
        return 1
    finally:
        op.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
