#include "metrics/process_metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace cfo::metrics {

namespace {

// The fields of /proc/self/stat after the command name (which may hold spaces and parentheses: it ends at the last
// ')'), so that index 0 is field 3 of proc(5), "state".
std::vector<std::string> stat_fields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  std::vector<std::string> out;
  if (close == std::string::npos) return out;
  std::istringstream rest(line.substr(close + 1));
  for (std::string f; rest >> f;) out.push_back(f);
  return out;
}

// A field of stat_fields() by its proc(5) number (14 = utime), or 0.
double stat_field(const std::vector<std::string>& fields, std::size_t number) {
  const std::size_t i = number - 3;
  return i < fields.size() ? std::strtod(fields[i].c_str(), nullptr) : 0.0;
}

// /proc/stat's btime: the boot time, seconds since the epoch; 0 when unreadable.
double boot_time() {
  std::ifstream in("/proc/stat");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("btime ")) return std::strtod(line.c_str() + 6, nullptr);
  return 0.0;
}

double open_fds() {
  std::error_code ec;
  double n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n > 0 ? n - 1 : 0;  // the iterator's own descriptor
}

}  // namespace

void track_process(Metrics& metrics) {
  auto& registry = metrics.registry();
  auto& cpu = prometheus::BuildCounter()
                  .Name("process_cpu_seconds_total")
                  .Help("CPU time (user and system) this process has used, in seconds.")
                  .Register(registry)
                  .Add({});
  // Each family spelled out, as test/monitoring/check_monitoring.py reads the names from these registrations.
  auto& resident = prometheus::BuildGauge()
                       .Name("process_resident_memory_bytes")
                       .Help("Resident set size of this process, in bytes.")
                       .Register(registry)
                       .Add({});
  auto& virtual_size = prometheus::BuildGauge()
                           .Name("process_virtual_memory_bytes")
                           .Help("Virtual memory size of this process, in bytes.")
                           .Register(registry)
                           .Add({});
  auto& fds = prometheus::BuildGauge()
                  .Name("process_open_fds")
                  .Help("File descriptors this process has open.")
                  .Register(registry)
                  .Add({});
  auto& max_fds = prometheus::BuildGauge()
                      .Name("process_max_fds")
                      .Help("The soft limit on this process's open file descriptors (RLIMIT_NOFILE).")
                      .Register(registry)
                      .Add({});
  auto& start = prometheus::BuildGauge()
                    .Name("process_start_time_seconds")
                    .Help("When this process started, in seconds since the Unix epoch.")
                    .Register(registry)
                    .Add({});
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const double boot = boot_time();
  // The counter only goes up: each scrape adds the CPU time since the one before.
  auto counted = std::make_shared<std::pair<std::mutex, double>>();
  metrics.on_scrape([&cpu, &resident, &virtual_size, &fds, &max_fds, &start, ticks, page, boot, counted] {
    const auto f = stat_fields();
    if (f.empty() || ticks <= 0) return;
    const double cpu_s = (stat_field(f, 14) + stat_field(f, 15)) / ticks;  // utime + stime
    {
      std::lock_guard lk(counted->first);
      if (cpu_s > counted->second) {
        cpu.Increment(cpu_s - counted->second);
        counted->second = cpu_s;
      }
    }
    virtual_size.Set(stat_field(f, 23));                        // vsize, bytes
    resident.Set(stat_field(f, 24) * page);                     // rss, pages
    if (boot > 0) start.Set(boot + stat_field(f, 22) / ticks);  // starttime, clock ticks after boot
    fds.Set(open_fds());
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0) max_fds.Set(static_cast<double>(lim.rlim_cur));
  });
}

}  // namespace cfo::metrics
