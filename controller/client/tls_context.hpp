#pragma once
// TLS settings of the apiserver connection: the shared context (trust, client certificate) and the
// per-connection host check.
#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <string>

#include "client/server_url.hpp"
#include "core/error.hpp"

namespace cfo::client {

/// Builds a client TLS context: TLS 1.2 or newer; the peer is verified against `ca_pem` (one or more PEM
/// certificates; the system trust store when empty) unless `insecure_skip_verify`; a client certificate chain and
/// private key (PEM, any key type OpenSSL reads) are presented when both are non-empty. Connections release their
/// record buffers while idle (SSL_MODE_RELEASE_BUFFERS).
/// Errors name the bad input: "certificate authority: ...", "client certificate: ...", "client key: ...".
Result<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(const std::string& ca_pem,
                                                                    bool insecure_skip_verify,
                                                                    const std::string& client_cert_pem,
                                                                    const std::string& client_key_pem);

/// Prepares one connection's SSL object for `url`: sends SNI for DNS names (never for IP literals, RFC 6066 s3)
/// and, when `verify`, makes the handshake check that the certificate was issued for the host: an IP SAN for IP
/// literals (X509_VERIFY_PARAM_set1_ip_asc), a DNS SAN otherwise (X509_VERIFY_PARAM_set1_host).
Result<void> prepare_tls_session(SSL* ssl, const ServerUrl& url, bool verify);

}  // namespace cfo::client
