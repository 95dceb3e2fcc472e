#include "https_test_server.hpp"

#include <poll.h>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cctype>
#include <memory>

namespace cfo::client::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {
/// Waits up to `ms` for the socket to become readable (data, close or error).
bool readable(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) > 0;
}
}  // namespace

void ServerExchange::respond(unsigned status, const std::string& body,
                             const std::vector<std::pair<std::string, std::string>>& headers) {
  http::response<http::string_body> res{static_cast<http::status>(status), 11};
  res.set(http::field::content_type, "application/json");
  for (const auto& [k, v] : headers) res.set(k, v);
  res.body() = body;
  res.keep_alive(keep_alive_);
  res.prepare_payload();
  boost::system::error_code ec;
  http::write(stream_, res, ec);
}

void ServerExchange::start_chunked(unsigned status) {
  http::response<http::empty_body> res{static_cast<http::status>(status), 11};
  res.set(http::field::content_type, "application/json");
  res.chunked(true);
  http::response_serializer<http::empty_body> sr{res};
  boost::system::error_code ec;
  http::write_header(stream_, sr, ec);
}

void ServerExchange::send_chunk(const std::string& data) {
  boost::system::error_code ec;
  asio::write(stream_, http::make_chunk(asio::buffer(data)), ec);
}

void ServerExchange::end_chunked() {
  boost::system::error_code ec;
  asio::write(stream_, http::make_chunk_last(), ec);
}

bool ServerExchange::wait_for_client_close(std::chrono::milliseconds max_ms) {
  auto deadline = std::chrono::steady_clock::now() + max_ms;
  int fd = stream_.next_layer().native_handle();
  while (!stopping_.load() && std::chrono::steady_clock::now() < deadline) {
    if (!readable(fd, 20)) continue;
    char byte;
    boost::system::error_code ec;
    stream_.read_some(asio::buffer(&byte, 1), ec);
    if (ec) return true;
  }
  return false;
}

std::function<void(ServerExchange&)> answer_in_order(std::vector<CannedResponse> responses) {
  auto shared = std::make_shared<const std::vector<CannedResponse>>(std::move(responses));
  auto next = std::make_shared<std::atomic<std::size_t>>(0);
  return [shared, next](ServerExchange& x) {
    const std::size_t n = std::min(next->fetch_add(1), shared->size() - 1);
    const CannedResponse& r = (*shared)[n];
    if (r.drop)
      x.close_connection();
    else
      x.respond(r.status, r.body, r.headers);
  };
}

HttpsTestServer::HttpsTestServer(const TestCert& serving, Handler handler, const std::string& client_ca_pem,
                                 bool keep_alive)
    : tls_(asio::ssl::context::tls_server), acceptor_(ioc_), handler_(std::move(handler)), keep_alive_(keep_alive) {
  tls_.use_certificate_chain(asio::buffer(serving.cert_pem));
  tls_.use_private_key(asio::buffer(serving.key_pem), asio::ssl::context::pem);
  if (!client_ca_pem.empty()) {
    tls_.add_certificate_authority(asio::buffer(client_ca_pem));
    tls_.set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  }
  tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
  acceptor_.open(ep.protocol());
  acceptor_.set_option(tcp::acceptor::reuse_address(true));
  acceptor_.bind(ep);
  acceptor_.listen();
  acceptor_.non_blocking(true);
  port_ = acceptor_.local_endpoint().port();
  acceptor_thread_ = std::thread([this] { accept_loop(); });
}

HttpsTestServer::~HttpsTestServer() {
  stopping_ = true;
  acceptor_thread_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    threads.swap(connections_);
  }
  for (auto& t : threads) t.join();
}

std::string HttpsTestServer::url() const { return "https://127.0.0.1:" + std::to_string(port_); }

std::vector<RecordedRequest> HttpsTestServer::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

void HttpsTestServer::accept_loop() {
  while (!stopping_.load()) {
    if (!readable(acceptor_.native_handle(), 20)) continue;
    boost::system::error_code ec;
    tcp::socket socket(ioc_);
    acceptor_.accept(socket, ec);
    if (ec) continue;
    socket.non_blocking(false);
    std::lock_guard lock(mu_);
    connections_.emplace_back([this, s = std::move(socket)]() mutable { serve(std::move(s)); });
  }
}

void HttpsTestServer::serve(tcp::socket socket) {
  ServerExchange::Stream stream(std::move(socket), tls_);
  boost::system::error_code ec;
  stream.handshake(asio::ssl::stream_base::server, ec);
  if (ec) {
    ++handshake_failures_;
    return;
  }
  ++connections_served_;
  beast::flat_buffer buffer;
  do {
    http::request<http::string_body> req;
    http::read(stream, buffer, req, ec);
    if (ec) {
      if (!stopping_.load()) ++connections_closed_by_client_;
      return;
    }
    RecordedRequest rec;
    rec.method = std::string(req.method_string().data(), req.method_string().size());
    rec.target = std::string(req.target().data(), req.target().size());
    rec.body = req.body();
    for (const auto& field : req) {
      std::string name(field.name_string().data(), field.name_string().size());
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      rec.headers[name] = std::string(field.value().data(), field.value().size());
    }
    {
      std::lock_guard lock(mu_);
      requests_.push_back(rec);
    }
    ServerExchange exchange(stream, std::move(rec), stopping_, keep_alive_);
    handler_(exchange);
    if (exchange.closing()) break;
  } while (keep_alive_ && !stopping_.load());
  // Send close_notify without waiting for the client's, then close the socket.
  SSL_shutdown(stream.native_handle());
  stream.next_layer().shutdown(tcp::socket::shutdown_both, ec);
  stream.next_layer().close(ec);
}

}  // namespace cfo::client::testing
