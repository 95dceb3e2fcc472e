// RayJob as KubeRay v1.7 has it: submissionMode, backoffLimit, the submitter (template, topology, backoffLimit),
// deletionRules, preRunningDeadlineSeconds, entrypoint resources, metadata, jobId, with KubeRay's and Kueue's rules.
#include <gtest/gtest.h>

#include <algorithm>

#include "reconcile_test_util.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

TEST(JobFeatures, EveryNewFieldIsWrittenWhereKubeRayReadsIt) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({job: {entrypoint: python train.py, submissionMode: HTTPMode, backoffLimit: 2,
      preRunningDeadlineSeconds: 600, entrypointNumCpus: 0.5, entrypointNumGpus: 1,
      entrypointResources: {Custom: 1, TPU: 0.25}, metadata: {owner: team-a}, jobId: train-42,
      deletionRules: [{policy: DeleteWorkers, condition: {jobStatus: SUCCEEDED}},
                      {policy: DeleteCluster, condition: {jobStatus: SUCCEEDED, ttlSeconds: 60}},
                      {policy: DeleteSelf, condition: {jobDeploymentStatus: Failed, ttlSeconds: 3600}}]}})",
                               schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value& spec = at(top(out), {"spec"});
  EXPECT_EQ(json::string_at(spec, "submissionMode"), "HTTPMode");
  EXPECT_EQ(json::get_int(spec, "backoffLimit"), 2);
  EXPECT_EQ(json::get_int(spec, "preRunningDeadlineSeconds"), 600);
  EXPECT_EQ(at(spec, {"entrypointNumCpus"}).GetDouble(), 0.5);
  EXPECT_EQ(at(spec, {"entrypointNumGpus"}).GetDouble(), 1.0);
  EXPECT_EQ(json::string_at(spec, "entrypointResources"), R"({"Custom":1,"TPU":0.25})");
  EXPECT_EQ(json::string_at(spec, "metadata.owner"), "team-a");
  EXPECT_EQ(json::string_at(spec, "jobId"), "train-42");
  EXPECT_EQ(at(spec, {"deletionStrategy", "deletionRules"}).Size(), 3u);
  EXPECT_EQ(json::string_at(at(spec, {"deletionStrategy", "deletionRules", 2}), "condition.jobDeploymentStatus"),
            "Failed");
  // With deletion rules, shutdownAfterJobFinishes defaults to false (KubeRay refuses both) and no TTL is written.
  EXPECT_EQ(json::get_bool(spec, "shutdownAfterJobFinishes"), false);
  EXPECT_FALSE(json::find(spec, "ttlSecondsAfterFinished"));
  EXPECT_FALSE(json::find(spec, "submitterPodTemplate"));  // HTTPMode has no submitter Pod
}

TEST(JobFeatures, WithoutTheNewFieldsNothingNewIsWritten) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec("{job: {entrypoint: run}}", schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  for (const char* f :
       {"submissionMode", "backoffLimit", "submitterPodTemplate", "submitterConfig", "deletionStrategy",
        "preRunningDeadlineSeconds", "entrypointNumCpus", "entrypointResources", "metadata", "jobId", "managedBy"})
    EXPECT_FALSE(json::find(at(top(out), {"spec"}), f)) << f;
}

TEST(JobFeatures, TheSubmitterTemplateIsKubeRaysDefaultWithTheOverridesMerged) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({queue: {localQueue: q}, head: {image: 'quay.io/rayproject/ray:2.52.1-py311'},
      job: {entrypoint: run, submitter: {backoffLimit: 3, topology: {preferred: rack},
        template: {spec: {nodeSelector: {pool: cpu}}}}}})",
                               schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value& spec = at(top(out), {"spec"});
  EXPECT_EQ(json::get_int(at(spec, {"submitterConfig"}), "backoffLimit"), 3);
  const json::Value& sub = at(spec, {"submitterPodTemplate"});
  const json::Value& c = at(sub, {"spec", "containers", 0});
  EXPECT_EQ(json::string_at(c, "name"), "ray-job-submitter");
  EXPECT_EQ(json::string_at(c, "image"), "quay.io/rayproject/ray:2.52.1-py311");  // the head's
  EXPECT_EQ(json::string_at(c, "resources.requests.cpu"), "500m");
  EXPECT_EQ(json::string_at(c, "resources.limits.memory"), "1Gi");
  EXPECT_EQ(json::string_at(sub, "spec.restartPolicy"), "Never");
  EXPECT_EQ(json::string_at(sub, "spec.nodeSelector.pool"), "cpu");
  EXPECT_EQ(json::get_string(at(sub, {"metadata", "annotations"}), "kueue.x-k8s.io/podset-preferred-topology"), "rack");
}

TEST(JobFeatures, SubmitterFieldsOnlyInK8sJobMode) {
  CFO_REQUIRE_SCHEMAS(schemas);
  for (const char* mode : {"HTTPMode", "SidecarMode", "InteractiveMode"}) {
    Outcome out = reconcile_spec(
        std::string("{job: {entrypoint: run, submissionMode: ") + mode + ", submitter: {backoffLimit: 1}}}", schemas);
    EXPECT_TRUE(error_at(out, "spec.job.submitter", "SubmitterMode")) << mode << "\n" << dump(out.errors);
  }
}

TEST(JobFeatures, EntrypointIsOptionalOnlyInInteractiveMode) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome interactive = reconcile_spec("{job: {submissionMode: InteractiveMode, jobId: mine}}", schemas);
  EXPECT_TRUE(interactive.valid) << dump(interactive.errors);
  Outcome k8s = reconcile_spec("{job: {submissionMode: K8sJobMode}}", schemas);
  EXPECT_TRUE(error_at(k8s, "spec.job.entrypoint", "schema:required")) << dump(k8s.errors);
}

TEST(JobFeatures, KubeRayRules) {
  CFO_REQUIRE_SCHEMAS(schemas);
  struct Case {
    const char* spec;
    const char* path;
    const char* rule;
  };
  const Case cases[] = {
      // validateDeletionConfiguration: rules and shutdownAfterJobFinishes exclude each other.
      {"{job: {entrypoint: x, shutdownAfterJobFinishes: true, deletionRules: [{policy: DeleteCluster, condition: "
       "{jobStatus: FAILED}}]}}",
       "spec.job.shutdownAfterJobFinishes", "DeletionRulesShutdown"},
      // ... and a TTL needs shutdownAfterJobFinishes.
      {"{job: {entrypoint: x, ttlSecondsAfterFinished: 10, deletionRules: [{policy: DeleteCluster, condition: "
       "{jobStatus: FAILED}}]}}",
       "spec.job.ttlSecondsAfterFinished", "TTLSecondsAfterFinished"},
      // validateDeletionCondition: exactly one status.
      {"{job: {entrypoint: x, deletionRules: [{policy: DeleteCluster, condition: {ttlSeconds: 1}}]}}",
       "spec.job.deletionRules[0].condition", "DeletionCondition"},
      {"{job: {entrypoint: x, deletionRules: [{policy: DeleteCluster, condition: {jobStatus: FAILED, "
       "jobDeploymentStatus: Failed}}]}}",
       "spec.job.deletionRules[0].condition", "DeletionCondition"},
      // validateDeletionRules (on the RayJob, reported at the rule): DeleteWorkers with autoscaling; TTL order.
      {"{autoscaling: {enabled: true}, workerGroups: [{name: w, minReplicas: 0, maxReplicas: 2}], job: {entrypoint: x, "
       "deletionRules: [{policy: DeleteWorkers, condition: {jobStatus: FAILED}}]}}",
       "spec.job.deletionRules[0].policy", "DeletionPolicies"},
      {"{job: {entrypoint: x, deletionRules: [{policy: DeleteSelf, condition: {jobStatus: FAILED, ttlSeconds: 1}}, "
       "{policy: DeleteCluster, condition: {jobStatus: FAILED, ttlSeconds: 5}}]}}",
       "spec.job.deletionRules", "DeletionPolicies"},
      // ValidateRayJobSpec: InteractiveMode does not retry; SidecarMode needs a head that does not restart.
      {"{job: {submissionMode: InteractiveMode, backoffLimit: 1}}", "spec.job.backoffLimit", "InteractiveModeBackoff"},
      {"{job: {entrypoint: x, submissionMode: SidecarMode}, head: {template: {spec: {restartPolicy: Always}}}}",
       "spec.head.template.spec.restartPolicy", "SidecarMode"},
      // clusterSelector: no retries; a submitter template must name the image.
      {"{job: {entrypoint: x, backoffLimit: 2, clusterSelector: {ray.io/cluster: c}}}", "spec.job.backoffLimit",
       "ClusterSelector"},
      {"{job: {entrypoint: x, clusterSelector: {ray.io/cluster: c}, submitter: {template: {spec: {nodeSelector: "
       "{a: b}}}}}}",
       "spec.job.submitter.template", "SubmitterImage"},
      {"{job: {entrypoint: x, preRunningDeadlineSeconds: 0}}", "spec.job.preRunningDeadlineSeconds", "schema:minimum"},
      {"{job: {entrypoint: x, submissionMode: Batch}}", "spec.job.submissionMode", "schema:enum"},
      {"{job: {entrypoint: x, entrypointNumCpus: -1}}", "spec.job.entrypointNumCpus", "schema:minimum"},
      {"{job: {entrypoint: x, entrypointResources: {TPU: many}}}", "spec.job.entrypointResources.TPU", "schema:type"},
  };
  for (const auto& c : cases) {
    Outcome out = reconcile_spec(c.spec, schemas);
    EXPECT_FALSE(out.valid) << c.spec;
    EXPECT_TRUE(error_at(out, c.path, c.rule)) << c.spec << "\n" << dump(out.errors);
  }
}

TEST(JobFeatures, KueueCountsASubmitterPodSetInK8sJobModeOnly) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts = with_default_queue();
  facts.profile.kueue_max_pod_sets = 8;
  // The head and 7 groups fill 8 PodSets: a K8sJobMode submitter is one too many, HTTPMode has none.
  std::string groups = "[";
  for (int i = 0; i < 7; ++i) groups += (i ? ", " : "") + std::string("{name: g") + std::to_string(i) + "}";
  groups += "]";
  Outcome k8s = reconcile_spec("{workerGroups: " + groups + ", job: {entrypoint: x}}", schemas, facts);
  EXPECT_TRUE(error_at(k8s, "spec.workerGroups", "KueueMaxPodSets")) << dump(k8s.errors);
  Outcome http =
      reconcile_spec("{workerGroups: " + groups + ", job: {entrypoint: x, submissionMode: HTTPMode}}", schemas, facts);
  EXPECT_TRUE(http.valid) << dump(http.errors);
  // "submitter" is a PodSet name only where there is a submitter.
  Outcome name = reconcile_spec("{workerGroups: [{name: submitter}], job: {entrypoint: x, submissionMode: HTTPMode}}",
                                schemas, facts);
  EXPECT_TRUE(name.valid) << dump(name.errors);
}

// The tenth user trial: a fault the workload's rule reports was reported again by the generated RayJob's rule under
// another name. Each is told once, by the workload's rule, which names the field of the spec.
TEST(JobFeatures, AQueuedJobFaultIsToldOnce) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto count = [](const Outcome& out, const std::string& rule) {
    return std::count_if(out.errors.begin(), out.errors.end(), [&](const FieldError& e) { return e.rule == rule; });
  };
  for (const std::string spec :
       {"{job: {entrypoint: x, shutdownAfterJobFinishes: false}}",
        "{job: {entrypoint: x, deletionRules: [{policy: DeleteCluster, condition: {jobStatus: FAILED}}]}}"}) {
    Outcome out = reconcile_spec(spec, schemas, with_default_queue());
    EXPECT_EQ(count(out, "KueueJobShutdown"), 1) << spec << "\n" << dump(out.errors);
    EXPECT_EQ(count(out, "KueueShutdownAfterJobFinishes"), 0) << spec << "\n" << dump(out.errors);
  }
  Outcome submitter =
      reconcile_spec("{workerGroups: [{name: submitter}], job: {entrypoint: x}}", schemas, with_default_queue());
  EXPECT_EQ(count(submitter, "ReservedGroupName"), 1) << dump(submitter.errors);
  EXPECT_EQ(count(submitter, "PodSetNames"), 0) << dump(submitter.errors);
}

TEST(JobFeatures, AQueuedJobCannotUseDeletionRules) {
  CFO_REQUIRE_SCHEMAS(schemas);
  // Kueue (v0.19.2) requires shutdownAfterJobFinishes of a queued RayJob; KubeRay refuses it next to deletionRules.
  Outcome out =
      reconcile_spec("{job: {entrypoint: x, deletionRules: [{policy: DeleteCluster, condition: {jobStatus: FAILED}}]}}",
                     schemas, with_default_queue());
  EXPECT_TRUE(error_at(out, "spec.job.deletionRules", "KueueJobShutdown")) << dump(out.errors);
  Outcome unqueued = reconcile_spec(
      "{job: {entrypoint: x, deletionRules: [{policy: DeleteCluster, condition: {jobStatus: FAILED}}]}}", schemas);
  EXPECT_TRUE(unqueued.valid) << dump(unqueued.errors);
}
