#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "core/watch_event.hpp"

using namespace cfo;

TEST(Json, PointerToPath) {
  EXPECT_EQ(json::pointer_to_path("/spec/workerGroupSpecs/0/template"), "spec.workerGroupSpecs[0].template");
  EXPECT_EQ(json::pointer_to_path("/metadata/labels/ray.io~1cluster"), "metadata.labels[ray.io/cluster]");
  EXPECT_EQ(json::pointer_to_path(""), "");
}

TEST(Json, KeyPathQuotesDottedKeys) {
  EXPECT_EQ(key_path("spec.resources.limits", "nvidia.com/gpu"), "spec.resources.limits[nvidia.com/gpu]");
  EXPECT_EQ(key_path("spec.resources.limits", "memory"), "spec.resources.limits.memory");
  // The in-place forms build the same paths.
  for (const std::string parent : {"", "spec.resources.limits"})
    for (const std::string key : {"memory", "nvidia.com/gpu", "a b", "x_y-z", ""}) {
      std::string path = parent;
      append_key(path, key);
      EXPECT_EQ(path, key_path(parent, key)) << parent << " + " << key;
    }
  std::string path = "spec.workerGroupSpecs";
  append_index(path, 12);
  EXPECT_EQ(path, index_path("spec.workerGroupSpecs", 12));
}

// The copy's pool is one block of the room the copy takes (+64 bytes): neither a second block nor unused room.
TEST(Json, CompactCopyFitsItsValueInOneBlock) {
  auto d = json::parse(R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"a-rather-long-name-here",)"
                       R"("labels":{"x":"y","kueue.x-k8s.io/queue-name":"team-a-queue"}},"spec":{"replicas":3,)"
                       R"("list":[1,2.5,true,null,"short","a string longer than thirteen bytes",[],{}],"empty":{}}})");
  ASSERT_TRUE(d.has_value());
  std::unique_ptr<json::Pool> pool;
  const json::Document copy = json::compact_copy(*d, pool);
  EXPECT_TRUE(copy == *d);
  ASSERT_TRUE(pool);
  EXPECT_LE(pool->Size(), pool->Capacity());
  EXPECT_EQ(pool->Capacity() - pool->Size(), 64u) << "the block is sized to the copy";
}

TEST(Json, ParseReportsOffset) {
  auto d = json::parse("{\"a\": }");
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.error().message.find("offset"), std::string::npos);
}

TEST(WatchEvent, DecodesTypesAndKeepsObject) {
  auto ev = decode_watch_event(R"({"type":"MODIFIED","object":{"metadata":{"name":"x","resourceVersion":"7"}}})");
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->type, WatchEvent::Type::Modified);
  EXPECT_STREQ(ev->object["metadata"]["name"].GetString(), "x");
  EXPECT_FALSE(decode_watch_event(R"({"type":"WHAT","object":{}})").has_value());
  EXPECT_FALSE(decode_watch_event(R"({"type":"ADDED"})").has_value());
}

// RapidJSON 1.1.0's full-precision number parsing read out of bounds on this watch line (SEGV in
// GetCachedPowerByIndex). The number is below the smallest denormal, so it reads as 0 (as Go's ParseFloat rounds it).
TEST(Json, ParsesCraftedNumberThatCrashedFullPrecisionParsing) {
  auto d = json::parse(R"({"type":"ADDED","object":{"x":5.777777771777e-337}})");
  ASSERT_TRUE(d.has_value()) << d.error().message;
  const auto& x = (*d)["object"]["x"];
  ASSERT_TRUE(x.IsDouble());
  EXPECT_EQ(x.GetDouble(), 0.0);
}

// Extreme mantissas and exponents: every one either parses to the correctly rounded double (what Go's
// strconv.ParseFloat gives) or is a clean error; none may read out of bounds (the ASan build runs this too).
TEST(Json, ExtremeNumbersParseExactlyOrFailCleanly) {
  const std::string digits(800, '7');
  for (int e = -400; e <= 400; e += 7)
    for (const std::string& mantissa : {std::string("5.777777771777"), std::string("1"), "0." + digits, digits,
                                        std::string("9007199254740993"), "1" + std::string(30, '0') + "1"}) {
      const std::string text = mantissa + "e" + std::to_string(e);
      auto d = json::parse("[" + text + "]");
      if (!d) continue;  // too big for a double: an error, as Go's encoding/json reports it
      ASSERT_TRUE((*d)[0].IsNumber()) << text;
      EXPECT_EQ((*d)[0].GetDouble(), std::strtod(text.c_str(), nullptr)) << text;
    }
  auto tiny = json::parse("[1e-99999]");
  ASSERT_TRUE(tiny.has_value());
  EXPECT_EQ((*tiny)[0].GetDouble(), 0.0);
  auto huge = json::parse("[1e99999]");
  ASSERT_FALSE(huge.has_value());
  EXPECT_NE(huge.error().message.find("offset 1"), std::string::npos) << huge.error().message;
}

// Integers stay integers (int64, or uint64 above INT64_MAX); a fraction or an exponent makes a double, as the
// apiserver's JSON decoding keeps them; integers beyond uint64 become doubles.
TEST(Json, NumberTypesFollowTheText) {
  auto d = json::parse(R"([1, -2, 9223372036854775807, -9223372036854775808, 18446744073709551615,
                           18446744073709551616, 1.0, 1e3, -0, 0.1, 123456789012345678901234567890])");
  ASSERT_TRUE(d.has_value()) << d.error().message;
  const auto& a = *d;
  EXPECT_TRUE(a[0].IsInt64() && a[0].GetInt64() == 1);
  EXPECT_TRUE(a[0].IsInt());
  EXPECT_TRUE(a[1].IsInt64() && a[1].GetInt64() == -2);
  EXPECT_TRUE(a[2].IsInt64() && a[2].GetInt64() == INT64_MAX);
  EXPECT_TRUE(a[3].IsInt64() && a[3].GetInt64() == INT64_MIN);
  EXPECT_TRUE(!a[4].IsInt64() && a[4].IsUint64() && a[4].GetUint64() == UINT64_MAX);
  EXPECT_TRUE(a[5].IsDouble() && a[5].GetDouble() == 18446744073709551616.0);
  EXPECT_TRUE(a[6].IsDouble() && a[6].GetDouble() == 1.0);
  EXPECT_TRUE(a[7].IsDouble() && a[7].GetDouble() == 1000.0);
  EXPECT_TRUE(a[8].IsInt64() && a[8].GetInt64() == 0);
  EXPECT_TRUE(a[9].IsDouble() && a[9].GetDouble() == 0.1);
  EXPECT_TRUE(a[10].IsDouble() && a[10].GetDouble() == 123456789012345678901234567890.0);
  EXPECT_EQ(json::dump(a[1]), "-2");
  EXPECT_EQ(json::dump(a[6]), "1.0");
}

// RapidJSON's default reader recurses once per level, so 100000 nested arrays overflowed the stack; the reader now
// runs iteratively and nesting is bounded (kMaxJsonDepth), with an error naming the limit.
TEST(Json, DeepNestingIsAnErrorNotAStackOverflow) {
  const std::size_t deep = 100000;
  auto d = json::parse(std::string(deep, '[') + std::string(deep, ']'));
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.error().message.find("nested deeper than 1000 levels"), std::string::npos) << d.error().message;
  auto ok = json::parse(std::string(json::kMaxJsonDepth, '[') + std::string(json::kMaxJsonDepth, ']'));
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  std::string objects;
  for (std::size_t i = 0; i < deep; ++i) objects += "{\"a\":";
  auto o = json::parse(objects + "1" + std::string(deep, '}'));
  ASSERT_FALSE(o.has_value());
  EXPECT_NE(o.error().message.find("nested deeper"), std::string::npos) << o.error().message;
}
