// The probe/metrics HTTP server on a real loopback socket, and its bind-address syntax.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <stdexcept>
#include <string>

#include "runtime/http_server.hpp"

using namespace cfo::runtime;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

/// Sends `raw` on a new connection to 127.0.0.1:port, ends the sending side, and returns everything the server writes
/// until it closes.
std::string send_raw(uint16_t port, const std::string& raw) {
  asio::io_context ioc;
  tcp::socket s(ioc);
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  boost::system::error_code ec;
  asio::write(s, asio::buffer(raw), ec);       // the server may answer 400 and stop reading before the end
  s.shutdown(tcp::socket::shutdown_send, ec);  // end of input: the server answers what it got, then closes
  std::string out;
  char buf[4096];
  for (;;) {
    std::size_t n = s.read_some(asio::buffer(buf), ec);
    out.append(buf, n);
    if (ec) break;
  }
  return out;
}

std::string get(uint16_t port, const std::string& target) {
  return send_raw(port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
}

HttpResponse echo(const HttpRequest& req) {
  if (req.path == "/throw") throw std::runtime_error("handler bug");
  return {200, "text/plain", req.method + " " + req.path + " ? " + req.query};
}

}  // namespace

TEST(BindAddress, ControllerRuntimeForms) {
  auto any = parse_bind_address(":8080");
  ASSERT_TRUE(any && *any);
  EXPECT_EQ((*any)->host, "");
  EXPECT_EQ((*any)->port, 8080);
  auto off = parse_bind_address("0");
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->has_value());
  auto v4 = parse_bind_address("127.0.0.1:0");
  ASSERT_TRUE(v4 && *v4);
  EXPECT_EQ((*v4)->host, "127.0.0.1");
  EXPECT_EQ((*v4)->port, 0);
  auto v6 = parse_bind_address("[::1]:9090");
  ASSERT_TRUE(v6 && *v6);
  EXPECT_EQ((*v6)->host, "::1");
  auto local = parse_bind_address("localhost:1");
  ASSERT_TRUE(local && *local);
  EXPECT_EQ((*local)->host, "127.0.0.1");
  for (const char* bad : {"", "8080", ":", ":65536", ":-1", ":80a", "example.com:80", "::1:80", "[::1]80", "[::1:80"})
    EXPECT_FALSE(parse_bind_address(bad).has_value()) << bad;
}

TEST(HttpServer, ServesTheHandlerOnAnEphemeralPort) {
  HttpServer server("test", echo);
  ASSERT_TRUE(server.start({"127.0.0.1", 0}).has_value());
  ASSERT_NE(server.port(), 0);
  std::string r = get(server.port(), "/healthz?verbose&exclude=x");
  EXPECT_NE(r.find("HTTP/1.1 200"), std::string::npos) << r;
  EXPECT_NE(r.find("GET /healthz ? verbose&exclude=x"), std::string::npos) << r;
}

TEST(HttpServer, KeepAliveServesSeveralRequestsOnOneConnection) {
  HttpServer server("test", echo);
  ASSERT_TRUE(server.start({"127.0.0.1", 0}).has_value());
  std::string r = send_raw(server.port(),
                           "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_NE(r.find("GET /a"), std::string::npos) << r;
  EXPECT_NE(r.find("GET /b"), std::string::npos) << r;
}

TEST(HttpServer, GarbageOversizeAndThrowingHandlersNeverStopIt) {
  HttpServer server("test", echo);
  ASSERT_TRUE(server.start({"127.0.0.1", 0}).has_value());
  EXPECT_NE(send_raw(server.port(), "\x16\x03\x01 not http at all\r\n\r\n").find("400"), std::string::npos);
  EXPECT_NE(send_raw(server.port(), "GET / HTTP/1.1\r\nX: " + std::string(20000, 'a') + "\r\n\r\n").find("400"),
            std::string::npos);
  EXPECT_NE(
      send_raw(server.port(), "POST / HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" + std::string(100, 'b')).find("400"),
      std::string::npos);
  EXPECT_NE(get(server.port(), "/throw").find("HTTP/1.1 500"), std::string::npos);
  send_raw(server.port(), "");  // connect and hang up
  EXPECT_NE(get(server.port(), "/still-here").find("HTTP/1.1 200"), std::string::npos);
}

TEST(HttpServer, APortInUseIsAnErrorAtStart) {
  HttpServer first("first", echo);
  ASSERT_TRUE(first.start({"127.0.0.1", 0}).has_value());
  HttpServer second("second", echo);
  auto r = second.start({"127.0.0.1", first.port()});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("second"), std::string::npos) << r.error().message;
}

TEST(HttpServer, StopClosesTheListener) {
  HttpServer server("test", echo);
  ASSERT_TRUE(server.start({"127.0.0.1", 0}).has_value());
  const uint16_t port = server.port();
  server.stop();
  server.stop();  // idempotent
  asio::io_context ioc;
  tcp::socket s(ioc);
  boost::system::error_code ec;
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  EXPECT_TRUE(ec) << "nothing listens any more";
}
