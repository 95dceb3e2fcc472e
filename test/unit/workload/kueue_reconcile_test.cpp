// reconcile() with Kueue facts: held workloads, the managed LocalQueue, the Kueue rules that need the queue, and the
// events of phase transitions.
#include <gtest/gtest.h>

#include "core/condition.hpp"
#include "parse_test_util.hpp"
#include "workload/reconcile.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
constexpr const char* kNow = "2026-01-01T00:00:00Z";

json::Document wl(const std::string& spec, const std::string& name = "demo") {
  json::Document d =
      yaml_doc("apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: " + name +
               "\nspec: " + spec + "\n");
  set_identity(d);
  return d;
}

// The workload of `spec` carrying `status` (what a previous reconcile wrote), as the cache shows it next.
json::Document wl_with_status(const std::string& spec, const json::Value& status) {
  json::Document d = wl(spec);
  json::Value st;
  st.CopyFrom(status, d.GetAllocator());
  d.AddMember("status", st, d.GetAllocator());
  return d;
}

std::vector<Condition> conditions(const json::Value& status) {
  const json::Value* c = json::find(status, "conditions");
  return c ? conditions_from_json(*c) : std::vector<Condition>{};
}

std::string condition_field(const json::Value& status, const char* type, std::string Condition::* field) {
  auto cs = conditions(status);
  const Condition* c = find_condition(cs, type);
  return c ? (*c).*field : "<absent>";
}

const EventSpec* event(const Outcome& out, const std::string& reason) {
  for (const auto& e : out.events)
    if (e.reason == reason) return &e;
  return nullptr;
}
}  // namespace

TEST(KueueReconcile, MissingLocalQueueHoldsTheChildrenWithACondition) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;
  facts.kueue_version = "v1beta1";
  facts.local_queue_presence = Presence::kAbsent;
  Outcome out = reconcile(wl("{queue: {localQueue: missing-q}}"), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(out.valid) << dump(out.errors);
  EXPECT_TRUE(out.held);
  EXPECT_TRUE(out.desired.empty());
  EXPECT_EQ(json::get_string(out.status, "phase"), "Pending");
  EXPECT_EQ(condition_field(out.status, "Queued", &Condition::status), "False");
  EXPECT_EQ(condition_field(out.status, "Queued", &Condition::reason), "LocalQueueNotFound");
  EXPECT_EQ(condition_field(out.status, "Ready", &Condition::reason), "LocalQueueNotFound");
  EXPECT_EQ(condition_field(out.status, "Valid", &Condition::status), "True");
  const EventSpec* e = event(out, "LocalQueueNotFound");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, "Warning");
  EXPECT_NE(e->message.find("missing-q"), std::string::npos);

  // The same hold again: no second event (the Queued condition already says so).
  json::Document again = wl_with_status("{queue: {localQueue: missing-q}}", out.status);
  Outcome second = reconcile(again, Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(second.held);
  EXPECT_FALSE(event(second, "LocalQueueNotFound"));
}

TEST(KueueReconcile, UnknownLocalQueueGoesAhead) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;  // Kueue not readable: as the SDK, go ahead with the label
  Outcome out = reconcile(wl("{queue: {localQueue: q}}"), Observed{}, facts, schemas, kNow);
  EXPECT_FALSE(out.held);
  ASSERT_EQ(out.desired.size(), 1u);
  EXPECT_EQ(condition_field(out.status, "Queued", &Condition::status), "True");
  EXPECT_EQ(condition_field(out.status, "Admitted", &Condition::status), "False");
}

namespace {
// Kueue served, the LocalQueue there, the WorkloadPriorityClass not.
ClusterFacts facts_without_priority_class() {
  ClusterFacts facts;
  facts.kueue_version = "v1beta1";
  facts.local_queue_presence = Presence::kPresent;
  facts.priority_class_presence = Presence::kAbsent;
  return facts;
}
}  // namespace

TEST(KueueReconcile, MissingPriorityClassHoldsTheChildren) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts = facts_without_priority_class();
  Outcome out = reconcile(wl("{queue: {localQueue: q, priorityClass: urgent}}"), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(out.held);
  EXPECT_EQ(condition_field(out.status, "Queued", &Condition::reason), "PriorityClassNotFound");
  facts.priority_class_presence = Presence::kPresent;
  out = reconcile(wl("{queue: {localQueue: q, priorityClass: urgent}}"), Observed{}, facts, schemas, kNow);
  EXPECT_FALSE(out.held);
  EXPECT_EQ(out.desired.size(), 1u);
}

// A hold released by the cluster (the class appears) names what appeared; one released by the spec (it no longer
// names the class) says the spec changed: nothing was found.
TEST(KueueReconcile, AReleasedHoldSaysWhatReleasedIt) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts = facts_without_priority_class();
  const std::string spec = "{queue: {localQueue: q, priorityClass: urgent}}";
  Outcome held = reconcile(wl(spec), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(held.held);
  auto with_status = [&](const std::string& s, int64_t generation) {
    json::Document d = wl(s);
    json::set(d["metadata"], "generation", json::Value(generation), d.GetAllocator());
    json::Value st;
    st.CopyFrom(held.status, d.GetAllocator());
    d.AddMember("status", st, d.GetAllocator());
    return d;
  };
  facts.priority_class_presence = Presence::kPresent;
  Outcome appeared = reconcile(with_status(spec, 1), Observed{}, facts, schemas, kNow);
  EXPECT_FALSE(appeared.held);
  EXPECT_TRUE(event(appeared, "PriorityClassFound"));
  EXPECT_FALSE(event(appeared, "HoldReleased"));
  facts.priority_class_presence = Presence::kAbsent;
  Outcome dropped = reconcile(with_status("{queue: {localQueue: q}}", 2), Observed{}, facts, schemas, kNow);
  EXPECT_FALSE(dropped.held);
  EXPECT_FALSE(event(dropped, "PriorityClassFound"));
  const EventSpec* e = event(dropped, "HoldReleased");
  ASSERT_TRUE(e);
  EXPECT_NE(e->message.find("spec changed"), std::string::npos) << e->message;
}

TEST(KueueReconcile, ManagedLocalQueueIsCreatedFirstWithTheFinalizer) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;
  facts.kueue_version = "v1beta1";
  facts.local_queue_presence = Presence::kAbsent;
  Outcome out = reconcile(wl("{queue: {clusterQueue: team-cq}}"), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_FALSE(out.held);
  EXPECT_TRUE(out.needs_finalizer);
  ASSERT_EQ(out.desired.size(), 2u);
  const json::Value& lq = out.desired[0];
  EXPECT_EQ(json::get_string(lq, "kind"), "LocalQueue");
  EXPECT_EQ(json::get_string(lq, "apiVersion"), "kueue.x-k8s.io/v1beta1");
  EXPECT_EQ(json::get_string(at(lq, {"metadata"}), "name"), "team-cq");  // takes the ClusterQueue's name
  EXPECT_EQ(json::get_string(at(lq, {"metadata"}), "namespace"), "team-a");
  EXPECT_EQ(json::get_string(at(lq, {"spec"}), "clusterQueue"), "team-cq");
  EXPECT_EQ(json::get_string(at(lq, {"metadata", "labels"}), "app.kubernetes.io/managed-by"), "codeflare-operator");
  EXPECT_EQ(json::get_string(at(out.desired[1], {"metadata", "labels"}), "kueue.x-k8s.io/queue-name"), "team-cq");
}

// A LocalQueue the operator does not manage is used as it is, not managed, when it points at the ClusterQueue the spec
// asks for; one that points elsewhere holds the workload (the seventeenth user trial: it was submitted to the other
// ClusterQueue's quota, with a warning only).
TEST(KueueReconcile, ForeignLocalQueueIsUsedNotManagedWhereItPointsAsAsked) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document same = yaml_doc("metadata: {name: q}\nspec: {clusterQueue: team-cq}\n");
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.local_queue_presence = Presence::kPresent;
  facts.local_queue = &same;
  const std::string spec = "{queue: {localQueue: q, clusterQueue: team-cq}}";
  Outcome out = reconcile(wl(spec), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_FALSE(out.held);
  EXPECT_FALSE(out.needs_finalizer);
  ASSERT_EQ(out.desired.size(), 1u);
  EXPECT_EQ(json::get_string(out.desired[0], "kind"), "RayCluster");

  json::Document other = yaml_doc("metadata: {name: q}\nspec: {clusterQueue: other-cq}\n");
  facts.local_queue = &other;
  Outcome held = reconcile(wl(spec), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(held.held);
  EXPECT_TRUE(held.desired.empty()) << "nothing is submitted to another ClusterQueue";
  EXPECT_FALSE(held.needs_finalizer);
  EXPECT_EQ(json::get_string(held.status, "heldFor"), "LocalQueueMismatch");
  const std::string message = condition_field(held.status, "Queued", &Condition::message);
  EXPECT_NE(message.find("points at ClusterQueue other-cq, not team-cq"), std::string::npos) << message;
  EXPECT_NE(message.find("not managed by the operator"), std::string::npos) << message;
}

TEST(KueueReconcile, ManagedLocalQueueWithoutKueueIsHeld) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile(wl("{queue: {clusterQueue: team-cq}}"), Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(out.held);
  EXPECT_EQ(condition_field(out.status, "Queued", &Condition::reason), "KueueNotInstalled");
}

TEST(KueueReconcile, AutoscalingWhileQueuedNeedsAnElasticJob) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;
  facts.default_local_queue = "default-q";
  const std::string groups = "workerGroups: [{name: g, minReplicas: 1, maxReplicas: 3}]";
  Outcome out = reconcile(wl("{autoscaling: {enabled: true}, " + groups + "}"), Observed{}, facts, schemas, kNow);
  EXPECT_FALSE(out.valid);
  EXPECT_TRUE(finding(out.errors, "spec.autoscaling.enabled", "KueueAutoscaling")) << dump(out.errors);
  // Without a queue the same spec is fine.
  out = reconcile(wl("{autoscaling: {enabled: true}, " + groups + "}"), Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(out.valid) << dump(out.errors);
  // Queued as an elastic job it is fine too.
  out = reconcile(wl("{autoscaling: {enabled: true, elasticJob: true}, " + groups + "}"), Observed{}, facts, schemas,
                  kNow);
  EXPECT_TRUE(out.valid) << dump(out.errors);
}

TEST(KueueReconcile, QueuedRayJobMustShutDown) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;
  facts.default_local_queue = "default-q";
  Outcome out = reconcile(wl("{job: {entrypoint: python x.py, shutdownAfterJobFinishes: false}}"), Observed{}, facts,
                          schemas, kNow);
  EXPECT_FALSE(out.valid);
  EXPECT_TRUE(finding(out.errors, "spec.job.shutdownAfterJobFinishes", "KueueJobShutdown")) << dump(out.errors);
  out = reconcile(wl("{job: {entrypoint: python x.py}}"), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  ASSERT_EQ(out.desired.size(), 1u);
  EXPECT_EQ(json::get_string(out.desired[0], "kind"), "RayJob");
  EXPECT_EQ(json::get_string(at(out.desired[0], {"metadata", "labels"}), "kueue.x-k8s.io/queue-name"), "default-q");
  EXPECT_EQ(json::get_string(out.status, "rayJobName"), "demo");
  EXPECT_EQ(condition_field(out.status, "Succeeded", &Condition::status), "Unknown");
}

TEST(KueueReconcile, RayJobOnAnExistingClusterIsNotQueued) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;
  facts.default_local_queue = "default-q";
  const std::string job = "job: {entrypoint: python x.py, clusterSelector: {ray.io/cluster: shared}}";
  Outcome out = reconcile(wl("{" + job + "}"), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value* labels = json::find_path(out.desired[0], "metadata.labels");
  EXPECT_FALSE(labels && json::get_string(*labels, "kueue.x-k8s.io/queue-name"));
  EXPECT_FALSE(json::find(out.status, "queue"));
  out = reconcile(wl("{queue: {localQueue: q}, " + job + "}"), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(finding(out.errors, "spec.queue.localQueue", "QueueWithExistingCluster")) << dump(out.errors);
}

TEST(KueueReconcile, SubmitterCountsAsAPodSetForJobs) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;
  facts.default_local_queue = "default-q";
  facts.profile.kueue_max_pod_sets = 3;
  const std::string groups = "workerGroups: [{name: a}, {name: b}]";
  Outcome cluster = reconcile(wl("{" + groups + "}"), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(cluster.valid) << dump(cluster.errors);  // head + 2 groups = 3
  Outcome job = reconcile(wl("{job: {entrypoint: x}, " + groups + "}"), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(finding(job.errors, "spec.workerGroups", "KueueMaxPodSets")) << dump(job.errors);
}

TEST(KueueReconcile, PhaseChangesPostOneEvent) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = wl("{}");
  Outcome first = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  // A new workload starting out Pending is not announced (an event per created workload would cost a request each).
  EXPECT_FALSE(event(first, "Pending"));

  json::Value st;
  st.CopyFrom(first.status, d.GetAllocator());
  d.AddMember("status", st, d.GetAllocator());
  json::Document rc = yaml_doc("status: {state: ready}\n");
  Observed observed;
  observed.ray_cluster = &rc;
  Outcome second = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  const EventSpec* running = event(second, "Running");
  ASSERT_TRUE(running);
  EXPECT_NE(running->message.find("Pending -> Running"), std::string::npos) << running->message;
  EXPECT_FALSE(event(second, "Pending"));
}

namespace {
// ClusterQueue "cq" of `cpu` cpu and 64Gi memory in flavor "rf", for every namespace; `extra_spec` ("cohortName: pool,
// ") goes first in its spec.
json::Document cluster_queue(int cpu, const std::string& extra_spec = "") {
  return yaml_doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ClusterQueue, metadata: {name: cq}, spec: {" +
                  extra_spec +
                  "namespaceSelector: {}, resourceGroups: [{coveredResources: [cpu, memory], flavors: [{name: rf, "
                  "resources: [{name: cpu, nominalQuota: " +
                  std::to_string(cpu) + "}, {name: memory, nominalQuota: 64Gi}]}]}]}}");
}
}  // namespace

// The Admissible condition: judged from the queue objects the controller reads (validation::judge_admissibility),
// told at the workload's fields; the workload stays valid and its children are applied, Ready says why it waits.
TEST(KueueReconcile, AdmissibleConditionFromTheQueueChain) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto lq = yaml_doc(
      "{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: team-q, namespace: "
      "team-a}, spec: {clusterQueue: cq}}");
  auto cq = cluster_queue(8);
  auto rf = yaml_doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: rf}}");
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.local_queue_presence = Presence::kPresent;
  facts.local_queue = &lq;
  validation::QueueObjects q;
  for (const json::Value* o : {&lq, &cq, &rf}) q.add(o);
  facts.queue_objects = q;
  const std::string group =
      "{name: w, replicas: REPLICAS, resources: {requests: {cpu: \"1\", memory: 1Gi}, limits: "
      "{cpu: \"1\", memory: 1Gi}}}";
  auto spec = [&](const std::string& replicas) {
    std::string g = group;
    g.replace(g.find("REPLICAS"), 8, replicas);
    return "{queue: {localQueue: team-q}, workerGroups: [" + g + "]}";
  };
  auto with_ns = [&](json::Document d) {
    json::set(d["metadata"], "namespace", json::str("team-a", d.GetAllocator()), d.GetAllocator());
    return d;
  };

  Outcome ok = reconcile(with_ns(wl(spec("2"))), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(ok.valid) << dump(ok.errors);
  EXPECT_EQ(condition_field(ok.status, "Admissible", &Condition::status), "True");

  Outcome never = reconcile(with_ns(wl(spec("20"))), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(never.valid) << "admissibility is a status matter, the spec stays valid\n" << dump(never.errors);
  EXPECT_FALSE(never.desired.empty()) << "the children are applied: the queue may still grow";
  EXPECT_EQ(condition_field(never.status, "Admissible", &Condition::status), "False");
  EXPECT_EQ(condition_field(never.status, "Admissible", &Condition::reason), "ExceedsMaxQuota");
  const std::string msg = condition_field(never.status, "Admissible", &Condition::message);
  EXPECT_NE(msg.find("spec.workerGroups[0].replicas"), std::string::npos) << "the workload's own field: " << msg;
  EXPECT_EQ(condition_field(never.status, "Ready", &Condition::reason), "ExceedsMaxQuota");
  const EventSpec* e = event(never, "ExceedsMaxQuota");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, "Warning");

  // The same verdict again posts no second event.
  auto again_wl = with_ns(wl(spec("20")));
  json::Value prev;
  prev.CopyFrom(never.status, again_wl.GetAllocator());
  again_wl.AddMember("status", prev, again_wl.GetAllocator());
  Outcome again = reconcile(again_wl, Observed{}, facts, schemas, kNow);
  EXPECT_EQ(event(again, "ExceedsMaxQuota"), nullptr);

  // Admitted already (the quota shrank under it): whether Kueue can ever admit it is moot, and not said.
  auto admitted = yaml_doc("status: {conditions: [{type: Admitted, status: 'True', reason: Admitted}]}");
  Observed seen;
  seen.kueue_workload = &admitted;
  Outcome in_quota_before = reconcile(with_ns(wl(spec("20"))), seen, facts, schemas, kNow);
  EXPECT_EQ(condition_field(in_quota_before.status, "Admitted", &Condition::status), "True");
  EXPECT_EQ(condition_field(in_quota_before.status, "Admissible", &Condition::status), "<absent>");

  ClusterFacts unknown = facts;
  unknown.queue_objects.reset();
  Outcome not_judged = reconcile(with_ns(wl(spec("20"))), Observed{}, unknown, schemas, kNow);
  EXPECT_EQ(condition_field(not_judged.status, "Admissible", &Condition::status), "<absent>");

  // The synced caches hold the LocalQueue but not its ClusterQueue (not created, or misspelt): Kueue admits nothing
  // from the LocalQueue until it exists, and the status says so (the thirty-fourth user trial found Queued=True,
  // Admitted=False Pending and nothing more).
  ClusterFacts no_cq = facts;
  validation::QueueObjects partial;
  for (const json::Value* o : {&lq, &rf}) partial.add(o);
  no_cq.queue_objects = partial;
  Outcome chain_missing = reconcile(with_ns(wl(spec("2"))), Observed{}, no_cq, schemas, kNow);
  EXPECT_TRUE(chain_missing.valid) << dump(chain_missing.errors);
  EXPECT_FALSE(chain_missing.desired.empty()) << "applied: the ClusterQueue may be created later";
  EXPECT_EQ(condition_field(chain_missing.status, "Admissible", &Condition::status), "False");
  EXPECT_EQ(condition_field(chain_missing.status, "Admissible", &Condition::reason), "ClusterQueueNotFound");
  EXPECT_EQ(condition_field(chain_missing.status, "Ready", &Condition::reason), "ClusterQueueNotFound");
  const std::string ready = condition_field(chain_missing.status, "Ready", &Condition::message);
  EXPECT_NE(ready.find("LocalQueue team-q cannot admit it yet: ClusterQueue cq, which LocalQueue team-q points at, "
                       "does not exist"),
            std::string::npos)
      << ready;
  const EventSpec* missing_event = event(chain_missing, "ClusterQueueNotFound");
  ASSERT_TRUE(missing_event);
  EXPECT_EQ(missing_event->type, "Warning");

  // A flavor of the ClusterQueue missing: the ClusterQueue is inactive.
  ClusterFacts no_rf = facts;
  validation::QueueObjects without_flavor;
  for (const json::Value* o : {&lq, &cq}) without_flavor.add(o);
  no_rf.queue_objects = without_flavor;
  Outcome flavor_missing = reconcile(with_ns(wl(spec("2"))), Observed{}, no_rf, schemas, kNow);
  EXPECT_EQ(condition_field(flavor_missing.status, "Admissible", &Condition::reason), "ResourceFlavorNotFound");

  // The LocalQueue itself missing is the hold's to tell (LocalQueueNotFound), not judged.
  ClusterFacts no_lq = facts;
  no_lq.local_queue_presence = Presence::kAbsent;
  no_lq.local_queue = nullptr;
  validation::QueueObjects without_queue;
  for (const json::Value* o : {&cq, &rf}) without_queue.add(o);
  no_lq.queue_objects = without_queue;
  Outcome queue_missing = reconcile(with_ns(wl(spec("2"))), Observed{}, no_lq, schemas, kNow);
  EXPECT_EQ(condition_field(queue_missing.status, "Admissible", &Condition::status), "<absent>");
  EXPECT_EQ(condition_field(queue_missing.status, "Ready", &Condition::reason), "LocalQueueNotFound");
}

// The operator does not read Cohort objects: a workload that fits only if the cohort lends more than its known
// ClusterQueues gets no verdict (Admissible=Unknown), neither "can admit it" nor "never" (the thirty-sixth user
// trial: True for 51 cpu on a 2-cpu ClusterQueue alone in its cohort).
TEST(KueueReconcile, AdmissibleIsUnknownWhereOnlyAnUnreadCohortCouldLend) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto lq = yaml_doc(
      "{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: team-q, namespace: team-a}, spec: "
      "{clusterQueue: cq}}");
  auto cq = cluster_queue(2, "cohortName: pool, ");
  auto rf = yaml_doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: rf}}");
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.local_queue_presence = Presence::kPresent;
  facts.local_queue = &lq;
  validation::QueueObjects q;
  q.cohorts_known = false;
  for (const json::Value* o : {&lq, &cq, &rf}) q.add(o);
  facts.queue_objects = q;
  auto workload = [](int replicas) {
    json::Document d =
        wl("{queue: {localQueue: team-q}, head: {resources: {requests: {cpu: 100m, memory: 1Gi}, "
           "limits: {cpu: 100m, memory: 1Gi}}}, workerGroups: [{name: w, replicas: " +
           std::to_string(replicas) +
           ", resources: {requests: {cpu: \"1\", memory: 1Gi}, limits: {cpu: \"1\", memory: "
           "1Gi}}}]}");
    json::set(d["metadata"], "namespace", json::str("team-a", d.GetAllocator()), d.GetAllocator());
    return d;
  };
  Outcome fits = reconcile(workload(1), Observed{}, facts, schemas, kNow);
  EXPECT_EQ(condition_field(fits.status, "Admissible", &Condition::status), "True") << "within its own quota";
  Outcome borrows = reconcile(workload(50), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(borrows.valid) << dump(borrows.errors);
  EXPECT_EQ(condition_field(borrows.status, "Admissible", &Condition::status), "Unknown");
  EXPECT_EQ(condition_field(borrows.status, "Admissible", &Condition::reason), "CohortCapacityUnknown");
  EXPECT_NE(condition_field(borrows.status, "Admissible", &Condition::message).find("spec.workerGroups[0].replicas"),
            std::string::npos);
  EXPECT_NE(condition_field(borrows.status, "Ready", &Condition::reason), "CohortCapacityUnknown")
      << "no verdict: Ready says what it waits for";
  EXPECT_EQ(event(borrows, "CohortCapacityUnknown"), nullptr);
}

// A managed LocalQueue created by this reconcile is not in the cache yet: the chain is judged through the LocalQueue
// being created, so the first status already tells a ClusterQueue that does not exist, or one that can admit it.
TEST(KueueReconcile, AdmissibleThroughTheManagedLocalQueueBeingCreated) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto cq = cluster_queue(8);
  auto rf = yaml_doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: rf}}");
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.local_queue_presence = Presence::kAbsent;
  facts.local_queue_names = std::set<std::string>{};
  validation::QueueObjects q;
  for (const json::Value* o : {&cq, &rf}) q.add(o);
  facts.queue_objects = q;
  auto workload = [](const std::string& cluster_queue, const std::string& group_field = "") {
    json::Document d = wl("{queue: {localQueue: team-q, clusterQueue: " + cluster_queue +
                          "}, workerGroups: [{name: w, replicas: 1, " + group_field +
                          "resources: {requests: {cpu: \"1\", memory: "
                          "1Gi}, limits: {cpu: \"1\", memory: 1Gi}}}]}");
    json::set(d["metadata"], "namespace", json::str("team-a", d.GetAllocator()), d.GetAllocator());
    return d;
  };

  Outcome found = reconcile(workload("cq"), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(found.valid) << dump(found.errors);
  EXPECT_EQ(condition_field(found.status, "Admissible", &Condition::status), "True");

  // A finding on a value the builder wrote (the topology annotation) is told at the workload field it came from.
  Outcome no_topology = reconcile(workload("cq", "topology: {required: cloud.provider.com/topology-rack}, "),
                                  Observed{}, facts, schemas, kNow);
  EXPECT_EQ(condition_field(no_topology.status, "Admissible", &Condition::reason), "NoMatchingFlavor");
  const std::string why = condition_field(no_topology.status, "Admissible", &Condition::message);
  EXPECT_NE(why.find("spec.workerGroups[0].topology"), std::string::npos) << why;
  EXPECT_EQ(why.find("annotations"), std::string::npos) << why;

  Outcome misspelt = reconcile(workload("cq-typo"), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(misspelt.valid) << dump(misspelt.errors);
  bool creates_queue = false;
  for (const auto& d : misspelt.desired) creates_queue |= json::get_string(d, "kind") == "LocalQueue";
  EXPECT_TRUE(creates_queue) << "the LocalQueue is still created: the ClusterQueue may follow";
  EXPECT_EQ(condition_field(misspelt.status, "Admissible", &Condition::reason), "ClusterQueueNotFound");
  EXPECT_NE(condition_field(misspelt.status, "Admissible", &Condition::message).find("ClusterQueue cq-typo"),
            std::string::npos);
}

namespace {
// A live RayCluster of `spec` as the operator made it in LocalQueue `queue`, running (Kueue admitted it).
json::Document running_cluster(const std::string& spec, const std::string& queue,
                               const validation::SchemaSet& schemas) {
  ClusterFacts facts;
  facts.kueue_version = "v1beta1";
  facts.local_queue_presence = Presence::kPresent;
  Outcome first = reconcile(wl(spec), Observed{}, facts, schemas, kNow);
  EXPECT_EQ(first.desired.size(), 1u) << dump(first.errors);
  json::Document rc = json::clone(first.desired.back());
  EXPECT_EQ(json::get_string(rc["metadata"]["labels"], "kueue.x-k8s.io/queue-name"), queue);
  json::set(rc["spec"], "suspend", json::Value(false), rc.GetAllocator());
  rc.AddMember("status", json::Value(rapidjson::kObjectType), rc.GetAllocator());
  json::set(rc["status"], "state", json::str("ready", rc.GetAllocator()), rc.GetAllocator());
  return rc;
}
}  // namespace

// The eleventh user trial: the LocalQueue a submitted workload runs in by default was deleted; its status kept saying
// Queued=True. The queue in effect is looked up among the namespace's LocalQueues, whichever it is.
TEST(KueueReconcile, ASubmittedWorkloadWhoseQueueIsGoneIsNotQueued) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document rc = running_cluster("{queue: {localQueue: default}}", "default", schemas);
  json::set(rc["spec"], "suspend", json::Value(true), rc.GetAllocator());  // waiting for Kueue
  json::set(rc["status"], "state", json::str("suspended", rc.GetAllocator()), rc.GetAllocator());
  Observed observed;
  observed.ray_cluster = &rc;
  ClusterFacts facts;
  facts.kueue_version = "v1beta1";
  facts.local_queue_names = std::set<std::string>{"other"};  // "default" is gone
  Outcome gone = reconcile(wl("{}"), observed, facts, schemas, kNow);
  EXPECT_EQ(json::get_string(gone.status, "queue"), "default");
  EXPECT_EQ(condition_field(gone.status, "Queued", &Condition::status), "False") << json::dump(gone.status);
  EXPECT_EQ(condition_field(gone.status, "Queued", &Condition::reason), "LocalQueueNotFound");
  // The twelfth trial: the phase read Queued next to Queued=False; it waits for the queue, not for Kueue.
  EXPECT_EQ(json::get_string(gone.status, "phase"), "Pending");
  EXPECT_EQ(condition_field(gone.status, "Ready", &Condition::reason), "LocalQueueNotFound");
  facts.local_queue_names->insert("default");
  facts.default_local_queue = "default";
  Outcome back = reconcile(wl("{}"), observed, facts, schemas, kNow);
  EXPECT_EQ(condition_field(back.status, "Queued", &Condition::reason), "Submitted") << json::dump(back.status);
  EXPECT_EQ(json::get_string(back.status, "phase"), "Queued");
}

// The twelfth trial: a hold over a running workload (here its WorkloadPriorityClass deleted since) was said again,
// event and log line, on every recheck (30 s): the Ready reason is the child's, so the hold was not seen in the
// previous status. It is said once.
TEST(KueueReconcile, AHeldChangeOfARunningWorkloadIsSaidOnce) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string spec = "{queue: {localQueue: q, priorityClass: gone-pc}}";
  json::Document rc = running_cluster(spec, "q", schemas);  // created while the class existed
  Observed observed;
  observed.ray_cluster = &rc;
  ClusterFacts facts;
  facts.kueue_version = "v1beta1";
  facts.local_queue_presence = Presence::kPresent;
  facts.priority_class_presence = Presence::kAbsent;
  Outcome first = reconcile(wl(spec), observed, facts, schemas, kNow);
  ASSERT_TRUE(first.held) << dump(first.errors);
  EXPECT_TRUE(event(first, "PriorityClassNotFound"));
  EXPECT_NE(condition_field(first.status, "Ready", &Condition::reason), "PriorityClassNotFound");
  json::Document again = wl_with_status(spec, first.status);
  Outcome second = reconcile(again, observed, facts, schemas, kNow);
  EXPECT_TRUE(second.held);
  EXPECT_FALSE(event(second, "PriorityClassNotFound")) << "the hold is told once";
  // It was found again by searching the previous Ready message for the hold's message, so its end went unsaid:
  // status.heldFor records the hold, and its end is said.
  EXPECT_EQ(json::get_string(second.status, "heldFor"), "PriorityClassNotFound") << json::dump(second.status);
  facts.priority_class_presence = Presence::kPresent;
  Outcome released = reconcile(wl_with_status(spec, second.status), observed, facts, schemas, kNow);
  EXPECT_FALSE(released.held);
  EXPECT_FALSE(json::find(released.status, "heldFor")) << json::dump(released.status);
  const EventSpec* found = event(released, "PriorityClassFound");
  ASSERT_TRUE(found);
  EXPECT_NE(found->message.find("no longer held (PriorityClassNotFound)"), std::string::npos) << found->message;
}

// The eleventh user trial: spec.suspend set together with a move to a LocalQueue that does not exist was held back
// (the cluster ran on in its queue) while the status said Suspended. The suspension is applied; the queue it moves
// to is reported missing.
TEST(KueueReconcile, SuspendingWhileMovingToAMissingQueueIsApplied) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document rc = running_cluster("{queue: {localQueue: small}}", "small", schemas);
  Observed observed;
  observed.ray_cluster = &rc;
  ClusterFacts facts;
  facts.kueue_version = "v1beta1";
  facts.local_queue_presence = Presence::kAbsent;
  facts.local_queue_names = std::set<std::string>{"small"};
  Outcome out = reconcile(wl("{suspend: true, queue: {localQueue: other}}"), observed, facts, schemas, kNow);
  EXPECT_TRUE(out.valid) << dump(out.errors);
  EXPECT_FALSE(out.held);
  ASSERT_EQ(out.desired.size(), 1u);
  EXPECT_EQ(json::get_bool(out.desired[0]["spec"], "suspend"), true);
  EXPECT_EQ(json::get_string(out.desired[0]["metadata"]["labels"], "kueue.x-k8s.io/queue-name"), "other");
  EXPECT_EQ(condition_field(out.status, "Queued", &Condition::reason), "LocalQueueNotFound") << json::dump(out.status);
  // Without the suspension, a running cluster cannot move (QueueChangeWhileRunning) and nothing is applied.
  Outcome moving = reconcile(wl("{queue: {localQueue: other}}"), observed, facts, schemas, kNow);
  EXPECT_TRUE(moving.desired.empty() ||
              json::get_string(moving.desired[0]["metadata"]["labels"], "kueue.x-k8s.io/queue-name") == "small");
}

// Trial 40 (m2): a suspended cluster whose LocalQueue was deleted; the user removes spec.suspend, and the change is
// held back (LocalQueueNotFound). The cluster stays suspended, and the status said "spec.suspend is true", which the
// spec no longer says.
TEST(KueueReconcile, AResumeHeldBackIsNotToldAsTheSpecsSuspension) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document rc = running_cluster("{queue: {localQueue: small}}", "small", schemas);
  json::set(rc["spec"], "suspend", json::Value(true), rc.GetAllocator());
  Observed observed;
  observed.ray_cluster = &rc;
  ClusterFacts facts;
  facts.kueue_version = "v1beta1";
  facts.local_queue_presence = Presence::kAbsent;
  facts.local_queue_names = std::set<std::string>{};
  Outcome resumed = reconcile(wl("{queue: {localQueue: small}}"), observed, facts, schemas, kNow);
  ASSERT_TRUE(resumed.held) << json::dump(resumed.status);
  EXPECT_EQ(json::get_string(resumed.status, "phase"), "Suspended");
  const std::string message = condition_field(resumed.status, "Ready", &Condition::message);
  EXPECT_EQ(message.find("spec.suspend is true"), std::string::npos) << message;
  EXPECT_NE(message.find("suspended until the change that resumes it is applied"), std::string::npos) << message;
  EXPECT_NE(message.find("LocalQueueNotFound"), std::string::npos) << message;
  // Suspended by the spec itself, the status says so.
  Outcome suspended = reconcile(wl("{suspend: true, queue: {localQueue: small}}"), observed, facts, schemas, kNow);
  EXPECT_NE(condition_field(suspended.status, "Ready", &Condition::message).find("spec.suspend is true"),
            std::string::npos)
      << json::dump(suspended.status);
}

// served_apis in CI: Kueue installed after the operator started, the workload went from KueueNotInstalled to
// LocalQueueNotFound (its LocalQueue not created yet) with no word of the first hold's end. It is said.
TEST(KueueReconcile, OneHoldGivingWayToAnotherReleasesTheFirst) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts before;
  before.kueue_served = false;
  Outcome first = reconcile(wl("{queue: {localQueue: q}}"), Observed{}, before, schemas, kNow);
  ASSERT_TRUE(first.held);
  json::Document again = wl_with_status("{queue: {localQueue: q}}", first.status);
  ClusterFacts after;
  after.kueue_version = "v1beta2";
  after.local_queue_presence = Presence::kAbsent;
  Outcome second = reconcile(again, Observed{}, after, schemas, kNow);
  EXPECT_TRUE(second.held);
  EXPECT_TRUE(event(second, "KueueInstalled"));
  EXPECT_TRUE(event(second, "LocalQueueNotFound"));
}

// The fifteenth user trial: once the LocalQueue cache gave up on a failing list, workloads held for LocalQueueMismatch
// were let go into the ClusterQueue of the queue they named (not theirs), for good. A queue hold in effect stands
// while the queue cannot be read; one the spec moved away from does not.
TEST(KueueReconcile, AQueueHoldStandsWhileTheQueueCannotBeRead) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string spec = "{queue: {localQueue: mq, clusterQueue: cq-b}}";
  json::Document lq = yaml_doc(
      "metadata: {name: mq, labels: {app.kubernetes.io/managed-by: codeflare-operator}}\nspec: {clusterQueue: cq-a}");
  ClusterFacts known;
  known.kueue_version = "v1beta2";
  known.local_queue_presence = Presence::kPresent;
  known.local_queue = &lq;
  Outcome held = reconcile(wl(spec), Observed{}, known, schemas, kNow);
  ASSERT_TRUE(held.held) << dump(held.errors);
  EXPECT_EQ(json::get_string(held.status, "heldFor"), "LocalQueueMismatch");

  ClusterFacts unknown;
  unknown.kueue_version = "v1beta2";  // the LocalQueue cache gave up its list: presence unknown
  unknown.local_queues_unreadable = true;
  json::Document again = wl_with_status(spec, held.status);
  Outcome standing = reconcile(again, Observed{}, unknown, schemas, kNow);
  EXPECT_TRUE(standing.held);
  EXPECT_TRUE(standing.desired.empty()) << "nothing is created into the queue of another ClusterQueue";
  EXPECT_EQ(json::get_string(standing.status, "heldFor"), "LocalQueueMismatch");
  EXPECT_NE(condition_field(standing.status, "Queued", &Condition::message).find("cannot be read"), std::string::npos)
      << json::dump(standing.status);
  EXPECT_FALSE(event(standing, "LocalQueueMatches")) << "the hold is not released";
  EXPECT_FALSE(event(standing, "LocalQueueMismatch")) << "nor told again";

  // Without a hold in effect before, a queue the operator does not manage goes ahead (as the SDK would).
  json::Document moved = wl_with_status("{queue: {localQueue: other}}", held.status);
  Outcome ahead = reconcile(moved, Observed{}, unknown, schemas, kNow);
  EXPECT_FALSE(ahead.held) << json::dump(ahead.status);
  // Offline (render), nothing is unreadable: a recorded hold does not stand there.
  ClusterFacts offline;
  offline.kueue_version = "v1beta2";
  EXPECT_FALSE(reconcile(again, Observed{}, offline, schemas, kNow).held);
}

// The sixteenth user trial: a workload created while the LocalQueue list failed, naming a managed LocalQueue that
// exists for another ClusterQueue, was submitted to it (nothing could say the queue pointed elsewhere), for good. A
// first submission to a managed LocalQueue waits while the queues cannot be read; what runs is not held.
namespace {
// Kueue served, its LocalQueues unreadable (the cache gave up on a failing list).
ClusterFacts unreadable_queues() {
  ClusterFacts unknown;
  unknown.kueue_version = "v1beta2";
  unknown.local_queues_unreadable = true;
  return unknown;
}

// A first reconcile of `spec` while the LocalQueues cannot be read: it waits (LocalQueueUnknown), nothing is desired
// (neither a managed LocalQueue nor the RayCluster).
Outcome waiting_while_unreadable(const std::string& spec, const validation::SchemaSet& schemas) {
  Outcome waiting = reconcile(wl(spec), Observed{}, unreadable_queues(), schemas, kNow);
  EXPECT_TRUE(waiting.held) << spec;
  EXPECT_TRUE(waiting.desired.empty()) << spec;
  EXPECT_EQ(json::get_string(waiting.status, "heldFor"), "LocalQueueUnknown") << spec;
  EXPECT_TRUE(event(waiting, "LocalQueueUnknown")) << spec;
  // Told the same whether or not the spec names a queue (the eighteenth user trial: no Queued condition without one).
  EXPECT_EQ(condition_field(waiting.status, "Queued", &Condition::status), "False") << spec;
  EXPECT_EQ(condition_field(waiting.status, "Queued", &Condition::reason), "LocalQueueUnknown") << spec;
  EXPECT_EQ(condition_field(waiting.status, "Admitted", &Condition::reason), "NotQueued") << spec;
  return waiting;
}
}  // namespace

TEST(KueueReconcile, AManagedQueueWorkloadWaitsWhileTheQueuesCannotBeRead) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string spec = "{queue: {localQueue: mq, clusterQueue: cq-c}}";
  const ClusterFacts unknown = unreadable_queues();
  Outcome waiting = waiting_while_unreadable(spec, schemas);

  json::Document rc = running_cluster(spec, "mq", schemas);
  Observed observed;
  observed.ray_cluster = &rc;
  EXPECT_FALSE(reconcile(wl(spec), observed, unknown, schemas, kNow).held) << "a submitted one goes on";

  json::Document again = wl_with_status(spec, waiting.status);
  ClusterFacts read;
  read.kueue_version = "v1beta2";
  read.local_queue_presence = Presence::kAbsent;
  Outcome released = reconcile(again, Observed{}, read, schemas, kNow);
  EXPECT_FALSE(released.held);
  EXPECT_TRUE(event(released, "LocalQueueRead"));
}

// The seventeenth user trial: a workload naming no LocalQueue, created while the LocalQueue list failed, ran without
// a queue label for good although its namespace had a default LocalQueue. It waits while the queues cannot be read,
// and takes the default once they can; one already running goes on.
TEST(KueueReconcile, AQueueLessWorkloadWaitsWhileTheDefaultQueueCannotBeTold) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string spec = "{}";
  const ClusterFacts unknown = unreadable_queues();
  Outcome waiting = waiting_while_unreadable(spec, schemas);

  ClusterFacts before;  // created before the list failed, in a namespace without a default queue
  before.kueue_version = "v1beta2";
  before.local_queue_names = std::set<std::string>{};
  Outcome first = reconcile(wl(spec), Observed{}, before, schemas, kNow);
  ASSERT_EQ(first.desired.size(), 1u) << dump(first.errors);
  json::Document rc = json::clone(first.desired.back());
  Observed observed;
  observed.ray_cluster = &rc;
  EXPECT_FALSE(reconcile(wl(spec), observed, unknown, schemas, kNow).held) << "a running one goes on";

  ClusterFacts no_kueue;  // no Kueue at all: nothing to wait for
  no_kueue.kueue_served = false;
  no_kueue.local_queues_unreadable = true;
  EXPECT_FALSE(reconcile(wl(spec), Observed{}, no_kueue, schemas, kNow).held);

  json::Document again = wl_with_status(spec, waiting.status);
  ClusterFacts read;
  read.kueue_version = "v1beta2";
  read.default_local_queue = "dq";
  read.local_queue_names = std::set<std::string>{"dq"};
  Outcome released = reconcile(again, Observed{}, read, schemas, kNow);
  EXPECT_FALSE(released.held);
  EXPECT_TRUE(event(released, "LocalQueueRead"));
  ASSERT_FALSE(released.desired.empty());
  EXPECT_EQ(json::get_string(at(released.desired.back(), {"metadata", "labels"}), "kueue.x-k8s.io/queue-name"), "dq");
}

namespace {
// A LocalQueue `name` labelled as the operator's, pointing at ClusterQueue `cluster_queue`, as the cache shows it.
json::Document cached_managed_queue(const std::string& name, const std::string& cluster_queue) {
  return yaml_doc("metadata: {name: " + name + ", labels: {app.kubernetes.io/managed-by: codeflare-operator}}\nspec: " +
                  "{clusterQueue: " + cluster_queue + "}\n");
}
}  // namespace

// Held, nothing is applied, so what runs stays where it was submitted (the nineteenth user trial: a running workload's
// queue changed to a managed LocalQueue of another ClusterQueue was held, yet its status said "submitted to" the new
// queue and the managed queue its RayCluster ran in was deleted as no longer used).
TEST(KueueReconcile, AHeldQueueChangeKeepsTheQueueTheChildRunsIn) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string before = "{queue: {clusterQueue: cq-c}}";
  const std::string after = "{suspend: true, queue: {clusterQueue: cq-b}}";
  json::Document managed_c = cached_managed_queue("cq-c", "cq-c");
  json::Document managed_b = cached_managed_queue("cq-b", "cq-evil");
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.local_queue_names = std::set<std::string>{"cq-b", "cq-c"};
  facts.local_queue_presence = Presence::kPresent;
  facts.local_queue = &managed_c;
  json::Document rc = running_cluster(before, "cq-c", schemas);
  Observed observed;
  observed.ray_cluster = &rc;
  Outcome running = reconcile(wl(before), observed, facts, schemas, kNow);
  ASSERT_FALSE(running.held) << dump(running.errors);
  EXPECT_EQ(json::get_string(running.status, "managedLocalQueue"), "cq-c");
  EXPECT_TRUE(running.confirm_local_queue.name.empty()) << "submitted already: nothing to read";

  facts.local_queue = &managed_b;
  Outcome held = reconcile(wl_with_status(after, running.status), observed, facts, schemas, kNow);
  EXPECT_TRUE(held.held);
  EXPECT_EQ(json::get_string(held.status, "heldFor"), "LocalQueueMismatch");
  EXPECT_TRUE(held.release_local_queue.empty()) << "its RayCluster still runs in cq-c";
  EXPECT_TRUE(held.needs_finalizer);
  EXPECT_EQ(json::get_string(held.status, "managedLocalQueue"), "cq-c");
  EXPECT_EQ(json::get_string(held.status, "queue"), "cq-c");
  const std::string queued = condition_field(held.status, "Queued", &Condition::message);
  EXPECT_EQ(queued.rfind("submitted to LocalQueue cq-c", 0), 0u) << queued;

  // Held without its child (its CRD went, the twenty-first user trial): the queue it managed stays its own.
  Outcome childless = reconcile(wl_with_status(after, running.status), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(childless.held);
  EXPECT_TRUE(childless.release_local_queue.empty());
  EXPECT_TRUE(childless.needs_finalizer);
  EXPECT_EQ(json::get_string(childless.status, "managedLocalQueue"), "cq-c");

  // Never submitted: a managed LocalQueue of another ClusterQueue is not the workload's to keep or delete.
  Outcome fresh = reconcile(wl(after), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(fresh.held);
  EXPECT_FALSE(fresh.needs_finalizer);
  EXPECT_EQ(json::get_string(fresh.status, "managedLocalQueue").value_or(""), "");
}

// A child moved to a managed LocalQueue the cache shows is read live first, as a new one is; one already there is not.
TEST(KueueReconcile, AChildMovedToAManagedLocalQueueHasItReadFirst) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document managed_b = cached_managed_queue("cq-b", "cq-b");
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.local_queue_names = std::set<std::string>{"cq-b", "cq-c"};
  facts.local_queue_presence = Presence::kPresent;
  facts.local_queue = &managed_b;
  json::Document in_c = running_cluster("{queue: {clusterQueue: cq-c}}", "cq-c", schemas);
  json::set(in_c["spec"], "suspend", json::Value(true), in_c.GetAllocator());
  Observed observed;
  observed.ray_cluster = &in_c;
  const std::string spec = "{suspend: true, queue: {clusterQueue: cq-b}}";
  Outcome moved = reconcile(wl(spec), observed, facts, schemas, kNow);
  ASSERT_FALSE(moved.held) << dump(moved.errors);
  EXPECT_EQ(moved.confirm_local_queue.name, "cq-b");
  EXPECT_EQ(moved.confirm_local_queue.cluster_queue, "cq-b");

  Outcome fresh = reconcile(wl(spec), Observed{}, facts, schemas, kNow);
  EXPECT_EQ(fresh.confirm_local_queue.name, "cq-b") << "a first submission";
  json::Document in_b = json::clone(fresh.desired.back());
  observed.ray_cluster = &in_b;
  EXPECT_TRUE(reconcile(wl(spec), observed, facts, schemas, kNow).confirm_local_queue.name.empty());
}
