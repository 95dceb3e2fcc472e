// What the controller keeps of its own status writes until the workload cache shows them (WrittenObjects).
#include <gtest/gtest.h>

#include <memory>

#include "core/json.hpp"
#include "operator/written_objects.hpp"
#include "runtime/cached_object.hpp"

using namespace cfo;
using namespace cfo::op;

namespace {
runtime::ObjectPtr workload(const std::string& resource_version, const std::string& phase) {
  auto d = json::parse(R"({"metadata":{"name":"demo","namespace":"team-a","resourceVersion":")" + resource_version +
                       R"("},"spec":{},"status":{"phase":")" + phase + R"("}})");
  EXPECT_TRUE(d.has_value());
  return runtime::compact_object(*d);
}
}  // namespace

TEST(WrittenObjects, AWriteIsKeptUntilTheCacheShowsAnotherVersionThenDropped) {
  WrittenObjects written;
  auto read = workload("7", "Pending");
  auto status = json::parse(R"({"phase":"Running"})");
  ASSERT_TRUE(status.has_value());
  written.wrote_status("team-a/demo", *read, *status);
  ASSERT_EQ(written.size(), 1u);
  // The cache still holds version 7: the write is what a reconcile reads.
  EXPECT_EQ(json::string_at(*written.newest("team-a/demo", read), "status.phase"), "Running");
  written.cache_moved("team-a/demo", *read);
  EXPECT_EQ(written.size(), 1u) << "version 7 is what the write was made on";
  // The cache shows version 8 (the write's own watch event): nothing is kept any more, without a reconcile.
  written.cache_moved("team-a/demo", *workload("8", "Running"));
  EXPECT_EQ(written.size(), 0u);
  written.cache_moved("team-a/other", *workload("3", "Pending"));  // an unknown key is nothing to drop
  EXPECT_EQ(written.size(), 0u);
}
