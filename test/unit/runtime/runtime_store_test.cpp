#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/json.hpp"
#include "runtime/cached_object.hpp"
#include "runtime/packed_object.hpp"
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

std::string rv_of(const ChangedObject& o) { return rv_of(o.get()); }

// The behaviour of a store is the same whether it holds objects as they are (false) or packed (true).
class StoreModes : public ::testing::TestWithParam<bool> {};

}  // namespace

INSTANTIATE_TEST_SUITE_P(PlainAndPacked, StoreModes, ::testing::Bool());

TEST_P(StoreModes, ReplaceIntoEmptyStoreAddsEverything) {
  Store s(GetParam());
  auto changes = s.replace_objects({obj("ns", "b", "1"), obj("ns", "a", "2"), obj("", "cluster-wide", "3")});
  ASSERT_EQ(changes.size(), 3u);
  for (const auto& c : changes) EXPECT_EQ(c.kind, StoreChange::Kind::Added);
  EXPECT_EQ(s.keys(), (std::vector<std::string>{"cluster-wide", "ns/a", "ns/b"}));
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(rv_of(s.get("ns/a")), "2");
  EXPECT_EQ(s.get("ns/missing"), nullptr);
  EXPECT_EQ(s.list().size(), 3u);
}

TEST_P(StoreModes, ReplaceReportsVanishedObjectsAsDeletesWithTheirLastState) {
  Store s(GetParam());
  s.replace_objects({obj("ns", "keep", "1"), obj("ns", "gone", "2")});
  auto changes = s.replace_objects({obj("ns", "keep", "5"), obj("ns", "new", "6")});
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

TEST_P(StoreModes, OfTwoListedObjectsWithOneKeyTheLaterWins) {
  Store s(GetParam());
  auto changes = s.replace_objects({obj("ns", "a", "1"), obj("ns", "b", "2"), obj("ns", "a", "3"), nullptr});
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].key, "ns/a");
  EXPECT_EQ(rv_of(changes[0].object), "3");
  EXPECT_EQ(rv_of(s.get("ns/a")), "3");
  EXPECT_EQ(s.keys(), (std::vector<std::string>{"ns/a", "ns/b"}));
}

// A namespace's objects are read by key prefix, without opening (or, packed, unpacking) the others.
TEST_P(StoreModes, ListsAndKeysOfOneNamespaceByPrefix) {
  Store s(GetParam());
  s.replace_objects(
      {obj("a", "x", "1"), obj("ab", "z", "2"), obj("a", "y", "3"), obj("b", "w", "4"), obj("", "cluster", "5")});
  EXPECT_EQ(s.keys("a/"), (std::vector<std::string>{"a/x", "a/y"}));
  auto listed = s.list("a/");
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(rv_of(listed[0]), "1");
  EXPECT_EQ(rv_of(listed[1]), "3");
  EXPECT_TRUE(s.list("c/").empty());
  EXPECT_EQ(s.keys().size(), 5u);
  EXPECT_EQ(s.list("").size(), 5u);
}

TEST_P(StoreModes, ReaderKeepsItsSnapshotAcrossReplacement) {
  Store s(GetParam());
  s.replace_objects({obj("ns", "a", "1")});
  ObjectPtr held = s.get("ns/a");
  s.apply(WatchEvent::Type::Modified, obj("ns", "a", "2"));
  EXPECT_EQ(rv_of(held), "1");
  EXPECT_EQ(rv_of(s.get("ns/a")), "2");
}

TEST_P(StoreModes, ApplyFollowsWhatTheCacheHolds) {
  Store s(GetParam());
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
  s.replace_objects({a, b});
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
  s.replace_objects({});
  EXPECT_EQ(s.bytes(), 0u);
}

namespace {

// A RayCluster as the operator's children cache holds it (the shape, not the exact object).
std::string ray_cluster(int i) {
  const std::string n = std::to_string(i);
  return R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"wl-)" + n +
         R"(","namespace":"team-a","uid":"ce8f15b3-afe9-41dc-8f1c-5a0cacc1b6)" + std::to_string(10 + i % 90) +
         R"(","resourceVersion":")" + std::to_string(1000 + i) + R"(","labels":{"codeflare.dev/workload":"wl-)" + n +
         R"(","kueue.x-k8s.io/queue-name":"team-a-queue"},"annotations":{"codeflare.dev/spec-hash":"2ab32953)" + n +
         R"("}},"spec":{"rayVersion":"2.52.1","headGroupSpec":{"rayStartParams":{"block":"true","num-cpus":"2"},)"
         R"("template":{"spec":{"containers":[{"name":"ray-head","image":"quay.io/rayproject/ray:2.52.1",)"
         R"("resources":{"limits":{"cpu":"2","memory":"8G"},"requests":{"cpu":"1","memory":"5G"}}}]}}},)"
         R"("workerGroupSpecs":[{"groupName":"workers","replicas":)" +
         std::to_string(1 + i % 4) +
         R"(,"minReplicas":1,"maxReplicas":4,"rayStartParams":{"block":"true"},"template":{"spec":{"containers":)"
         R"([{"name":"machine-learning","image":"quay.io/rayproject/ray:2.52.1","resources":{"limits":{"cpu":"2",)"
         R"("memory":"4Gi"},"requests":{"cpu":"1","memory":"4Gi"}}}]}}}]},"status":{"state":"ready"}})";
}

ObjectPtr parsed(const std::string& text) {
  auto d = json::parse(text);
  EXPECT_TRUE(d.has_value());
  return compact_object(*d);
}

}  // namespace

TEST(ObjectPacker, UnpacksWhatItPackedAndRefusesOtherBytes) {
  const ObjectPacker packer(ray_cluster(0));
  for (int i : {0, 1, 7}) {
    ObjectPtr original = parsed(ray_cluster(i));
    const std::string blob = packer.pack(*original);
    ObjectPtr back = packer.unpack(blob);
    ASSERT_TRUE(back) << i;
    EXPECT_EQ(json::dump(*back), json::dump(*original)) << i;
    EXPECT_LT(blob.size(), json::dump(*original).size() / 4) << "the dictionary holds what objects share";
  }
  const std::string blob = packer.pack(*parsed(ray_cluster(3)));
  EXPECT_FALSE(packer.unpack(blob.substr(0, blob.size() / 2))) << "truncated";
  EXPECT_FALSE(packer.unpack("")) << "empty";
  EXPECT_FALSE(ObjectPacker("another dictionary").unpack(blob)) << "packed against another dictionary";
  // Without a dictionary it still round-trips.
  const ObjectPacker plain;
  EXPECT_EQ(json::dump(*plain.unpack(plain.pack(*parsed(ray_cluster(5))))), json::dump(*parsed(ray_cluster(5))));
  // Only the last 32 KiB of a long dictionary are kept (deflate's window).
  EXPECT_EQ(ObjectPacker(std::string(40000, 'x')).dictionary().size(), ObjectPacker::kMaxDictionaryBytes);
}

// The packer keeps its zlib streams between calls: a stream that a truncated blob left half-way, or one another thread
// used meanwhile, packs and unpacks the next objects as a fresh one would.
TEST(ObjectPacker, KeptStreamsServeTheNextCallsOnAnyThread) {
  const ObjectPacker packer(ray_cluster(0));
  const std::string blob = packer.pack(*parsed(ray_cluster(2)));
  EXPECT_FALSE(packer.unpack(blob.substr(0, blob.size() - 3))) << "truncated";
  EXPECT_FALSE(packer.unpack(blob.substr(0, 4) + std::string(blob.size() - 4, '\x7f'))) << "not deflate";
  for (int round = 0; round < 3; ++round) {
    ObjectPtr back = packer.unpack(blob);
    ASSERT_TRUE(back) << "after a failed unpack, round " << round;
    EXPECT_EQ(json::dump(*back), json::dump(*parsed(ray_cluster(2))));
    EXPECT_EQ(packer.pack(*parsed(ray_cluster(2))), blob) << "a reused stream packs as a fresh one";
  }
  std::vector<std::string> failures(4);
  {
    std::vector<std::jthread> threads;
    threads.reserve(4);
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 50; ++i) {
          const int k = t * 100 + i;
          ObjectPtr original = parsed(ray_cluster(k));
          ObjectPtr back = packer.unpack(packer.pack(*original));
          if (!back || json::dump(*back) != json::dump(*original)) failures[t] += " " + std::to_string(k);
        }
      });
  }
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

// A packed store holds a fifth or less of what the same objects take as documents, and hands them back whole.
TEST(Store, APackedStoreHoldsFarFewerBytesForTheSameObjects) {
  Store plain, packed(true);
  std::vector<ObjectPtr> objects;
  for (int i = 0; i < 200; ++i) objects.push_back(parsed(ray_cluster(i)));
  plain.replace_objects(objects);
  packed.replace_objects(objects);
  ASSERT_EQ(packed.size(), 200u);
  EXPECT_LT(packed.bytes() * 5, plain.bytes()) << "packed " << packed.bytes() << " plain " << plain.bytes();
  for (int i : {0, 42, 199}) {
    const std::string key = "team-a/wl-" + std::to_string(i);
    ASSERT_TRUE(packed.get(key)) << key;
    EXPECT_EQ(json::dump(*packed.get(key)), json::dump(*plain.get(key))) << key;
  }
  // Updates and deletes keep the count of bytes right.
  auto changed = packed.apply(WatchEvent::Type::Modified, parsed(ray_cluster(1000)));
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ(changed->kind, StoreChange::Kind::Added);
  const std::size_t with_one_more = packed.bytes();
  packed.apply(WatchEvent::Type::Deleted, parsed(ray_cluster(1000)));
  EXPECT_LT(packed.bytes(), with_one_more);
  packed.replace_objects({});
  EXPECT_EQ(packed.size(), 0u);
}

// A packed store packs when an object is prepared, before replace(): an informer prepares each page of a list as it
// arrives, so the list in progress is held packed. The changes of a packed replace() hold blobs, opened on get().
TEST(Store, APackedStorePacksWhenPreparingAndHandsOutPackedChanges) {
  Store packed(true), plain;
  std::vector<Store::Item> items;
  for (int i = 0; i < 50; ++i) {
    Store::Item item = packed.prepare(parsed(ray_cluster(i)));
    EXPECT_EQ(item.key, "team-a/wl-" + std::to_string(i));
    EXPECT_FALSE(item.object) << "held packed only";
    EXPECT_LT(item.blob.size(), json::dump(*parsed(ray_cluster(i))).size() / 4);
    items.push_back(std::move(item));
  }
  EXPECT_EQ(plain.prepare(parsed(ray_cluster(1))).blob, "") << "a plain store keeps the object";
  EXPECT_EQ(packed.prepare(nullptr).key, "");
  auto changes = packed.replace(std::move(items));
  ASSERT_EQ(changes.size(), 50u);
  const std::string key = changes[7].key;
  ASSERT_TRUE(changes[7].object.get());
  EXPECT_EQ(json::dump(*changes[7].object.get()), json::dump(*packed.get(key)));
  // A relist: the old objects of its updates are opened from their blobs too.
  auto relist = packed.replace_objects({parsed(ray_cluster(7))});
  ASSERT_EQ(relist.size(), 50u);
  for (const auto& c : relist) {
    if (c.kind == StoreChange::Kind::Updated) {
      EXPECT_EQ(json::dump(*c.old_object.get()), json::dump(*c.object.get()));
    }
  }
  EXPECT_EQ(std::count_if(relist.begin(), relist.end(),
                          [](const StoreChange& c) { return c.kind == StoreChange::Kind::Deleted && c.object.get(); }),
            49);
}
