#include "validation/schema_formats.hpp"

#include <cctype>
#include <cstdint>
#include <limits>

namespace cfo::validation::structural {

namespace {

bool digits(std::string_view s, std::size_t pos, std::size_t n) {
  if (pos + n > s.size()) return false;
  for (std::size_t i = pos; i < pos + n; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

int number(std::string_view s, std::size_t pos, std::size_t n) {
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

/// "YYYY-MM-DD" naming a day that exists (Gregorian, leap years included), as Go's time.Parse("2006-01-02") accepts.
bool is_full_date(std::string_view s) {
  if (s.size() != 10 || !digits(s, 0, 4) || s[4] != '-' || !digits(s, 5, 2) || s[7] != '-' || !digits(s, 8, 2))
    return false;
  const int year = number(s, 0, 4), month = number(s, 5, 2), day = number(s, 8, 2);
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

bool is_zone(std::string_view z) {
  if (z == "z") return true;
  return z.size() == 6 && (z[0] == '+' || z[0] == '-') && digits(z, 1, 2) && z[3] == ':' && digits(z, 4, 2);
}

/// "hh:mm:ss", then optionally a fraction (strfmt's pattern takes any one character followed by digits, not only a
/// dot), then "z" or "+hh:mm" / "-hh:mm". Expects lower case. Hours up to 23, minutes and seconds up to 59.
bool is_time_part(std::string_view s) {
  if (s.size() < 9 || !digits(s, 0, 2) || s[2] != ':' || !digits(s, 3, 2) || s[5] != ':' || !digits(s, 6, 2))
    return false;
  if (number(s, 0, 2) > 23 || number(s, 3, 2) > 59 || number(s, 6, 2) > 59) return false;
  const std::string_view rest = s.substr(8);
  if (is_zone(rest)) return true;
  std::size_t end = 1;  // one character of any kind, then at least one digit
  while (end < rest.size() && std::isdigit(static_cast<unsigned char>(rest[end]))) ++end;
  return end > 1 && is_zone(rest.substr(end));
}

std::string as_text(const json::Value& v) { return json::dump(v); }

}  // namespace

bool is_go_rfc3339(std::string_view s) {
  // "YYYY-MM-DD" "T" "hh:mm:ss" ["." or "," digits] ("Z" | "+hh:mm" | "-hh:mm"), case as written.
  if (s.size() < 20 || !is_full_date(s.substr(0, 10)) || s[10] != 'T') return false;
  std::string_view t = s.substr(11);
  if (!digits(t, 0, 2) || t[2] != ':' || !digits(t, 3, 2) || t[5] != ':' || !digits(t, 6, 2)) return false;
  if (number(t, 0, 2) > 23 || number(t, 3, 2) > 59 || number(t, 6, 2) > 59) return false;
  std::size_t pos = 8;
  if (pos < t.size() && (t[pos] == '.' || t[pos] == ',')) {
    std::size_t end = pos + 1;
    while (end < t.size() && std::isdigit(static_cast<unsigned char>(t[end]))) ++end;
    if (end == pos + 1) return false;
    pos = end;
  }
  const std::string_view zone = t.substr(pos);
  if (zone == "Z") return true;
  // Go's general parser (used when its RFC 3339 fast path gives up) takes offsets up to 24 hours and 60 minutes.
  return zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && digits(zone, 1, 2) && zone[3] == ':' &&
         digits(zone, 4, 2) && number(zone, 1, 2) <= 24 && number(zone, 4, 2) <= 60;
}

bool is_date_time(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // The date is what precedes the first "t", the time what lies between it and the next "t" (if any).
  const std::size_t t = lower.find('t');
  if (t == std::string::npos) return false;
  const std::size_t next = lower.find('t', t + 1);
  const std::string_view all(lower);
  return is_full_date(all.substr(0, t)) &&
         is_time_part(all.substr(t + 1, next == std::string::npos ? next : next - t - 1));
}

std::optional<std::string> format_violation(const json::Value& schema, const json::Value& value) {
  const json::Value* format = json::find(schema, "format");
  if (!format || !format->IsString()) return std::nullopt;
  const std::string_view f(format->GetString(), format->GetStringLength());
  if (f == "date-time") {
    if (!value.IsString()) return std::nullopt;
    const std::string_view text(value.GetString(), value.GetStringLength());
    if (!is_date_time(text))
      return "value " + as_text(value) + " is not a date-time (RFC 3339, e.g. \"2024-05-01T12:00:00Z\")";
    if (!is_go_rfc3339(text))
      return "value " + as_text(value) +
             " is accepted by the apiserver, but the controllers decode it with Go's RFC 3339 parser (metav1.Time), "
             "which needs an upper-case T and Z and a '.' before a fraction, e.g. \"2024-05-01T12:00:00Z\"";
    return std::nullopt;
  }
  if (f == "int32" || f == "int64") {
    if (!value.IsNumber() || value.IsDouble()) return std::nullopt;  // not an integer: the type check says so
    const bool fits = f == "int32" ? value.IsInt() : value.IsInt64();
    if (fits) return std::nullopt;
    if (f == "int32" && value.IsInt64())
      return "value " + as_text(value) +
             " does not fit format int32 (-2147483648..2147483647): the apiserver stores it, but the controller "
             "that reads the object cannot decode it";
    return "value " + as_text(value) + " does not fit format " + std::string(f) +
           " and is beyond int64 (-9223372036854775808..9223372036854775807): the apiserver reads it as a number "
           "that is not an integer";
  }
  return std::nullopt;
}

}  // namespace cfo::validation::structural
