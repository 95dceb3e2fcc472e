// compute_status() for RayJobs, Kueue admission and the fields read from the children.
#include <gtest/gtest.h>

#include "core/condition.hpp"
#include "test_support.hpp"
#include "workload/child_views.hpp"
#include "workload/status.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
constexpr const char* kT0 = "2026-01-01T00:00:00Z";

StatusInput job_input(std::optional<std::string> queue = std::nullopt) {
  StatusInput in;
  in.generation = 2;
  in.namespace_ = "team-a";
  in.valid = true;
  in.job = true;
  in.queue = std::move(queue);
  in.ray_job_name = "train";
  in.desired_workers = 1;
  return in;
}

std::string cond(const WorkloadStatus& st, const char* type) {
  const Condition* c = find_condition(st.conditions, type);
  return c ? c->status + "/" + c->reason : "<absent>";
}

WorkloadStatus with_job(const StatusInput& in, const std::string& rayjob_yaml, const json::Value* kueue = nullptr) {
  json::Document rj = yaml_doc(rayjob_yaml);
  Observed o;
  o.ray_job = &rj;
  o.kueue_workload = kueue;
  return compute_status(in, o, nullptr, kT0);
}
}  // namespace

TEST(JobStatus, PhasesFollowTheRayJob) {
  EXPECT_EQ(compute_status(job_input(), Observed{}, nullptr, kT0).phase, "Pending");
  EXPECT_EQ(with_job(job_input(), "status: {jobDeploymentStatus: Initializing}").phase, "Pending");
  EXPECT_EQ(with_job(job_input("q"), "spec: {suspend: true}").phase, "Queued");
  EXPECT_EQ(with_job(job_input(), "spec: {suspend: true}").phase, "Suspended");

  auto running = with_job(job_input(), "status: {jobDeploymentStatus: Running, jobStatus: RUNNING}");
  EXPECT_EQ(running.phase, "Running");
  EXPECT_EQ(cond(running, "Ready"), "True/JobRunning");
  EXPECT_EQ(cond(running, "Succeeded"), "Unknown/JobNotFinished");
  EXPECT_EQ(running.job_status, "RUNNING");
  EXPECT_EQ(running.job_deployment_status, "Running");

  auto done = with_job(job_input(), "status: {jobDeploymentStatus: Complete, jobStatus: SUCCEEDED}");
  EXPECT_EQ(done.phase, "Succeeded");
  EXPECT_EQ(cond(done, "Succeeded"), "True/JobSucceeded");
  EXPECT_EQ(cond(done, "Ready"), "False/JobSucceeded");

  auto failed = with_job(job_input(), "status: {jobDeploymentStatus: Failed, message: deadline exceeded}");
  EXPECT_EQ(failed.phase, "Failed");
  EXPECT_EQ(cond(failed, "Succeeded"), "False/JobFailed");
  const Condition* c = find_condition(failed.conditions, "Succeeded");
  ASSERT_TRUE(c);
  EXPECT_NE(c->message.find("deadline exceeded"), std::string::npos);
}

TEST(JobStatus, ClusterFieldsComeFromTheRayJob) {
  auto st = with_job(job_input(),
                     "status:\n  jobDeploymentStatus: Running\n  rayClusterName: train-x7k2p\n"
                     "  dashboardURL: train-x7k2p-head-svc.team-a.svc.cluster.local:8265\n"
                     "  rayClusterStatus: {state: ready, readyWorkerReplicas: 1, head: {serviceName: train-head}}\n");
  EXPECT_EQ(st.ray_job_name, "train");
  EXPECT_EQ(st.ray_cluster_name, "train-x7k2p");
  EXPECT_EQ(st.ready_workers, 1);
  EXPECT_EQ(st.ray_cluster_state, "ready");
  EXPECT_EQ(st.head_service, "train-head");
  EXPECT_EQ(st.dashboard_url, "train-x7k2p-head-svc.team-a.svc.cluster.local:8265");
  json::Document d = st.to_json();
  EXPECT_EQ(json::get_string(d, "rayJobName"), "train");
  EXPECT_EQ(json::get_string(d, "jobDeploymentStatus"), "Running");
}

TEST(JobStatus, RayClusterHeadServiceGivesTheDashboardURL) {
  StatusInput in;
  in.generation = 1;
  in.namespace_ = "team-a";
  in.valid = true;
  in.ray_cluster_name = "demo";
  json::Document rc = yaml_doc("status: {state: ready, head: {serviceName: demo-head-svc}}");
  Observed o;
  o.ray_cluster = &rc;
  auto st = compute_status(in, o, nullptr, kT0);
  EXPECT_EQ(st.head_service, "demo-head-svc");
  EXPECT_EQ(st.dashboard_url, "http://demo-head-svc.team-a.svc:8265");
  EXPECT_EQ(st.ray_cluster_state, "ready");
  EXPECT_EQ(cond(st, "Succeeded"), "<absent>");
}

TEST(KueueAdmission, ConditionsFollowTheKueueWorkload) {
  json::Document pending = yaml_doc(
      "metadata: {name: rayjob-train-1a2b3}\n"
      "status:\n  conditions:\n  - {type: QuotaReserved, status: 'False', reason: Pending,\n"
      "     message: couldn't assign flavors to pod set head}\n");
  auto st = with_job(job_input("q"), "spec: {suspend: true}", &pending);
  EXPECT_EQ(st.phase, "Queued");
  EXPECT_EQ(cond(st, "Queued"), "True/Submitted");
  EXPECT_EQ(cond(st, "Admitted"), "False/Pending");
  const Condition* admitted = find_condition(st.conditions, "Admitted");
  ASSERT_TRUE(admitted);
  EXPECT_NE(admitted->message.find("couldn't assign flavors"), std::string::npos);
  EXPECT_EQ(st.admission_workload, "rayjob-train-1a2b3");

  json::Document ok = yaml_doc(
      "metadata: {name: rayjob-train-1a2b3}\n"
      "status:\n  admission: {clusterQueue: team-cq}\n  conditions:\n"
      "  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, message: ok}\n"
      "  - {type: Admitted, status: 'True', reason: Admitted, message: ok}\n");
  st = with_job(job_input("q"), "status: {jobDeploymentStatus: Initializing}", &ok);
  EXPECT_EQ(st.phase, "Admitted");
  EXPECT_EQ(cond(st, "Admitted"), "True/Admitted");
  EXPECT_EQ(st.admission_cluster_queue, "team-cq");
  json::Document d = st.to_json();
  EXPECT_EQ(json::get_string(at(d, {"admission"}), "clusterQueue"), "team-cq");

  json::Document evicted = yaml_doc(
      "status:\n  conditions:\n  - {type: Evicted, status: 'True', reason: Preempted, message: preempted by x}\n");
  st = with_job(job_input("q"), "spec: {suspend: true}", &evicted);
  EXPECT_EQ(cond(st, "Admitted"), "False/Evicted");
}

TEST(KueueAdmission, NoQueueNoQueueConditions) {
  json::Document prev = yaml_doc(
      "conditions:\n- {type: Queued, status: 'True', reason: Submitted, message: m, lastTransitionTime: "
      "'2025-01-01T00:00:00Z'}\n");
  json::Document rj = yaml_doc("status: {jobDeploymentStatus: Running}");
  Observed o;
  o.ray_job = &rj;
  auto st = compute_status(job_input(), o, &prev, kT0);
  EXPECT_EQ(cond(st, "Queued"), "<absent>");
  EXPECT_EQ(cond(st, "Admitted"), "<absent>");
}

TEST(KueueAdmission, HeldWorkloadIsPendingWithTheReason) {
  StatusInput in = job_input("missing-q");
  in.held_reason = "LocalQueueNotFound";
  in.held_message = "LocalQueue missing-q does not exist";
  auto st = compute_status(in, Observed{}, nullptr, kT0);
  EXPECT_EQ(st.phase, "Pending");
  EXPECT_EQ(cond(st, "Queued"), "False/LocalQueueNotFound");
  EXPECT_EQ(cond(st, "Ready"), "False/LocalQueueNotFound");
}

// A hold on a workload whose child was submitted already (a WorkloadPriorityClass that does not exist, named in a
// change) holds back the change, not the workload: it stays queued and running, and the conditions say what waits.
TEST(KueueAdmission, AHeldChangeOfASubmittedWorkloadLeavesItQueuedAndRunning) {
  StatusInput in = job_input("q");
  in.held_reason = "PriorityClassNotFound";
  in.held_message = "WorkloadPriorityClass nope does not exist";
  in.child_exists = true;
  json::Document rj = yaml_doc("status: {jobDeploymentStatus: Running}");
  Observed o;
  o.ray_job = &rj;
  auto st = compute_status(in, o, nullptr, kT0);
  EXPECT_EQ(st.phase, "Running");
  EXPECT_EQ(cond(st, "Queued"), "True/Submitted");
  EXPECT_EQ(cond(st, "Admitted"), "True/Admitted") << "a running child was admitted";
  const Condition* queued = find_condition(st.conditions, "Queued");
  ASSERT_TRUE(queued);
  EXPECT_NE(queued->message.find("nope does not exist"), std::string::npos) << queued->message;
}

// The tenth user trial: the LocalQueue of a submitted, not yet admitted workload deleted under it read Queued=True.
// Kueue admits nothing from a LocalQueue that does not exist; once admitted, the child runs on.
TEST(KueueAdmission, ALocalQueueDeletedUnderASubmittedWorkloadIsNotQueued) {
  StatusInput in = job_input("gone-q");
  in.held_reason = "LocalQueueNotFound";
  in.held_message = "LocalQueue gone-q does not exist";
  in.child_exists = true;
  json::Document waiting = yaml_doc("spec: {suspend: true}\nstatus: {jobDeploymentStatus: Suspended}");
  Observed o;
  o.ray_job = &waiting;
  auto st = compute_status(in, o, nullptr, kT0);
  EXPECT_EQ(cond(st, "Queued"), "False/LocalQueueNotFound");
  EXPECT_EQ(cond(st, "Admitted"), "False/Pending");
  EXPECT_EQ(st.phase, "Pending") << "waiting for the queue, not in it";
  EXPECT_EQ(cond(st, "Ready"), "False/LocalQueueNotFound");
  const Condition* queued = find_condition(st.conditions, "Queued");
  ASSERT_TRUE(queued);
  EXPECT_NE(queued->message.find("gone-q, which does not exist"), std::string::npos) << queued->message;
  json::Document running = yaml_doc("status: {jobDeploymentStatus: Running}");
  o.ray_job = &running;
  auto admitted = compute_status(in, o, nullptr, kT0);
  EXPECT_EQ(cond(admitted, "Queued"), "True/Submitted");
  EXPECT_EQ(cond(admitted, "Admitted"), "True/Admitted");
}

// The fourteenth user trial: a workload held for LocalQueueMismatch read Admissible=True, a verdict on the ClusterQueue
// of the queue as it stands, not the one the workload asks for. Nothing is judged while it is held so.
TEST(KueueAdmission, AWorkloadHeldForAMismatchedQueueIsNotJudgedAdmissible) {
  StatusInput in = job_input("shared");
  in.held_reason = "LocalQueueMismatch";
  in.held_message = "LocalQueue shared points at ClusterQueue cq-b, not cq-a";
  in.admissibility = Admissibility{true, "", ""};
  auto st = compute_status(in, Observed{}, nullptr, kT0);
  EXPECT_EQ(cond(st, "Queued"), "False/LocalQueueMismatch");
  EXPECT_EQ(cond(st, "Admissible"), "<absent>");
  in.admissibility = Admissibility{false, "ExceedsMaxQuota", "too big for cq-b"};
  st = compute_status(in, Observed{}, nullptr, kT0);
  EXPECT_EQ(cond(st, "Admissible"), "<absent>");
  EXPECT_EQ(cond(st, "Ready"), "False/LocalQueueMismatch");
}

TEST(ChildViews, WrongTypesReadAsEmpty) {
  json::Document rc = yaml_doc("spec: {suspend: 'yes'}\nstatus: {state: 3, readyWorkerReplicas: two, head: []}");
  RayClusterView v = view_ray_cluster(&rc);
  EXPECT_TRUE(v.present);
  EXPECT_FALSE(v.suspended);
  EXPECT_EQ(v.state, "");
  EXPECT_EQ(v.ready_workers, 0);
  EXPECT_EQ(v.head_service, "");
  json::Document wl = yaml_doc("status: {conditions: [3, {type: Admitted}]}");
  AdmissionView a = view_admission(&wl);
  EXPECT_TRUE(a.present);
  EXPECT_FALSE(a.admitted);
  EXPECT_FALSE(view_ray_job(nullptr).present);
}

TEST(ChildViews, ControlledByIsTheControllerReferenceToTheWorkloadUid) {
  auto with_refs = [](const std::string& refs) { return yaml_doc("metadata: {ownerReferences: " + refs + "}"); };
  json::Document ours = with_refs("[{kind: CodeFlareWorkload, name: a, uid: u1, controller: true}]");
  EXPECT_TRUE(controlled_by(ours, "u1"));
  EXPECT_FALSE(controlled_by(ours, "u2")) << "another workload's uid (an earlier one of the same name)";
  EXPECT_FALSE(controlled_by(ours, "")) << "an offline render has no uid";
  // An owner that is not the controller, or a controller of another kind with the same uid, does not control it.
  EXPECT_FALSE(controlled_by(with_refs("[{kind: CodeFlareWorkload, name: a, uid: u1}]"), "u1"));
  EXPECT_FALSE(controlled_by(with_refs("[{kind: Deployment, name: a, uid: u1, controller: true}]"), "u1"));
  EXPECT_TRUE(controlled_by(with_refs("[{kind: ConfigMap, name: c, uid: u0}, "
                                      "{kind: CodeFlareWorkload, name: a, uid: u1, controller: true}]"),
                            "u1"));
  EXPECT_FALSE(controlled_by(yaml_doc("metadata: {ownerReferences: {}}"), "u1")) << "not a list";
  EXPECT_FALSE(controlled_by(yaml_doc("metadata: {}"), "u1"));
}
