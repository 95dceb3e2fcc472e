#include "client/tls_context.hpp"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace cfo::client {

namespace asio = boost::asio;

Result<std::shared_ptr<asio::ssl::context>> make_tls_context(const std::string& ca_pem, bool insecure_skip_verify,
                                                             const std::string& client_cert_pem,
                                                             const std::string& client_key_pem) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  if (SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION) != 1)
    return fail("TLS: cannot require TLS 1.2 or newer");
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_compression);
  // OpenSSL frees a connection's record buffers (about 34 KiB) whenever they are empty: most of the operator's
  // connections are watches waiting for their next event, or idle in the pool.
  SSL_CTX_set_mode(ctx->native_handle(), SSL_MODE_RELEASE_BUFFERS);

  boost::system::error_code ec;
  if (insecure_skip_verify) {
    ctx->set_verify_mode(asio::ssl::verify_none);
  } else {
    ctx->set_verify_mode(asio::ssl::verify_peer);
    if (ca_pem.empty())
      ctx->set_default_verify_paths(ec);
    else
      ctx->add_certificate_authority(asio::buffer(ca_pem), ec);
    if (ec) return fail("certificate authority: " + ec.message());
  }

  if (!client_cert_pem.empty() && !client_key_pem.empty()) {
    ctx->use_certificate_chain(asio::buffer(client_cert_pem), ec);
    if (ec) return fail("client certificate: " + ec.message());
    ctx->use_private_key(asio::buffer(client_key_pem), asio::ssl::context::pem, ec);
    if (ec) return fail("client key: " + ec.message());
    if (SSL_CTX_check_private_key(ctx->native_handle()) != 1)
      return fail("client key: it does not match the client certificate");
  }
  return ctx;
}

Result<void> prepare_tls_session(SSL* ssl, const ServerUrl& url, bool verify) {
  if (!url.host_is_ip && SSL_set_tlsext_host_name(ssl, url.host.c_str()) != 1)
    return fail("TLS: cannot set the server name \"" + url.host + "\"");
  if (!verify) return {};
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  if (url.host_is_ip) {
    if (X509_VERIFY_PARAM_set1_ip_asc(param, url.host.c_str()) != 1)
      return fail("TLS: cannot verify against the IP address \"" + url.host + "\"");
  } else {
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (X509_VERIFY_PARAM_set1_host(param, url.host.c_str(), 0) != 1)
      return fail("TLS: cannot verify against the host name \"" + url.host + "\"");
  }
  return {};
}

}  // namespace cfo::client
