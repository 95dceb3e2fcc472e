#pragma once
// ASCII character classes. The Kubernetes rules for names, keys and quantities are stated over ASCII; these are
// inline and locale-free, unlike <cctype>'s calls, which matters where every field of every object passes (the path
// a schema walk builds, the names a Pod rule checks).
namespace cfo::ascii {

/// '0'-'9'.
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
/// 'a'-'z' and 'A'-'Z'.
constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
/// is_digit or is_alpha.
constexpr bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }
/// 'A'-'Z' as 'a'-'z'; any other character as it is.
constexpr char to_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace cfo::ascii
