#include <gtest/gtest.h>

#include <cstdlib>

#include "core/condition.hpp"
#include "parse_test_util.hpp"
#include "workload/reconcile.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
constexpr const char* kNow = "2026-01-01T00:00:00Z";

std::optional<std::string> queue_label(const json::Value& obj) {
  const json::Value* labels = json::find_path(obj, "metadata.labels");
  return labels ? json::get_string(*labels, "kueue.x-k8s.io/queue-name") : std::nullopt;
}
}  // namespace

TEST(Reconcile, DefaultLocalQueueIsPickedUpWhenSpecNamesNone) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = sample("cfw_cpu.yaml");
  ClusterFacts facts;
  facts.default_local_queue = "default-queue";
  Outcome out = reconcile(d, Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  ASSERT_EQ(out.desired.size(), 1u);
  EXPECT_EQ(queue_label(out.desired[0]), "default-queue");
  EXPECT_EQ(json::get_string(out.status, "queue"), "default-queue");
}

TEST(Reconcile, NoQueueLabelWhenNeitherSpecNorDefault) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile(sample("cfw_cpu.yaml"), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_FALSE(queue_label(out.desired[0]));
  EXPECT_FALSE(json::find(out.status, "queue"));
}

TEST(Reconcile, WrappedPutsTheQueueOnTheAppWrapperOnly) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;
  facts.default_local_queue = "ignored-default";
  Outcome out = reconcile(sample("cfw_appwrapper.yaml"), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  ASSERT_EQ(out.desired.size(), 1u);
  const auto& aw = out.desired[0];
  EXPECT_EQ(json::get_string(aw, "kind"), "AppWrapper");
  EXPECT_EQ(queue_label(aw), "team-a-queue");
  const json::Value* inner = json::find_path(aw, "spec.components");
  ASSERT_TRUE(inner && inner->IsArray() && inner->Size() == 1);
  EXPECT_FALSE(queue_label((*inner)[0]["template"]));
  EXPECT_EQ(json::get_string(out.status, "appWrapperName"), "raytest-aw");
  EXPECT_EQ(json::get_string(out.status, "rayClusterName"), "raytest-aw");
}

TEST(Reconcile, StatusCountsAndConditions) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = sample("cfw_multi_group.yaml");
  json::Document rc = yaml_doc("status: {state: ready, readyWorkerReplicas: 3}\n");
  Outcome out = reconcile(d, Observed{&rc, nullptr}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_EQ(json::get_int(out.status, "observedGeneration"), 1);
  EXPECT_EQ(json::get_string(out.status, "phase"), "Running");
  EXPECT_EQ(json::get_int(out.status, "desiredWorkers"), 3);
  EXPECT_EQ(json::get_int(out.status, "readyWorkers"), 3);
  // The first status: one event announcing the phase, nothing else.
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_EQ(out.events[0].reason, "Running");
  EXPECT_EQ(out.events[0].type, "Normal");
  auto conds = conditions_from_json(*json::find(out.status, "conditions"));
  ASSERT_NE(find_condition(conds, "Valid"), nullptr);
  EXPECT_EQ(find_condition(conds, "Valid")->status, "True");
  EXPECT_EQ(find_condition(conds, "Ready")->status, "True");
}

TEST(Reconcile, KeepsTransitionTimesFromTheWorkloadsOwnStatus) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = sample("cfw_cpu.yaml");
  Outcome first = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  d.AddMember("status", json::Value(first.status, d.GetAllocator()), d.GetAllocator());
  Outcome second = reconcile(d, Observed{}, ClusterFacts{}, schemas, "2026-01-02T00:00:00Z");
  EXPECT_EQ(json::dump(second.status), json::dump(first.status));
}

TEST(Reconcile, InvalidSpecNamesTheFieldsAndGeneratesNothing) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto d = yaml_doc("metadata: {name: demo}\nspec: {workerGroups: [{name: w, replicas: -2}], bogus: 1}\n");
  set_identity(d, "team-a", "uid-1", 4);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(out.valid);
  EXPECT_TRUE(out.desired.empty());
  EXPECT_EQ(json::get_string(out.status, "phase"), "Invalid");
  EXPECT_EQ(json::get_int(out.status, "observedGeneration"), 4);
  auto conds = conditions_from_json(*json::find(out.status, "conditions"));
  const Condition* valid = find_condition(conds, "Valid");
  ASSERT_NE(valid, nullptr);
  EXPECT_EQ(valid->status, "False");
  EXPECT_EQ(valid->reason, "InvalidSpec");
  EXPECT_EQ(valid->observed_generation, 4);
  EXPECT_NE(valid->message.find("spec.workerGroups[0].replicas"), std::string::npos) << valid->message;
  EXPECT_NE(valid->message.find("spec.bogus"), std::string::npos) << valid->message;
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_EQ(out.events[0].type, "Warning");
  EXPECT_EQ(out.events[0].reason, "InvalidSpec");
}

TEST(Reconcile, TooManyPodSetsForKueue) {
  CFO_REQUIRE_SCHEMAS(schemas);
  std::string groups;
  for (int i = 0; i < 8; ++i) groups += (i ? ", " : "") + std::string("{name: g") + std::to_string(i) + "}";
  auto d = yaml_doc("metadata: {name: demo}\nspec: {queue: {localQueue: q}, workerGroups: [" + groups + "]}\n");
  set_identity(d);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(out.valid);
  EXPECT_NE(finding(out.errors, "spec.workerGroups", "KueueMaxPodSets"), nullptr) << dump(out.errors);
  // The RayCluster's own check of the same limit (Kueue's webhook, MaxPodSets) is the same fault: not told twice.
  for (const auto& e : out.errors) EXPECT_NE(e.rule, "MaxPodSets") << dump(out.errors);
  ClusterFacts newer;
  newer.profile.kueue_max_pod_sets = 18;
  EXPECT_TRUE(reconcile(d, Observed{}, newer, schemas, kNow).valid);
}

TEST(Reconcile, PriorityClassWithoutAnyQueueIsAWarning) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto d = yaml_doc("metadata: {name: demo}\nspec: {queue: {priorityClass: high}}\n");
  set_identity(d);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(out.valid) << dump(out.errors);
  const FieldError* w = finding(out.errors, "spec.queue.priorityClass", "PriorityClassWithoutQueue");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, Severity::Warning);
  // The warning stays in the status, not only in an event that expires.
  auto conds = conditions_from_json(*json::find(out.status, "conditions"));
  const Condition* valid = find_condition(conds, "Valid");
  ASSERT_NE(valid, nullptr);
  EXPECT_EQ(valid->status, "True");
  EXPECT_EQ(valid->reason, "ValidWithWarnings");
  EXPECT_NE(valid->message.find("spec.queue.priorityClass: has no effect"), std::string::npos) << valid->message;
  EXPECT_NE(valid->message.find("[PriorityClassWithoutQueue]"), std::string::npos)
      << "names the rule: " << valid->message;
}

TEST(Reconcile, LongUserInputDoesNotOverflowTheMessages) {
  // Parsing fails before any generated object is validated, so an empty SchemaSet will do.
  validation::SchemaSet none;
  auto d = yaml_doc("metadata: {name: demo}\nspec: {head: {resources: {limits: {memory: '" + std::string(100000, '9') +
                    "x'}}}, a: 1, b: 2, c: 3}\n");
  set_identity(d);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, none, kNow);
  EXPECT_FALSE(out.valid);
  auto conds = conditions_from_json(*json::find(out.status, "conditions"));
  ASSERT_NE(find_condition(conds, "Valid"), nullptr);
  EXPECT_LE(find_condition(conds, "Valid")->message.size(), 4096u);
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_LE(out.events[0].message.size(), 1024u);
  EXPECT_NE(out.events[0].message.find("spec.head.resources.limits.memory"), std::string::npos);
}

// A child that exists is judged as an update of the live object (CEL transition rules run), one that is created is
// not. The pinned CRDs have no transition rule on a field the operator sets, so the test makes one: the RayCluster
// CRD with spec.rayVersion immutable.
TEST(Reconcile, ExistingChildIsJudgedAsAnUpdateOfTheLiveObject) {
  const char* dir = std::getenv("UPSTREAM_CRDS");
  if (!dir || !*dir) GTEST_SKIP() << "UPSTREAM_CRDS is not set";
  auto loaded = validation::SchemaSet::load_dir(std::string(dir) + "/upstream");
  ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
  validation::SchemaSet schemas = std::move(*loaded);
  json::Document crd = yaml_doc(read_text(std::string(dir) + "/upstream/ray.io_rayclusters.yaml"));
  json::Value& versions = crd["spec"]["versions"];
  bool patched = false;
  for (auto& v : versions.GetArray()) {
    if (json::get_string(v, "name") != "v1") continue;
    json::Value& ray_version = v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["rayVersion"];
    json::Document rule = yaml_doc("[{rule: 'self == oldSelf', message: rayVersion is immutable in this test}]");
    ray_version.AddMember("x-kubernetes-validations", json::Value(rule, crd.GetAllocator()), crd.GetAllocator());
    patched = true;
  }
  ASSERT_TRUE(patched);
  ASSERT_TRUE(schemas.add_crd(crd).has_value());

  json::Document d = sample("cfw_cpu.yaml");
  Outcome created = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(created.valid) << dump(created.errors);
  ASSERT_EQ(created.desired.size(), 1u);

  // The live RayCluster as the cluster holds it: what was applied, with another rayVersion.
  json::Document live;
  live.CopyFrom(created.desired[0], live.GetAllocator());
  live["spec"]["rayVersion"].SetString("2.0.0", live.GetAllocator());
  Outcome changed = reconcile(d, Observed{&live, nullptr}, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(changed.valid);
  bool named = false;
  for (const auto& e : changed.errors)
    // The sample writes spec.rayVersion, so the finding names that field of the workload.
    named |=
        e.path == "spec.rayVersion" && e.severity == Severity::Error && e.reason.find("immutable") != std::string::npos;
  EXPECT_TRUE(named) << dump(changed.errors);
  EXPECT_TRUE(changed.desired.empty());

  // The same live object with the same rayVersion: nothing to object to.
  live["spec"]["rayVersion"].CopyFrom(created.desired[0]["spec"]["rayVersion"], live.GetAllocator());
  Outcome same = reconcile(d, Observed{&live, nullptr}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(same.valid) << dump(same.errors);
}

// A rule broken by what the user wrote names the user's field, once, not each generated container it was copied to.
TEST(ParseWorkloadChecks, FindingsOnCopiedFieldsNameTheSpecOnce) {
  CFO_REQUIRE_SCHEMAS(schemas);
  // An env var name with '=' is refused by every Kubernetes version; the variable is copied into three containers.
  auto d = yaml_doc(
      "metadata: {name: demo}\nspec: {env: [{name: 'A=B', value: x}], workerGroups: [{name: a}, "
      "{name: b}]}\n");
  set_identity(d);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, schemas, "2026-01-01T00:00:00Z");
  int env_findings = 0;
  for (const auto& e : out.errors)
    if (e.path.ends_with("env[0].name")) {
      ++env_findings;
      EXPECT_EQ(e.path, "spec.env[0].name");
    }
  EXPECT_EQ(env_findings, 1) << dump(out.errors);
}

// Every workload needs the RayCluster CRD (KubeRay makes a RayJob's cluster, the AppWrapper controller a wrapped one):
// while it is not served (deleted, or being deleted) nothing is written, and a child that runs is left as it is (the
// nineteenth user trial: the operator re-created what the CRD's deletion removed, and the deletion never ended).
TEST(Reconcile, EveryWorkloadIsHeldWhileTheRayClusterCrdIsNotServed) {
  CFO_REQUIRE_SCHEMAS(schemas);
  for (const char* spec : {"{}", "{appWrapper: true}", "{job: {entrypoint: python run.py}}"}) {
    auto d = yaml_doc(std::string("metadata: {name: demo}\nspec: ") + spec + "\n");
    set_identity(d);
    ClusterFacts facts;
    facts.ray_cluster_served = false;
    Outcome out = reconcile(d, Observed{}, facts, schemas, kNow);
    EXPECT_TRUE(out.valid) << spec << dump(out.errors);
    EXPECT_TRUE(out.held) << spec;
    EXPECT_TRUE(out.desired.empty()) << spec;
    EXPECT_EQ(json::get_string(out.status, "heldFor"), "RayClusterNotInstalled") << spec;
    // Nor does the missing schema make the spec invalid.
    const validation::SchemaSet none;
    Outcome bare = reconcile(d, Observed{}, facts, none, kNow);
    EXPECT_TRUE(bare.valid) << spec << dump(bare.errors);
    EXPECT_TRUE(bare.held) << spec;
    facts.ray_cluster_served = true;
    EXPECT_FALSE(reconcile(d, Observed{}, facts, schemas, kNow).desired.empty()) << spec;
  }
}

// A workload that needs a CRD the cluster does not serve is held with a condition that says so (not an apply that
// fails again and again), and goes ahead, with a Normal event, once the CRD is served.
TEST(Reconcile, AWorkloadNeedingAnUnservedCrdIsHeldUntilItIsServed) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto d = yaml_doc("metadata: {name: demo}\nspec: {appWrapper: true}\n");
  set_identity(d);
  ClusterFacts facts;
  facts.app_wrapper_served = false;
  Outcome out = reconcile(d, Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(out.valid);
  EXPECT_TRUE(out.held);
  EXPECT_TRUE(out.desired.empty());
  auto conds = conditions_from_json(*json::find(out.status, "conditions"));
  const Condition* ready = find_condition(conds, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->reason, "AppWrapperNotInstalled");
  EXPECT_NE(ready->message.find("install AppWrapper, or set spec.appWrapper: false"), std::string::npos);
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_EQ(out.events[0].reason, "AppWrapperNotInstalled");
  // Looked at again with the same status: no new event.
  json::Value st;
  st.CopyFrom(out.status, d.GetAllocator());
  d.AddMember("status", st, d.GetAllocator());
  Outcome again = reconcile(d, Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(again.events.empty());
  // Served now: the AppWrapper is applied, and a Normal event says the hold ended.
  facts.app_wrapper_served = true;
  Outcome go = reconcile(d, Observed{}, facts, schemas, kNow);
  EXPECT_FALSE(go.held);
  ASSERT_EQ(go.desired.size(), 1u);
  EXPECT_EQ(json::string_at(go.desired[0], "kind"), "AppWrapper");
  bool released = false;
  for (const auto& e : go.events) released = released || (e.type == "Normal" && e.reason == "AppWrapperInstalled");
  EXPECT_TRUE(released);

  // The operator has no schema of a kind the cluster does not serve: the hold must not turn into an invalid spec.
  validation::SchemaSet without_crds;
  auto fresh = yaml_doc("metadata: {name: demo}\nspec: {appWrapper: true}\n");
  set_identity(fresh);
  ClusterFacts no_appwrapper;
  no_appwrapper.app_wrapper_served = false;
  Outcome unjudged = reconcile(fresh, Observed{}, no_appwrapper, without_crds, kNow);
  EXPECT_TRUE(unjudged.valid) << dump(unjudged.errors);
  EXPECT_TRUE(unjudged.held);

  auto job = yaml_doc("metadata: {name: demo}\nspec: {job: {entrypoint: python x.py}}\n");
  set_identity(job);
  ClusterFacts no_rayjob;
  no_rayjob.ray_job_served = false;
  EXPECT_TRUE(reconcile(job, Observed{}, no_rayjob, schemas, kNow).held);

  auto queued = yaml_doc("metadata: {name: demo}\nspec: {queue: {localQueue: team-a}}\n");
  set_identity(queued);
  ClusterFacts no_kueue;
  no_kueue.kueue_served = false;
  Outcome lq = reconcile(queued, Observed{}, no_kueue, schemas, kNow);
  EXPECT_TRUE(lq.held);
  EXPECT_EQ(find_condition(conditions_from_json(*json::find(lq.status, "conditions")), "Ready")->reason,
            "KueueNotInstalled");
}

// A verdict reached once on a generated object is reused for the same object (same spec hash, same live object):
// a reconcile woken by a child's status does not validate the child again.
TEST(Reconcile, AVerdictOnTheSameGeneratedObjectIsReused) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto d = yaml_doc("metadata: {name: demo}\nspec: {}\n");
  set_identity(d);
  ValidationMemo memo;
  Outcome first = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow, &memo);
  ASSERT_TRUE(first.valid) << dump(first.errors);
  ASSERT_EQ(memo.size(), 1u);
  // Plant a verdict under the key of that very object: the next reconcile takes it instead of validating.
  const std::string key = ValidationMemo::key_of(first.desired[0], nullptr, ClusterFacts{}.profile);
  ASSERT_FALSE(key.empty());
  memo.clear();
  memo.put(key, FieldErrors{{"spec.x", "Planted", "test", "from the memo"}});
  Outcome again = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow, &memo);
  EXPECT_FALSE(again.valid);
  EXPECT_NE(finding(again.errors, "RayCluster/demo: spec.x", "Planted"), nullptr) << dump(again.errors);
  // Another object (a changed spec) is judged afresh.
  auto changed = yaml_doc("metadata: {name: demo}\nspec: {workerGroups: [{name: w, replicas: 3}]}\n");
  set_identity(changed);
  EXPECT_TRUE(reconcile(changed, Observed{}, ClusterFacts{}, schemas, kNow, &memo).valid);
  EXPECT_EQ(memo.size(), 2u);
}

// The workload's own labels and annotations are judged as the apiserver judges them before storing it (offline,
// `validate` would otherwise pass them): a label key that is no qualified name, annotations over 256 KiB.
TEST(Reconcile, TheWorkloadsOwnLabelsAndAnnotationsAreJudged) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = sample("cfw_cpu.yaml");
  auto& a = d.GetAllocator();
  json::Value& meta = d["metadata"];
  json::Value labels(rapidjson::kObjectType);
  labels.AddMember("bad key!", "ok", a);
  meta.AddMember("labels", labels, a);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(out.valid);
  bool at_label = false;
  for (const auto& e : out.errors) at_label = at_label || e.path.starts_with("metadata.labels");
  EXPECT_TRUE(at_label) << dump(out.errors);

  json::Document big = sample("cfw_cpu.yaml");
  json::Value annotations(rapidjson::kObjectType);
  annotations.AddMember("notes", json::Value(std::string(300 * 1024, 'x').c_str(), big.GetAllocator()),
                        big.GetAllocator());
  big["metadata"].AddMember("annotations", annotations, big.GetAllocator());
  Outcome too_big = reconcile(big, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(too_big.valid) << "300 KiB of annotations";
  Outcome fine = reconcile(sample("cfw_cpu.yaml"), Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(fine.valid) << dump(fine.errors);
}
