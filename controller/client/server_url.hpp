#pragma once
// The apiserver address of a ClientConfig, taken apart for connecting and for TLS host checks.
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace cfo::client {

/// Parts of "https://host[:port][/prefix]". IPv6 literals are written in brackets in the URL
/// ("https://[fd00::1]:6443") and held without them in `host`.
struct ServerUrl {
  std::string host;          ///< DNS name or IP literal, no brackets
  std::string port = "443";  ///< decimal port, 443 when the URL has none
  std::string path_prefix;   ///< "" or "/prefix" (no trailing slash), prepended to every request path
  bool host_is_ip = false;   ///< true for IPv4/IPv6 literals: verify an IP SAN and send no SNI (RFC 6066 s3)

  /// The value of the Host header: "host:port", with IPv6 literals bracketed.
  std::string host_header() const;
};

/// Parses `url`. Only the https scheme is accepted (the client always uses TLS). Errors name what is wrong:
/// missing or unsupported scheme, empty host, unterminated "[", a port that is not 1..65535, user info, query.
Result<ServerUrl> parse_server_url(std::string_view url);

}  // namespace cfo::client
