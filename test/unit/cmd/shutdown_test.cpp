// Durations in flag syntax, the graceful-shutdown deadline and the signal handling of `run`.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cmd/shutdown.hpp"

using namespace cfo::cmd;
using namespace std::chrono_literals;

TEST(ParseDuration, GoSyntax) {
  EXPECT_EQ(parse_duration("30s"), 30000ms);
  EXPECT_EQ(parse_duration("1m30s"), 90000ms);
  EXPECT_EQ(parse_duration("1.5s"), 1500ms);
  EXPECT_EQ(parse_duration(".5s"), 500ms);
  EXPECT_EQ(parse_duration("500ms"), 500ms);
  EXPECT_EQ(parse_duration("2h"), 7200000ms);
  EXPECT_EQ(parse_duration("1h0m0.25s"), 3600250ms);
  EXPECT_EQ(parse_duration("1500us"), 1ms);
  EXPECT_EQ(parse_duration("1500\xC2\xB5s"), 1ms);
  EXPECT_EQ(parse_duration("999999ns"), 0ms);
  EXPECT_EQ(parse_duration("0"), 0ms);
  EXPECT_EQ(parse_duration("-1s"), -1000ms);
  EXPECT_EQ(parse_duration("+5s"), 5000ms);
}

TEST(ParseDuration, BadTextIsAnError) {
  for (const char* bad : {"", "30", "s", "1x", "-", "1e3s", "1 s", "1s ", "5m-3s", "9999999999h", "abc"}) {
    auto r = parse_duration(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_NE(r.error().message.find("invalid duration"), std::string::npos) << r.error().message;
  }
}

TEST(FormatDuration, SecondsOrMilliseconds) {
  EXPECT_EQ(format_duration(30000ms), "30s");
  EXPECT_EQ(format_duration(1500ms), "1500ms");
  EXPECT_EQ(format_duration(0ms), "0s");
}

TEST(ShutdownDeadline, ExpiresWhenNotDisarmedInTime) {
  std::atomic<int> fired{0};
  std::atomic<long> seen_ms{0};
  ShutdownDeadline deadline([&](std::chrono::milliseconds t) {
    seen_ms = t.count();
    ++fired;
  });
  auto start = std::chrono::steady_clock::now();
  deadline.arm(30ms);
  deadline.arm(10s);  // only the first arm counts
  for (int i = 0; i < 200 && fired == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(fired.load(), 1);
  EXPECT_TRUE(deadline.expired());
  EXPECT_EQ(seen_ms.load(), 30);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 30ms);
}

TEST(ShutdownDeadline, DisarmedInTimeOrUnlimitedNeverFires) {
  std::atomic<int> fired{0};
  {
    ShutdownDeadline deadline([&](std::chrono::milliseconds) { ++fired; });
    deadline.arm(10s);
    auto start = std::chrono::steady_clock::now();
    deadline.disarm();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s) << "disarm does not wait for the timeout";
    deadline.arm(1ms);  // after disarm: ignored
  }
  {
    ShutdownDeadline unlimited([&](std::chrono::milliseconds) { ++fired; });
    unlimited.arm(-1ms);
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(unlimited.expired());
  }
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(fired.load(), 0);
}

TEST(ShutdownDeadline, ZeroExpiresAtOnce) {
  std::atomic<int> fired{0};
  ShutdownDeadline deadline([&](std::chrono::milliseconds) { ++fired; });
  deadline.arm(0ms);
  for (int i = 0; i < 200 && fired == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(fired.load(), 1);
}

TEST(ShutdownControl, ASignalWakesWaitAndBeginStopCancelsTheToken) {
  std::atomic<int> fired{0};
  ShutdownControl control(-1ms, [&](std::chrono::milliseconds) { ++fired; });
  auto token = control.token();
  ASSERT_TRUE(token);
  // begin_stop first: a signal that came before it (or wait()) would count as "during start-up" and end the process.
  control.begin_stop();
  EXPECT_TRUE(token->stop_requested());
  ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);  // blocked in every thread, taken by the control's sigwait
  EXPECT_EQ(control.wait(), SIGTERM);
  EXPECT_EQ(fired.load(), 0);  // no limit
}

TEST(ShutdownControl, TheDeadlineRunsWhenTheStopTakesTooLong) {
  std::atomic<int> fired{0};
  ShutdownControl control(20ms, [&](std::chrono::milliseconds) { ++fired; });
  control.begin_stop();
  for (int i = 0; i < 200 && fired == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(fired.load(), 1);
}
