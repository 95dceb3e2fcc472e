// validate's closed sets: which inputs are judged together (closed_sets), and that references are judged within a
// set and only there (judge_closed_set).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include <unistd.h>

#include "cmd/closed_sets.hpp"
#include "cmd/input_files.hpp"
#include "test_files.hpp"

using namespace cfo;
using namespace cfo::cmd;

namespace {

std::vector<InputDocument> docs_from(const std::string& file, std::size_t source, const std::string& text) {
  auto docs = documents_of_text(file, text);
  for (auto& d : docs) d.source = source;
  return docs;
}

void append(std::vector<InputDocument>& to, std::vector<InputDocument> more) {
  for (auto& d : more) to.push_back(std::move(d));
}

constexpr const char* kObj = "apiVersion: x/v1\nkind: A\nmetadata: {name: a}\n";

// The upstream CRD schemas (cfo_test_support's, loaded once); nullptr when UPSTREAM_CRDS is unset.
const validation::SchemaSet* upstream_schemas() { return test_support::upstream_schemas().get(); }

bool has_rule(const FieldErrors& errs, const std::string& rule) {
  for (const auto& e : errs)
    if (e.rule == rule) return true;
  return false;
}

}  // namespace

TEST(ClosedSets, EachFileGivenIsASetOfItsOwnWithAllItsDocuments) {
  std::vector<InputDocument> docs;
  append(docs, docs_from("a.yaml", 0, std::string(kObj) + "---\n" + kObj));
  append(docs, docs_from("b.yaml", 1, kObj));
  append(docs, docs_from("<stdin>", 2, kObj));
  auto sets = closed_sets(docs, {"a.yaml", "b.yaml", "-"}, false);
  ASSERT_EQ(sets.size(), 4u);
  EXPECT_EQ(sets[0], 0u);
  EXPECT_EQ(sets[1], 0u);
  EXPECT_EQ(sets[2], 1u);
  EXPECT_EQ(sets[3], 2u);
}

TEST(ClosedSets, AFolderGivenWithFIsOneSetAndSetMakesEverythingOne) {
  char tmpl[] = "/tmp/cfo-closed-sets-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::vector<InputDocument> docs;
  append(docs, docs_from(dir + "/one.yaml", 0, kObj));
  append(docs, docs_from(dir + "/two.yaml", 0, kObj));
  append(docs, docs_from("c.yaml", 1, kObj));
  auto sets = closed_sets(docs, {dir, "c.yaml"}, false);
  EXPECT_EQ(sets, (std::vector<std::size_t>{0, 0, 1}));
  EXPECT_EQ(closed_sets(docs, {dir, "c.yaml"}, true), (std::vector<std::size_t>{0, 0, 0}));
  std::filesystem::remove_all(dir);
}

TEST(ClosedSets, AQueueNameResolvesWithinTheSetOnly) {
  const validation::SchemaSet* schemas = upstream_schemas();
  if (!schemas) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRD schemas are needed";
  const std::string cluster =
      "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc, namespace: team-a, labels: "
      "{kueue.x-k8s.io/queue-name: lq}}\nspec:\n  headGroupSpec:\n    rayStartParams: {}\n    template:\n"
      "      spec:\n        containers: [{name: ray-head, image: rayproject/ray:2.41.0}]\n";
  auto judge = [&](const std::string& queue_name) {
    std::vector<InputDocument> docs;
    append(docs, docs_from("rc.yaml", 0, cluster));
    append(docs, docs_from("lq.yaml", 1,
                           "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: " + queue_name +
                               ", namespace: team-a}\nspec: {clusterQueue: cq}\n"));
    std::vector<SetMember> members;
    for (auto& d : docs) members.push_back({&d});
    return judge_closed_set(members, *schemas, {}, "2025-01-01T00:00:00Z");
  };
  auto other = judge("another-queue");
  ASSERT_EQ(other.size(), 2u);
  EXPECT_TRUE(has_rule(other[0], "QueueNameExists"));
  auto same = judge("lq");
  ASSERT_EQ(same.size(), 2u);
  EXPECT_FALSE(has_rule(same[0], "QueueNameExists"));
}

// A LocalQueue managed for one ClusterQueue (spec.queue.clusterQueue) that the set holds for another, given as an
// object or managed by a workload before, holds the workload for good (spec.clusterQueue is immutable): an error at
// spec.queue.clusterQueue (the thirty-third user trial: both passed, and render printed two LocalQueues of one
// name). Two workloads managing it for the same ClusterQueue are fine, and the LocalQueue is generated once.
TEST(ClosedSets, AManagedLocalQueueTheSetHoldsForAnotherClusterQueueIsAnError) {
  const validation::SchemaSet* schemas = upstream_schemas();
  if (!schemas) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRD schemas are needed";
  auto workload = [](const std::string& name, const std::string& cq) {
    return "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: " + name +
           ", namespace: team-a}\nspec: {queue: {localQueue: lq, clusterQueue: " + cq +
           "}, workerGroups: [{name: w}]}\n";
  };
  const std::string queue =
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: team-a}\n"
      "spec: {clusterQueue: given-cq}\n";
  auto judge = [&](const std::string& text, bool render, std::vector<GeneratedObjects>* kept = nullptr) {
    std::vector<InputDocument> docs;
    append(docs, docs_from("set.yaml", 0, text));
    std::vector<SetMember> members;
    for (auto& d : docs) members.push_back({&d, json::string_at(d.doc, "kind") == "CodeFlareWorkload"});
    Expansion expansion;
    expansion.facts.kueue_version = "v1beta2";
    expansion.always_generate_managed_queue = render;
    return judge_closed_set(members, *schemas, expansion, "2025-01-01T00:00:00Z", kept);
  };
  auto mismatch = [](const FieldErrors& errs) {
    for (const auto& e : errs)
      if (e.rule == "LocalQueueMismatch" && e.severity == Severity::Error && e.path == "spec.queue.clusterQueue")
        return true;
    return false;
  };
  for (bool render : {false, true}) {
    SCOPED_TRACE(render ? "render" : "validate");
    auto two = judge(workload("a", "cq-1") + "---\n" + workload("b", "cq-2"), render);
    ASSERT_EQ(two.size(), 2u);
    EXPECT_FALSE(mismatch(two[0]));
    EXPECT_TRUE(mismatch(two[1]));
    auto given = judge(queue + "---\n" + workload("a", "cq-1"), render);
    ASSERT_EQ(given.size(), 2u);
    EXPECT_TRUE(mismatch(given[1]));
    EXPECT_FALSE(mismatch(judge(queue + "---\n" + workload("a", "given-cq"), render)[1]));
    std::vector<GeneratedObjects> kept;
    auto same = judge(workload("a", "cq-1") + "---\n" + workload("b", "cq-1"), render, &kept);
    EXPECT_FALSE(mismatch(same[0]) || mismatch(same[1]));
    int queues = 0;
    for (const auto& objects : kept)
      for (const auto& o : objects) queues += json::string_at(o.doc, "kind") == "LocalQueue" ? 1 : 0;
    EXPECT_EQ(queues, 1);
  }
}

// The same object twice in one set (Argo CD's RepeatedResourceWarning; kubectl apply keeps the later one): a warning
// on the repeat, for the set's own objects and for CodeFlareWorkloads (whose generated children are not told again).
TEST(ClosedSets, AnObjectGivenTwiceIsWarnedOnceOnTheRepeat) {
  const validation::SchemaSet* schemas = upstream_schemas();
  if (!schemas) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRD schemas are needed";
  const std::string cluster =
      "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rc, namespace: team-a}\nspec:\n  headGroupSpec:\n"
      "    rayStartParams: {}\n    template:\n      spec:\n        containers: [{name: ray-head, image: "
      "rayproject/ray:2.41.0}]\n";
  const std::string workload =
      "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: wl, namespace: team-a}\n"
      "spec: {workerGroups: [{name: w}]}\n";
  std::vector<InputDocument> docs;
  append(docs, docs_from("set.yaml", 0, cluster + "---\n" + cluster + "---\n" + workload + "---\n" + workload));
  ASSERT_EQ(docs.size(), 4u);
  std::vector<SetMember> members;
  for (std::size_t i = 0; i < docs.size(); ++i) members.push_back({&docs[i], i >= 2});
  auto found = judge_closed_set(members, *schemas, {}, "2025-01-01T00:00:00Z");
  ASSERT_EQ(found.size(), 4u);
  auto repeats = [](const FieldErrors& errs) {
    int n = 0;
    for (const auto& e : errs) n += e.rule == "RepeatedResource" && e.severity == Severity::Warning ? 1 : 0;
    return n;
  };
  EXPECT_EQ(repeats(found[0]), 0);
  EXPECT_EQ(repeats(found[1]), 1);
  EXPECT_EQ(repeats(found[2]), 0);
  EXPECT_EQ(repeats(found[3]), 1);
  for (const auto& e : found[3]) {
    if (e.rule == "RepeatedResource") {
      EXPECT_EQ(e.path, "metadata.name");
    }
  }
  // The same name in another namespace is another object.
  std::vector<InputDocument> other;
  std::string elsewhere = cluster;
  elsewhere.replace(elsewhere.find("team-a"), 6, "team-b");
  append(other, docs_from("set.yaml", 0, cluster + "---\n" + elsewhere));
  std::vector<SetMember> other_members;
  for (auto& d : other) other_members.push_back({&d});
  for (const auto& errs : judge_closed_set(other_members, *schemas, {}, "2025-01-01T00:00:00Z"))
    EXPECT_EQ(repeats(errs), 0);
}

// The tenth user trial: `kubectl get cfw -o yaml` piped to render printed nothing for a job workload, its status read
// as a job already run. Offline, a workload is expanded from its spec alone.
TEST(ClosedSets, AWorkloadIsExpandedFromItsSpecWhateverStatusItCarries) {
  const validation::SchemaSet* schemas = upstream_schemas();
  if (!schemas) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRD schemas are needed";
  const std::string workload =
      "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata: {name: train, namespace: team-a}\n"
      "spec: {job: {entrypoint: python train.py}}\n";
  auto kinds = [&](const std::string& text) {
    std::vector<InputDocument> docs = docs_from("wl.yaml", 0, text);
    std::vector<SetMember> members{{&docs[0], true}};
    std::vector<GeneratedObjects> kept;
    judge_closed_set(members, *schemas, {}, "2025-01-01T00:00:00Z", &kept);
    std::string out;
    for (const auto& g : kept.at(0)) out += json::string_at(g.doc, "kind") + ";";
    return out;
  };
  const std::string plain = kinds(workload);
  EXPECT_NE(plain.find("RayJob;"), std::string::npos) << plain;
  const std::string with_status =
      kinds(workload +
            "status: {observedGeneration: 1, phase: Running, rayJobName: train, jobDeploymentStatus: "
            "Running, jobSpecHash: '0123456789abcdef'}\n");
  EXPECT_EQ(with_status, plain);
}
