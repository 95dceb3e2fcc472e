#include "https_client.hpp"

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace cfo::webhook::test {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

HttpsClient::HttpsClient(unsigned short port, const std::string& ca_pem)
    : tls_(asio::ssl::context::tls_client), stream_(ioc_, tls_) {
  boost::system::error_code ec;
  tls_.add_certificate_authority(asio::buffer(ca_pem), ec);
  tls_.set_verify_mode(asio::ssl::verify_peer);
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(stream_.native_handle()), "127.0.0.1");
  stream_.lowest_layer().connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  if (!ec) stream_.handshake(asio::ssl::stream_base::client, ec);
  if (ec) {
    error_ = ec.message();
    return;
  }
  connected_ = true;
  if (X509* peer = SSL_get1_peer_certificate(stream_.native_handle())) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    X509_digest(peer, EVP_sha256(), md, &n);
    static const char* digits = "0123456789abcdef";
    for (unsigned i = 0; i < n; ++i) fingerprint_ += {digits[md[i] >> 4], digits[md[i] & 0xf]};
    X509_free(peer);
  }
}

HttpsReply HttpsClient::send(const std::string& method, const std::string& target, const std::string& body,
                             const std::map<std::string, std::string>& headers) {
  HttpsReply out;
  if (!connected_) {
    out.error = "not connected: " + error_;
    return out;
  }
  http::request<http::string_body> req(http::string_to_verb(method), target, 11);
  req.set(http::field::host, "127.0.0.1");
  for (const auto& [k, v] : headers) req.set(k, v);
  req.body() = body;
  req.prepare_payload();
  boost::system::error_code ec;
  http::write(stream_, req, ec);
  if (ec) {
    out.error = "write: " + ec.message();
    return out;
  }
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream_, buffer, res, ec);
  if (ec) {
    out.error = "read: " + ec.message();
    return out;
  }
  out.status = res.result_int();
  out.body = res.body();
  return out;
}

HttpsReply HttpsClient::send_raw(const std::string& bytes) {
  HttpsReply out;
  boost::system::error_code ec;
  asio::write(stream_, asio::buffer(bytes), ec);
  if (ec) {
    out.error = "write: " + ec.message();
    return out;
  }
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream_, buffer, res, ec);
  if (ec) {
    out.error = "read: " + ec.message();
    return out;
  }
  out.status = res.result_int();
  out.body = res.body();
  return out;
}

}  // namespace cfo::webhook::test
