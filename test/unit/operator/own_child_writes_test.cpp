// The creation events of our own children (OwnChildWrites): the one version our creation returned wakes nothing;
// events that come while the creation is under way are held back and judged when its response is in.
#include <gtest/gtest.h>

#include <vector>

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

struct Woken {
  std::vector<std::string> keys;
  OwnChildWrites own{[this](const std::string& key) { keys.push_back(key); }};
};
}  // namespace

TEST(OwnChildWrites, TheVersionCreatedIsAnEchoOnce) {
  Woken w;
  w.own.creating("team-a/demo");
  w.own.created("team-a/demo", child("41"));
  EXPECT_FALSE(w.own.is_echo("team-a/other", child("41"))) << "another workload's child";
  EXPECT_TRUE(w.own.is_echo("team-a/demo", child("41")));
  EXPECT_FALSE(w.own.is_echo("team-a/demo", child("41"))) << "a second event of that version (a relist) wakes it";
  EXPECT_EQ(w.own.size(), 0u);
  EXPECT_TRUE(w.keys.empty());
}

TEST(OwnChildWrites, AnotherVersionWakesTheWorkload) {
  Woken w;
  w.own.creating("team-a/demo");
  w.own.created("team-a/demo", child("41"));
  // KubeRay's first status came before our creation's event was seen (or a relist found a newer object).
  EXPECT_FALSE(w.own.is_echo("team-a/demo", child("42")));
  EXPECT_EQ(w.own.size(), 1u);
}

TEST(OwnChildWrites, TheEchoBeforeTheResponseIsHeldBackAndWakesNothing) {
  Woken w;
  w.own.creating("team-a/demo");
  EXPECT_TRUE(w.own.is_echo("team-a/demo", child("41")));  // the event came first
  w.own.created("team-a/demo", child("41"));
  EXPECT_TRUE(w.keys.empty());
  EXPECT_EQ(w.own.size(), 0u);
  EXPECT_FALSE(w.own.is_echo("team-a/demo", child("42")));
}

TEST(OwnChildWrites, AnEventHeldBackThatIsNewsWakesTheWorkload) {
  Woken w;
  w.own.creating("team-a/demo");
  EXPECT_TRUE(w.own.is_echo("team-a/demo", child("41")));
  EXPECT_TRUE(w.own.is_echo("team-a/demo", child("43")));  // e.g. the old child of another kind going
  w.own.created("team-a/demo", child("41"));
  EXPECT_EQ(w.keys, std::vector<std::string>{"team-a/demo"});
  // A failed creation: whatever was held back is news.
  w.own.creating("team-a/b");
  EXPECT_TRUE(w.own.is_echo("team-a/b", child("50")));
  w.own.not_created("team-a/b");
  EXPECT_EQ(w.keys, (std::vector<std::string>{"team-a/demo", "team-a/b"}));
  EXPECT_EQ(w.own.size(), 0u);
  w.own.not_created("team-a/c");  // no creation under way: nothing happens
  EXPECT_EQ(w.keys.size(), 2u);
}

TEST(OwnChildWrites, ACacheThatHoldsTheVersionAlreadyDropsTheEntry) {
  Woken w;
  w.own.creating("team-a/demo");
  w.own.created("team-a/demo", child("41"));
  w.own.cache_holds("team-a/demo", nullptr);
  const json::Document before = child("40");
  w.own.cache_holds("team-a/demo", &before);
  EXPECT_EQ(w.own.size(), 1u) << "the cache does not show our creation yet";
  const json::Document now = child("41");
  w.own.cache_holds("team-a/demo", &now);
  EXPECT_EQ(w.own.size(), 0u);
  EXPECT_FALSE(w.own.is_echo("team-a/demo", child("41")));
}

TEST(OwnChildWrites, AResponseWithoutAVersionOrADeletedWorkloadKeepsNothing) {
  Woken w;
  w.own.creating("team-a/demo");
  w.own.created("team-a/demo", child(""));  // versions cannot be told apart: every event wakes it
  EXPECT_EQ(w.own.size(), 0u);
  EXPECT_FALSE(w.own.is_echo("team-a/demo", child("")));
  w.own.creating("team-a/demo");
  w.own.created("team-a/demo", child("43"));
  w.own.forget("team-a/demo");
  EXPECT_EQ(w.own.size(), 0u);
}

TEST(OwnChildWrites, WithNothingToWakeNothingIsHeldBack) {
  OwnChildWrites own;
  own.creating("team-a/demo");
  EXPECT_FALSE(own.is_echo("team-a/demo", child("41")));
  own.created("team-a/demo", child("41"));
  EXPECT_TRUE(own.is_echo("team-a/demo", child("41")));
}
