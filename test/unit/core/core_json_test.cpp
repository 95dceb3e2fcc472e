#include <gtest/gtest.h>

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
