#pragma once
// A blocking HTTPS/1.1 client for the webhook server tests: one keep-alive connection to 127.0.0.1 that verifies
// the server's certificate against a CA and the IP, and reports the certificate it was shown.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>

#include <map>
#include <string>

namespace cfo::webhook::test {

/// One answer. `status` 0 when the connection failed (`error` says why).
struct HttpsReply {
  unsigned status = 0;
  std::string body;
  std::string error;
};

class HttpsClient {
 public:
  /// Connects and completes the TLS handshake; connected() says whether it worked (error() why).
  HttpsClient(unsigned short port, const std::string& ca_pem);

  bool connected() const { return connected_; }
  const std::string& error() const { return error_; }
  /// SHA-256 (lower-case hex) of the certificate the server presented.
  const std::string& peer_fingerprint() const { return fingerprint_; }

  /// Sends one request on the connection and reads its answer.
  HttpsReply send(const std::string& method, const std::string& target, const std::string& body,
                  const std::map<std::string, std::string>& headers = {{"Content-Type", "application/json"}});

  /// Writes raw bytes (e.g. a header promising a huge body) and reads one answer.
  HttpsReply send_raw(const std::string& bytes);

 private:
  boost::asio::io_context ioc_;
  boost::asio::ssl::context tls_;
  boost::asio::ssl::stream<boost::asio::ip::tcp::socket> stream_;
  bool connected_ = false;
  std::string error_;
  std::string fingerprint_;
};

}  // namespace cfo::webhook::test
