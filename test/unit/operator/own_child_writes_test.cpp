// The creation events of our own children (OwnChildWrites): the one version our apply returned is an echo, once.
#include <gtest/gtest.h>

#include "core/json.hpp"
#include "operator/own_child_writes.hpp"

using namespace cfo;
using namespace cfo::op;

namespace {
json::Document child(const std::string& resource_version) {
  std::string meta = R"("name":"demo","namespace":"team-a")";
  if (!resource_version.empty()) meta += R"(,"resourceVersion":")" + resource_version + R"(")";
  auto d = json::parse(R"({"kind":"RayCluster","metadata":{)" + meta + "}}");
  EXPECT_TRUE(d.has_value());
  return std::move(*d);
}
}  // namespace

TEST(OwnChildWrites, TheVersionOurApplyReturnedIsAnEchoOnce) {
  OwnChildWrites own;
  own.applied("team-a/demo", child("41"));
  EXPECT_FALSE(own.is_echo("team-a/other", child("41"))) << "another workload's child";
  EXPECT_TRUE(own.is_echo("team-a/demo", child("41")));
  EXPECT_FALSE(own.is_echo("team-a/demo", child("41"))) << "a second event of that version (a relist) wakes it";
  EXPECT_EQ(own.size(), 0u);
}

TEST(OwnChildWrites, AnotherVersionWakesTheWorkload) {
  OwnChildWrites own;
  own.applied("team-a/demo", child("41"));
  // KubeRay's first status came before our creation event was seen (or the relist found a newer object).
  EXPECT_FALSE(own.is_echo("team-a/demo", child("42")));
  EXPECT_EQ(own.size(), 1u);
}

TEST(OwnChildWrites, ACacheThatHoldsTheVersionAlreadyDropsTheEntry) {
  OwnChildWrites own;
  own.applied("team-a/demo", child("41"));
  own.cache_holds("team-a/demo", nullptr);
  const json::Document before = child("40");
  own.cache_holds("team-a/demo", &before);
  EXPECT_EQ(own.size(), 1u) << "the cache does not show our creation yet";
  const json::Document now = child("41");
  own.cache_holds("team-a/demo", &now);  // its event came before the apply's response was recorded
  EXPECT_EQ(own.size(), 0u);
  EXPECT_FALSE(own.is_echo("team-a/demo", child("41")));
}

TEST(OwnChildWrites, AResponseWithoutAVersionOrADeletedWorkloadKeepsNothing) {
  OwnChildWrites own;
  own.applied("team-a/demo", child("41"));
  own.applied("team-a/demo", child(""));  // versions cannot be told apart: every event wakes it
  EXPECT_EQ(own.size(), 0u);
  EXPECT_FALSE(own.is_echo("team-a/demo", child("")));
  own.applied("team-a/demo", child("43"));
  own.forget("team-a/demo");
  EXPECT_EQ(own.size(), 0u);
}
