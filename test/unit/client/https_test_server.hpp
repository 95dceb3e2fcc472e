#pragma once
// A small HTTPS/1.1 server on 127.0.0.1 (port chosen by the kernel) for round-trip tests of RestClient.
// One thread accepts; each connection is served on its own thread by the test's handler.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test_certificates.hpp"

namespace cfo::client::testing {

/// What the server received. Header names are lower-case.
struct RecordedRequest {
  std::string method;
  std::string target;
  std::string body;
  std::map<std::string, std::string> headers;
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string{} : it->second;
  }
};

/// One request being answered. Methods block on the connection's socket.
class ServerExchange {
 public:
  using Stream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;
  ServerExchange(Stream& stream, RecordedRequest request, const std::atomic<bool>& stopping, bool keep_alive = false)
      : stream_(stream), request_(std::move(request)), stopping_(stopping), keep_alive_(keep_alive) {}

  const RecordedRequest& request() const { return request_; }

  /// A complete response with Content-Length.
  void respond(unsigned status, const std::string& body,
               const std::vector<std::pair<std::string, std::string>>& headers = {});
  /// Starts a chunked response; send_chunk writes one chunk per call, end_chunked the last (empty) chunk.
  void start_chunked(unsigned status);
  void send_chunk(const std::string& data);
  void end_chunked();
  /// Blocks until the client closes the connection (true), `max_ms` passes or the server stops (false).
  bool wait_for_client_close(std::chrono::milliseconds max_ms);
  /// Ends the connection after this exchange, even on a keep-alive server (with nothing sent: the client sees it drop).
  void close_connection() { closing_ = true; }
  bool closing() const { return closing_; }

 private:
  Stream& stream_;
  RecordedRequest request_;
  const std::atomic<bool>& stopping_;
  bool keep_alive_;
  bool closing_ = false;
};

/// One canned answer of the test server.
struct CannedResponse {
  unsigned status = 200;
  std::string body = "{}";
  std::vector<std::pair<std::string, std::string>> headers;
  /// Close the connection without answering (the client sees the connection drop), on a keep-alive server too.
  bool drop = false;
};

/// A handler answering the n-th request with responses[n], and every later request with the last one. The
/// responses must not be empty.
std::function<void(ServerExchange&)> answer_in_order(std::vector<CannedResponse> responses);

class HttpsTestServer {
 public:
  using Handler = std::function<void(ServerExchange&)>;

  /// Serves with `serving` (certificate + key). When `client_ca_pem` is set, clients must present a certificate
  /// issued by that CA.
  /// With `keep_alive`, a connection serves request after request (complete responses say keep-alive) until the client
  /// closes it; otherwise every response closes its connection.
  HttpsTestServer(const TestCert& serving, Handler handler, const std::string& client_ca_pem = {},
                  bool keep_alive = false);
  ~HttpsTestServer();

  unsigned short port() const { return port_; }
  /// "https://127.0.0.1:<port>"
  std::string url() const;
  std::vector<RecordedRequest> requests() const;
  /// Connections whose TLS handshake failed (e.g. the client rejected the certificate).
  int handshake_failures() const { return handshake_failures_.load(); }
  /// Connections accepted with a completed TLS handshake.
  int connections_served() const { return connections_served_.load(); }
  /// Served connections that the client closed (the next request's read found the end of the stream).
  int connections_closed_by_client() const { return connections_closed_by_client_.load(); }

 private:
  void accept_loop();
  void serve(boost::asio::ip::tcp::socket socket);

  boost::asio::io_context ioc_;
  boost::asio::ssl::context tls_;
  boost::asio::ip::tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  Handler handler_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> handshake_failures_{0};
  std::atomic<int> connections_served_{0};
  std::atomic<int> connections_closed_by_client_{0};
  bool keep_alive_ = false;
  mutable std::mutex mu_;
  std::vector<RecordedRequest> requests_;
  std::vector<std::thread> connections_;
  std::thread acceptor_thread_;
};

}  // namespace cfo::client::testing
