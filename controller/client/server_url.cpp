#include "client/server_url.hpp"

#include <boost/asio/ip/address.hpp>

#include <charconv>

namespace cfo::client {

std::string ServerUrl::host_header() const {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + port;
}

Result<ServerUrl> parse_server_url(std::string_view url) {
  const std::string shown = "server URL \"" + std::string(url) + "\"";
  constexpr std::string_view scheme = "https://";
  if (url.substr(0, scheme.size()) != scheme) {
    if (url.find("://") == std::string_view::npos) return fail(shown + " has no scheme; expected https://host:port");
    return fail(shown + " uses an unsupported scheme; only https is supported");
  }
  std::string_view rest = url.substr(scheme.size());
  ServerUrl out;
  auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = rest.substr(slash);
    if (path.find_first_of("?#") != std::string_view::npos) return fail(shown + " must not carry a query or fragment");
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    out.path_prefix = std::string(path);
  }
  if (authority.find('@') != std::string_view::npos) return fail(shown + " must not carry user info");

  std::string_view port;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos) return fail(shown + " has an unterminated '[' in its host");
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return fail(shown + " has unexpected text after the IPv6 host");
      port = after.substr(1);
      has_port = true;
    }
  } else {
    auto colon = authority.rfind(':');
    if (colon != std::string_view::npos) {
      if (authority.find(':') != colon) return fail(shown + ": IPv6 hosts must be written in brackets");
      port = authority.substr(colon + 1);
      has_port = true;
      authority = authority.substr(0, colon);
    }
    out.host = std::string(authority);
  }
  if (out.host.empty()) return fail(shown + " has an empty host");
  if (has_port) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535)
      return fail(shown + " has an invalid port \"" + std::string(port) + "\"");
    out.port = std::to_string(value);
  }
  boost::system::error_code ec;
  boost::asio::ip::make_address(out.host, ec);
  out.host_is_ip = !ec;
  if (!out.host_is_ip && out.host.find(':') != std::string::npos)
    return fail(shown + " has an invalid IPv6 host \"" + out.host + "\"");
  return out;
}

}  // namespace cfo::client
