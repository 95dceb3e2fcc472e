// Our DELETEs of children until the cache shows them (DeletionsSent): a child deleted counts as going while the cache
// still holds it unchanged, and the entry goes once the cache shows the deletionTimestamp, the child gone, or another
// object in its place.
#include <gtest/gtest.h>

#include <array>

#include "core/json.hpp"
#include "operator/deletions_sent.hpp"

using namespace cfo;
using namespace cfo::op;

namespace {
constexpr std::size_t kRc = static_cast<std::size_t>(ChildKind::kRayCluster);
constexpr std::size_t kAw = static_cast<std::size_t>(ChildKind::kAppWrapper);

json::Document child(const std::string& uid, bool going = false) {
  std::string meta = R"("name":"demo","namespace":"team-a","uid":")" + uid + R"(")";
  if (going) meta += R"(,"deletionTimestamp":"2026-12-05T00:00:00Z")";
  auto d = json::parse(R"({"kind":"RayCluster","metadata":{)" + meta + "}}");
  EXPECT_TRUE(d.has_value());
  return std::move(*d);
}

std::array<const json::Value*, kChildKindCount> only(std::size_t i, const json::Value* c) {
  std::array<const json::Value*, kChildKindCount> out{};
  out[i] = c;
  return out;
}
}  // namespace

TEST(DeletionsSent, AChildDeletedIsPendingUntilTheCacheShowsItGoing) {
  DeletionsSent sent;
  json::Document rc = child("u1");
  EXPECT_FALSE(sent.pending("team-a/demo", only(kRc, &rc))[kRc]) << "nothing sent yet";
  sent.deleted("team-a/demo", rc);
  auto seen = sent.pending("team-a/demo", only(kRc, &rc));
  EXPECT_TRUE(seen[kRc]);
  EXPECT_FALSE(seen[kAw]);
  EXPECT_FALSE(sent.pending("team-a/other", only(kRc, &rc))[kRc]) << "another workload's key";
  EXPECT_TRUE(sent.pending("team-a/demo", only(kRc, &rc))[kRc]) << "still the cache's copy from before";
  json::Document going = child("u1", true);
  EXPECT_FALSE(sent.pending("team-a/demo", only(kRc, &going))[kRc]);
  EXPECT_EQ(sent.size(), 0u) << "the cache caught up: nothing kept";
  EXPECT_FALSE(sent.pending("team-a/demo", only(kRc, &rc))[kRc]) << "dropped for good";
}

TEST(DeletionsSent, TheEntryGoesWithTheChildOrWhenAnotherTakesItsPlace) {
  DeletionsSent sent;
  json::Document rc = child("u1");
  sent.deleted("team-a/demo", rc);
  EXPECT_FALSE(sent.pending("team-a/demo", only(kRc, nullptr))[kRc]);
  EXPECT_EQ(sent.size(), 0u);
  sent.deleted("team-a/demo", rc);
  json::Document again = child("u2");  // made anew: another uid
  EXPECT_FALSE(sent.pending("team-a/demo", only(kRc, &again))[kRc]);
  EXPECT_EQ(sent.size(), 0u);
  sent.deleted("team-a/demo", rc);
  sent.forget("team-a/demo");
  EXPECT_EQ(sent.size(), 0u);
  json::Document no_uid = child("");
  sent.deleted("team-a/demo", no_uid);
  EXPECT_EQ(sent.size(), 0u) << "a child without a uid cannot be told apart";
}
