#include <gtest/gtest.h>

#include <chrono>

#include "runtime/clock.hpp"
#include "runtime/token_bucket.hpp"

using namespace cfo::runtime;

namespace {
TimePoint at_ms(int64_t ms) { return TimePoint{} + std::chrono::milliseconds(ms); }
}  // namespace

TEST(TokenBucket, BurstIsFreeThenReservationsAreSpacedByOneOverQps) {
  TokenBucket bucket({.qps = 10, .burst = 3});
  EXPECT_EQ(bucket.reserve_ms(at_ms(0)), 0);
  EXPECT_EQ(bucket.reserve_ms(at_ms(0)), 0);
  EXPECT_EQ(bucket.reserve_ms(at_ms(0)), 0);
  EXPECT_EQ(bucket.reserve_ms(at_ms(0)), 100);  // 1 token short at 10 qps
  EXPECT_EQ(bucket.reserve_ms(at_ms(0)), 200);  // each reservation takes its token, even in debt
}

TEST(TokenBucket, RefillsWithTimeUpToTheBurst) {
  TokenBucket bucket({.qps = 10, .burst = 2});
  bucket.reserve_ms(at_ms(0));
  bucket.reserve_ms(at_ms(0));
  EXPECT_EQ(bucket.reserve_ms(at_ms(50)), 50);  // half a token back after 50 ms
  // Long idle: the bucket is full again, but never fuller than the burst.
  EXPECT_EQ(bucket.reserve_ms(at_ms(60000)), 0);
  EXPECT_EQ(bucket.reserve_ms(at_ms(60000)), 0);
  EXPECT_EQ(bucket.reserve_ms(at_ms(60000)), 100);
}

TEST(TokenBucket, ZeroQpsTurnsItOff) {
  TokenBucket bucket({.qps = 0, .burst = 1});
  EXPECT_FALSE(bucket.enabled());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(bucket.reserve_ms(at_ms(0)), 0);
}

TEST(TokenBucket, ControllerDefaultsAreTenQpsAndBurstHundred) {
  TokenBucket bucket;
  for (int i = 0; i < 100; ++i) ASSERT_EQ(bucket.reserve_ms(at_ms(0)), 0) << i;
  EXPECT_EQ(bucket.reserve_ms(at_ms(0)), 100);
}
