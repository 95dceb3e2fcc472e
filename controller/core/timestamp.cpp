#include "core/timestamp.hpp"

#include <ctime>

namespace cfo {

namespace {
bool parse_seconds(const std::string& s, std::time_t& out) {
  std::tm tm{};
  if (!strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return false;
  out = timegm(&tm);
  return true;
}
}  // namespace

std::string now_rfc3339() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int64_t seconds_between(const std::string& since, const std::string& now) {
  std::time_t a = 0, b = 0;
  if (!parse_seconds(since, a) || !parse_seconds(now, b)) return 0;
  return static_cast<int64_t>(b - a);
}

}  // namespace cfo
