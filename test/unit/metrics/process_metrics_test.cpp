// process_* metrics: read back from a scrape and compared with what /proc and getrlimit say of this test process.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "metrics/metrics.hpp"
#include "metrics/process_metrics.hpp"

using namespace cfo::metrics;

namespace {

// The value of an unlabelled sample `name` in a text exposition ("name value" or "name{} value"), or nullopt.
std::optional<double> value_of(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name + " ", 0) == 0 || line.rfind(name + "{} ", 0) == 0)
      return std::stod(line.substr(line.rfind(' ') + 1));
  return std::nullopt;
}

}  // namespace

TEST(ProcessMetrics, ResidentMemoryIsWhatProcSaysOfThisProcess) {
  Metrics m;
  track_process(m);
  const auto rss = value_of(m.scrape(), "process_resident_memory_bytes");
  long pages = 0, resident = 0;
  std::ifstream("/proc/self/statm") >> pages >> resident;
  ASSERT_TRUE(rss.has_value());
  const double expected = static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
  EXPECT_GT(*rss, 0);
  EXPECT_NEAR(*rss, expected, 4.0 * 1024 * 1024);  // the two reads are apart by one scrape's allocations
  EXPECT_GE(value_of(m.scrape(), "process_virtual_memory_bytes").value_or(0), *rss);
}

TEST(ProcessMetrics, OpenFdsCountsADescriptorOpenedBetweenTwoScrapes) {
  Metrics m;
  track_process(m);
  const auto before = value_of(m.scrape(), "process_open_fds");
  const int fd = open("/proc/self/stat", O_RDONLY);
  ASSERT_GE(fd, 0);
  const auto after = value_of(m.scrape(), "process_open_fds");
  close(fd);
  ASSERT_TRUE(before && after);
  EXPECT_EQ(*after, *before + 1);
  rlimit lim{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
  EXPECT_EQ(value_of(m.scrape(), "process_max_fds"), static_cast<double>(lim.rlim_cur));
}

TEST(ProcessMetrics, StartTimeIsInThePastAndCpuTimeNeverFalls) {
  Metrics m;
  track_process(m);
  const std::string first = m.scrape();
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const auto start = value_of(first, "process_start_time_seconds");
  ASSERT_TRUE(start.has_value());
  EXPECT_LE(*start, now + 1);
  EXPECT_GT(*start, now - 24 * 3600);  // a unit test process is younger than a day
  const auto cpu0 = value_of(first, "process_cpu_seconds_total");
  volatile double sink = 0;
  for (int i = 0; i < 20'000'000; ++i) sink = sink + i * 0.5;  // some CPU time (a clock tick or more)
  const auto cpu1 = value_of(m.scrape(), "process_cpu_seconds_total");
  ASSERT_TRUE(cpu0 && cpu1);
  EXPECT_GE(*cpu1, *cpu0);
  EXPECT_GT(*cpu1, 0);
}
