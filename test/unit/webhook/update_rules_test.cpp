// What an update may skip (unchanged verdict inputs) and the queue change refused while a workload runs.
#include <gtest/gtest.h>

#include "webhook/update_rules.hpp"

using namespace cfo;
using namespace cfo::webhook;

namespace {
json::Document doc(const char* text) {
  auto d = json::parse(text);
  EXPECT_TRUE(d) << text;
  return d ? std::move(*d) : json::Document();
}
}  // namespace

TEST(VerdictInputs, MetadataAndStatusOnlyChangesAreSkipped) {
  auto old = doc(R"({"metadata": {"name": "a", "labels": {"x": "1"}, "resourceVersion": "1"}, "spec": {"a": 1},
                     "status": {"phase": "Pending"}})");
  auto finalizer = doc(R"({"metadata": {"name": "a", "labels": {"x": "1"}, "resourceVersion": "2",
                                        "finalizers": ["codeflare.dev/local-queue"]}, "spec": {"a": 1},
                           "status": {"phase": "Running"}})");
  EXPECT_TRUE(verdict_inputs_unchanged(finalizer, old));
  auto spec = doc(R"({"metadata": {"name": "a", "labels": {"x": "1"}}, "spec": {"a": 2}})");
  EXPECT_FALSE(verdict_inputs_unchanged(spec, old));
  auto label = doc(R"({"metadata": {"name": "a", "labels": {"x": "2"}}, "spec": {"a": 1}})");
  EXPECT_FALSE(verdict_inputs_unchanged(label, old));
  auto annotation = doc(R"({"metadata": {"name": "a", "labels": {"x": "1"}, "annotations": {"k": "v"}},
                            "spec": {"a": 1}})");
  EXPECT_FALSE(verdict_inputs_unchanged(annotation, old));
}

TEST(VerdictInputs, TopLevelFieldsBesidesSpecCount) {
  // A WorkloadPriorityClass keeps its fields at the top level.
  auto old = doc(R"({"metadata": {"name": "p"}, "value": 100, "description": "x"})");
  auto same = doc(R"({"metadata": {"name": "p", "generation": 2}, "value": 100, "description": "x"})");
  auto changed = doc(R"({"metadata": {"name": "p"}, "value": 200, "description": "x"})");
  auto removed = doc(R"({"metadata": {"name": "p"}, "value": 100})");
  EXPECT_TRUE(verdict_inputs_unchanged(same, old));
  EXPECT_FALSE(verdict_inputs_unchanged(changed, old));
  EXPECT_FALSE(verdict_inputs_unchanged(removed, old));
}

TEST(VerdictInputs, AnObjectBeingDeletedIsLetThrough) {
  auto old = doc(R"({"metadata": {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z"}, "spec": {"a": 1}})");
  auto changed = doc(R"({"metadata": {"name": "a"}, "spec": {"a": 2}})");
  EXPECT_TRUE(verdict_inputs_unchanged(changed, old));
}

TEST(QueueChange, RefusedWhileTheChildRuns) {
  auto spec = doc(R"({"queue": {"localQueue": "team-b"}})");
  for (const char* phase : {"Admitted", "Running", "Succeeded", "Failed"}) {
    auto status =
        doc((std::string(R"({"phase": ")") + phase + R"(", "queue": "team-a", "rayClusterName": "demo"})").c_str());
    auto f = queue_change_while_running(&status, spec);
    ASSERT_TRUE(f) << phase;
    EXPECT_EQ(f->path, "spec.queue.localQueue");
    EXPECT_EQ(f->rule, "QueueChangeWhileRunning");
    EXPECT_EQ(f->severity, Severity::Error);
    EXPECT_NE(f->reason.find("runs in LocalQueue team-a"), std::string::npos) << f->reason;
  }
}

// Kueue judges the job as updated: a queue change made together with suspend: true is allowed.
TEST(QueueChange, AllowedWhenTheSameUpdateSuspends) {
  auto spec = doc(R"({"suspend": true, "queue": {"localQueue": "team-b"}})");
  auto status = doc(R"({"phase": "Running", "queue": "team-a", "rayClusterName": "demo"})");
  EXPECT_FALSE(queue_change_while_running(&status, spec));
  auto unqueued = doc(R"({"phase": "Running", "rayClusterName": "demo"})");
  EXPECT_FALSE(queue_change_while_running(&unqueued, spec));
}

// A child submitted without a queue is never suspended by Kueue: joining a queue is refused unless the workload is
// suspended (the Kueue job webhook refuses adding the queue-name label to a job that is not suspended).
TEST(QueueChange, JoiningAQueueIsRefusedWhileTheUnqueuedChildRuns) {
  auto spec = doc(R"({"queue": {"localQueue": "team-b"}})");
  for (const char* phase : {"Pending", "Running", "Succeeded"}) {
    auto status = doc((std::string(R"({"phase": ")") + phase + R"(", "rayClusterName": "demo"})").c_str());
    auto f = queue_change_while_running(&status, spec);
    ASSERT_TRUE(f) << phase;
    EXPECT_EQ(f->rule, "QueueChangeWhileRunning");
    EXPECT_NE(f->reason.find("runs without a LocalQueue"), std::string::npos) << f->reason;
  }
}

TEST(QueueChange, AllowedWhileSuspendedPendingOrWithoutAChild) {
  auto spec = doc(R"({"queue": {"localQueue": "team-b"}})");
  for (const char* status_text :
       {R"({"phase": "Queued", "queue": "team-a", "rayClusterName": "demo"})",
        R"({"phase": "Suspended", "queue": "team-a", "appWrapperName": "demo"})",
        R"({"phase": "Pending", "queue": "team-a", "rayJobName": "demo"})",
        R"({"phase": "Running", "queue": "team-a"})",                            // no child named
        R"({"phase": "Running", "queue": "team-b", "rayClusterName": "demo"})",  // the same queue
        R"({"phase": "Suspended", "rayClusterName": "demo"})",                   // not queued, suspended
        R"({"phase": "Invalid", "queue": "team-a", "rayClusterName": "demo",
            "conditions": [{"type": "Admitted", "status": "False"}]})"}) {
    auto status = doc(status_text);
    EXPECT_FALSE(queue_change_while_running(&status, spec)) << status_text;
  }
  EXPECT_FALSE(queue_change_while_running(nullptr, spec));
  auto running = doc(R"({"phase": "Running", "queue": "team-a", "rayClusterName": "demo"})");
  auto no_queue = doc(R"({"queue": {}})");
  EXPECT_FALSE(queue_change_while_running(&running, no_queue));  // leaving localQueue empty keeps the running one
}

TEST(QueueChange, AnInvalidSpecOfAnAdmittedWorkloadStillCounts) {
  auto spec = doc(R"({"queue": {"localQueue": "team-b"}})");
  auto status = doc(R"({"phase": "Invalid", "queue": "team-a", "rayClusterName": "demo",
                        "conditions": [{"type": "Admitted", "status": "True"}]})");
  EXPECT_TRUE(queue_change_while_running(&status, spec));
}
