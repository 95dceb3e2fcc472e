#pragma once
// The process_* metrics of Prometheus's process collector (client_golang's, which every controller-runtime operator
// serves): CPU, memory, file descriptors and start time of this process, read from /proc at every scrape.
#include "metrics/metrics.hpp"

namespace cfo::metrics {

/// Registers, and refreshes at every scrape from /proc/self (Linux; elsewhere they stay 0):
/// - process_cpu_seconds_total (counter): user + system CPU time, seconds;
/// - process_resident_memory_bytes, process_virtual_memory_bytes (gauges): resident set and virtual size, bytes;
/// - process_open_fds, process_max_fds (gauges): entries of /proc/self/fd, and the soft RLIMIT_NOFILE;
/// - process_start_time_seconds (gauge): when the process started, seconds since the Unix epoch (/proc/stat's btime
///   plus the process's start in clock ticks).
/// Call it once per Metrics.
void track_process(Metrics& metrics);

}  // namespace cfo::metrics
