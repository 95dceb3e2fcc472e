#pragma once
// A small plain-HTTP server for /metrics and the health probes: Boost.Beast on one thread, one handler.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "core/error.hpp"

namespace cfo::runtime {

/// Where to listen: an IP literal (IPv4 or IPv6, no brackets; "" = every IPv4 address) and a port (0 = any free
/// port, see HttpServer::port()).
struct BindAddress {
  std::string host;
  uint16_t port = 0;
};

/// Parses a controller-runtime bind address: "0" means disabled (std::nullopt); otherwise "[host]:port" where host
/// is empty (all addresses, as ":8080"), an IPv4 literal, "localhost" (127.0.0.1) or a bracketed IPv6 literal
/// ("[::1]:8080"), and port is 0..65535. Errors say what is wrong with the text.
Result<std::optional<BindAddress>> parse_bind_address(std::string_view text);

/// A request as the handler sees it. `path` is the target without its query; `query` the part after '?'.
struct HttpRequest {
  std::string method;
  std::string path;
  std::string query;
};

/// A response: status, Content-Type and body (HEAD requests get the headers only).
struct HttpResponse {
  unsigned status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

/// Turns a request into a response. Runs on the server's thread, one request at a time; exceptions become 500.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

/// One listening socket served by one thread with asynchronous Beast I/O, so a slow or idle client never blocks
/// the others. Keep-alive is honoured. Requests whose header exceeds 8 KiB or whose body exceeds 4 KiB, and
/// anything that does not parse as HTTP/1.x, get 400 and the connection is closed (after up to 2 s or 64 KiB of
/// the client's remaining input is read and dropped, so that the answer is not lost to a TCP reset); an idle
/// connection is closed after 10 s; beyond 64 open connections new ones are closed at once. Nothing a client sends
/// can end the server.
class HttpServer {
 public:
  /// `name` appears in logs ("metrics", "health probes").
  HttpServer(std::string name, HttpHandler handler);
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  /// Stops the server.
  ~HttpServer();

  /// Binds and listens on `address` (synchronously, so a port in use is reported here), then serves on a new
  /// thread. Error: bad address, bind/listen failure, or already started.
  Result<void> start(const BindAddress& address);
  /// The bound port (the real one when port 0 was asked); 0 before start().
  uint16_t port() const { return port_.load(); }
  /// Closes the listening socket and every connection, and joins the thread. Idempotent.
  void stop();

  struct Impl;  ///< the I/O state; defined and used only in http_server.cpp

 private:
  std::string name_;
  HttpHandler handler_;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
  std::atomic<uint16_t> port_{0};
};

}  // namespace cfo::runtime
