#include <gtest/gtest.h>

#include <vector>

#include "runtime/backoff.hpp"
#include "core/clock.hpp"
#include "runtime/random.hpp"

using namespace cfo::runtime;
using cfo::ManualClock;

TEST(Backoff, DoublesFrom800MsAndCapsAt30sWithoutJitter) {
  ManualClock clock;
  Backoff b({}, clock.fn(), fixed_uniform(0.0));
  std::vector<int64_t> got;
  for (int i = 0; i < 8; ++i) got.push_back(b.next_delay_ms());
  EXPECT_EQ(got, (std::vector<int64_t>{800, 1600, 3200, 6400, 12800, 25600, 30000, 30000}));
}

TEST(Backoff, JitterAddsUpToOneBaseDelay) {
  ManualClock clock;
  Backoff half({}, clock.fn(), fixed_uniform(0.5));
  EXPECT_EQ(half.next_delay_ms(), 1200);
  EXPECT_EQ(half.next_delay_ms(), 2400);
  for (int i = 0; i < 10; ++i) half.next_delay_ms();
  EXPECT_EQ(half.next_delay_ms(), 45000);  // capped base 30 s + half of it

  Backoff most({}, clock.fn(), fixed_uniform(0.999));
  EXPECT_GE(most.next_delay_ms(), 800);
  for (int i = 0; i < 10; ++i) most.next_delay_ms();
  int64_t capped = most.next_delay_ms();
  EXPECT_GE(capped, 30000);
  EXPECT_LT(capped, 60000);  // client-go: "backoff will stop at [30,60) sec interval"
}

TEST(Backoff, ResetsAfterTwoQuietMinutes) {
  ManualClock clock;
  Backoff b({}, clock.fn(), fixed_uniform(0.0));
  b.next_delay_ms();
  b.next_delay_ms();
  EXPECT_EQ(b.next_delay_ms(), 3200);
  clock.advance(std::chrono::milliseconds(120 * 1000));  // exactly 2 min: not yet
  EXPECT_EQ(b.next_delay_ms(), 6400);
  clock.advance(std::chrono::milliseconds(120 * 1000 + 1));
  EXPECT_EQ(b.next_delay_ms(), 800);
  EXPECT_EQ(b.next_delay_ms(), 1600);
  b.reset();
  EXPECT_EQ(b.next_delay_ms(), 800);
}
