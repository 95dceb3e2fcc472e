#include <gtest/gtest.h>

#include "json_doc.hpp"
#include "runtime/cached_object.hpp"

using namespace cfo;
using namespace cfo::runtime;

TEST(CachedObject, ManagedFieldsAreStripped) {
  json::Document obj = test::doc(R"({"metadata":{"name":"a","managedFields":[{"manager":"x"}]},"spec":{"b":1}})");
  strip_managed_fields(obj);
  EXPECT_EQ(json::find_path(obj, "metadata.managedFields"), nullptr);
  EXPECT_EQ(json::get_int((*json::find(obj, "spec")), "b"), 1);
  json::Document no_meta = test::doc(R"([1,2])");
  strip_managed_fields(no_meta);  // not an object: left alone, no crash
  EXPECT_TRUE(no_meta.IsArray());
}

// A compact copy is equal to the original and holds one block about its own size, not a 64 KiB chunk.
TEST(CachedObject, ACompactCopyIsEqualAndSmall) {
  json::Document obj =
      test::doc(R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"demo",)"
                R"("labels":{"a":"b"}},"spec":{"workerGroupSpecs":[{"groupName":"w","replicas":2}]}})");
  ObjectPtr copy = compact_object(obj);
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(*copy == obj);
  const auto& allocator = const_cast<json::Document&>(*copy).GetAllocator();
  EXPECT_LT(allocator.Capacity(), 4096u);
  EXPECT_GE(allocator.Capacity(), allocator.Size());
}
