#include "client/query.hpp"

namespace cfo::client {

std::string query_escape(std::string_view value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 0xF];
    }
  }
  return out;
}

std::string append_query(std::string target, std::string_view key, std::string_view value) {
  target += target.find('?') == std::string::npos ? '?' : '&';
  target += query_escape(key);
  target += '=';
  target += query_escape(value);
  return target;
}

}  // namespace cfo::client
