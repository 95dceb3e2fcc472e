#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "runtime/rate_limiter.hpp"

using namespace cfo::runtime;

TEST(ItemExponentialBackoff, DoublesFromFiveMillisecondsUpToThousandSeconds) {
  ItemExponentialBackoff b;
  int64_t expected = 5;
  int calls = 0;
  while (expected < 1000 * 1000) {
    EXPECT_EQ(b.when_ms("ns/a"), expected) << "failure #" << calls;
    expected *= 2;
    ++calls;
  }
  EXPECT_EQ(calls, 18);  // 5 ms * 2^17 = 655.36 s is the last uncapped delay
  EXPECT_EQ(b.when_ms("ns/a"), 1000 * 1000);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(b.when_ms("ns/a"), 1000 * 1000);
  EXPECT_EQ(b.num_requeues("ns/a"), 119);
}

TEST(ItemExponentialBackoff, KeysAreIndependentAndForgetResets) {
  ItemExponentialBackoff b;
  EXPECT_EQ(b.when_ms("a"), 5);
  EXPECT_EQ(b.when_ms("a"), 10);
  EXPECT_EQ(b.when_ms("b"), 5);
  EXPECT_EQ(b.num_requeues("a"), 2);
  EXPECT_EQ(b.num_requeues("b"), 1);
  b.forget("a");
  EXPECT_EQ(b.num_requeues("a"), 0);
  EXPECT_EQ(b.when_ms("a"), 5);
  EXPECT_EQ(b.when_ms("b"), 10);
  EXPECT_EQ(b.num_requeues("unknown"), 0);
}

TEST(ItemExponentialBackoff, HugeCapDoesNotOverflow) {
  const int64_t cap = std::numeric_limits<int64_t>::max();
  ItemExponentialBackoff b({.base_delay_ms = 3, .max_delay_ms = cap});
  int64_t prev = 0;
  for (int i = 0; i < 200; ++i) {
    int64_t d = b.when_ms("k");
    ASSERT_GT(d, 0);
    ASSERT_GE(d, prev);
    prev = d;
  }
  EXPECT_EQ(prev, cap);
}
