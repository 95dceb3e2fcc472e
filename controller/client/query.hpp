#pragma once
// Building request targets: query parameters appended to a path.
#include <string>
#include <string_view>

namespace cfo::client {

/// Percent-encodes `value` for a query component (RFC 3986: everything except ALPHA DIGIT - . _ ~ is escaped).
std::string query_escape(std::string_view value);

/// `target` with "key=value" appended after "?" (no query yet) or "&" (a query exists); `value` is escaped.
/// append_query("/api/v1/pods", "watch", "1") == "/api/v1/pods?watch=1".
std::string append_query(std::string target, std::string_view key, std::string_view value);

}  // namespace cfo::client
