#include "webhook/cert_watcher.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "client/file_text.hpp"

namespace cfo::webhook {

namespace asio = boost::asio;

Result<std::shared_ptr<asio::ssl::context>> make_server_tls_context(const std::string& cert_pem,
                                                                    const std::string& key_pem) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  if (SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION) != 1)
    return fail("TLS: cannot require TLS 1.2 or newer");
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_compression |
                   asio::ssl::context::single_dh_use);
  ctx->set_verify_mode(asio::ssl::verify_none);  // the apiserver does not present a client certificate here
  boost::system::error_code ec;
  if (cert_pem.empty()) return fail("certificate: the file is empty");
  if (key_pem.empty()) return fail("key: the file is empty");
  ctx->use_certificate_chain(asio::buffer(cert_pem), ec);
  if (ec) return fail("certificate: " + ec.message());
  ctx->use_private_key(asio::buffer(key_pem), asio::ssl::context::pem, ec);
  if (ec) return fail("key: " + ec.message());
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
    ERR_clear_error();
    return fail("key: it does not match the certificate");
  }
  return ctx;
}

CertWatcher::CertWatcher(std::string cert_path, std::string key_path)
    : cert_path_(std::move(cert_path)), key_path_(std::move(key_path)) {}

CertWatcher::Outcome CertWatcher::check(std::string* error) {
  auto cert = client::read_file_text(cert_path_);
  auto key = client::read_file_text(key_path_);
  std::lock_guard lk(mu_);
  if (!cert || !key) {
    const std::string why = !cert ? cert.error().message : key.error().message;
    const std::string marker = "\x01unreadable:" + why;
    if (rejected_cert_ == marker) return Outcome::Unchanged;
    rejected_cert_ = marker;
    rejected_key_.clear();
    if (error) *error = why;
    return Outcome::Rejected;
  }
  if (context_ && *cert == loaded_cert_ && *key == loaded_key_) {
    rejected_cert_.clear();  // readable again: a later failure is reported anew
    return Outcome::Unchanged;
  }
  if (*cert == rejected_cert_ && *key == rejected_key_) return Outcome::Unchanged;
  auto ctx = make_server_tls_context(*cert, *key);
  if (!ctx) {
    rejected_cert_ = *cert;
    rejected_key_ = *key;
    if (error) *error = ctx.error().message;
    return Outcome::Rejected;
  }
  context_ = std::move(*ctx);
  loaded_cert_ = std::move(*cert);
  loaded_key_ = std::move(*key);
  rejected_cert_.clear();
  rejected_key_.clear();
  return Outcome::Loaded;
}

std::shared_ptr<asio::ssl::context> CertWatcher::current() const {
  std::lock_guard lk(mu_);
  return context_;
}

std::string CertWatcher::current_certificate() const {
  std::lock_guard lk(mu_);
  return loaded_cert_;
}

}  // namespace cfo::webhook
