// The controller's paths without a server: the Api seam is a recording fake, the caches are maps, events go to a
// list. Each test reads what was requested, in order, and what the status says.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <map>
#include <sstream>

#include "core/condition.hpp"
#include "fake_api.hpp"
#include "operator/workload_controller.hpp"
#include "test_files.hpp"

using namespace cfo;
using namespace cfo::op;
using cfo::op::test::FakeApi;

namespace {

constexpr const char* kWl = "/apis/codeflare.dev/v1alpha1/namespaces/team-a/codeflareworkloads/demo";
constexpr const char* kRc = "/apis/ray.io/v1/namespaces/team-a/rayclusters/demo";
constexpr const char* kAw = "/apis/workload.codeflare.dev/v1beta2/namespaces/team-a/appwrappers/demo";
constexpr const char* kLq = "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/localqueues/cq-a";
constexpr const char* kLqs = "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/localqueues";  // created here (POST)

// The log line of a child's creation: a POST to the collection of `object_path` (not cached: created, not applied).
std::string created(const char* object_path) {
  const std::string p(object_path);
  return "CREATE " + p.substr(0, p.rfind('/'));
}

json::Document doc(const std::string& text) { return test_support::yaml_doc(text); }

// The upstream CRD schemas of $UPSTREAM_CRDS/upstream (cfo_test_support's, loaded once); nullptr when
// UPSTREAM_CRDS is unset.
std::shared_ptr<const validation::SchemaSet> schemas() { return test_support::upstream_schemas(); }

#define CFO_REQUIRE_SCHEMAS() \
  if (!schemas()) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRD schemas are needed"

// A controller over a FakeApi and map-backed caches.
struct Rig {
  FakeApi fake;
  std::map<std::string, std::shared_ptr<const json::Document>> workloads;
  std::array<std::map<std::string, std::shared_ptr<const json::Document>>, kChildKindCount> children;
  std::vector<std::string> events;  // "Type Reason: note"
  runtime::EventRecorder recorder{[this](const std::string&, const json::Value& body) -> Result<json::Document> {
    events.push_back(json::string_at(body, "type") + " " + json::string_at(body, "reason") + ": " +
                     json::string_at(body, "note"));
    json::Document d;
    d.CopyFrom(body, d.GetAllocator());
    return d;
  }};
  WorkloadControllerOptions opts;
  std::string kueue_version;                                                  // "" : Kueue not served
  std::map<std::string, std::shared_ptr<const json::Document>> local_queues;  // the LocalQueue cache, by key
  bool local_queues_pending = false;                                          // its first list not done yet
  ServedApiState apis;
  std::vector<std::string> woken;  // keys OwnChildWrites woke
  std::shared_ptr<OwnChildWrites> own_child_writes =
      std::make_shared<OwnChildWrites>([this](const std::string& key) { woken.push_back(key); });
  std::unique_ptr<WorkloadController> controller;

  void start() {
    auto served = std::make_shared<ServedApis>();
    served->schemas = schemas();
    served->ray_cluster = served->app_wrapper = served->ray_job = true;
    served->kueue_version = kueue_version;
    apis.set(served);
    WorkloadCaches caches;
    caches.workloads = [this](const std::string& key) { return lookup(workloads, key); };
    for (std::size_t i = 0; i < kChildKindCount; ++i)
      caches.children[i] = [this, i](const std::string& key) { return lookup(children[i], key); };
    caches.workloads_in = [this](const std::string& ns) -> Result<std::vector<std::shared_ptr<const json::Document>>> {
      std::vector<std::shared_ptr<const json::Document>> out;
      for (const auto& [key, wl] : workloads)
        if (key.starts_with(ns + "/")) out.push_back(wl);
      return out;
    };
    caches.kueue.local_queues_in = [this](const std::string&) {
      std::vector<std::shared_ptr<const json::Document>> out;
      out.reserve(local_queues.size());
      for (const auto& [k, lq] : local_queues) out.push_back(lq);
      return out;
    };
    caches.kueue.local_queue = [this](const std::string& key) { return lookup(local_queues, key); };
    caches.kueue.local_queues_synced = [this] { return !local_queues_pending; };
    caches.kueue.local_queues_pending = [this] { return local_queues_pending; };
    caches.own_child_writes = own_child_writes;
    controller = std::make_unique<WorkloadController>(fake.api(), apis, recorder, std::move(caches), opts);
  }
  static std::shared_ptr<const json::Document> lookup(
      const std::map<std::string, std::shared_ptr<const json::Document>>& m, const std::string& key) {
    auto it = m.find(key);
    return it == m.end() ? nullptr : it->second;
  }
  void set_workload(const std::string& spec, const std::string& extra_meta = "") {
    workloads["team-a/demo"] = std::make_shared<json::Document>(
        doc("{apiVersion: codeflare.dev/v1alpha1, kind: CodeFlareWorkload, metadata: {name: demo, namespace: team-a, "
            "uid: uid-1, generation: 1" +
            extra_meta + "}, spec: " + spec + "}"));
  }
  // The workload as the apiserver holds it after the last status write: `spec` (and `extra_meta`), and that status.
  void set_workload_as_written(const std::string& spec, const std::string& extra_meta = "") {
    set_workload(spec, extra_meta);
    json::Document wl = json::clone(*workloads["team-a/demo"]);
    json::Document st = last_status();
    wl.AddMember("status", json::Value(st, wl.GetAllocator()), wl.GetAllocator());
    workloads["team-a/demo"] = std::make_shared<json::Document>(std::move(wl));
  }
  // A child put in the cache; one without a uid gets one, as the apiserver gives every object.
  void set_child(ChildKind kind, json::Document obj) {
    if (obj.IsObject() && obj.HasMember("metadata") && !json::find_path(obj, "metadata.uid"))
      json::set(obj["metadata"], "uid",
                json::str("uid-" + json::string_at(obj, "kind") + "-" + json::string_at(obj, "metadata.name"),
                          obj.GetAllocator()),
                obj.GetAllocator());
    children[static_cast<std::size_t>(kind)]["team-a/demo"] = std::make_shared<json::Document>(std::move(obj));
  }
  // The RayCluster the controller applied, put in its cache as the apiserver would hold it (with a creation time and
  // the resourceVersion its apply answered with):
  // its watch event has come. False (a failed assertion) when there was not exactly one apply of it.
  bool cache_applied_ray_cluster() {
    auto rc = fake.applied_to(kRc);
    EXPECT_EQ(rc.size(), 1u);
    if (rc.size() != 1) return false;
    json::Document live;
    live.CopyFrom(rc[0], live.GetAllocator());
    json::set(live["metadata"], "creationTimestamp", json::str(now_rfc3339(), live.GetAllocator()),
              live.GetAllocator());
    json::set(live["metadata"], "resourceVersion", json::str(fake.versions[kRc], live.GetAllocator()),
              live.GetAllocator());
    // Created by a POST: the creator's managedFields entry (operation Update), as the cache keeps it.
    if (auto made = fake.objects.find(kRc); made != fake.objects.end())
      if (const json::Value* mf = json::find_path(made->second, "metadata.managedFields"))
        json::set(live["metadata"], "managedFields", json::Value(*mf, live.GetAllocator()), live.GetAllocator());
    set_child(ChildKind::kRayCluster, std::move(live));
    return true;
  }
  // The one AppWrapper applied, put in the cache as the apiserver would now hold it.
  bool cache_applied_app_wrapper() {
    auto aw = fake.applied_to(kAw);
    EXPECT_EQ(aw.size(), 1u);
    if (aw.size() != 1) return false;
    set_child(ChildKind::kAppWrapper, json::clone(aw[0]));
    return true;
  }
  // The kueue.x-k8s.io/queue-name label of the one RayCluster applied ("<none>" without it, "<not applied>" when
  // there was not exactly one apply of it).
  std::string applied_queue_label() const {
    auto rc = fake.applied_to(kRc);
    if (rc.size() != 1) return "<not applied>";
    const json::Value* labels = json::find_path(rc[0], "metadata.labels");
    return labels ? json::get_string(*labels, "kueue.x-k8s.io/queue-name").value_or("<none>") : "<none>";
  }
  // The status of the last status write.
  json::Document last_status() const {
    auto writes = fake.applied_to(std::string(kWl) + "/status");
    EXPECT_FALSE(writes.empty());
    json::Document d;
    if (!writes.empty()) d.CopyFrom(writes.back()["status"], d.GetAllocator());
    return d;
  }
  Condition condition(const char* type) const {
    json::Document st = last_status();
    auto conds = conditions_from_json(*json::find(st, "conditions"));
    const Condition* c = find_condition(conds, type);
    return c ? *c : Condition{};
  }
  bool event(const std::string& prefix) const {
    for (const auto& e : events)
      if (e.starts_with(prefix)) return true;
    return false;
  }
};

}  // namespace

// Two requests for a new workload: the child and the status. Nothing is read (the caches answer) and a single
// apply needs no dry run (a refused apply writes nothing either).
TEST(WorkloadController, ANewWorkloadIsAppliedThenReportedInTwoRequests) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{}");
  rig.start();
  auto result = rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(result.kind, runtime::ReconcileResult::Kind::RequeueAfter) << result.error;
  // Looked at again when KubeRay's first status would be overdue: the creation's own event wakes nothing.
  EXPECT_GE(result.requeue_after_ms, 30'000);
  EXPECT_EQ(rig.fake.log, (std::vector<std::string>{created(kRc), "APPLY " + std::string(kWl) + "/status"}));
  EXPECT_EQ(rig.condition("Valid").status, "True");
  // The status already reports the cluster just created (not "not created yet"): its creation's watch event then
  // finds nothing to write.
  EXPECT_EQ(rig.condition("Ready").reason, "ClusterNotReady");
}

// The reconcile woken by the operator's own writes (the child's creation, the status) writes nothing.
TEST(WorkloadController, AReconcileWokenByItsOwnWritesWritesNothing) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{}");
  rig.start();
  rig.controller->reconcile("team-a/demo");
  // What the apiserver would now hold: the applied RayCluster, and the workload with the status written.
  ASSERT_TRUE(rig.cache_applied_ray_cluster());
  rig.set_workload_as_written("{}");
  rig.fake.log.clear();
  auto result = rig.controller->reconcile("team-a/demo");
  EXPECT_TRUE(rig.fake.log.empty()) << rig.fake.log.size() << " request(s), the first: " << rig.fake.log[0];
  // Waiting for KubeRay's first status: looked at again when it would be overdue, not polled.
  EXPECT_EQ(result.kind, runtime::ReconcileResult::Kind::RequeueAfter);
}

// The creation event of the child a reconcile created wakes nothing: that reconcile reported it already (issue 11:
// 2.0 reconciles per new workload before). Only that version is an echo; the child's next change wakes the workload.
TEST(WorkloadController, TheCreationEventOfItsOwnChildWakesNothing) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{}");
  rig.start();
  rig.controller->reconcile("team-a/demo");
  ASSERT_EQ(rig.fake.versions.count(kRc), 1u);
  auto rc = rig.fake.applied_to(kRc);
  ASSERT_EQ(rc.size(), 1u);
  json::set(rc[0]["metadata"], "resourceVersion", json::str(rig.fake.versions[kRc], rc[0].GetAllocator()),
            rc[0].GetAllocator());
  json::Document later;
  later.CopyFrom(rc[0], later.GetAllocator());
  json::set(later["metadata"], "resourceVersion", json::str("9999", later.GetAllocator()), later.GetAllocator());
  EXPECT_FALSE(rig.own_child_writes->is_echo("team-a/demo", later)) << "KubeRay's status is news";
  EXPECT_TRUE(rig.own_child_writes->is_echo("team-a/demo", rc[0]));
}

// A child updated (not created) is not reported by the reconcile that wrote it: its event wakes the workload, whose
// status then follows the new child. A deleted workload keeps nothing.
TEST(WorkloadController, AnUpdatedChildsEventWakesTheWorkload) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{}");
  rig.start();
  rig.controller->reconcile("team-a/demo");
  ASSERT_TRUE(rig.cache_applied_ray_cluster());
  rig.set_workload("{workerGroups: [{name: small-group, replicas: 3}]}");
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");  // the cache holds our creation: its entry goes
  ASSERT_EQ(rig.fake.count("APPLY " + std::string(kRc)), 1u) << "the change is applied";
  EXPECT_EQ(rig.own_child_writes->size(), 0u);
  rig.workloads.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.own_child_writes->size(), 0u);
}

// A child is created by a POST (cheaper for the apiserver than an apply that creates), which leaves our field
// manager's managedFields entry with operation Update. Before its first apply, that entry becomes an Apply entry
// (one JSON patch whose tests pin the index), so that a field later left out of the desired object is removed; the
// next update needs no patch.
TEST(WorkloadController, AChildCreatedByPostIsTakenOverAsAppliedAtItsFirstUpdate) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{}");
  rig.start();
  rig.controller->reconcile("team-a/demo");
  ASSERT_EQ(rig.fake.count(created(kRc)), 1u) << ::testing::PrintToString(rig.fake.log);
  ASSERT_TRUE(rig.cache_applied_ray_cluster());
  rig.set_workload("{workerGroups: [{name: small-group, replicas: 3}]}");
  rig.fake.failures_once["PATCH " + std::string(kRc)] = Error{
      "the server rejected our request: testing value /metadata/managedFields/0/operation failed", 422, "Invalid"};
  rig.fake.log.clear();
  EXPECT_EQ(rig.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::Error);
  EXPECT_EQ(rig.fake.count("APPLY " + std::string(kRc)), 0u) << "not applied before its fields are ours";
  EXPECT_EQ(rig.condition("Ready").reason, "ApplyFailed") << "a stale index is no verdict on the object";
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  ASSERT_EQ(rig.fake.log.size(), 3u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_EQ(rig.fake.log[0], "PATCH " + std::string(kRc));
  EXPECT_EQ(rig.fake.log[1], "APPLY " + std::string(kRc));
  auto patches = rig.fake.applied_to(kRc);
  ASSERT_GE(patches.size(), 2u);
  EXPECT_EQ(json::dump(patches[patches.size() - 2]),
            R"([{"op":"test","path":"/metadata/managedFields/0/manager","value":"codeflare-operator"},)"
            R"({"op":"test","path":"/metadata/managedFields/0/operation","value":"Update"},)"
            R"({"op":"replace","path":"/metadata/managedFields/0/operation","value":"Apply"}])");
  // Applied since: the entry the cache shows is an Apply entry, and the next update is an apply alone.
  json::Document live = json::clone(*rig.children[static_cast<std::size_t>(ChildKind::kRayCluster)]["team-a/demo"]);
  const json::Document entries =
      doc("[{manager: codeflare-operator, operation: Apply}, {manager: kubectl, operation: Update}]");
  json::set(live["metadata"], "managedFields", json::Value(entries, live.GetAllocator()), live.GetAllocator());
  rig.set_child(ChildKind::kRayCluster, std::move(live));
  rig.set_workload("{workerGroups: [{name: small-group, replicas: 4}]}");
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("PATCH " + std::string(kRc)), 0u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_EQ(rig.fake.count("APPLY " + std::string(kRc)), 1u) << ::testing::PrintToString(rig.fake.log);
}

TEST(WorkloadController, AChildOfSomeoneElseIsNeverTakenOver) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{}");
  // As the cache keeps someone else's object: its owner references only (child_transform).
  rig.set_child(
      ChildKind::kRayCluster,
      doc("{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: demo, namespace: team-a, "
          "ownerReferences: [{apiVersion: ray.io/v1, kind: RayJob, name: other, uid: x, controller: true}]}}"));
  rig.start();
  auto result = rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("APPLY " + std::string(kRc)), 0u);
  EXPECT_EQ(rig.fake.count("DRYRUN "), 0u);
  EXPECT_EQ(rig.condition("Ready").reason, "ChildConflict");
  EXPECT_NE(rig.condition("Ready").message.find("is controlled by RayJob other"), std::string::npos);
  EXPECT_TRUE(rig.event("Warning ChildConflict: RayCluster demo already exists"));
  EXPECT_EQ(result.kind, runtime::ReconcileResult::Kind::RequeueAfter);
  EXPECT_EQ(result.requeue_after_ms, kRecheckMs);
}

// The twelfth trial: a ChildConflict was logged again on every recheck (30 s). Its event is posted once per dedup
// window, and so is its log line.
TEST(WorkloadController, AChildConflictIsLoggedOncePerEvent) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{}");
  rig.set_child(
      ChildKind::kRayCluster,
      doc("{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: demo, namespace: team-a, "
          "ownerReferences: [{apiVersion: ray.io/v1, kind: RayJob, name: other, uid: x, controller: true}]}}"));
  rig.start();
  std::ostringstream out;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(out)));
  for (int i = 0; i < 3; ++i) rig.controller->reconcile("team-a/demo");
  spdlog::set_default_logger(previous);
  const std::string log = out.str();
  std::size_t lines = 0;
  for (std::size_t at = log.find("already exists"); at != std::string::npos; at = log.find("already exists", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1u) << log;
  EXPECT_EQ(rig.events.size(), 1u);
}

// An earlier workload of the same name left its finished RayJob (the garbage collector has not removed it yet): it
// carries the workload label too, but its controller is the earlier uid. The new workload neither reads its status as
// its own job's end nor skips its own run: ChildConflict, nothing written, no job record (eighth user trial).
TEST(WorkloadController, AnEarlierWorkloadsFinishedRayJobIsNotThisWorkloadsRun) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{job: {entrypoint: python train.py}}");
  rig.set_child(ChildKind::kRayJob,
                doc("{apiVersion: ray.io/v1, kind: RayJob, metadata: {name: demo, namespace: team-a, "
                    "labels: {codeflare.dev/workload: demo}, ownerReferences: [{apiVersion: codeflare.dev/v1alpha1, "
                    "kind: CodeFlareWorkload, name: demo, uid: uid-0, controller: true}]}, "
                    "spec: {entrypoint: python train.py}, "
                    "status: {jobDeploymentStatus: Complete, jobStatus: SUCCEEDED}}"));
  rig.start();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("APPLY /apis/ray.io/v1/namespaces/team-a/rayjobs/demo"), 0u);
  EXPECT_EQ(rig.condition("Ready").reason, "ChildConflict");
  const json::Document st = rig.last_status();
  EXPECT_NE(json::get_string(st, "phase"), "Succeeded") << json::dump(st);
  EXPECT_EQ(rig.condition("Succeeded").status, "Unknown") << json::dump(st);
  EXPECT_FALSE(json::find(st, "jobSpecHash")) << "no RayJob was written";
  EXPECT_FALSE(json::find(st, "jobStatus")) << "the earlier workload's job status is not ours";
}

TEST(WorkloadController, ARefusedApplyIsReportedAsTheServersVerdict) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{}");
  rig.fake.failures[created(kRc)] =
      Error{"RayCluster.ray.io \"demo\" is invalid: spec.x: Invalid value", 422, "Invalid"};
  rig.start();
  auto result = rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.applied_to(kRc).size(), 0u);
  EXPECT_EQ(rig.condition("Ready").reason, "ServerRejected");
  EXPECT_TRUE(rig.event("Warning ServerRejected: the apiserver rejects RayCluster demo"));
  EXPECT_EQ(result.kind, runtime::ReconcileResult::Kind::Error);
  // A failure that is not a verdict on the object (the apiserver is overloaded) is ApplyFailed.
  Rig busy;
  busy.set_workload("{}");
  busy.fake.failures[created(kRc)] = Error{"too many requests", 429, "TooManyRequests"};
  busy.start();
  EXPECT_EQ(busy.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::Error);
  EXPECT_EQ(busy.condition("Ready").reason, "ApplyFailed");
}

// With a queue, a child name held by another object means nothing was submitted: Queued says so too.
TEST(WorkloadController, AChildConflictIsNotSubmittedToTheQueue) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.local_queues["team-a/q"] = std::make_shared<const json::Document>(
      doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: q, namespace: team-a}, "
          "spec: {clusterQueue: cq}}"));
  rig.set_workload("{queue: {localQueue: q}}");
  rig.set_child(ChildKind::kRayCluster, doc("{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: demo, "
                                            "namespace: team-a}}"));
  rig.start();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.condition("Ready").reason, "ChildConflict");
  EXPECT_EQ(rig.condition("Queued").status, "False");
  EXPECT_EQ(rig.condition("Queued").reason, "ChildConflict");
}

// The seventeenth user trial: while the LocalQueue cache was listing again, a workload managing a LocalQueue that a
// user had just created applied it, so took it over (labelled managed, its clusterQueue rewritten) and deleted it with
// the workload. A managed LocalQueue is created, never applied: one that exists is not touched, and nothing that
// would be submitted to it is written.
TEST(WorkloadController, AManagedLocalQueueThatExistsUnseenIsNotTakenOver) {
  CFO_REQUIRE_SCHEMAS();
  for (bool gate : {true, false}) {
    Rig rig;
    rig.kueue_version = "v1beta2";
    rig.opts.server_dry_run = gate;
    rig.set_workload("{queue: {clusterQueue: cq-a}}");
    rig.fake.put(kLq, doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: cq-a, namespace: "
                          "team-a}, spec: {clusterQueue: cq-x}}"));  // the user's, not in the cache
    rig.start();
    EXPECT_EQ(rig.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::Error) << gate;
    EXPECT_EQ(rig.fake.count("APPLY " + std::string(kLq)), 0u) << gate;
    EXPECT_EQ(rig.fake.applied_to(kLq).size(), 0u) << gate;
    EXPECT_EQ(rig.fake.count("APPLY " + std::string(kRc)), 0u) << "nothing is submitted to it; gate " << gate;
    EXPECT_EQ(json::string_at(rig.fake.objects.at(kLq), "spec.clusterQueue"), "cq-x") << gate;
    EXPECT_EQ(rig.condition("Ready").reason, "ApplyFailed") << gate;
    EXPECT_NE(rig.condition("Ready").message.find("already exists"), std::string::npos) << gate;
    EXPECT_NE(rig.condition("Ready").message.find("not taken over"), std::string::npos) << gate;
    // Nothing was submitted, and the status says so (the eighteenth user trial: Queued=True Submitted).
    EXPECT_EQ(rig.condition("Queued").status, "False") << gate;
    EXPECT_EQ(rig.condition("Queued").reason, "ApplyFailed") << gate;

    // One the operator made for the same ClusterQueue (another workload's reconcile, a moment before) is as wanted.
    Rig racing;
    racing.kueue_version = "v1beta2";
    racing.opts.server_dry_run = gate;
    racing.set_workload("{queue: {clusterQueue: cq-a}}");
    racing.fake.put(kLq,
                    doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: cq-a, namespace: "
                        "team-a, labels: {app.kubernetes.io/managed-by: codeflare-operator}}, spec: {clusterQueue: "
                        "cq-a}}"));
    racing.start();
    EXPECT_EQ(racing.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::RequeueAfter) << gate;
    EXPECT_EQ(racing.fake.count(created(kRc)), 1u) << gate;
    EXPECT_EQ(racing.fake.count("GET " + std::string(kLq)), gate ? 2u : 1u) << gate;
    EXPECT_NE(racing.condition("Ready").reason, "ApplyFailed") << gate;
  }
}

// A first submission to a managed LocalQueue that the cache shows reads it live first: the cache may be stale (the
// eighteenth user trial: deleted and created again for another ClusterQueue during a relist after an apiserver
// restart, and the new workload was submitted to it). A child that exists costs no read.
TEST(WorkloadController, AFirstSubmissionChecksTheManagedLocalQueueOnTheServer) {
  CFO_REQUIRE_SCHEMAS();
  const std::string managed =
      "{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: cq-a, namespace: team-a, labels: "
      "{app.kubernetes.io/managed-by: codeflare-operator}}, spec: {clusterQueue: cq-a}}";
  const std::string replaced =
      "{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: cq-a, namespace: team-a}, spec: "
      "{clusterQueue: cq-evil}}";
  struct Case {
    const char* name;
    std::optional<std::string> live;  // on the server; nullopt: gone
    const char* told;                 // in the Ready message; "" when submitted
  };
  for (const Case& c : {Case{"as cached", managed, ""}, Case{"replaced", replaced, "does not manage"},
                        Case{"re-pointed", std::string(managed).replace(managed.rfind("cq-a"), 4, "cq-evil"),
                             "now points at ClusterQueue cq-evil, not cq-a"},
                        Case{"gone", std::nullopt, "is gone"}})
    for (bool gate : {true, false}) {
      Rig rig;
      rig.kueue_version = "v1beta2";
      rig.opts.server_dry_run = gate;
      rig.set_workload("{queue: {clusterQueue: cq-a}}", ", finalizers: [codeflare.dev/managed-local-queue]");
      rig.local_queues["team-a/cq-a"] = std::make_shared<const json::Document>(doc(managed));
      if (c.live) rig.fake.put(kLq, doc(c.live.value_or("")));
      rig.start();
      auto result = rig.controller->reconcile("team-a/demo").kind;
      EXPECT_EQ(rig.fake.count("GET " + std::string(kLq)), 1u) << c.name << " gate " << gate;
      EXPECT_EQ(rig.fake.count("CREATE " + std::string(kLqs)), 0u) << c.name;
      if (std::string(c.told).empty()) {
        EXPECT_EQ(result, runtime::ReconcileResult::Kind::RequeueAfter) << c.name << " gate " << gate;
        EXPECT_EQ(rig.fake.count(created(kRc)), 1u) << c.name << " gate " << gate;
        continue;
      }
      EXPECT_EQ(result, runtime::ReconcileResult::Kind::Error) << c.name << " gate " << gate;
      EXPECT_EQ(rig.fake.count(created(kRc)), 0u) << c.name << " gate " << gate;
      EXPECT_EQ(rig.fake.count("DRYRUN " + created(kRc).substr(7)), 0u) << c.name << " gate " << gate;
      EXPECT_EQ(rig.condition("Ready").reason, "ApplyFailed") << c.name;
      EXPECT_NE(rig.condition("Ready").message.find(c.told), std::string::npos) << rig.condition("Ready").message;
      EXPECT_EQ(rig.condition("Queued").status, "False") << c.name;
      // Nothing was made: the queue is not recorded as the workload's (the twenty-second user trial: recorded, it was
      // claimed with the finalizer once the workload was held for it).
      EXPECT_EQ(json::get_string(rig.last_status(), "managedLocalQueue"), std::nullopt) << c.name;
      if (c.live) {
        EXPECT_EQ(json::string_at(rig.fake.objects.at(kLq), "spec.clusterQueue"), "cq-evil") << c.name;
      }
    }

  // Submitted already: nothing is read (a replacement then is told once the cache has it, as a hold).
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload("{queue: {clusterQueue: cq-a}}", ", finalizers: [codeflare.dev/managed-local-queue]");
  rig.local_queues["team-a/cq-a"] = std::make_shared<const json::Document>(doc(managed));
  rig.fake.put(kLq, doc(managed));
  rig.start();
  ASSERT_EQ(rig.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::RequeueAfter);
  auto rc = rig.fake.applied_to(kRc);
  ASSERT_EQ(rc.size(), 1u);
  json::Document live;
  live.CopyFrom(rc[0], live.GetAllocator());
  rig.set_child(ChildKind::kRayCluster, std::move(live));
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("GET " + std::string(kLq)), 0u);

  // Moved to another managed LocalQueue (suspended, so that Kueue lets it move), replaced on the server meanwhile:
  // read, and the RayCluster is not moved (the nineteenth user trial: it was relabelled into the replaced queue).
  const std::string cq_b = "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/localqueues/cq-b";
  json::Document running = rig.last_status();
  EXPECT_EQ(json::get_string(running, "managedLocalQueue"), "cq-a");
  rig.set_workload("{suspend: true, queue: {clusterQueue: cq-b}}", ", finalizers: [codeflare.dev/managed-local-queue]");
  {
    json::Document wl = json::clone(*rig.workloads["team-a/demo"]);
    json::Value st;
    st.CopyFrom(running, wl.GetAllocator());
    wl.AddMember("status", st, wl.GetAllocator());
    rig.workloads["team-a/demo"] = std::make_shared<json::Document>(std::move(wl));
  }
  rig.local_queues["team-a/cq-b"] =
      std::make_shared<const json::Document>(doc(std::string(managed)
                                                     .replace(managed.find("name: cq-a"), 10, "name: cq-b")
                                                     .replace(managed.rfind("cq-a"), 4, "cq-b")));
  rig.fake.put(cq_b, doc(std::string(replaced).replace(replaced.find("name: cq-a"), 10, "name: cq-b")));
  rig.fake.log.clear();
  EXPECT_EQ(rig.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::Error);
  EXPECT_EQ(rig.fake.count("GET " + cq_b), 1u);
  EXPECT_EQ(rig.fake.count("APPLY " + std::string(kRc)), 0u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_NE(rig.condition("Ready").message.find("LocalQueue cq-b was replaced"), std::string::npos)
      << rig.condition("Ready").message;
  // Nothing moved, and the status says so (the twentieth user trial: it named cq-b, and cq-a, recorded nowhere, was
  // deleted under the RayCluster still in it).
  json::Document after = rig.last_status();
  EXPECT_EQ(json::get_string(after, "queue"), "cq-a");
  EXPECT_EQ(json::get_string(after, "managedLocalQueue"), "cq-a");
  EXPECT_EQ(rig.condition("Queued").message.rfind("submitted to LocalQueue cq-a", 0), 0u)
      << rig.condition("Queued").message;
  EXPECT_NE(json::get_string(after, "phase"), "Suspended") << "the RayCluster was not suspended";
  // Nor is a suspension announced (the twenty-first user trial: a Suspended event for the phase not taken).
  for (const auto& e : rig.events) EXPECT_EQ(e.find(" Suspended: "), std::string::npos) << e;
}

// Where a refusal would come after something was written (a managed LocalQueue, its finalizer, then the cluster),
// every object is judged by the dry run first, and a refusal writes nothing.
TEST(WorkloadController, TheDryRunGateGuardsWritesThatComeInSeveralSteps) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload("{queue: {clusterQueue: cq-a}}");
  rig.start();
  EXPECT_EQ(rig.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::RequeueAfter);
  EXPECT_EQ(rig.fake.log, (std::vector<std::string>{"DRYRUN " + std::string(kLqs), "DRYRUN " + created(kRc).substr(7),
                                                    "PATCH " + std::string(kWl), "CREATE " + std::string(kLqs),
                                                    created(kRc), "APPLY " + std::string(kWl) + "/status"}));
  Rig refused;
  refused.kueue_version = "v1beta2";
  refused.set_workload("{queue: {clusterQueue: cq-a}}");
  refused.fake.failures["DRYRUN " + created(kRc).substr(7)] = Error{"spec.x: Invalid value", 422, "Invalid"};
  refused.start();
  EXPECT_EQ(refused.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::Error);
  EXPECT_EQ(refused.fake.applied_to(kLq).size(), 0u);
  EXPECT_EQ(refused.fake.applied_to(kWl).size(), 0u);  // not even the finalizer
  EXPECT_EQ(refused.condition("Ready").reason, "ServerRejected");
}

// A kind whose CRD went (or is going) has no objects, whatever its cache last saw before its watch was answered 404:
// the workload reads as held before submission, and nothing is written (the nineteenth user trial).
TEST(WorkloadController, ChildrenOfAKindNoLongerServedAreNotSeen) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{appWrapper: true, workerGroups: [{name: w, replicas: 1}]}");
  rig.start();
  rig.controller->reconcile("team-a/demo");
  ASSERT_TRUE(rig.cache_applied_app_wrapper());  // the cache's last view
  auto unserved = std::make_shared<ServedApis>(*rig.apis.get());
  unserved->app_wrapper = false;
  rig.apis.set(unserved);
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("APPLY " + std::string(kAw)), 0u);
  EXPECT_EQ(rig.condition("Ready").reason, "AppWrapperNotInstalled") << rig.condition("Ready").message;
  EXPECT_EQ(rig.condition("Ready").status, "False");

  // While its CRD's deletion runs, an object held by a finalizer still exists, and is seen (the twenty-first user
  // trial: taken as gone, its LocalQueue was released under it).
  auto terminating = std::make_shared<ServedApis>(*unserved);
  terminating->terminating.insert("appwrappers.workload.codeflare.dev");
  rig.apis.set(terminating);
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("APPLY " + std::string(kAw)), 0u);
  EXPECT_EQ(json::get_string(rig.last_status(), "heldFor"), "AppWrapperNotInstalled");
  EXPECT_NE(rig.condition("Ready").reason, "AppWrapperNotInstalled") << "the AppWrapper is there: its state is told";
}

TEST(WorkloadController, AnAppWrapperWhoseComponentsChangedIsReplaced) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{appWrapper: true, workerGroups: [{name: w, replicas: 1}]}");
  rig.start();
  rig.controller->reconcile("team-a/demo");
  ASSERT_TRUE(rig.cache_applied_app_wrapper());
  // Running (not suspended), it is not replaced: that would stop its Ray cluster (AppWrapperChangeWhileRunning).
  rig.set_workload("{appWrapper: true, workerGroups: [{name: w, replicas: 3}]}");
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("DELETE " + std::string(kAw)), 0u);
  EXPECT_EQ(rig.condition("Valid").status, "False");
  // The same change with suspend: true replaces it.
  rig.set_workload("{appWrapper: true, suspend: true, workerGroups: [{name: w, replicas: 3}]}");
  rig.fake.log.clear();
  auto result = rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.log, (std::vector<std::string>{"DRYRUN " + std::string(kAw), "DELETE " + std::string(kAw),
                                                    "APPLY " + std::string(kWl) + "/status"}));
  EXPECT_TRUE(rig.event("Normal Replacing: AppWrapper demo is replaced"));
  EXPECT_EQ(result.kind, runtime::ReconcileResult::Kind::RequeueAfter);
  EXPECT_EQ(result.requeue_after_ms, kReplaceRecheckMs);
  // Its deletion seen (finalizers still at work): waited for, not deleted again nor told again.
  {
    json::Document going = json::clone(*rig.children[static_cast<std::size_t>(ChildKind::kAppWrapper)]["team-a/demo"]);
    json::set(going["metadata"], "deletionTimestamp", json::str("2026-12-03T00:00:00Z", going.GetAllocator()),
              going.GetAllocator());
    rig.set_child(ChildKind::kAppWrapper, std::move(going));
  }
  const std::size_t events_before = rig.events.size();
  rig.fake.log.clear();
  EXPECT_EQ(rig.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::RequeueAfter);
  EXPECT_EQ(rig.fake.count("DELETE " + std::string(kAw)), 0u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_EQ(rig.fake.count("DRYRUN "), 0u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_EQ(rig.events.size(), events_before);
}

// The twenty-fifth user trial: a kind change (suspended, as asked) waits for the old child, which a finalizer holds:
// it was deleted again and told "Replaced" on every recheck, and unsuspending meanwhile marked the spec invalid
// (ChildKindChangeWhileRunning for a child already being deleted). One DELETE and one Replacing event, then a wait.
TEST(WorkloadController, AKindChangeWaitsForTheOldChildOnce) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{workerGroups: [{name: w, replicas: 1}]}");
  rig.start();
  rig.controller->reconcile("team-a/demo");
  ASSERT_TRUE(rig.cache_applied_ray_cluster());
  rig.set_workload("{appWrapper: true, suspend: true, workerGroups: [{name: w, replicas: 1}]}");
  rig.fake.log.clear();
  auto result = rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("DELETE " + std::string(kRc)), 1u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_EQ(rig.fake.count("APPLY " + std::string(kAw)), 0u) << "the AppWrapper is not made beside the RayCluster";
  EXPECT_TRUE(rig.event("Normal Replacing: RayCluster demo removed: the workload now runs as an AppWrapper"))
      << ::testing::PrintToString(rig.events);
  EXPECT_EQ(rig.condition("Ready").reason, "Replacing") << rig.condition("Ready").message;
  EXPECT_EQ(rig.condition("Ready").message,
            "RayCluster demo is being deleted (its finalizers may hold it a while); the AppWrapper that replaces it is "
            "created once it is gone");
  EXPECT_EQ(result.kind, runtime::ReconcileResult::Kind::RequeueAfter);
  {  // woken again (the workload's own event) before the cache shows the deletion: no second DELETE nor event
    const std::size_t events_before = rig.events.size();
    rig.fake.log.clear();
    EXPECT_EQ(rig.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::RequeueAfter);
    EXPECT_EQ(rig.fake.count("DELETE "), 0u) << ::testing::PrintToString(rig.fake.log);
    EXPECT_EQ(rig.fake.count("APPLY " + std::string(kAw)), 0u);
    EXPECT_EQ(rig.events.size(), events_before) << ::testing::PrintToString(rig.events);
  }
  {  // its deletion seen, held by someone's finalizer
    json::Document going = json::clone(*rig.children[static_cast<std::size_t>(ChildKind::kRayCluster)]["team-a/demo"]);
    json::set(going["metadata"], "deletionTimestamp", json::str("2026-12-04T00:00:00Z", going.GetAllocator()),
              going.GetAllocator());
    rig.set_child(ChildKind::kRayCluster, std::move(going));
  }
  for (const char* spec : {"{appWrapper: true, suspend: true, workerGroups: [{name: w, replicas: 1}]}",
                           "{appWrapper: true, workerGroups: [{name: w, replicas: 1}]}"}) {  // then unsuspended
    rig.set_workload(spec);
    const std::size_t events_before = rig.events.size();
    rig.fake.log.clear();
    EXPECT_EQ(rig.controller->reconcile("team-a/demo").kind, runtime::ReconcileResult::Kind::RequeueAfter) << spec;
    EXPECT_EQ(rig.fake.count("DELETE "), 0u) << spec << ": " << ::testing::PrintToString(rig.fake.log);
    EXPECT_EQ(rig.fake.count("APPLY " + std::string(kAw)), 0u) << spec;
    EXPECT_EQ(rig.events.size(), events_before) << spec << ": " << ::testing::PrintToString(rig.events);
    EXPECT_EQ(rig.condition("Valid").status, "True") << spec << ": " << rig.condition("Valid").message;
  }
  // Gone: the AppWrapper is made.
  rig.children[static_cast<std::size_t>(ChildKind::kRayCluster)].clear();
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count(created(kAw)), 1u) << ::testing::PrintToString(rig.fake.log);
}

// The twenty-sixth user trial: a kind change to a RayJob recorded the RayJob's spec hash while it waited for the old
// child, and the next reconcile took the RayJob never made for one gone before its end (Failed, RayJobGone).
TEST(WorkloadController, AKindChangeToARayJobRecordsNoRunWhileItWaits) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{workerGroups: [{name: w, replicas: 1}]}");
  rig.start();
  rig.controller->reconcile("team-a/demo");
  ASSERT_TRUE(rig.cache_applied_ray_cluster());
  const std::string job = "{suspend: true, job: {entrypoint: 'python -c 1'}, workerGroups: [{name: w, replicas: 1}]}";
  rig.set_workload(job);
  rig.controller->reconcile("team-a/demo");  // the RayCluster is removed
  {
    json::Document going = json::clone(*rig.children[static_cast<std::size_t>(ChildKind::kRayCluster)]["team-a/demo"]);
    json::set(going["metadata"], "deletionTimestamp", json::str("2026-12-04T00:00:00Z", going.GetAllocator()),
              going.GetAllocator());
    rig.set_child(ChildKind::kRayCluster, std::move(going));
  }
  for (int i = 0; i < 2; ++i) {
    rig.set_workload_as_written(job);
    rig.controller->reconcile("team-a/demo");
    EXPECT_EQ(json::string_at(rig.last_status(), "jobSpecHash"), "") << "recheck " << i;
    EXPECT_NE(json::string_at(rig.last_status(), "phase"), "Failed") << rig.condition("Ready").message;
  }
  rig.children[static_cast<std::size_t>(ChildKind::kRayCluster)].clear();  // gone
  rig.set_workload_as_written(job);
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count(created("/apis/ray.io/v1/namespaces/team-a/rayjobs/demo")), 1u)
      << ::testing::PrintToString(rig.fake.log) << rig.condition("Ready").message;
  EXPECT_NE(json::string_at(rig.last_status(), "jobSpecHash"), "");
}

// The twenty-seventh user trial: RayJob -> RayCluster while a finalizer held the RayJob, then back to the same job
// before it was gone: the old RayJob's record was kept through the wait, and once it went it read as a RayJob lost
// before its end (Failed, RayJobGone), and none was made.
TEST(WorkloadController, BackToTheSameJobWhileTheOldRayJobIsHeldMakesItAgain) {
  CFO_REQUIRE_SCHEMAS();
  constexpr const char* kRj = "/apis/ray.io/v1/namespaces/team-a/rayjobs/demo";
  const std::string job = "{suspend: true, job: {entrypoint: 'python -c 1'}, workerGroups: [{name: w, replicas: 1}]}";
  const std::string cluster = "{suspend: true, workerGroups: [{name: w, replicas: 1}]}";
  Rig rig;
  rig.set_workload(job);
  rig.start();
  rig.controller->reconcile("team-a/demo");
  auto made = rig.fake.applied_to(kRj);
  ASSERT_EQ(made.size(), 1u);
  ASSERT_NE(json::string_at(rig.last_status(), "jobSpecHash"), "");
  rig.set_child(ChildKind::kRayJob, json::clone(made[0]));
  json::Document held = json::clone(made[0]);
  json::set(held["metadata"], "deletionTimestamp", json::str("2026-12-04T00:00:00Z", held.GetAllocator()),
            held.GetAllocator());
  rig.set_workload_as_written(cluster);
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");  // the RayJob is removed; a finalizer holds it
  ASSERT_EQ(rig.fake.count("DELETE " + std::string(kRj)), 1u) << ::testing::PrintToString(rig.fake.log);
  rig.set_child(ChildKind::kRayJob, std::move(held));
  rig.set_workload_as_written(cluster);
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(json::string_at(rig.last_status(), "jobSpecHash"), "") << "the RayJob this change deletes";
  for (int i = 0; i < 2; ++i) {  // back to the same job while it is held
    rig.set_workload_as_written(job);
    rig.controller->reconcile("team-a/demo");
    EXPECT_NE(json::string_at(rig.last_status(), "phase"), "Failed") << rig.condition("Ready").message;
  }
  rig.children[static_cast<std::size_t>(ChildKind::kRayJob)].clear();  // gone
  rig.set_workload_as_written(job);
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count(created(kRj)), 1u)
      << ::testing::PrintToString(rig.fake.log) << " " << rig.condition("Ready").reason << ": "
      << rig.condition("Ready").message;
  EXPECT_NE(json::string_at(rig.last_status(), "phase"), "Failed");
}

// The twenty-second user trial: a queue move that replaces the AppWrapper (suspended, its components changed)
// recorded the new queue while the AppWrapper being deleted still ran in the old one, and the old one, recorded
// nowhere, was never deleted. The old queue is kept until the new AppWrapper is in, then released.
TEST(WorkloadController, AReplacedChildKeepsItsQueueUntilTheNewOneIsIn) {
  CFO_REQUIRE_SCHEMAS();
  const std::string fin = ", finalizers: [codeflare.dev/managed-local-queue]";
  const std::string rq1 = "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/localqueues/rq-1";
  auto managed = [](const std::string& name) {
    return doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: " + name +
               ", namespace: team-a, labels: {app.kubernetes.io/managed-by: codeflare-operator}}, spec: "
               "{clusterQueue: " +
               name + "}}");
  };
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload(
      "{appWrapper: true, suspend: true, queue: {clusterQueue: rq-1}, workerGroups: [{name: w, replicas: 1}]}", fin);
  rig.local_queues["team-a/rq-1"] = std::make_shared<const json::Document>(managed("rq-1"));
  rig.fake.put(rq1, managed("rq-1"));
  rig.start();
  rig.controller->reconcile("team-a/demo");
  ASSERT_TRUE(rig.cache_applied_app_wrapper());
  const std::string moved =
      "{appWrapper: true, suspend: true, queue: {clusterQueue: rq-2}, workerGroups: [{name: w, replicas: 3}]}";
  rig.set_workload_as_written(moved, fin);
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("DELETE " + std::string(kAw)), 1u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_EQ(rig.fake.count("DELETE " + rq1), 0u);
  json::Document replacing = rig.last_status();
  EXPECT_EQ(json::get_string(replacing, "managedLocalQueue"), "rq-1") << "the AppWrapper being deleted runs there";
  EXPECT_EQ(json::get_string(replacing, "queue"), "rq-1");

  // The AppWrapper gone: the new one goes into rq-2, created, and rq-1, used by nobody now, goes.
  rig.children[static_cast<std::size_t>(ChildKind::kAppWrapper)].clear();
  rig.set_workload_as_written(moved, fin);
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("CREATE " + std::string(kLqs)), 1u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_EQ(rig.fake.count(created(kAw)), 1u);
  EXPECT_EQ(rig.fake.count("DELETE " + rq1), 1u);
  EXPECT_EQ(json::get_string(rig.last_status(), "managedLocalQueue"), "rq-2");
}

TEST(WorkloadController, ADeletedWorkloadReleasesItsManagedLocalQueueThenItsFinalizer) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload("{queue: {clusterQueue: cq-a}}",
                   ", deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [codeflare.dev/managed-local-queue]");
  rig.fake.put(kLq, doc("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: cq-a, namespace: "
                        "team-a, labels: {app.kubernetes.io/managed-by: codeflare-operator}}, "
                        "spec: {clusterQueue: cq-a}}"));
  rig.start();
  auto result = rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(result.kind, runtime::ReconcileResult::Kind::Ok) << result.error;
  EXPECT_EQ(rig.fake.log, (std::vector<std::string>{"GET " + std::string(kLq), "DELETE " + std::string(kLq),
                                                    "PATCH " + std::string(kWl)}));
  auto finalizer = rig.fake.applied_to(kWl);
  ASSERT_EQ(finalizer.size(), 1u);
  EXPECT_EQ(json::dump(finalizer[0]),
            R"([{"op":"test","path":"/metadata/uid","value":"uid-1"},)"  // never lands on a new object of that name
            R"({"op":"test","path":"/metadata/finalizers/0","value":"codeflare.dev/managed-local-queue"},)"
            R"({"op":"remove","path":"/metadata/finalizers/0"}])");
  EXPECT_TRUE(rig.event("Normal LocalQueueDeleted"));
}

TEST(WorkloadController, ALocalQueueStillUsedByAnotherWorkloadIsKept) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload("{queue: {clusterQueue: cq-a}}",
                   ", deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [codeflare.dev/managed-local-queue]");
  rig.workloads["team-a/other"] = std::make_shared<json::Document>(
      doc("{metadata: {name: other, namespace: team-a}, spec: {queue: {localQueue: cq-a}}}"));
  rig.fake.put(kLq, doc("{metadata: {name: cq-a, namespace: team-a, labels: {app.kubernetes.io/managed-by: "
                        "codeflare-operator}}, spec: {clusterQueue: cq-a}}"));
  rig.start();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("DELETE "), 0u);
  EXPECT_EQ(rig.fake.count("PATCH " + std::string(kWl)), 1u);  // the finalizer still goes
  EXPECT_TRUE(rig.event("Normal LocalQueueKept"));
}

// The twelfth user trial: a workload that names no queue and is not reconciled yet (no status.queue) runs in the
// namespace's default LocalQueue once it is: a managed LocalQueue that may be that default is kept for it.
TEST(WorkloadController, AManagedDefaultLocalQueueIsKeptForAWorkloadThatNamesNoQueue) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload("{queue: {localQueue: default, clusterQueue: cq-a}}",
                   ", deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [codeflare.dev/managed-local-queue]");
  rig.workloads["team-a/implicit"] =
      std::make_shared<json::Document>(doc("{metadata: {name: implicit, namespace: team-a}, spec: {}}"));
  const std::string lq = "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/localqueues/default";
  rig.fake.put(lq, doc("{metadata: {name: default, namespace: team-a, labels: {app.kubernetes.io/managed-by: "
                       "codeflare-operator}}, spec: {clusterQueue: cq-a}}"));
  rig.start();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("DELETE "), 0u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_TRUE(rig.event("Normal LocalQueueKept"));
}

TEST(WorkloadController, AFailedCleanUpKeepsTheFinalizerAndRetries) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload("{queue: {clusterQueue: cq-a}}",
                   ", deletionTimestamp: '" + now_rfc3339() + "', finalizers: [codeflare.dev/managed-local-queue]");
  rig.fake.failures["GET " + std::string(kLq)] = Error{"etcd timeout", 500, "InternalError"};
  rig.start();
  auto result = rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(result.kind, runtime::ReconcileResult::Kind::Error);
  EXPECT_EQ(rig.fake.count("APPLY "), 0u);
}

// A reconcile woken (by the child's watch event) before the cache shows the status it wrote: it reads its own write,
// not the stale copy, so it writes nothing and posts no event again; once the cache moves on, the cache is read.
TEST(WorkloadController, AReconcileBeforeTheCacheShowsItsStatusWriteWritesNothing) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.set_workload("{workerGroups: [{name: w, replicas: 1, minReplicas: 3}]}", ", resourceVersion: '7'");
  rig.start();
  rig.controller->reconcile("team-a/demo");
  ASSERT_EQ(rig.fake.count("APPLY " + std::string(kWl) + "/status"), 1u);
  const std::size_t events_after_first = rig.events.size();
  ASSERT_GT(events_after_first, 0u) << "the ReplicaBoundsIgnored warning is an event";
  // The child is in its cache (its watch event woke us), the workload's cache still holds version 7.
  ASSERT_TRUE(rig.cache_applied_ray_cluster());
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_TRUE(rig.fake.log.empty()) << rig.fake.log.size() << " request(s), the first: " << rig.fake.log[0];
  EXPECT_EQ(rig.events.size(), events_after_first) << "no event twice";

  // The cache moves on (another version, here without our status: someone else's write): it is read again.
  rig.set_workload("{workerGroups: [{name: w, replicas: 1, minReplicas: 3}]}", ", resourceVersion: '9'");
  rig.fake.log.clear();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("APPLY " + std::string(kWl) + "/status"), 1u) << "the status is missing from version 9";
}

// The twelfth user trial: two LocalQueues annotated as the namespace's default were taken silently, the first the
// cache listed. The first by name is taken, and the workload is warned.
TEST(WorkloadController, TwoDefaultLocalQueuesAreToldAndTheFirstByNameIsTaken) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload("{}");
  for (const char* name : {"zeta", "alpha"})
    rig.local_queues[std::string("team-a/") + name] = std::make_shared<json::Document>(
        doc(std::string("{metadata: {name: ") + name +
            ", namespace: team-a, annotations: {kueue.x-k8s.io/default-queue: 'true'}}, spec: {clusterQueue: cq}}"));
  rig.start();
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.applied_queue_label(), "alpha");
  EXPECT_TRUE(rig.event("Warning DefaultLocalQueueAmbiguous: "));
  EXPECT_EQ(rig.condition("Valid").reason, "ValidWithWarnings");
}

// The thirteenth user trial: an operator restarted beside many LocalQueues reconciled before its LocalQueue cache had
// listed: queue-less workloads were submitted without the namespace's default queue, for good. A reconcile waits
// for that list, writing nothing, and then submits to the default queue.
TEST(WorkloadController, AReconcileWaitsForTheLocalQueueCacheFirstList) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload("{}");
  rig.local_queues["team-a/default"] =
      std::make_shared<json::Document>(doc("{metadata: {name: default, namespace: team-a}, spec: {clusterQueue: cq}}"));
  rig.local_queues_pending = true;
  rig.start();
  auto waiting = rig.controller->reconcile("team-a/demo");
  EXPECT_TRUE(rig.fake.log.empty()) << ::testing::PrintToString(rig.fake.log);
  EXPECT_EQ(waiting.kind, runtime::ReconcileResult::Kind::RequeueAfter);
  EXPECT_EQ(waiting.requeue_after_ms, kKueueCacheRecheckMs);
  rig.local_queues_pending = false;
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.applied_queue_label(), "default");
}

// The fifteenth user trial: a managed LocalQueue deleted by hand was created again by the workload held for pointing
// at another ClusterQueue (reconciled first), which then took it over, and the running one was held. The workloads
// submitted to it create it again; the held one stays held.
TEST(WorkloadController, AManagedLocalQueueGoneIsCreatedAgainByItsWorkloadsOnly) {
  CFO_REQUIRE_SCHEMAS();
  Rig rig;
  rig.kueue_version = "v1beta2";
  rig.set_workload("{queue: {localQueue: x, clusterQueue: cq-b}}");  // demo: held, it points elsewhere
  rig.workloads["team-a/owner"] = std::make_shared<json::Document>(
      doc("{metadata: {name: owner, namespace: team-a, uid: uid-2}, spec: {queue: {localQueue: x, clusterQueue: "
          "cq-a}}, status: {queue: x, managedLocalQueue: x}}"));
  rig.start();  // x is in no cache: deleted
  rig.controller->reconcile("team-a/demo");
  EXPECT_EQ(rig.fake.count("APPLY /apis/kueue.x-k8s.io"), 0u) << ::testing::PrintToString(rig.fake.log);
  EXPECT_TRUE(rig.fake.applied_to(kRc).empty());
  EXPECT_EQ(json::get_string(rig.last_status(), "heldFor"), "LocalQueueMismatch");
  EXPECT_NE(rig.condition("Queued").message.find("workload owner"), std::string::npos)
      << rig.condition("Queued").message;

  // A workload held for that mismatch itself does not count as the queue's: alone, demo creates it.
  json::Document held =
      doc("{metadata: {name: owner, namespace: team-a, uid: uid-2}, spec: {queue: {localQueue: x, "
          "clusterQueue: cq-a}}, status: {queue: x, managedLocalQueue: x, heldFor: "
          "LocalQueueMismatch}}");
  EXPECT_TRUE(
      local_queue_managers(*rig.workloads["team-a/demo"], {std::make_shared<json::Document>(std::move(held))}).empty());
}
