#include "cmd/operations_flags.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "cmd/shutdown.hpp"

namespace cfo::cmd {

namespace {

constexpr long kMaxBurst = 1'000'000;

Result<double> parse_qps(const std::string& text) {
  auto bad = [&] { return fail("flag --kube-api-qps needs a number, got \"" + text + "\""); };
  if (text.empty()) return bad();
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || errno == ERANGE || !std::isfinite(v)) return bad();
  return v;
}

/// A time limit of the apiserver client, from 1ms to 1h: 0 would give up every request at once (kubectl's
/// --request-timeout=0 means "none", which a controller must not have: a silent apiserver would hold a worker).
Result<void> parse_client_timeout(const Args& args, const std::string& flag, std::chrono::milliseconds& out) {
  if (!args.has(flag)) return {};
  auto value = parse_duration(args.get(flag));
  if (!value) return fail("flag --" + flag + ": " + value.error().message);
  if (*value < std::chrono::milliseconds(1) || *value > std::chrono::hours(1))
    return fail("flag --" + flag + " must be between 1ms and 1h, got " + args.get(flag));
  out = *value;
  return {};
}

}  // namespace

Result<OperationsFlags> parse_operations_flags(const Args& args) {
  OperationsFlags out;

  if (args.has("kube-api-qps")) {
    auto qps = parse_qps(args.get("kube-api-qps"));
    if (!qps) return std::unexpected(qps.error());
    out.client.qps = *qps;
  }
  auto burst = args.integer("kube-api-burst", out.client.burst);
  if (!burst) return std::unexpected(burst.error());
  if (*burst < 1 || *burst > kMaxBurst)
    return fail("flag --kube-api-burst must be between 1 and " + std::to_string(kMaxBurst) + ", got " +
                std::to_string(*burst));
  out.client.burst = static_cast<int>(*burst);
  if (auto t = parse_client_timeout(args, "kube-api-request-timeout", out.client.timeouts.request_timeout_ms); !t)
    return std::unexpected(t.error());
  if (auto t = parse_client_timeout(args, "kube-api-connect-timeout", out.client.timeouts.connect_timeout_ms); !t)
    return std::unexpected(t.error());

  auto format = parse_log_format(args.get("log-format", "text"));
  if (!format) return std::unexpected(format.error());
  out.log.format = *format;
  auto level = parse_log_level(args.get("log-level", "info"));
  if (!level) return std::unexpected(level.error());
  out.log.level = *level;

  if (args.has("graceful-shutdown-timeout")) {
    auto timeout = parse_duration(args.get("graceful-shutdown-timeout"));
    if (!timeout) return fail("flag --graceful-shutdown-timeout: " + timeout.error().message);
    out.graceful_shutdown_timeout = *timeout;
  }
  return out;
}

}  // namespace cfo::cmd
