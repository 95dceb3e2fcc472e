#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/clock.hpp"
#include "core/token_bucket.hpp"

using cfo::TimePoint;
using cfo::TokenBucket;

namespace {
TimePoint at_ms(int64_t ms) { return TimePoint{} + std::chrono::milliseconds(ms); }
// The wait of one reservation at `now`, rounded up to whole milliseconds as the work queue rounds it.
int64_t reserve_ms(TokenBucket& bucket, TimePoint now) {
  return static_cast<int64_t>(std::ceil(bucket.reserve(now).count() * 1000.0));
}
}  // namespace

TEST(TokenBucket, BurstIsFreeThenReservationsAreSpacedByOneOverQps) {
  TokenBucket bucket({.qps = 10, .burst = 3});
  EXPECT_EQ(reserve_ms(bucket, at_ms(0)), 0);
  EXPECT_EQ(reserve_ms(bucket, at_ms(0)), 0);
  EXPECT_EQ(reserve_ms(bucket, at_ms(0)), 0);
  EXPECT_EQ(reserve_ms(bucket, at_ms(0)), 100);  // 1 token short at 10 qps
  EXPECT_EQ(reserve_ms(bucket, at_ms(0)), 200);  // each reservation takes its token, even in debt
}

TEST(TokenBucket, RefillsWithTimeUpToTheBurst) {
  TokenBucket bucket({.qps = 10, .burst = 2});
  reserve_ms(bucket, at_ms(0));
  reserve_ms(bucket, at_ms(0));
  EXPECT_EQ(reserve_ms(bucket, at_ms(50)), 50);  // half a token back after 50 ms
  // Long idle: the bucket is full again, but never fuller than the burst.
  EXPECT_EQ(reserve_ms(bucket, at_ms(60000)), 0);
  EXPECT_EQ(reserve_ms(bucket, at_ms(60000)), 0);
  EXPECT_EQ(reserve_ms(bucket, at_ms(60000)), 100);
}

TEST(TokenBucket, ZeroQpsTurnsItOff) {
  TokenBucket bucket({.qps = 0, .burst = 1});
  EXPECT_FALSE(bucket.enabled());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(reserve_ms(bucket, at_ms(0)), 0);
}

TEST(TokenBucket, ControllerDefaultsAreTenQpsAndBurstHundred) {
  TokenBucket bucket;
  for (int i = 0; i < 100; ++i) ASSERT_EQ(reserve_ms(bucket, at_ms(0)), 0) << i;
  EXPECT_EQ(reserve_ms(bucket, at_ms(0)), 100);
}

TEST(TokenBucket, NotFiniteQpsIsOffAndTimeGoingBackRefillsNothing) {
  TokenBucket off({.qps = std::numeric_limits<double>::infinity(), .burst = 1});
  EXPECT_FALSE(off.enabled());
  EXPECT_EQ(reserve_ms(off, at_ms(0)), 0);
  EXPECT_EQ(reserve_ms(off, at_ms(0)), 0);

  TokenBucket bucket({.qps = 10, .burst = 1});
  EXPECT_EQ(reserve_ms(bucket, at_ms(1000)), 0);
  EXPECT_EQ(reserve_ms(bucket, at_ms(0)), 100);  // the clock went back 1 s: no token came back
  EXPECT_EQ(bucket.burst(), 1);
}
