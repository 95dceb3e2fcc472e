// The handlers' verdicts: the CodeFlareWorkload handler (reconcile) and the guards (validate_object/update), on the
// project's samples and invalid inputs and on the shared public-bug cases and upstream samples.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "core/yaml.hpp"
#include "test_support.hpp"
#include "webhook/validators.hpp"

using namespace cfo;
using namespace cfo::webhook;
using namespace cfo::webhook::test;

namespace {

json::Document workload_doc(const std::string& yaml) {
  json::Document d = yaml_doc(yaml);
  auto& a = d.GetAllocator();
  json::Value& meta = d["metadata"];
  json::set(meta, "namespace", json::str("team-a", a), a);
  json::set(meta, "uid", json::str("uid-1", a), a);
  json::set(meta, "generation", json::Value(1), a);
  return d;
}

const char* kMinimal = R"(apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: demo
spec:
  workerGroups:
    - name: workers
      replicas: 1
)";

AdmissionHandler workload_handler(std::shared_ptr<const validation::SchemaSet> schemas,
                                  workload::ClusterFacts facts = {}) {
  return make_workload_handler(
      std::move(schemas),
      [facts](const json::Value&, json::Document&) -> Result<workload::ClusterFacts> { return facts; },
      [] { return std::string("2026-03-01T10:00:00Z"); });
}

std::string header_value(const std::string& text, const std::string& key) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex("^# " + key + ": *(.*)$", std::regex::multiline))) return m[1];
  return "";
}

const ServedKind* guard_for(const json::Value& obj) {
  const std::string api_version = json::get_string(obj, "apiVersion").value_or("");
  const std::string kind = json::get_string(obj, "kind").value_or("");
  for (const auto& k : guard_kinds())
    if (kind == k.kind && api_version.rfind(k.group + "/", 0) == 0) return &k;
  return nullptr;
}

}  // namespace

TEST(WorkloadHandler, EverySampleIsAdmitted) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto handler = workload_handler(schemas);
  int n = 0;
  for (const auto& file : yaml_files(source_dir() + "/config/samples")) {
    json::Document d = workload_doc(read_text(file));
    AdmissionResponse r = handler(review_of(d));
    EXPECT_TRUE(r.allowed) << file << ": " << r.message;
    ++n;
  }
  EXPECT_GE(n, 8);
}

TEST(WorkloadHandler, EveryInvalidInputIsDeniedAtItsPath) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto handler = workload_handler(schemas);
  int n = 0;
  for (const auto& file : yaml_files(source_dir() + "/test/invalid")) {
    const std::string text = read_text(file);
    const std::string path = header_value(text, "expect-path");
    ASSERT_FALSE(path.empty()) << file;
    AdmissionResponse r = handler(review_of(workload_doc(text)));
    EXPECT_FALSE(r.allowed) << file;
    EXPECT_EQ(r.code, 422) << file;
    EXPECT_NE(r.message.find(path + ": "), std::string::npos) << file << ": " << r.message;
    EXPECT_EQ(r.message.rfind("CodeFlareWorkload.codeflare.dev \"", 0), 0u) << r.message;
    bool cause = false;
    for (const auto& c : r.causes) cause = cause || c.field == path;
    EXPECT_TRUE(cause) << file;
    ++n;
  }
  EXPECT_GE(n, 10);
}

TEST(WorkloadHandler, WarningsComeBackAsAdmissionWarnings) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto handler = workload_handler(schemas);
  std::string yaml = kMinimal;
  yaml += "  rayVersion: \"2.52.1\"\n  image: quay.io/rayproject/ray:2.9.0\n  queue:\n    priorityClass: high\n";
  AdmissionResponse r = handler(review_of(workload_doc(yaml)));
  ASSERT_TRUE(r.allowed) << r.message;
  std::string all;
  for (const auto& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("spec.image: "), std::string::npos) << all;
  EXPECT_NE(all.find("[RayVersionMatchesImage]"), std::string::npos) << all;
  EXPECT_NE(all.find("spec.queue.priorityClass: "), std::string::npos) << all;
  EXPECT_NE(all.find("[PriorityClassWithoutQueue]"), std::string::npos) << all;
}

TEST(WorkloadHandler, AHeldWorkloadIsAdmittedWithTheReason) {
  CFO_REQUIRE_SCHEMAS(schemas);
  workload::ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.local_queue_presence = workload::Presence::kAbsent;
  auto handler = workload_handler(schemas, facts);
  std::string yaml = kMinimal;
  yaml += "  queue:\n    localQueue: missing-queue\n";
  AdmissionResponse r = handler(review_of(workload_doc(yaml)));
  ASSERT_TRUE(r.allowed) << r.message;
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.back().find("LocalQueue missing-queue does not exist"), std::string::npos) << r.warnings.back();
  EXPECT_NE(r.warnings.back().find("[LocalQueueNotFound]"), std::string::npos) << r.warnings.back();
}

TEST(WorkloadHandler, FactsFollowTheCluster) {
  CFO_REQUIRE_SCHEMAS(schemas);
  // Kueue's MaxPodSets of the cluster: three worker groups and a head are four PodSets.
  std::string yaml = kMinimal;
  yaml += "    - name: b\n      replicas: 1\n    - name: c\n      replicas: 1\n  queue:\n    localQueue: q\n";
  workload::ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.profile.kueue_max_pod_sets = 3;
  AdmissionResponse r = workload_handler(schemas, facts)(review_of(workload_doc(yaml)));
  EXPECT_FALSE(r.allowed);
  EXPECT_NE(r.message.find("[KueueMaxPodSets]"), std::string::npos) << r.message;
  facts.profile.kueue_max_pod_sets = 8;
  EXPECT_TRUE(workload_handler(schemas, facts)(review_of(workload_doc(yaml))).allowed);
}

TEST(WorkloadHandler, AFactsErrorDeniesWith500) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto handler = make_workload_handler(
      schemas, [](const json::Value&, json::Document&) -> Result<workload::ClusterFacts> { return fail("no cache"); });
  AdmissionResponse r = handler(review_of(workload_doc(kMinimal)));
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.code, 500);
  EXPECT_NE(r.message.find("no cache"), std::string::npos);
}

TEST(WorkloadHandler, UpdatesOfARunningWorkloadKeepItsQueue) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto handler = workload_handler(schemas);
  std::string yaml = kMinimal;
  json::Document old = workload_doc(yaml + "  queue:\n    localQueue: team-a\n");
  json::Value status(rapidjson::kObjectType);
  auto& a = old.GetAllocator();
  status.AddMember("phase", "Running", a);
  status.AddMember("queue", "team-a", a);
  status.AddMember("rayClusterName", "demo", a);
  status.AddMember("observedGeneration", 1, a);
  old.AddMember("status", status, a);
  json::Document moved = workload_doc(yaml + "  queue:\n    localQueue: team-b\n");
  AdmissionResponse r = handler(review_of(moved, Operation::Update, &old));
  EXPECT_FALSE(r.allowed);
  EXPECT_NE(r.message.find("spec.queue.localQueue: the workload runs in LocalQueue team-a"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("[QueueChangeWhileRunning]"), std::string::npos);

  // Suspended by Kueue while queued: the queue may move.
  old["status"]["phase"].SetString("Queued");
  EXPECT_TRUE(handler(review_of(moved, Operation::Update, &old)).allowed);
  // Another change of a running workload is judged as usual.
  old["status"]["phase"].SetString("Running");
  json::Document resized = workload_doc(yaml + "  queue:\n    localQueue: team-a\n");
  resized["spec"]["workerGroups"][0]["replicas"].SetInt(3);
  EXPECT_TRUE(handler(review_of(resized, Operation::Update, &old)).allowed);
}

TEST(WorkloadHandler, MetadataOnlyUpdatesOfAnInvalidWorkloadPass) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto handler = workload_handler(schemas);
  json::Document old = workload_doc(read_text(source_dir() + "/test/invalid/bad-memory-quantity.yaml"));
  ASSERT_FALSE(handler(review_of(old)).allowed);
  json::Document finalized = json::clone(old);
  json::Value fin(rapidjson::kArrayType);
  fin.PushBack("codeflare.dev/local-queue", finalized.GetAllocator());
  finalized["metadata"].AddMember("finalizers", fin, finalized.GetAllocator());
  EXPECT_TRUE(handler(review_of(finalized, Operation::Update, &old)).allowed);
  json::Document relabelled = json::clone(old);
  json::Value labels(rapidjson::kObjectType);
  labels.AddMember("shard", "a", relabelled.GetAllocator());
  relabelled["metadata"].AddMember("labels", labels, relabelled.GetAllocator());
  EXPECT_FALSE(handler(review_of(relabelled, Operation::Update, &old)).allowed);  // labels reach the children
}

TEST(WorkloadHandler, OtherKindsAndOperations) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto handler = workload_handler(schemas);
  json::Document rc = yaml_doc("apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: x}\nspec: {}\n");
  AdmissionResponse r = handler(review_of(rc));
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.code, 400);
  EXPECT_NE(r.message.find("this webhook judges CodeFlareWorkload.codeflare.dev, not RayCluster.ray.io"),
            std::string::npos);
  json::Document bad = workload_doc(read_text(source_dir() + "/test/invalid/bad-memory-quantity.yaml"));
  EXPECT_TRUE(handler(review_of(bad, Operation::Delete, &bad)).allowed);
}

TEST(GuardHandlers, PathsFollowKubebuilder) {
  EXPECT_EQ(validate_path(codeflare_workload_kind()), "/validate-codeflare-dev-v1alpha1-codeflareworkload");
  std::vector<std::string> paths;
  for (const auto& k : guard_kinds()) paths.push_back(validate_path(k));
  EXPECT_EQ(paths,
            (std::vector<std::string>{
                "/validate-ray-io-v1-raycluster", "/validate-ray-io-v1-rayjob",
                "/validate-workload-codeflare-dev-v1beta2-appwrapper", "/validate-kueue-x-k8s-io-v1beta2-localqueue",
                "/validate-kueue-x-k8s-io-v1beta2-clusterqueue", "/validate-kueue-x-k8s-io-v1beta2-resourceflavor",
                "/validate-kueue-x-k8s-io-v1beta2-workloadpriorityclass"}));
}

TEST(GuardHandlers, PublicBugCasesAreDeniedAtTheirPath) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const char* shared = std::getenv("CFO_SHARED_DIR");
  if (!shared || !*shared) GTEST_SKIP() << "CFO_SHARED_DIR is not set";
  int judged = 0;
  for (const auto& file : yaml_files(std::string(shared) + "/cases/public-bugs")) {
    const std::string text = read_text(file);
    auto docs = yaml::to_json(text);
    ASSERT_TRUE(docs) << file;
    if (docs->size() != 1) continue;  // a closed set of objects: a reference between them, not one object's fault
    const ServedKind* kind = guard_for((*docs)[0]);
    if (!kind) continue;
    auto handler = make_guard_handler(schemas, {}, *kind);
    AdmissionResponse r = handler(review_of((*docs)[0]));
    const std::string expect = header_value(text, "expect");
    const std::string path = header_value(text, "path");
    if (expect == "valid") {
      EXPECT_TRUE(r.allowed) << file << ": " << r.message;
    } else {
      EXPECT_FALSE(r.allowed) << file;
      EXPECT_NE(r.message.find(path), std::string::npos) << file << ": " << r.message;
    }
    ++judged;
  }
  EXPECT_GE(judged, 6);
}

TEST(GuardHandlers, UpstreamSamplesAreAdmitted) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const char* shared = std::getenv("CFO_SHARED_DIR");
  if (!shared || !*shared) GTEST_SKIP() << "CFO_SHARED_DIR is not set";
  // codeflare-sdk's AppWrapper unit-test fixture holds the literal placeholder "${image}" as its Ray image (its
  // SOURCES.txt line says so): refused as it is (the kubelet would never pull it), admitted once an image fills it.
  const std::string placeholder = "${image}";
  int judged = 0, filled = 0;
  for (const auto& file : yaml_files(std::string(shared) + "/samples/upstream")) {
    std::string text = read_text(file);
    const bool has_placeholder = text.find(placeholder) != std::string::npos;
    if (has_placeholder) {
      auto raw = yaml::to_json(text);
      ASSERT_TRUE(raw) << file;
      for (const auto& d : *raw)
        if (const ServedKind* kind = guard_for(d)) {
          AdmissionResponse r = make_guard_handler(schemas, {}, *kind)(review_of(d));
          EXPECT_FALSE(r.allowed) << file;
          EXPECT_NE(r.message.find("[ParseNormalizedNamed]"), std::string::npos) << file << ": " << r.message;
        }
      for (std::size_t at; (at = text.find(placeholder)) != std::string::npos; ++filled)
        text.replace(at, placeholder.size(), "quay.io/rayproject/ray:2.46.0");
    }
    auto docs = yaml::to_json(text);
    ASSERT_TRUE(docs) << file;
    for (const auto& d : *docs) {
      const ServedKind* kind = guard_for(d);
      if (!kind) continue;
      AdmissionResponse r = make_guard_handler(schemas, {}, *kind)(review_of(d));
      EXPECT_TRUE(r.allowed) << file << ": " << r.message;
      ++judged;
    }
  }
  EXPECT_GE(judged, 15);
  EXPECT_LE(filled, 2) << "only the fixture's two images are placeholders";
}

TEST(GuardHandlers, UpdatesRunTransitionRulesAndSkipStatusWrites) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const ServedKind* lq_kind = nullptr;
  for (const auto& k : guard_kinds())
    if (k.kind == "LocalQueue") lq_kind = &k;
  ASSERT_NE(lq_kind, nullptr);
  auto handler = make_guard_handler(schemas, {}, *lq_kind);
  json::Document old = yaml_doc(
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q, namespace: team-a}\n"
      "spec: {clusterQueue: cq-a}\n");
  json::Document moved = json::clone(old);
  moved["spec"]["clusterQueue"].SetString("cq-b");
  AdmissionResponse r = handler(review_of(moved, Operation::Update, &old));
  EXPECT_FALSE(r.allowed) << "a LocalQueue's clusterQueue is immutable (CRD transition rule)";
  EXPECT_NE(r.message.find("spec.clusterQueue"), std::string::npos) << r.message;
  EXPECT_TRUE(handler(review_of(moved)).allowed);  // the same object is fine as a create
}

TEST(GuardHandlers, AVersionWithoutSchemaIsAdmittedUnchecked) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto handler = make_guard_handler(schemas, {}, guard_kinds().front());
  json::Document rc = yaml_doc("apiVersion: ray.io/v9\nkind: RayCluster\nmetadata: {name: x}\nspec: {}\n");
  AdmissionResponse r = handler(review_of(rc));
  EXPECT_TRUE(r.allowed);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("not checked"), std::string::npos);
  json::Document job = yaml_doc("apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: x}\nspec: {}\n");
  EXPECT_EQ(handler(review_of(job)).code, 400);  // routed to the RayCluster guard by mistake
}
