// reconcile() across a workload's life: what stays fixed once submitted (the queue, a finished job), what must be
// replaced rather than updated (AppWrapper components, a finished RayJob), write avoidance, and the status of a
// workload whose new spec is invalid while its cluster runs.
#include <gtest/gtest.h>

#include "core/condition.hpp"
#include "parse_test_util.hpp"
#include "workload/apply_plan.hpp"
#include "workload/reconcile.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
constexpr const char* kNow = "2026-01-01T00:00:00Z";

json::Document wl(const std::string& spec, int64_t generation = 1) {
  json::Document d = yaml_doc(
      "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: demo\n"
      "spec: " +
      spec + "\n");
  set_identity(d, "team-a", "uid-1", generation);
  return d;
}

void set_status(json::Document& d, const json::Value& status) {
  json::Value st;
  st.CopyFrom(status, d.GetAllocator());
  json::set(d, "status", std::move(st), d.GetAllocator());
}

std::optional<std::string> queue_label(const json::Value& obj) {
  const json::Value* labels = json::find_path(obj, "metadata.labels");
  return labels ? json::get_string(*labels, "kueue.x-k8s.io/queue-name") : std::nullopt;
}

bool has_event(const Outcome& out, const std::string& reason) {
  for (const auto& e : out.events)
    if (e.reason == reason) return true;
  return false;
}
}  // namespace

TEST(ApplyPlan, HashChangesWithContentAndIsAppliedFindsDrift) {
  json::Document a = yaml_doc("metadata: {name: x}\nspec: {replicas: 2, env: [{name: A, value: '1'}]}");
  json::Document b = yaml_doc("metadata: {name: x}\nspec: {replicas: 2}");
  stamp_spec_hash(a);
  stamp_spec_hash(b);
  std::string ha = json::get_string(a["metadata"]["annotations"], kSpecHashAnnotation).value_or("");
  std::string hb = json::get_string(b["metadata"]["annotations"], kSpecHashAnnotation).value_or("");
  EXPECT_EQ(ha.size(), 16u);
  EXPECT_NE(ha, hb) << "removing a field must change the hash";
  json::Document again = yaml_doc("metadata: {name: x}\nspec: {replicas: 2, env: [{name: A, value: '1'}]}");
  stamp_spec_hash(again);
  EXPECT_EQ(json::get_string(again["metadata"]["annotations"], kSpecHashAnnotation), ha) << "stable";

  // The live object has what we applied plus what the server and others added: applied.
  json::Document live = json::clone(a);
  json::set(live["metadata"], "resourceVersion", json::str("7", live.GetAllocator()), live.GetAllocator());
  json::set(live["spec"], "extra", json::Value(true), live.GetAllocator());
  EXPECT_TRUE(is_applied(a, live));
  // Someone changed a field we own: not applied.
  live["spec"]["replicas"].SetInt(5);
  EXPECT_FALSE(is_applied(a, live));
  // A number that reads back as another integer type still compares by value.
  json::Document n1 = yaml_doc("v: 2"), n2 = json::parse(R"({"v": 2})").value();
  EXPECT_TRUE(is_applied(n1, n2));
}

TEST(ReconcileLifecycle, EveryDesiredObjectCarriesItsHash) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile(wl("{}"), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(out.desired.size(), 1u);
  EXPECT_TRUE(json::find_path(out.desired[0], "metadata.annotations"));
  EXPECT_TRUE(json::get_string(out.desired[0]["metadata"]["annotations"], kSpecHashAnnotation));
}

TEST(ReconcileLifecycle, TheQueueIsKeptOnceSubmitted) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;
  facts.default_local_queue = "new-default";
  json::Document live = yaml_doc("metadata: {labels: {kueue.x-k8s.io/queue-name: old-default}}\nspec: {}");
  Observed observed;
  observed.ray_cluster = &live;
  Outcome out = reconcile(wl("{}"), observed, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_EQ(queue_label(out.desired[0]), "old-default");
  // Submitted without a queue: a default that appears later does not pull it into Kueue.
  json::Document unqueued = yaml_doc("metadata: {labels: {ray.io/cluster: demo}}\nspec: {}");
  observed.ray_cluster = &unqueued;
  out = reconcile(wl("{}"), observed, facts, schemas, kNow);
  EXPECT_FALSE(queue_label(out.desired[0]));
}

TEST(ReconcileLifecycle, ChangingTheQueueOfARunningWorkloadIsRefused) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document running = yaml_doc("metadata: {labels: {kueue.x-k8s.io/queue-name: q1}}\nspec: {}");
  Observed observed;
  observed.ray_cluster = &running;
  Outcome out = reconcile(wl("{queue: {localQueue: q2}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(out.valid);
  EXPECT_TRUE(finding(out.errors, "spec.queue.localQueue", "QueueChangeWhileRunning")) << dump(out.errors);
  // Named by clusterQueue alone (the LocalQueue of that name): the finding names that field (the twenty-third user
  // trial: it named spec.queue.localQueue, which the user had not written).
  out = reconcile(wl("{queue: {clusterQueue: q2}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(finding(out.errors, "spec.queue.clusterQueue", "QueueChangeWhileRunning")) << dump(out.errors);
  json::Document held = yaml_doc("metadata: {labels: {kueue.x-k8s.io/queue-name: q1}}\nspec: {suspend: true}");
  observed.ray_cluster = &held;
  out = reconcile(wl("{queue: {localQueue: q2}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(out.valid) << dump(out.errors);
  EXPECT_EQ(queue_label(out.desired[0]), "q2");

  // A child submitted without a queue cannot join one while it runs (Kueue refuses to add the label).
  json::Document unqueued = yaml_doc("metadata: {labels: {ray.io/cluster: demo}}\nspec: {}");
  observed.ray_cluster = &unqueued;
  out = reconcile(wl("{queue: {localQueue: q2}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(out.valid);
  const FieldError* join = finding(out.errors, "spec.queue.localQueue", "QueueChangeWhileRunning");
  ASSERT_TRUE(join) << dump(out.errors);
  EXPECT_NE(join->reason.find("runs without a LocalQueue"), std::string::npos) << join->reason;
  EXPECT_FALSE(json::find(out.status, "queue")) << "status.queue is the queue in effect: none";
  observed.ray_cluster = &running;
  out = reconcile(wl("{queue: {localQueue: q2}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(json::get_string(out.status, "queue"), "q1") << "the refused q2 is not in effect";
  observed.ray_cluster = &unqueued;

  // The same change made with suspend: true is allowed (Kueue judges the job as updated: suspended).
  out = reconcile(wl("{suspend: true, queue: {localQueue: q2}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(out.valid) << dump(out.errors);
  EXPECT_EQ(queue_label(out.desired[0]), "q2");
}

// The queue removed from the spec of a submitted workload: it stays, and the user is told (a Warning finding).
TEST(ReconcileLifecycle, ARemovedQueueIsKeptAndSaidSo) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document queued = yaml_doc("metadata: {labels: {kueue.x-k8s.io/queue-name: q1}}\nspec: {}");
  Observed observed;
  observed.ray_cluster = &queued;
  Outcome out = reconcile(wl("{}"), observed, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_EQ(queue_label(out.desired[0]), "q1");
  const FieldError* kept = finding(out.errors, "spec.queue", "QueueKept");
  ASSERT_TRUE(kept) << dump(out.errors);
  EXPECT_EQ(kept->severity, Severity::Warning);
  EXPECT_EQ(kept->reason.find("default LocalQueue"), std::string::npos) << "no default queue here: " << kept->reason;
  // Submitted to the namespace's default LocalQueue, which the spec never named: nothing to say.
  ClusterFacts with_default;
  with_default.default_local_queue = "q1";
  out = reconcile(wl("{}"), observed, with_default, schemas, kNow);
  EXPECT_FALSE(finding(out.errors, "spec.queue", "QueueKept")) << dump(out.errors);
  // The thirteenth user trial: that default queue deleted, the spec unchanged: the Queued condition tells it
  // (LocalQueueNotFound), not a warning about the spec.
  ClusterFacts gone;
  gone.local_queue_names = std::set<std::string>{"other"};
  out = reconcile(wl("{}"), observed, gone, schemas, kNow);
  EXPECT_FALSE(finding(out.errors, "spec.queue", "QueueKept")) << dump(out.errors);
  // Another default now: said.
  ClusterFacts moved;
  moved.default_local_queue = "q2";
  out = reconcile(wl("{}"), observed, moved, schemas, kNow);
  const FieldError* told = finding(out.errors, "spec.queue", "QueueKept");
  ASSERT_TRUE(told) << dump(out.errors);
  EXPECT_NE(told->reason.find("default LocalQueue is now q2"), std::string::npos) << told->reason;
  // The fifteenth user trial: the namespace's queues unknown to the operator (its LocalQueue cache gave up a failing
  // list): the default is unknown, not changed, and nothing is said.
  ClusterFacts unknown;
  unknown.kueue_version = "v1beta2";
  out = reconcile(wl("{}"), observed, unknown, schemas, kNow);
  EXPECT_FALSE(finding(out.errors, "spec.queue", "QueueKept")) << dump(out.errors);
}

TEST(ReconcileLifecycle, AManagedLocalQueueIsNeverRewritten) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document lq = yaml_doc(
      "metadata: {name: lq-x, labels: {app.kubernetes.io/managed-by: codeflare-operator}}\nspec: {clusterQueue: cq-x}");
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.local_queue_presence = Presence::kPresent;
  facts.local_queue = &lq;
  Outcome same = reconcile(wl("{queue: {localQueue: lq-x, clusterQueue: cq-x}}"), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(same.valid) << dump(same.errors);
  EXPECT_TRUE(same.needs_finalizer);
  ASSERT_EQ(same.desired.size(), 1u);  // only the RayCluster: the LocalQueue exists and is left as it is
  EXPECT_EQ(json::get_string(same.status, "managedLocalQueue"), "lq-x");
  Outcome other = reconcile(wl("{queue: {localQueue: lq-x, clusterQueue: cq-y}}"), Observed{}, facts, schemas, kNow);
  EXPECT_TRUE(other.held);
  EXPECT_TRUE(other.desired.empty());
  EXPECT_TRUE(has_event(other, "LocalQueueMismatch"));
}

TEST(ReconcileLifecycle, ALocalQueueNoLongerUsedIsReleased) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = wl("{queue: {localQueue: lq-b, clusterQueue: cq}}", 2);
  set_status(d, yaml_doc("observedGeneration: 1\nmanagedLocalQueue: lq-a\n"));
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  facts.local_queue_presence = Presence::kAbsent;
  facts.local_queue_names = std::set<std::string>{"lq-a"};
  Outcome out = reconcile(d, Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_EQ(out.release_local_queue, "lq-a");
  EXPECT_EQ(json::get_string(out.status, "managedLocalQueue"), "lq-b");
}

// The thirteenth user trial: an operator restarted while its LocalQueue cache was still listing released (deleted)
// the managed LocalQueue of a running workload: its presence read as unknown, so "not in use". While the namespace's
// LocalQueues are not known, a managed queue stays managed, finalizer included.
TEST(ReconcileLifecycle, AManagedLocalQueueIsNotReleasedWhileTheQueuesAreUnknown) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = wl("{queue: {localQueue: lq-a, clusterQueue: cq}}", 1);
  set_status(d, yaml_doc("observedGeneration: 1\nmanagedLocalQueue: lq-a\n"));
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";  // presence Unknown, names unknown: the cache has not listed
  Outcome out = reconcile(d, Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_EQ(out.release_local_queue, "");
  EXPECT_TRUE(out.needs_finalizer);
  EXPECT_EQ(json::get_string(out.status, "managedLocalQueue"), "lq-a");
  // Moved to another queue meanwhile: the old one is released once the queues are known, not before.
  json::Document moved = wl("{queue: {localQueue: lq-b, clusterQueue: cq}}", 2);
  set_status(moved, yaml_doc("observedGeneration: 1\nmanagedLocalQueue: lq-a\n"));
  Outcome unknown = reconcile(moved, Observed{}, facts, schemas, kNow);
  EXPECT_EQ(unknown.release_local_queue, "");
  EXPECT_EQ(json::get_string(unknown.status, "managedLocalQueue"), "lq-a");
  facts.local_queue_names = std::set<std::string>{"lq-a"};
  facts.local_queue_presence = Presence::kAbsent;
  Outcome known = reconcile(moved, Observed{}, facts, schemas, kNow);
  EXPECT_EQ(known.release_local_queue, "lq-a");
}

TEST(ReconcileLifecycle, AFinishedJobIsNotRunAgainUnlessItsSpecChanges) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document finished_status = yaml_doc(
      "observedGeneration: 1\nphase: Succeeded\nrayJobName: demo\njobStatus: SUCCEEDED\njobDeploymentStatus: Complete\n"
      "conditions: [{type: Succeeded, status: 'True', reason: JobSucceeded, message: done, observedGeneration: 1,\n"
      "  lastTransitionTime: '2025-12-31T00:00:00Z'}]\n");
  // The RayJob was deleted after it finished: nothing is applied, the record stands.
  json::Document d = wl("{job: {entrypoint: python x.py}}", 1);
  set_status(d, finished_status);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_TRUE(out.desired.empty());
  EXPECT_EQ(json::get_string(out.status, "phase"), "Succeeded");
  EXPECT_EQ(json::get_string(out.status, "jobStatus"), "SUCCEEDED");
  // Its spec changes: the new spec runs, replacing the finished RayJob.
  json::Document changed = wl("{job: {entrypoint: python y.py}}", 2);
  set_status(changed, finished_status);
  json::Document old_job = json::clone(
      reconcile(wl("{job: {entrypoint: python x.py}}", 1), Observed{}, ClusterFacts{}, schemas, kNow).desired.back());
  set_status(old_job, yaml_doc("{jobDeploymentStatus: Complete, jobStatus: SUCCEEDED}"));
  Observed observed;
  observed.ray_job = &old_job;
  // A change of its labels only runs nothing: the job is not run again (and nothing is applied to it).
  json::Document relabelled = wl("{labels: {team: x}, job: {entrypoint: python x.py}}", 2);
  set_status(relabelled, finished_status);
  Outcome labels_only = reconcile(relabelled, observed, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(labels_only.valid) << dump(labels_only.errors);
  EXPECT_FALSE(labels_only.recreate);
  EXPECT_FALSE(finding(labels_only.errors, "spec", "JobRerun")) << dump(labels_only.errors);
  EXPECT_TRUE(labels_only.desired.empty());
  EXPECT_EQ(json::get_string(labels_only.status, "phase"), "Succeeded");
  out = reconcile(changed, observed, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(out.desired.size(), 1u);
  EXPECT_TRUE(out.recreate);
  const FieldError* rerun = finding(out.errors, "spec", "JobRerun");
  ASSERT_TRUE(rerun) << "running a finished job again is said: " << dump(out.errors);
  EXPECT_EQ(rerun->severity, Severity::Warning);
  EXPECT_NE(rerun->reason.find("has finished"), std::string::npos) << rerun->reason;
  // The status written while the old RayJob is deleted speaks of the new run, not of the old one's end: otherwise the
  // next reconcile would take the new generation as finished and never create the new RayJob.
  EXPECT_NE(json::get_string(out.status, "phase"), "Succeeded") << json::dump(out.status);
  EXPECT_EQ(json::get_int(out.status, "observedGeneration"), 2);
  json::Document after_replace = wl("{job: {entrypoint: python y.py}}", 2);
  set_status(after_replace, out.status);
  // While the old RayJob is still terminating (a finalizer runs), it is waited for, not written to.
  json::Document terminating = yaml_doc(
      "metadata: {name: demo, deletionTimestamp: '2026-01-01T00:00:00Z'}\n"
      "status: {jobDeploymentStatus: Complete, jobStatus: SUCCEEDED}");
  Observed going;
  going.ray_job = &terminating;
  Outcome waiting = reconcile(after_replace, going, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(waiting.recreate);
  EXPECT_NE(json::get_string(waiting.status, "phase"), "Succeeded") << json::dump(waiting.status);
  // Once it is gone, the new RayJob is created.
  Outcome next = reconcile(after_replace, Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(next.desired.size(), 1u) << json::dump(next.status);
  EXPECT_FALSE(next.recreate);
  EXPECT_EQ(json::get_string(next.desired[0], "kind"), "RayJob");
}

TEST(ReconcileLifecycle, AFinishedJobWhoseRayJobIsGoneRunsAgainOnlyForAChangedSpec) {
  CFO_REQUIRE_SCHEMAS(schemas);
  // Creating the RayJob records the hash of its spec in the status.
  Outcome created = reconcile(wl("{job: {entrypoint: python x.py}}", 1), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(created.desired.size(), 1u) << dump(created.errors);
  const std::string ran = json::get_string(created.status, "jobSpecHash").value_or("");
  ASSERT_EQ(ran.size(), 16u) << json::dump(created.status);
  // Suspending is not a change of what runs: the same hash.
  Outcome suspended =
      reconcile(wl("{suspend: true, job: {entrypoint: python x.py}}", 1), Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(json::get_string(suspended.status, "jobSpecHash"), ran);
  // The job finished and its RayJob was deleted (deletionPolicy DeleteSelf); the status keeps the hash.
  json::Document finished_status = yaml_doc(
      "observedGeneration: 1\nphase: Succeeded\nrayJobName: demo\njobStatus: SUCCEEDED\njobDeploymentStatus: Complete\n"
      "jobSpecHash: '" +
      ran + "'\n");
  json::Document same = wl("{job: {entrypoint: python x.py}}", 1);
  set_status(same, finished_status);
  Outcome done = reconcile(same, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(done.desired.empty());
  EXPECT_EQ(json::get_string(done.status, "jobSpecHash"), ran) << "carried over while nothing is applied";
  // A change of its labels only: a new generation, the same RayJob spec, so nothing runs.
  json::Document relabelled = wl("{labels: {team: x}, job: {entrypoint: python x.py}}", 2);
  set_status(relabelled, finished_status);
  Outcome labels_only = reconcile(relabelled, Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(labels_only.valid) << dump(labels_only.errors);
  EXPECT_TRUE(labels_only.desired.empty()) << json::dump(labels_only.desired[0]);
  EXPECT_EQ(json::get_string(labels_only.status, "phase"), "Succeeded");
  EXPECT_EQ(json::get_string(labels_only.status, "jobSpecHash"), ran);
  // A change of what runs: the job runs again, and the new spec's hash is recorded.
  json::Document changed = wl("{job: {entrypoint: python y.py}}", 2);
  set_status(changed, finished_status);
  Outcome rerun = reconcile(changed, Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(rerun.desired.size(), 1u) << dump(rerun.errors);
  EXPECT_EQ(json::get_string(rerun.desired[0], "kind"), "RayJob");
  const std::string now_runs = json::get_string(rerun.status, "jobSpecHash").value_or("");
  EXPECT_EQ(now_runs.size(), 16u);
  EXPECT_NE(now_runs, ran);
  // A status written before jobSpecHash existed: any new generation runs the job again, as before.
  json::Document unrecorded = wl("{labels: {team: x}, job: {entrypoint: python x.py}}", 2);
  set_status(unrecorded, yaml_doc("observedGeneration: 1\nphase: Succeeded\nrayJobName: demo\n"));
  EXPECT_EQ(reconcile(unrecorded, Observed{}, ClusterFacts{}, schemas, kNow).desired.size(), 1u);
}

TEST(ReconcileLifecycle, ChangedAppWrapperComponentsMeanReplacingIt) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome first = reconcile(wl("{appWrapper: true}"), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(first.desired.size(), 1u);
  Observed observed;
  observed.app_wrapper = &first.desired[0];
  Outcome same = reconcile(wl("{appWrapper: true}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(same.recreate);
  // Replacing a running AppWrapper would stop its Ray cluster: refused, unless the same change suspends it.
  Outcome bigger = reconcile(wl("{appWrapper: true, workerGroups: [{name: w, replicas: 3}]}"), observed, ClusterFacts{},
                             schemas, kNow);
  EXPECT_FALSE(bigger.valid);
  EXPECT_FALSE(bigger.recreate);
  EXPECT_TRUE(finding(bigger.errors, "spec", "AppWrapperChangeWhileRunning")) << dump(bigger.errors);
  Outcome suspending = reconcile(wl("{appWrapper: true, suspend: true, workerGroups: [{name: w, replicas: 3}]}"),
                                 observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(suspending.valid) << dump(suspending.errors);
  EXPECT_TRUE(suspending.recreate);
  // Suspended (waiting for Kueue): nothing runs, it is replaced.
  json::Document waiting = json::clone(first.desired[0]);
  json::set(waiting["spec"], "suspend", json::Value(true), waiting.GetAllocator());
  observed.app_wrapper = &waiting;
  Outcome queued = reconcile(wl("{appWrapper: true, workerGroups: [{name: w, replicas: 3}]}"), observed, ClusterFacts{},
                             schemas, kNow);
  EXPECT_TRUE(queued.valid) << dump(queued.errors);
  EXPECT_TRUE(queued.recreate);
  // Finished (phase Succeeded): nothing runs any more; the change replaces it and runs again, which is said.
  json::Document finished = json::clone(first.desired[0]);
  set_status(finished, yaml_doc("{phase: Succeeded}"));
  observed.app_wrapper = &finished;
  Outcome rerun = reconcile(wl("{appWrapper: true, workerGroups: [{name: w, replicas: 3}]}"), observed, ClusterFacts{},
                            schemas, kNow);
  EXPECT_TRUE(rerun.valid) << dump(rerun.errors);
  EXPECT_TRUE(rerun.recreate);
  EXPECT_TRUE(finding(rerun.errors, "spec", "AppWrapperRerun")) << dump(rerun.errors);
}

// Kueue suspends and requeues an admitted job whose PodSets change (KEP-77): a resize of a running queued RayCluster
// is applied, and said; not when it is suspended (waiting for Kueue), was never admitted, or only other fields change.
TEST(ReconcileLifecycle, ResizingARunningQueuedClusterSaysKueueRequeuesIt) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string one = "{queue: {localQueue: q}, workerGroups: [{name: w, replicas: 1}]}";
  const std::string three = "{queue: {localQueue: q}, workerGroups: [{name: w, replicas: 3}]}";
  json::Document running = json::clone(reconcile(wl(one), Observed{}, ClusterFacts{}, schemas, kNow).desired.back());
  json::set(running["spec"], "suspend", json::Value(false), running.GetAllocator());
  Observed observed;
  observed.ray_cluster = &running;
  // The trials: a cluster that runs where no Kueue controller admitted it is not requeued by a resize.
  Outcome never_admitted = reconcile(wl(three, 2), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(finding(never_admitted.errors, "spec", "ResizeRequeues")) << dump(never_admitted.errors);
  json::Document admitted = yaml_doc("status: {conditions: [{type: Admitted, status: 'True', reason: Admitted}]}");
  observed.kueue_workload = &admitted;
  Outcome resized = reconcile(wl(three, 2), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(resized.valid) << dump(resized.errors);
  EXPECT_FALSE(resized.desired.empty());
  EXPECT_TRUE(finding(resized.errors, "spec", "ResizeRequeues")) << dump(resized.errors);
  Outcome relabelled =
      reconcile(wl("{labels: {team: x}, queue: {localQueue: q}, workerGroups: [{name: w, replicas: 1}]}", 2), observed,
                ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(finding(relabelled.errors, "spec", "ResizeRequeues")) << dump(relabelled.errors);
  json::set(running["spec"], "suspend", json::Value(true), running.GetAllocator());
  Outcome waiting = reconcile(wl(three, 2), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(finding(waiting.errors, "spec", "ResizeRequeues")) << dump(waiting.errors);
}

// Turning spec.job or spec.appWrapper on or off while the child of the other kind runs would delete it: refused unless
// the same change suspends the workload; a suspended or finished child, or one not ours, goes.
TEST(ReconcileLifecycle, ChangingTheChildsKindWhileItRunsIsRefused) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto ours = [&](const std::string& spec) {
    json::Document child = json::clone(reconcile(wl(spec), Observed{}, ClusterFacts{}, schemas, kNow).desired.back());
    json::Value ref(rapidjson::kObjectType);
    ref.AddMember("kind", "CodeFlareWorkload", child.GetAllocator());
    ref.AddMember("controller", true, child.GetAllocator());
    ref.AddMember("uid", "uid-1", child.GetAllocator());
    json::Value refs(rapidjson::kArrayType);
    refs.PushBack(ref, child.GetAllocator());
    json::set(child["metadata"], "ownerReferences", std::move(refs), child.GetAllocator());
    return child;
  };
  json::Document job = ours("{job: {entrypoint: python x.py}}");
  set_status(job, yaml_doc("{jobDeploymentStatus: Running}"));
  Observed observed;
  observed.ray_job = &job;
  Outcome dropped = reconcile(wl("{}", 2), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(dropped.valid);
  EXPECT_TRUE(dropped.desired.empty());
  EXPECT_TRUE(finding(dropped.errors, "spec.job", "ChildKindChangeWhileRunning")) << dump(dropped.errors);
  Outcome suspended = reconcile(wl("{suspend: true}", 2), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(suspended.valid) << dump(suspended.errors);
  set_status(job, yaml_doc("{jobDeploymentStatus: Complete}"));
  Outcome after_end = reconcile(wl("{}", 2), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(after_end.valid) << dump(after_end.errors);

  json::Document cluster = ours("{}");
  Observed running;
  running.ray_cluster = &cluster;
  Outcome wrapped = reconcile(wl("{appWrapper: true}", 2), running, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(finding(wrapped.errors, "spec.appWrapper", "ChildKindChangeWhileRunning")) << dump(wrapped.errors);
  json::Document foreign = json::clone(cluster);
  foreign["metadata"]["ownerReferences"][0]["uid"].SetString("uid-of-another", foreign.GetAllocator());
  running.ray_cluster = &foreign;
  Outcome not_ours = reconcile(wl("{appWrapper: true}", 2), running, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(finding(not_ours.errors, "spec.appWrapper", "ChildKindChangeWhileRunning")) << dump(not_ours.errors);
}

TEST(ReconcileLifecycle, AnObjectTooLargeToStoreIsInvalid) {
  CFO_REQUIRE_SCHEMAS(schemas);
  std::string big(200000, 'x');
  std::string groups = "[";
  for (int i = 0; i < 6; ++i) groups += std::string(i ? "," : "") + "{name: g" + std::to_string(i) + "}";
  groups += "]";
  Outcome out = reconcile(wl("{annotations: {example.com/blob: " + big + "}, workerGroups: " + groups + "}"),
                          Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(out.valid);
  EXPECT_TRUE(finding(out.errors, "spec.annotations", "ObjectTooLarge")) << dump(out.errors).substr(0, 2000);
}

TEST(ReconcileLifecycle, AnInvalidEditKeepsWhatRunsInTheStatusAndWarnsOnce) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = wl("{}", 1);
  json::Document rc = yaml_doc("metadata: {name: demo}\nstatus: {state: ready, readyWorkerReplicas: 1}");
  Observed observed;
  observed.ray_cluster = &rc;
  Outcome good = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(json::get_string(good.status, "phase"), "Running");

  json::Document bad = wl("{workerGroups: [{name: w, replicas: -1}]}", 2);
  set_status(bad, good.status);
  Outcome out = reconcile(bad, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(out.valid);
  EXPECT_EQ(json::get_string(out.status, "phase"), "Invalid");
  EXPECT_EQ(json::get_string(out.status, "rayClusterName"), "demo");
  EXPECT_EQ(json::get_int(out.status, "readyWorkers"), 1);
  EXPECT_EQ(json::get_int(out.status, "desiredWorkers"), 1);
  auto conds = conditions_from_json(*json::find(out.status, "conditions"));
  EXPECT_EQ(find_condition(conds, "Ready")->status, "True") << "the cluster still runs";
  EXPECT_EQ(find_condition(conds, "Valid")->status, "False");
  EXPECT_TRUE(has_event(out, "InvalidSpec"));

  // The same invalid spec again (e.g. after a restart): no second InvalidSpec event.
  json::Document again = wl("{workerGroups: [{name: w, replicas: -1}]}", 2);
  set_status(again, out.status);
  Outcome second = reconcile(again, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(has_event(second, "InvalidSpec"));
}

namespace {
// Paths of `value` that `schema` (a CRD structural schema) does not declare: the apiserver would prune them.
void undeclared(const json::Value& value, const json::Value& schema, const std::string& path,
                std::vector<std::string>& out) {
  const json::Value* props = json::find(schema, "properties");
  const json::Value* items = json::find(schema, "items");
  if (value.IsObject() && props) {
    for (const auto& m : value.GetObject()) {
      const std::string key = m.name.GetString();
      const json::Value* sub = json::find(*props, key);
      if (!sub)
        out.push_back(path + "." + key);
      else
        undeclared(m.value, *sub, path + "." + key, out);
    }
  } else if (value.IsArray() && items) {
    for (const auto& v : value.GetArray()) undeclared(v, *items, path + "[]", out);
  }
}
}  // namespace

// Every status field the operator writes must be in the CRD's status schema, or the apiserver drops it on the write
// (status.managedLocalQueue once was, and a released managed LocalQueue leaked).
TEST(ReconcileLifecycle, EveryStatusFieldIsDeclaredInTheCrd) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document crd = yaml_doc(read_text(source_dir() + "/crds/codeflare.dev_codeflareworkloads.yaml"));
  const json::Value* status_schema =
      json::find_path(crd["spec"]["versions"][0], "schema.openAPIV3Schema.properties.status");
  ASSERT_NE(status_schema, nullptr);

  std::vector<json::Document> statuses;
  ClusterFacts kueue;
  kueue.kueue_version = "v1beta2";
  kueue.local_queue_presence = Presence::kAbsent;
  statuses.push_back(std::move(
      reconcile(wl("{queue: {localQueue: lq-b, clusterQueue: cq}}"), Observed{}, kueue, schemas, kNow).status));
  json::Document job = yaml_doc(
      "metadata: {name: demo, uid: j1}\nstatus: {jobStatus: RUNNING, jobDeploymentStatus: Running,"
      " dashboardURL: 'demo-head-svc:8265', rayClusterStatus: {state: ready, readyWorkerReplicas: 1,"
      " head: {serviceName: demo-head-svc}}}");
  json::Document admitted = yaml_doc(
      "status: {admission: {clusterQueue: cq, podSetAssignments: [{name: head, flavors: {cpu: default}}]},"
      " conditions: [{type: QuotaReserved, status: 'True'}, {type: Admitted, status: 'True'}]}");
  Observed running;
  running.ray_job = &job;
  running.kueue_workload = &admitted;
  statuses.push_back(std::move(
      reconcile(wl("{job: {entrypoint: python x.py}, queue: {localQueue: q}}"), running, kueue, schemas, kNow).status));
  json::Document cluster = yaml_doc(
      "metadata: {name: demo, uid: c1}\nstatus: {state: ready, readyWorkerReplicas: 1,"
      " head: {serviceName: demo-head-svc, podIP: 10.0.0.1}}");
  statuses.push_back(std::move(reconcile(wl("{}"), Observed{&cluster, nullptr}, ClusterFacts{}, schemas, kNow).status));
  json::Document aw = yaml_doc("metadata: {name: demo, uid: a1}\nstatus: {phase: Running}");
  Observed wrapped;
  wrapped.app_wrapper = &aw;
  statuses.push_back(std::move(reconcile(wl("{appWrapper: true}"), wrapped, ClusterFacts{}, schemas, kNow).status));
  ClusterFacts no_queue;
  no_queue.kueue_version = "v1beta2";
  no_queue.local_queue_presence = Presence::kAbsent;
  statuses.push_back(
      std::move(reconcile(wl("{queue: {localQueue: gone}}"), Observed{}, no_queue, schemas, kNow).status));

  std::vector<std::string> missing;
  for (const auto& st : statuses) undeclared(st, *status_schema, "status", missing);
  EXPECT_TRUE(missing.empty()) << "not in the CRD's status schema: " << ::testing::PrintToString(missing);
  EXPECT_EQ(json::get_string(statuses[0], "managedLocalQueue"), "lq-b") << "the test must cover this field";
  EXPECT_EQ(json::get_string(statuses.back(), "heldFor"), "LocalQueueNotFound") << "the test must cover this field";
}

// The Ray autoscaler writes the worker groups' replicas: with autoscaling on, the operator keeps the live count
// (within the bounds) rather than setting its own back, and the scale changes neither the hash nor is_applied.
TEST(ReconcileLifecycle, AutoscaledReplicasAreLeftToTheAutoscaler) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string spec = "{autoscaling: {enabled: true}, workerGroups: [{name: w, minReplicas: 1, maxReplicas: 4}]}";
  Outcome first = reconcile(wl(spec), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(first.valid) << dump(first.errors);
  const json::Value& created = first.desired.back();
  ASSERT_EQ(created["spec"]["workerGroupSpecs"][0]["replicas"].GetInt(), 1);
  const std::string hash = json::get_string(created["metadata"]["annotations"], kSpecHashAnnotation).value_or("");

  json::Document live = json::clone(created);
  live["spec"]["workerGroupSpecs"][0]["replicas"].SetInt(3);
  Observed observed;
  observed.ray_cluster = &live;
  Outcome scaled = reconcile(wl(spec), observed, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(scaled.valid) << dump(scaled.errors);
  const json::Value& desired = scaled.desired.back();
  EXPECT_EQ(desired["spec"]["workerGroupSpecs"][0]["replicas"].GetInt(), 3) << "the autoscaler's count is kept";
  EXPECT_EQ(json::get_string(desired["metadata"]["annotations"], kSpecHashAnnotation), hash);
  EXPECT_TRUE(is_applied(desired, live)) << "no write, no drift";
  EXPECT_EQ(json::get_int(scaled.status, "desiredWorkers"), 3) << "the status follows the autoscaler too";

  live["spec"]["workerGroupSpecs"][0]["replicas"].SetInt(9);
  Outcome above = reconcile(wl(spec), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(above.desired.back()["spec"]["workerGroupSpecs"][0]["replicas"].GetInt(), 4) << "clamped to maxReplicas";

  // Without autoscaling the spec's count is the operator's, and a foreign change is set back.
  Outcome fixed = reconcile(wl("{workerGroups: [{name: w, replicas: 1}]}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(fixed.desired.back()["spec"]["workerGroupSpecs"][0]["replicas"].GetInt(), 1);
}

// A queued child that is suspended is Kueue's to start: resuming the workload keeps spec.suspend: true on it (without
// it, server-side apply would remove the operator's suspend and start the Pods without admission). Once Kueue has
// unsuspended the child, the field is left to Kueue.
TEST(ReconcileLifecycle, AResumedQueuedChildStaysSuspendedUntilKueueStartsIt) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome held = reconcile(wl("{suspend: true, queue: {localQueue: q1}}"), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(held.valid) << dump(held.errors);
  json::Document live = json::clone(held.desired.back());
  ASSERT_TRUE(json::get_bool(live["spec"], "suspend").value_or(false));
  Observed observed;
  observed.ray_cluster = &live;
  Outcome resumed = reconcile(wl("{queue: {localQueue: q1}}"), observed, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(resumed.valid) << dump(resumed.errors);
  EXPECT_EQ(json::get_bool(resumed.desired.back()["spec"], "suspend"), true) << "Kueue starts it, not the operator";

  json::Document started = json::clone(live);
  started["spec"].RemoveMember("suspend");  // Kueue admitted the workload and unsuspended the child
  observed.ray_cluster = &started;
  Outcome running = reconcile(wl("{queue: {localQueue: q1}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(json::find(running.desired.back()["spec"], "suspend")) << "left to Kueue";
  EXPECT_EQ(json::get_string(running.desired.back()["metadata"]["annotations"], kSpecHashAnnotation),
            json::get_string(resumed.desired.back()["metadata"]["annotations"], kSpecHashAnnotation))
      << "an admission changes no hash";

  // Without a queue, resuming starts the child at once: suspend: false is written (owned), so that a suspend that
  // someone else co-owns goes too (the thirty-eighth user trial: `kubectl patch` had suspended the RayCluster too, and
  // leaving the field out kept it suspended).
  json::Document plain =
      json::clone(reconcile(wl("{suspend: true}"), Observed{}, ClusterFacts{}, schemas, kNow).desired.back());
  observed.ray_cluster = &plain;
  Outcome unqueued = reconcile(wl("{}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(json::get_bool(unqueued.desired.back()["spec"], "suspend"), false);
  // Suspended by hand while the workload was never suspended: set back the same way.
  json::Document running_plain =
      json::clone(reconcile(wl("{}"), Observed{}, ClusterFacts{}, schemas, kNow).desired.back());
  ASSERT_FALSE(json::find(running_plain["spec"], "suspend")) << "a new child carries no suspend";
  json::set(running_plain["spec"], "suspend", json::Value(true), running_plain.GetAllocator());
  observed.ray_cluster = &running_plain;
  Outcome restored = reconcile(wl("{}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(json::get_bool(restored.desired.back()["spec"], "suspend"), false);
  // A live child Kueue labelled (its queue-name defaulting) is queued: Kueue's to start, it stays suspended.
  json::set(running_plain["metadata"], "labels", json::Value(rapidjson::kObjectType), running_plain.GetAllocator());
  json::set(running_plain["metadata"]["labels"], "kueue.x-k8s.io/queue-name",
            json::str("default", running_plain.GetAllocator()), running_plain.GetAllocator());
  Outcome labelled = reconcile(wl("{}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(json::get_bool(labelled.desired.back()["spec"], "suspend"), true);
}

// A spec change of a RayJob that has started is not applied (KubeRay would not act on it), with a warning.
TEST(ReconcileLifecycle, AChangeToAStartedRayJobIsAWarning) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string before = "{job: {entrypoint: python train.py}}";
  Outcome first = reconcile(wl(before), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(first.valid) << dump(first.errors);
  json::Document live = json::clone(first.desired.back());
  set_status(live, json::parse(R"({"jobDeploymentStatus": "Running"})").value());
  Observed observed;
  observed.ray_job = &live;
  Outcome same = reconcile(wl(before), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(finding(same.errors, "spec.job", "StartedJobUnchanged")) << "nothing changed";
  Outcome changed =
      reconcile(wl("{job: {entrypoint: python train.py --epochs 99}}"), observed, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(changed.valid) << dump(changed.errors);
  const FieldError* w = finding(changed.errors, "spec.job", "StartedJobUnchanged");
  ASSERT_TRUE(w) << dump(changed.errors);
  EXPECT_EQ(w->severity, Severity::Warning);
  for (const auto& d : changed.desired)
    EXPECT_NE(json::string_at(d, "kind"), "RayJob") << "not applied: the RayJob keeps showing what runs";
  // Suspending goes through (KubeRay honours spec.suspend of a started job).
  Outcome suspend = reconcile(wl("{suspend: true, job: {entrypoint: python train.py --epochs 99}}"), observed,
                              ClusterFacts{}, schemas, kNow);
  ASSERT_FALSE(suspend.desired.empty());
  EXPECT_EQ(json::string_at(suspend.desired.back(), "kind"), "RayJob");
  live["status"]["jobDeploymentStatus"].SetString("New");
  Outcome not_started =
      reconcile(wl("{job: {entrypoint: python train.py --epochs 99}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(finding(not_started.errors, "spec.job", "StartedJobUnchanged")) << dump(not_started.errors);
}

// A change held while the job ran (StartedJobUnchanged) stays held when the job ends: it is not written into the
// finished RayJob, and the finished workload says it ran an earlier spec (Succeeded is not the new spec's outcome).
TEST(ReconcileLifecycle, AChangeHeldWhileTheJobRanIsNotTakenAsRunWhenItEnds) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome first = reconcile(wl("{job: {entrypoint: python train.py}}"), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(first.valid) << dump(first.errors);
  json::Document live = json::clone(first.desired.back());
  set_status(live, json::parse(R"({"jobDeploymentStatus": "Complete", "jobStatus": "SUCCEEDED"})").value());
  Observed observed;
  observed.ray_job = &live;
  // The reconcile that sees the end (the previous status still says Running).
  json::Document d = wl("{job: {entrypoint: python train.py --epochs 99}}", 2);
  set_status(d, yaml_doc("observedGeneration: 2\nphase: Running\nrayJobName: demo\n"));
  Outcome ended = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  for (const auto& c : ended.desired) EXPECT_NE(json::string_at(c, "kind"), "RayJob") << "not written after the end";
  EXPECT_TRUE(finding(ended.errors, "spec.job", "StartedJobUnchanged")) << dump(ended.errors);
  // Later reconciles (the status says Succeeded for generation 2): still said, nothing written, not run again.
  set_status(d, ended.status);
  ASSERT_EQ(json::get_string(ended.status, "phase"), "Succeeded");
  Outcome later = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(later.desired.empty());
  EXPECT_FALSE(later.recreate);
  const FieldError* w = finding(later.errors, "spec.job", "StartedJobUnchanged");
  ASSERT_TRUE(w) << dump(later.errors);
  EXPECT_NE(w->reason.find("earlier spec"), std::string::npos) << w->reason;
  // The Succeeded condition does not tell the current generation's spec succeeded (kubectl wait, CI, Argo CD).
  for (const Outcome* o : {&ended, &later}) {
    const json::Value* conds = json::find(o->status, "conditions");
    ASSERT_TRUE(conds);
    bool seen = false;
    for (const auto& c : conds->GetArray())
      if (json::string_at(c, "type") == "Succeeded") {
        seen = true;
        EXPECT_EQ(json::string_at(c, "status"), "False");
        EXPECT_EQ(json::string_at(c, "reason"), "EarlierSpecSucceeded");
      } else if (json::string_at(c, "type") == "Ready") {
        EXPECT_EQ(json::string_at(c, "reason"), "EarlierSpecSucceeded") << "the REASON column";
      }
    EXPECT_TRUE(seen) << json::dump(o->status);
  }
  // A finished job whose spec did not change says nothing.
  json::Document same = wl("{job: {entrypoint: python train.py}}", 1);
  set_status(same, yaml_doc("observedGeneration: 1\nphase: Succeeded\nrayJobName: demo\n"));
  Outcome quiet = reconcile(same, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(finding(quiet.errors, "spec.job", "StartedJobUnchanged")) << dump(quiet.errors);
}

// Kueue lets a WorkloadPriorityClass change, but not be added to a running job nor ever be removed.
TEST(ReconcileLifecycle, PriorityClassChangesFollowKueue) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document running = yaml_doc("metadata: {labels: {kueue.x-k8s.io/queue-name: q}}\nspec: {}");
  Observed observed;
  observed.ray_cluster = &running;
  Outcome added =
      reconcile(wl("{queue: {localQueue: q, priorityClass: high}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(added.valid);
  EXPECT_TRUE(finding(added.errors, "spec.queue.priorityClass", "PriorityClassAddedWhileRunning"))
      << dump(added.errors);
  Outcome suspended = reconcile(wl("{suspend: true, queue: {localQueue: q, priorityClass: high}}"), observed,
                                ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(suspended.valid) << dump(suspended.errors);

  json::Document prioritized =
      yaml_doc("metadata: {labels: {kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/priority-class: high}}\nspec: {}");
  observed.ray_cluster = &prioritized;
  Outcome changed =
      reconcile(wl("{queue: {localQueue: q, priorityClass: low}}"), observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(changed.valid) << dump(changed.errors);
  const json::Value* labels = json::find_path(changed.desired.back(), "metadata.labels");
  ASSERT_TRUE(labels);
  EXPECT_EQ(json::get_string(*labels, "kueue.x-k8s.io/priority-class"), "low");

  Outcome removed = reconcile(wl("{queue: {localQueue: q}}"), observed, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(removed.valid) << dump(removed.errors);
  labels = json::find_path(removed.desired.back(), "metadata.labels");
  ASSERT_TRUE(labels);
  EXPECT_EQ(json::get_string(*labels, "kueue.x-k8s.io/priority-class"), "high") << "kept";
  const FieldError* kept = finding(removed.errors, "spec.queue.priorityClass", "PriorityClassKept");
  ASSERT_TRUE(kept) << dump(removed.errors);
  EXPECT_EQ(kept->severity, Severity::Warning);
}

namespace {
// The Succeeded condition as "status/reason".
std::string succeeded(const Outcome& out) {
  const json::Value* c = json::find(out.status, "conditions");
  auto conds = c ? conditions_from_json(*c) : std::vector<Condition>{};
  const Condition* s = find_condition(conds, "Succeeded");
  return s ? s->status + "/" + s->reason : "<absent>";
}

// A RayJob of the workload `spec` as KubeRay reports it, and the status the operator wrote when it created it.
struct JobRun {
  json::Document ray_job;
  std::string hash;
};
JobRun started_job(const validation::SchemaSet& schemas, const std::string& spec, const std::string& deployment) {
  Outcome created = reconcile(wl(spec, 1), Observed{}, ClusterFacts{}, schemas, kNow);
  JobRun r{json::clone(created.desired.back()), json::get_string(created.status, "jobSpecHash").value_or("")};
  set_status(r.ray_job, yaml_doc("{jobDeploymentStatus: " + deployment + "}"));
  return r;
}

// The status the operator wrote for RayJob demo at `generation`: the phase, KubeRay's jobDeploymentStatus (and
// jobStatus, when set) it last saw, and the hash of the spec it applied.
json::Document job_status(int64_t generation, const std::string& phase, const std::string& deployment,
                          const std::string& hash, const std::string& job = "") {
  return yaml_doc("observedGeneration: " + std::to_string(generation) + "\nphase: " + phase +
                  "\nrayJobName: demo\njobDeploymentStatus: " + deployment + "\njobSpecHash: '" + hash + "'\n" +
                  (job.empty() ? "" : "jobStatus: " + job + "\n"));
}
}  // namespace

// The seventh user trial's findings on finished and vanished RayJobs.
TEST(JobLifecycle, AChangeHeldWhileTheJobRanStaysUnranOnceItsRayJobIsGone) {
  CFO_REQUIRE_SCHEMAS(schemas);
  JobRun v1 = started_job(schemas, "{job: {entrypoint: python one.py}}", "Complete");
  // The change was held while it ran (generation 2), the job finished running v1, then KubeRay deleted it.
  json::Document d = wl("{job: {entrypoint: python two.py}}", 2);
  set_status(d, job_status(2, "Succeeded", "Complete", v1.hash, "SUCCEEDED"));
  Outcome gone = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(gone.desired.empty());
  EXPECT_EQ(succeeded(gone), "False/EarlierSpecSucceeded") << json::dump(gone.status);
  EXPECT_TRUE(finding(gone.errors, "spec.job", "StartedJobUnchanged")) << dump(gone.errors);
}

TEST(JobLifecycle, ARemovedFieldIsAChangeOfAStartedJob) {
  CFO_REQUIRE_SCHEMAS(schemas);
  JobRun run = started_job(schemas, "{job: {entrypoint: python x.py, activeDeadlineSeconds: 600}}", "Running");
  json::Document d = wl("{job: {entrypoint: python x.py}}", 2);
  set_status(d, job_status(1, "Running", "Running", run.hash));
  Observed observed;
  observed.ray_job = &run.ray_job;
  Outcome out = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(finding(out.errors, "spec.job", "StartedJobUnchanged")) << dump(out.errors);
  for (const auto& child : out.desired) EXPECT_NE(json::get_string(child, "kind"), "RayJob") << "held, not applied";
  EXPECT_EQ(json::get_string(out.status, "jobSpecHash"), run.hash) << "what runs is still the first spec";
}

TEST(JobLifecycle, SuspendingAFinishedJobNeitherRunsItAgainNorForgetsItsEnd) {
  CFO_REQUIRE_SCHEMAS(schemas);
  JobRun run = started_job(schemas, "{job: {entrypoint: python x.py}}", "Complete");
  json::set(run.ray_job["status"], "jobStatus", json::str("SUCCEEDED", run.ray_job.GetAllocator()),
            run.ray_job.GetAllocator());
  const json::Document finished = job_status(1, "Succeeded", "Complete", run.hash, "SUCCEEDED");
  for (bool present : {true, false}) {
    Observed observed;
    if (present) observed.ray_job = &run.ray_job;
    json::Document suspended = wl("{suspend: true, job: {entrypoint: python x.py}}", 2);
    set_status(suspended, finished);
    Outcome s = reconcile(suspended, observed, ClusterFacts{}, schemas, kNow);
    EXPECT_FALSE(s.recreate) << present;
    EXPECT_TRUE(s.desired.empty()) << present;
    EXPECT_FALSE(finding(s.errors, "spec", "JobRerun")) << dump(s.errors);
    EXPECT_EQ(json::get_string(s.status, "phase"), "Succeeded") << present << json::dump(s.status);
    EXPECT_EQ(succeeded(s).substr(0, 4), "True") << present;
    // Resumed: still nothing to run.
    json::Document resumed = wl("{job: {entrypoint: python x.py}}", 3);
    set_status(resumed, s.status);
    Outcome r = reconcile(resumed, observed, ClusterFacts{}, schemas, kNow);
    EXPECT_TRUE(r.desired.empty()) << present;
    EXPECT_EQ(json::get_string(r.status, "phase"), "Succeeded") << present;
  }
}

// The twenty-second user trial: a queued RayJob gone while it ran left "submitted to LocalQueue" and "waiting for
// Kueue to admit it" beside phase Failed. Nothing is queued once it is gone.
TEST(JobLifecycle, AQueuedRayJobGoneIsNoLongerQueued) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string spec = "{queue: {localQueue: team-q}, job: {entrypoint: python x.py}}";
  JobRun run = started_job(schemas, spec, "Running");
  json::Document d = wl(spec, 1);
  set_status(d, job_status(1, "Running", "Running", run.hash));
  Outcome lost = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(json::get_string(lost.status, "phase"), "Failed");
  auto conds = conditions_from_json(*json::find(lost.status, "conditions"));
  for (const char* type : {"Queued", "Admitted"}) {
    const Condition* c = find_condition(conds, type);
    ASSERT_TRUE(c) << type;
    EXPECT_EQ(c->status + "/" + c->reason, "False/RayJobGone") << type << ": " << c->message;
  }
}

TEST(JobLifecycle, ARayJobGoneWhileItRanIsNotCreatedAgain) {
  CFO_REQUIRE_SCHEMAS(schemas);
  JobRun run = started_job(schemas, "{job: {entrypoint: python x.py}}", "Running");
  json::Document d = wl("{job: {entrypoint: python x.py}}", 1);
  set_status(d, job_status(1, "Running", "Running", run.hash));
  Outcome lost = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(lost.desired.empty()) << "its outcome is unknown: not run again";
  EXPECT_EQ(json::get_string(lost.status, "phase"), "Failed");
  EXPECT_EQ(succeeded(lost), "False/RayJobGone");
  EXPECT_TRUE(has_event(lost, "Failed")) << "a Warning says so once";
  // The next reconcile says the same and writes nothing new.
  set_status(d, lost.status);
  Outcome again = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(again.desired.empty());
  EXPECT_EQ(succeeded(again), "False/RayJobGone");
  EXPECT_TRUE(again.events.empty());
  // A change of what runs runs it again, and says so.
  json::Document changed = wl("{job: {entrypoint: python y.py}}", 2);
  set_status(changed, lost.status);
  Outcome rerun = reconcile(changed, Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(rerun.desired.size(), 1u);
  EXPECT_TRUE(finding(rerun.errors, "spec", "JobRerun")) << dump(rerun.errors);
  // Deleted by someone while it runs, its finalizer still at work: nothing is written to it, it is not replaced.
  json::Document terminating = json::clone(run.ray_job);
  json::set(terminating["metadata"], "deletionTimestamp", json::str(kNow, terminating.GetAllocator()),
            terminating.GetAllocator());
  Observed going;
  going.ray_job = &terminating;
  json::Document deleted = wl("{job: {entrypoint: python x.py}}", 1);
  set_status(deleted, job_status(1, "Running", "Running", run.hash));
  Outcome waiting = reconcile(deleted, going, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(waiting.recreate);
  EXPECT_TRUE(waiting.desired.empty());
  auto waiting_conds = conditions_from_json(*json::find(waiting.status, "conditions"));
  EXPECT_EQ(find_condition(waiting_conds, "Ready")->reason, "RayJobDeleting") << "not reported as running";
  // One the operator made and that is gone before KubeRay reported on it (the operator was down while it ran and was
  // deleted): its outcome is unknown as well.
  json::Document unreported = wl("{job: {entrypoint: python x.py}}", 1);
  set_status(unreported, job_status(1, "Pending", "", run.hash));
  Outcome unknown = reconcile(unreported, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(unknown.desired.empty());
  EXPECT_EQ(succeeded(unknown), "False/RayJobGone");
  // One made for an earlier spec (a change held while it ran) and gone: not run with the held change by itself;
  // the next change runs it, with the change, as after a finished run.
  json::Document held = wl("{job: {entrypoint: python z.py}}", 2);
  set_status(held, job_status(2, "Running", "Running", run.hash));
  Outcome held_lost = reconcile(held, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(held_lost.desired.empty());
  EXPECT_EQ(succeeded(held_lost).substr(0, 6), "False/") << "not the held spec's success";
  json::Document relabelled = wl("{labels: {a: b}, job: {entrypoint: python z.py}}", 3);
  set_status(relabelled, held_lost.status);
  Outcome next = reconcile(relabelled, Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(next.desired.size(), 1u);
  EXPECT_TRUE(has_event(next, "JobRerun"));
  const FieldError* said = finding(next.errors, "spec", "JobRerun");
  ASSERT_TRUE(said);
  EXPECT_NE(
      said->reason.find(succeeded(held_lost) == "False/RayJobGone" ? "went before it was seen to end" : "has finished"),
      std::string::npos)
      << succeeded(held_lost) << ": " << said->reason;
  // A queued RayJob gone: Kueue may have admitted it and KubeRay run it while the operator was away, so it is gone
  // unseen as well.
  json::Document queued = wl("{job: {entrypoint: python x.py}}", 1);
  set_status(queued, job_status(1, "Queued", "Suspended", run.hash));
  EXPECT_TRUE(reconcile(queued, Observed{}, ClusterFacts{}, schemas, kNow).desired.empty());
}

// The ninth user trial's F4: a job that ends while the spec is invalid. Its end is recorded (not Succeeded=Unknown),
// as having run an earlier spec; once its RayJob is gone and the spec is fixed, the workload knows it finished (not
// RayJobGone), and runs again only for a spec that differs from what ran.
TEST(JobLifecycle, AJobThatEndsWhileTheSpecIsInvalidIsRecordedAsEnded) {
  CFO_REQUIRE_SCHEMAS(schemas);
  JobRun run = started_job(schemas, "{job: {entrypoint: python x.py}}", "Running");
  const std::string bad = "{job: {entrypoint: python x.py}, workerGroups: [{name: w, replicas: -1}]}";
  Observed observed;
  observed.ray_job = &run.ray_job;
  json::Document good = wl("{job: {entrypoint: python x.py}}", 1);
  set_status(good, job_status(1, "Running", "Running", run.hash));
  Outcome runs = reconcile(good, observed, ClusterFacts{}, schemas, kNow);
  json::Document d = wl(bad, 2);
  set_status(d, runs.status);
  Outcome invalid = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  ASSERT_FALSE(invalid.valid);
  EXPECT_EQ(succeeded(invalid), "Unknown/JobNotFinished") << "still running";
  // KubeRay reports the end while the spec is still invalid.
  set_status(run.ray_job, yaml_doc("{jobDeploymentStatus: Complete, jobStatus: SUCCEEDED}"));
  set_status(d, invalid.status);
  Outcome ended = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(json::get_string(ended.status, "phase"), "Invalid");
  EXPECT_EQ(succeeded(ended), "False/EarlierSpecSucceeded") << json::dump(ended.status);
  EXPECT_EQ(json::get_string(ended.status, "jobDeploymentStatus"), "Complete");
  EXPECT_TRUE(has_event(ended, "EarlierSpecSucceeded")) << "the end is said once, when it is found";
  // KubeRay deletes the finished RayJob (deletionPolicy): the record of its end stays.
  set_status(d, ended.status);
  Outcome gone = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(succeeded(gone), "False/EarlierSpecSucceeded") << json::dump(gone.status);
  EXPECT_EQ(json::get_string(gone.status, "jobDeploymentStatus"), "Complete") << json::dump(gone.status);
  EXPECT_FALSE(has_event(gone, "EarlierSpecSucceeded"));
  // The spec fixed back to what ran: finished, not lost, nothing runs.
  json::Document fixed = wl("{job: {entrypoint: python x.py}}", 3);
  set_status(fixed, gone.status);
  Outcome same = reconcile(fixed, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(same.desired.empty());
  EXPECT_EQ(json::get_string(same.status, "phase"), "Succeeded") << json::dump(same.status);
  EXPECT_EQ(succeeded(same), "True/JobFinished");
  // Fixed to a new spec: it runs, and says so.
  json::Document changed = wl("{job: {entrypoint: python y.py}}", 3);
  set_status(changed, gone.status);
  Outcome rerun = reconcile(changed, Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(rerun.desired.size(), 1u) << dump(rerun.errors);
  EXPECT_TRUE(has_event(rerun, "JobRerun"));
  // A RayJob gone while it ran and the spec was invalid: lost, and still lost once the spec is fixed.
  json::Document unseen = wl(bad, 2);
  set_status(unseen, invalid.status);
  Outcome lost = reconcile(unseen, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_EQ(succeeded(lost), "False/RayJobGone") << json::dump(lost.status);
  EXPECT_TRUE(has_event(lost, "RayJobGone"));
  json::Document back = wl("{job: {entrypoint: python x.py}}", 3);
  set_status(back, lost.status);
  Outcome still = reconcile(back, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(still.desired.empty());
  EXPECT_EQ(succeeded(still), "False/RayJobGone");
}

// The AppWrapper the operator makes of `spec`, with status.phase `phase` as its controller would write it; a null
// document when the spec makes none.
namespace {
json::Document app_wrapper_of(const validation::SchemaSet& schemas, const std::string& spec, const std::string& phase) {
  Outcome first = reconcile(wl(spec), Observed{}, ClusterFacts{}, schemas, kNow);
  if (first.desired.size() != 1u) return {};
  json::Document aw = json::clone(first.desired[0]);
  set_status(aw, yaml_doc("{phase: " + phase + "}"));
  return aw;
}
}  // namespace

// The ninth user trial's F3: a change refused while the AppWrapper ran (AppWrapperChangeWhileRunning) is not applied
// by itself once the AppWrapper ends; a change made after the end was seen replaces it and runs it again.
TEST(ReconcileLifecycle, AnAppWrapperChangeRefusedWhileItRanIsHeldWhenItEnds) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document aw = app_wrapper_of(schemas, "{appWrapper: true}", "Running");
  ASSERT_TRUE(aw.IsObject());
  Observed observed;
  observed.app_wrapper = &aw;
  json::Document running = wl("{appWrapper: true}");
  set_status(running, reconcile(running, observed, ClusterFacts{}, schemas, kNow).status);
  const std::string bigger = "{appWrapper: true, workerGroups: [{name: w, replicas: 3}]}";
  json::Document d = wl(bigger, 2);
  set_status(d, running["status"]);
  Outcome refused = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(finding(refused.errors, "spec", "AppWrapperChangeWhileRunning")) << dump(refused.errors);
  // It ends (same generation): held, not replaced; the phase is the AppWrapper's, the reason says it ran the earlier
  // spec.
  set_status(aw, yaml_doc("{phase: Succeeded}"));
  set_status(d, refused.status);
  Outcome ended = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(ended.valid) << dump(ended.errors);
  EXPECT_FALSE(ended.recreate);
  EXPECT_TRUE(ended.desired.empty());
  EXPECT_TRUE(finding(ended.errors, "spec", "FinishedAppWrapperUnchanged")) << dump(ended.errors);
  EXPECT_TRUE(has_event(ended, "FinishedAppWrapperUnchanged")) << "said when the end is found";
  EXPECT_FALSE(finding(ended.errors, "spec", "AppWrapperRerun"));
  EXPECT_EQ(json::get_string(ended.status, "phase"), "Succeeded") << json::dump(ended.status);
  auto conds = conditions_from_json(*json::find(ended.status, "conditions"));
  EXPECT_EQ(find_condition(conds, "Ready")->reason, "EarlierSpecSucceeded");
  // Later reconciles of the same generation: still held.
  set_status(d, ended.status);
  Outcome later = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(later.recreate);
  EXPECT_TRUE(later.desired.empty());
  EXPECT_FALSE(has_event(later, "AppWrapperRerun"));
  EXPECT_FALSE(has_event(later, "FinishedAppWrapperUnchanged")) << "said once";
  // The next change replaces it and runs it again, with an event.
  json::Document again = wl("{appWrapper: true, labels: {a: b}, workerGroups: [{name: w, replicas: 3}]}", 3);
  set_status(again, ended.status);
  Outcome rerun = reconcile(again, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(rerun.recreate);
  EXPECT_TRUE(has_event(rerun, "AppWrapperRerun"));
  // Deleted by someone once finished: created again as the spec is now.
  json::Document deleting = json::clone(aw);
  json::set(deleting["metadata"], "deletionTimestamp", json::str(kNow, deleting.GetAllocator()),
            deleting.GetAllocator());
  observed.app_wrapper = &deleting;
  Outcome replaced = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(replaced.recreate);
  EXPECT_FALSE(finding(replaced.errors, "spec", "FinishedAppWrapperUnchanged"));
}

// The label `key` of an AppWrapper's first component (the wrapped RayCluster).
std::string wrapped_label(const json::Value& aw, const std::string& key) {
  const json::Value* c = json::find_path(aw, "spec.components");
  return c && c->IsArray() && !c->Empty() ? json::string_at((*c)[0], "template.metadata.labels." + key) : "";
}

// The tenth user trial: a change of spec.labels alone reached the wrapped RayCluster's labels, a component change,
// so it was refused while the AppWrapper ran and re-ran a finished one. The labels now go on the AppWrapper; its
// components keep the labels they were created with.
TEST(ReconcileLifecycle, ALabelChangeNeitherReplacesNorReRunsAnAppWrapper) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome first = reconcile(wl("{appWrapper: true, labels: {team: a}}"), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(first.desired.size(), 1u);
  EXPECT_EQ(json::string_at(first.desired[0], "metadata.labels.team"), "a");
  EXPECT_EQ(wrapped_label(first.desired[0], "team"), "a");
  json::Document aw = json::clone(first.desired[0]);
  set_status(aw, yaml_doc("{phase: Running}"));
  Observed observed;
  observed.app_wrapper = &aw;
  json::Document relabelled = wl("{appWrapper: true, labels: {team: b}}", 2);
  Outcome running = reconcile(relabelled, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(running.valid) << dump(running.errors);
  EXPECT_FALSE(running.recreate);
  EXPECT_FALSE(finding(running.errors, "spec", "AppWrapperChangeWhileRunning")) << dump(running.errors);
  EXPECT_TRUE(finding(running.errors, "spec.labels", "WrappedLabelsUnchanged")) << dump(running.errors);
  ASSERT_EQ(running.desired.size(), 1u);
  EXPECT_EQ(json::string_at(running.desired[0], "metadata.labels.team"), "b");
  EXPECT_TRUE(*json::find_path(running.desired[0], "spec.components") == *json::find_path(aw, "spec.components"))
      << "the components of a kept AppWrapper changed";
  // Finished, then a label change seen after its end: no re-run either.
  set_status(aw, yaml_doc("{phase: Succeeded}"));
  set_status(relabelled, running.status);
  set_status(relabelled, reconcile(relabelled, observed, ClusterFacts{}, schemas, kNow).status);
  json::Document again = wl("{appWrapper: true, labels: {team: c}}", 3);
  set_status(again, relabelled["status"]);
  Outcome ended = reconcile(again, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(ended.recreate);
  EXPECT_FALSE(has_event(ended, "AppWrapperRerun"));
  // A change of its components still replaces it, with the labels as the spec has them.
  json::Document resized = wl("{appWrapper: true, labels: {team: c}, workerGroups: [{name: w, replicas: 3}]}", 4);
  set_status(resized, ended.status);
  Outcome rerun = reconcile(resized, observed, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(rerun.recreate);
  ASSERT_EQ(rerun.desired.size(), 1u);
  EXPECT_EQ(wrapped_label(rerun.desired[0], "team"), "c");
}

// The eleventh user trial: a finished AppWrapper deleted by someone was created again, and ran its job again, with no
// word. As a finished RayJob, it is not created again while the spec is unchanged; its record stands.
TEST(ReconcileLifecycle, AFinishedAppWrapperDeletedBySomeoneIsNotCreatedAgain) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document aw = app_wrapper_of(schemas, "{appWrapper: true}", "Succeeded");
  ASSERT_TRUE(aw.IsObject());
  Observed observed;
  observed.app_wrapper = &aw;
  json::Document d = wl("{appWrapper: true}");
  Outcome ended = reconcile(d, observed, ClusterFacts{}, schemas, kNow);
  ASSERT_EQ(json::get_string(ended.status, "appWrapperPhase"), "Succeeded");
  set_status(d, ended.status);
  Outcome gone = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(gone.desired.empty()) << "not created again";
  EXPECT_EQ(json::get_string(gone.status, "phase"), "Succeeded") << json::dump(gone.status);
  EXPECT_EQ(json::get_string(gone.status, "appWrapperPhase"), "Succeeded") << "the record outlives it";
  auto conds = conditions_from_json(*json::find(gone.status, "conditions"));
  EXPECT_EQ(find_condition(conds, "Ready")->reason, "AppWrapperFinished");
  set_status(d, gone.status);
  EXPECT_TRUE(reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow).desired.empty()) << "nor later";
  // A new spec runs again.
  json::Document changed = wl("{appWrapper: true, workerGroups: [{name: w, replicas: 2}]}", 2);
  set_status(changed, gone.status);
  EXPECT_EQ(reconcile(changed, Observed{}, ClusterFacts{}, schemas, kNow).desired.size(), 1u);
}
