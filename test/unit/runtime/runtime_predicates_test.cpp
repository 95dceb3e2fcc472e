#include <gtest/gtest.h>

#include <string>

#include "core/json.hpp"
#include "json_doc.hpp"
#include "runtime/predicates.hpp"

using namespace cfo;
using namespace cfo::runtime;
using cfo::runtime::test::doc;

namespace {

const std::string kBase = R"({"metadata":{"name":"a","namespace":"ns","generation":3,"resourceVersion":"10",)"
                          R"("labels":{"team":"blue"},"annotations":{"note":"x"},"finalizers":["f"],)"
                          R"("managedFields":[{"manager":"m"}]},"spec":{"replicas":1},"status":{"phase":"Pending"}})";

/// kBase with `from` replaced by `to` (which must occur).
std::string edit(const std::string& from, const std::string& to) {
  std::string s = kBase;
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

bool changed(const std::string& after) { return spec_or_metadata_changed(doc(kBase), doc(after)); }

}  // namespace

TEST(SpecOrMetadataChanged, StatusResourceVersionAndManagedFieldsAloneAreIgnored) {
  EXPECT_FALSE(changed(kBase)) << "a resync of the same object";
  std::string status_only = edit(R"("phase":"Pending")", R"("phase":"Running","readyWorkers":2)");
  status_only = status_only.replace(status_only.find(R"("10")"), 4, R"("11")");
  EXPECT_FALSE(changed(status_only));
  EXPECT_FALSE(changed(edit(R"("managedFields":[{"manager":"m"}])", R"("managedFields":[{"manager":"n"}])")));
}

TEST(SpecOrMetadataChanged, GenerationLabelsAnnotationsFinalizersAndDeletionCount) {
  EXPECT_TRUE(changed(edit(R"("generation":3)", R"("generation":4)")));
  EXPECT_TRUE(changed(edit(R"("team":"blue")", R"("team":"red")")));
  EXPECT_TRUE(changed(edit(R"("note":"x")", R"("note":"y")")));
  EXPECT_TRUE(changed(edit(R"("finalizers":["f"],)", "")));
  EXPECT_TRUE(
      changed(edit(R"("finalizers":["f"])", R"("finalizers":["f"],"deletionTimestamp":"2026-01-01T00:00:00Z")")));
  EXPECT_TRUE(changed(
      edit(R"("finalizers":["f"])", R"("finalizers":["f"],"ownerReferences":[{"kind":"X","name":"x","uid":"1"}])")));
}

TEST(SpecOrMetadataChanged, ObjectsWithoutGenerationOrMetadataAreAlwaysReconciled) {
  EXPECT_TRUE(spec_or_metadata_changed(doc(R"({"metadata":{"name":"a"}})"), doc(R"({"metadata":{"name":"a"}})")));
  EXPECT_TRUE(spec_or_metadata_changed(doc(R"({})"), doc(kBase)));
}

TEST(SpecOrMetadataChanged, MemberOrderDoesNotMatter) {
  const std::string reordered =
      R"({"status":{"phase":"Pending"},"spec":{"replicas":1},"metadata":{"annotations":{"note":"x"},)"
      R"("labels":{"team":"blue"},"finalizers":["f"],"generation":3,"namespace":"ns","name":"a",)"
      R"("resourceVersion":"12"}})";
  EXPECT_FALSE(changed(reordered));
}

// For caches whose transform keeps only what readers use (a LocalQueue: labels and clusterQueue), a change of what
// was dropped reaches the informer as a new resourceVersion alone, and wakes nothing.
TEST(KeptFieldsChanged, OnlyTheResourceVersionAndManagedFieldsAreIgnored) {
  const std::string lq = R"({"metadata":{"name":"q","namespace":"ns","resourceVersion":"10","labels":{"a":"1"},)"
                         R"("managedFields":[{"manager":"kueue"}]},"spec":{"clusterQueue":"cq"}})";
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = lq;
    s.replace(s.find(from), from.size(), to);
    return doc(s);
  };
  EXPECT_FALSE(kept_fields_changed(doc(lq), doc(lq))) << "a resync";
  EXPECT_FALSE(kept_fields_changed(doc(lq), with("\"10\"", "\"11\""))) << "Kueue wrote the (dropped) status";
  EXPECT_FALSE(kept_fields_changed(doc(lq), with("\"manager\":\"kueue\"", "\"manager\":\"other\"")));
  EXPECT_FALSE(kept_fields_changed(doc(lq), doc(R"({"spec":{"clusterQueue":"cq"},"metadata":{"labels":{"a":"1"},)"
                                                R"("namespace":"ns","name":"q","resourceVersion":"12"}})")))
      << "member order, and managedFields gone";
  EXPECT_TRUE(kept_fields_changed(doc(lq), with("\"cq\"", "\"cq2\"")));
  EXPECT_TRUE(kept_fields_changed(doc(lq), with("{\"a\":\"1\"}", "{\"a\":\"2\"}")));
  EXPECT_TRUE(kept_fields_changed(doc(lq), with(",\"labels\":{\"a\":\"1\"}", "")));
  EXPECT_TRUE(kept_fields_changed(doc(lq), with("\"spec\":{\"clusterQueue\":\"cq\"}", "\"status\":{}")));
}
