#pragma once
// The flags of `run` that tune the apiserver client, the logs and the shutdown: --kube-api-qps, --kube-api-burst,
// --kube-api-request-timeout, --kube-api-connect-timeout, --log-format, --log-level and --graceful-shutdown-timeout.
// (Their names and help lines are in run_options.cpp with every other flag of `run`.)
#include <chrono>

#include "client/rest_client.hpp"
#include "cmd/args.hpp"
#include "cmd/logging.hpp"
#include "core/error.hpp"

namespace cfo::cmd {

/// What those flags say, with controller-runtime's defaults.
struct OperationsFlags {
  /// qps and burst from --kube-api-qps / --kube-api-burst, timeouts.request_timeout_ms and connect_timeout_ms from
  /// --kube-api-request-timeout / --kube-api-connect-timeout; the rest at RestClientOptions' defaults.
  client::RestClientOptions client;
  LogSettings log;
  /// --graceful-shutdown-timeout: 30 s (controller-runtime's default); negative = no limit, 0 = do not wait.
  std::chrono::milliseconds graceful_shutdown_timeout{30'000};
};

/// Reads the flags from `args` (each takes a value; absent ones keep their defaults). Errors name the flag and say
/// what is accepted: --kube-api-qps a finite number (0 or negative: no client-side limit, the default),
/// --kube-api-burst an integer from 1 to 1000000 (default 10), --kube-api-request-timeout (default 60s) and
/// --kube-api-connect-timeout (default 10s) durations from 1ms to 1h, --log-format text|json, --log-level a level name,
/// --graceful-shutdown-timeout a duration such as 30s.
Result<OperationsFlags> parse_operations_flags(const Args& args);

}  // namespace cfo::cmd
