#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "runtime/cached_object.hpp"
#include "runtime/store.hpp"

using namespace cfo;
using namespace cfo::runtime;

namespace {

ObjectPtr obj(const std::string& ns, const std::string& name, const std::string& rv) {
  std::string meta = "\"name\":\"" + name + "\",\"resourceVersion\":\"" + rv + "\"";
  if (!ns.empty()) meta += ",\"namespace\":\"" + ns + "\"";
  auto d = json::parse("{\"kind\":\"RayCluster\",\"metadata\":{" + meta + "}}");
  EXPECT_TRUE(d.has_value());
  return std::make_shared<const json::Document>(std::move(*d));
}

std::string rv_of(const ObjectPtr& o) {
  return o ? json::get_string(*json::find(*o, "metadata"), "resourceVersion").value_or("") : "<null>";
}

}  // namespace

TEST(Store, ReplaceIntoEmptyStoreAddsEverything) {
  Store s;
  auto changes = s.replace({obj("ns", "b", "1"), obj("ns", "a", "2"), obj("", "cluster-wide", "3")});
  ASSERT_EQ(changes.size(), 3u);
  for (const auto& c : changes) EXPECT_EQ(c.kind, StoreChange::Kind::Added);
  EXPECT_EQ(s.keys(), (std::vector<std::string>{"cluster-wide", "ns/a", "ns/b"}));
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(rv_of(s.get("ns/a")), "2");
  EXPECT_EQ(s.get("ns/missing"), nullptr);
  EXPECT_EQ(s.list().size(), 3u);
}

TEST(Store, ReplaceReportsVanishedObjectsAsDeletesWithTheirLastState) {
  Store s;
  s.replace({obj("ns", "keep", "1"), obj("ns", "gone", "2")});
  auto changes = s.replace({obj("ns", "keep", "5"), obj("ns", "new", "6")});
  ASSERT_EQ(changes.size(), 3u);
  // In key order: gone, keep, new.
  EXPECT_EQ(changes[0].kind, StoreChange::Kind::Deleted);
  EXPECT_EQ(changes[0].key, "ns/gone");
  EXPECT_EQ(rv_of(changes[0].object), "2");
  EXPECT_EQ(changes[1].kind, StoreChange::Kind::Updated);
  EXPECT_EQ(changes[1].key, "ns/keep");
  EXPECT_EQ(rv_of(changes[1].old_object), "1");
  EXPECT_EQ(rv_of(changes[1].object), "5");
  EXPECT_EQ(changes[2].kind, StoreChange::Kind::Added);
  EXPECT_EQ(changes[2].key, "ns/new");
  EXPECT_EQ(s.keys(), (std::vector<std::string>{"ns/keep", "ns/new"}));
  EXPECT_EQ(s.get("ns/gone"), nullptr);
}

TEST(Store, ReaderKeepsItsSnapshotAcrossReplacement) {
  Store s;
  s.replace({obj("ns", "a", "1")});
  ObjectPtr held = s.get("ns/a");
  s.apply(WatchEvent::Type::Modified, obj("ns", "a", "2"));
  EXPECT_EQ(rv_of(held), "1");
  EXPECT_EQ(rv_of(s.get("ns/a")), "2");
}

TEST(Store, ApplyFollowsWhatTheCacheHolds) {
  Store s;
  auto added = s.apply(WatchEvent::Type::Modified, obj("ns", "a", "1"));  // unknown key: an add
  ASSERT_TRUE(added.has_value());
  EXPECT_EQ(added->kind, StoreChange::Kind::Added);

  auto updated = s.apply(WatchEvent::Type::Added, obj("ns", "a", "2"));  // known key: an update
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ(updated->kind, StoreChange::Kind::Updated);
  EXPECT_EQ(rv_of(updated->old_object), "1");
  EXPECT_EQ(rv_of(updated->object), "2");

  auto deleted = s.apply(WatchEvent::Type::Deleted, obj("ns", "a", "3"));
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->kind, StoreChange::Kind::Deleted);
  EXPECT_EQ(rv_of(deleted->object), "3");  // the final state from the event
  EXPECT_EQ(s.size(), 0u);

  EXPECT_FALSE(s.apply(WatchEvent::Type::Bookmark, obj("ns", "b", "4")).has_value());
  EXPECT_FALSE(s.apply(WatchEvent::Type::Added, obj("ns", "", "4")).has_value());  // no name
  EXPECT_EQ(s.size(), 0u);
}

TEST(Store, BytesFollowWhatTheCacheHolds) {
  Store s;
  EXPECT_EQ(s.bytes(), 0u);
  ObjectPtr a = compact_object(*obj("ns", "a", "1"));
  ObjectPtr b = compact_object(*obj("ns", "b", "1"));
  ASSERT_GT(object_bytes(a), 0u);
  s.replace({a, b});
  EXPECT_EQ(s.bytes(), object_bytes(a) + object_bytes(b));
  // A bigger replacement of "a" counts its own size, not the old one's.
  auto big = json::parse(R"({"kind":"RayCluster","metadata":{"name":"a","namespace":"ns","resourceVersion":"2",)"
                         R"("labels":{"app.kubernetes.io/name":"a-label-long-enough-to-leave-the-short-string"}}})");
  ASSERT_TRUE(big.has_value());
  ObjectPtr a2 = compact_object(*big);
  ASSERT_GT(object_bytes(a2), object_bytes(a));
  s.apply(WatchEvent::Type::Modified, a2);
  EXPECT_EQ(s.bytes(), object_bytes(a2) + object_bytes(b));
  s.apply(WatchEvent::Type::Deleted, b);
  EXPECT_EQ(s.bytes(), object_bytes(a2));
  s.replace({});
  EXPECT_EQ(s.bytes(), 0u);
}
