#include <gtest/gtest.h>

#include "core/condition.hpp"
#include "test_support.hpp"
#include "workload/status.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
constexpr const char* kT0 = "2026-01-01T00:00:00Z";
constexpr const char* kT1 = "2026-01-01T00:05:00Z";

StatusInput valid_input(bool wrapped = false, std::optional<std::string> queue = std::nullopt) {
  StatusInput in;
  in.generation = 3;
  in.valid = true;
  in.wrapped = wrapped;
  in.queue = std::move(queue);
  in.desired_workers = 2;
  in.ray_cluster_name = "demo";
  in.app_wrapper_name = wrapped ? "demo" : "";
  return in;
}

const Condition& cond(const WorkloadStatus& st, const char* type) {
  const Condition* c = find_condition(st.conditions, type);
  if (!c) throw std::out_of_range(std::string("no condition ") + type);
  return *c;
}
}  // namespace

TEST(Status, PendingWhileTheChildIsAbsent) {
  auto st = compute_status(valid_input(), Observed{}, nullptr, kT0);
  EXPECT_EQ(st.phase, "Pending");
  EXPECT_EQ(st.observed_generation, 3);
  EXPECT_EQ(st.desired_workers, 2);
  EXPECT_EQ(st.ready_workers, 0);
  EXPECT_EQ(st.ray_cluster_name, "demo");
  EXPECT_EQ(st.app_wrapper_name, "");
  EXPECT_EQ(cond(st, "Valid").status, "True");
  EXPECT_EQ(cond(st, "Valid").reason, "Valid");
  EXPECT_EQ(cond(st, "Valid").observed_generation, 3);
  EXPECT_EQ(cond(st, "Ready").status, "False");
  EXPECT_EQ(cond(st, "Ready").reason, "Pending");
  EXPECT_EQ(cond(st, "Ready").last_transition_time, kT0);
}

TEST(Status, RunningWhenTheRayClusterIsReady) {
  json::Document rc = yaml_doc("spec: {}\nstatus: {state: ready, readyWorkerReplicas: 2}\n");
  auto st = compute_status(valid_input(), Observed{&rc, nullptr}, nullptr, kT0);
  EXPECT_EQ(st.phase, "Running");
  EXPECT_EQ(st.ready_workers, 2);
  EXPECT_EQ(cond(st, "Ready").status, "True");
  EXPECT_EQ(cond(st, "Ready").reason, "Ready");
}

TEST(Status, NotReadyAndFailedRayCluster) {
  json::Document rc = yaml_doc("status: {readyWorkerReplicas: 1}\n");
  auto st = compute_status(valid_input(), Observed{&rc, nullptr}, nullptr, kT0);
  EXPECT_EQ(st.phase, "Pending");
  EXPECT_EQ(st.ready_workers, 1);
  EXPECT_EQ(cond(st, "Ready").reason, "ClusterNotReady");
  json::Document failed = yaml_doc("status: {state: failed, reason: boom}\n");
  st = compute_status(valid_input(), Observed{&failed, nullptr}, nullptr, kT0);
  EXPECT_EQ(st.phase, "Failed");
  EXPECT_NE(cond(st, "Ready").message.find("boom"), std::string::npos);
}

TEST(Status, SuspendedRayClusterIsQueuedWithAQueue) {
  json::Document rc = yaml_doc("spec: {suspend: true}\n");
  auto st = compute_status(valid_input(false, "team-a-queue"), Observed{&rc, nullptr}, nullptr, kT0);
  EXPECT_EQ(st.phase, "Queued");
  EXPECT_EQ(st.queue, "team-a-queue");
  EXPECT_EQ(cond(st, "Ready").reason, "Queued");
  st = compute_status(valid_input(false), Observed{&rc, nullptr}, nullptr, kT0);
  EXPECT_EQ(st.phase, "Suspended");
}

TEST(Status, AppWrapperPhases) {
  auto in = valid_input(true, "q");
  auto st = compute_status(in, Observed{}, nullptr, kT0);
  EXPECT_EQ(st.phase, "Pending");
  EXPECT_EQ(st.app_wrapper_name, "demo");
  json::Document aw = yaml_doc("status: {phase: Suspended}\n");
  EXPECT_EQ(compute_status(in, Observed{nullptr, &aw}, nullptr, kT0).phase, "Queued");
  json::Document resuming = yaml_doc("status: {phase: Resuming}\n");
  EXPECT_EQ(compute_status(in, Observed{nullptr, &resuming}, nullptr, kT0).phase, "Admitted");
  json::Document running = yaml_doc("status: {phase: Running}\n");
  json::Document rc = yaml_doc("status: {state: ready, readyWorkerReplicas: 1}\n");
  EXPECT_EQ(compute_status(in, Observed{&rc, &running}, nullptr, kT0).phase, "Running");
  json::Document done = yaml_doc("status: {phase: Succeeded}\n");
  EXPECT_EQ(compute_status(in, Observed{nullptr, &done}, nullptr, kT0).phase, "Succeeded");
  json::Document failed = yaml_doc("status: {phase: Failed}\n");
  EXPECT_EQ(compute_status(in, Observed{nullptr, &failed}, nullptr, kT0).phase, "Failed");
}

TEST(Status, InvalidSpec) {
  StatusInput in;
  in.generation = 2;
  in.invalid_message = "spec.x: bad";
  auto st = compute_status(in, Observed{}, nullptr, kT0);
  EXPECT_EQ(st.phase, "Invalid");
  EXPECT_EQ(cond(st, "Valid").status, "False");
  EXPECT_EQ(cond(st, "Valid").reason, "InvalidSpec");
  EXPECT_EQ(cond(st, "Valid").message, "spec.x: bad");
  EXPECT_EQ(cond(st, "Ready").reason, "Invalid");
}

TEST(Status, ConditionsKeepTheirTransitionTimeWhileStatusHolds) {
  json::Document rc = yaml_doc("status: {state: ready}\n");
  auto first = compute_status(valid_input(), Observed{}, nullptr, kT0);
  json::Document prev = first.to_json();
  // Same verdict later: times are kept (the Ready reason may change while its status stays False).
  json::Document not_ready = yaml_doc("status: {}\n");
  auto second = compute_status(valid_input(), Observed{&not_ready, nullptr}, &prev, kT1);
  EXPECT_EQ(cond(second, "Valid").last_transition_time, kT0);
  EXPECT_EQ(cond(second, "Ready").last_transition_time, kT0);
  EXPECT_EQ(cond(second, "Ready").reason, "ClusterNotReady");
  // Ready flips to True: only Ready's time moves.
  json::Document prev2 = second.to_json();
  auto third = compute_status(valid_input(), Observed{&rc, nullptr}, &prev2, kT1);
  EXPECT_EQ(cond(third, "Valid").last_transition_time, kT0);
  EXPECT_EQ(cond(third, "Ready").last_transition_time, kT1);
}

TEST(Status, ToJsonShape) {
  auto st = compute_status(valid_input(true, "q"), Observed{}, nullptr, kT0);
  json::Document d = st.to_json();
  EXPECT_EQ(json::get_int(d, "observedGeneration"), 3);
  EXPECT_EQ(json::get_string(d, "phase"), "Pending");
  EXPECT_EQ(json::get_string(d, "queue"), "q");
  EXPECT_EQ(json::get_int(d, "desiredWorkers"), 2);
  EXPECT_EQ(json::get_int(d, "readyWorkers"), 0);
  EXPECT_EQ(json::get_string(d, "rayClusterName"), "demo");
  EXPECT_EQ(json::get_string(d, "appWrapperName"), "demo");
  ASSERT_TRUE(json::find(d, "conditions")->IsArray());
  // Valid, Queued, Admitted (a queue is in effect) and Ready; no Succeeded (not a job).
  EXPECT_EQ(json::find(d, "conditions")->Size(), 4u);
  EXPECT_EQ(cond(st, "Queued").status, "True");
  EXPECT_EQ(cond(st, "Admitted").status, "False");
  EXPECT_FALSE(json::find(d, "rayJobName"));
  EXPECT_FALSE(json::find(d, "admission"));
}

TEST(Status, WarningsStayVisibleInTheValidCondition) {
  StatusInput in = valid_input();
  in.warnings_message = "spec.image: image is Ray 2.46.0 but spec.rayVersion is 2.52.1";
  auto st = compute_status(in, Observed{}, nullptr, kT0);
  EXPECT_EQ(cond(st, "Valid").status, "True");
  EXPECT_EQ(cond(st, "Valid").reason, "ValidWithWarnings");
  EXPECT_NE(cond(st, "Valid").message.find("spec.image: image is Ray 2.46.0"), std::string::npos);
}

// No KubeRay (or no AppWrapper controller) answering: after kSilentChildSeconds the reason says what is missing;
// before, the status asks to be looked at again when that time comes.
TEST(Status, AChildWithoutAnyStatusNamesTheControllerThatIsProbablyMissing) {
  json::Document rc = yaml_doc("metadata: {creationTimestamp: '2026-01-01T00:00:00Z'}\nspec: {}\n");
  auto st = compute_status(valid_input(), Observed{&rc, nullptr}, nullptr, "2026-01-01T00:00:20Z");
  EXPECT_EQ(cond(st, "Ready").reason, "ClusterNotReady");
  EXPECT_EQ(st.recheck_after_seconds, kSilentChildSeconds - 20 + 1);
  st = compute_status(valid_input(), Observed{&rc, nullptr}, nullptr, kT1);
  EXPECT_EQ(st.phase, "Pending");
  EXPECT_EQ(cond(st, "Ready").reason, "NoStatusFromKubeRay");
  EXPECT_NE(cond(st, "Ready").message.find("is the KubeRay operator running"), std::string::npos);
  EXPECT_EQ(st.recheck_after_seconds, 0);

  // Any status from KubeRay, even without a state yet, means it runs.
  json::Document reported =
      yaml_doc("metadata: {creationTimestamp: '2026-01-01T00:00:00Z'}\nstatus: {desiredWorkerReplicas: 2}\n");
  st = compute_status(valid_input(), Observed{&reported, nullptr}, nullptr, kT1);
  EXPECT_EQ(cond(st, "Ready").reason, "ClusterNotReady");

  json::Document aw = yaml_doc("metadata: {creationTimestamp: '2026-01-01T00:00:00Z'}\nspec: {}\n");
  st = compute_status(valid_input(true), Observed{nullptr, &aw}, nullptr, kT1);
  EXPECT_EQ(cond(st, "Ready").reason, "NoStatusFromAppWrapperController");
  EXPECT_NE(cond(st, "Ready").message.find("the AppWrapper controller"), std::string::npos);

  StatusInput job = valid_input();
  job.job = true;
  job.ray_job_name = "demo";
  json::Document rj = yaml_doc("metadata: {creationTimestamp: '2026-01-01T00:00:00Z'}\nspec: {}\n");
  st = compute_status(job, Observed{nullptr, nullptr, &rj}, nullptr, kT1);
  EXPECT_EQ(cond(st, "Ready").reason, "NoStatusFromKubeRay");
}
