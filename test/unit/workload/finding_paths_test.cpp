#include <gtest/gtest.h>

#include "parse_test_util.hpp"
#include "test_support.hpp"
#include "workload/finding_paths.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
const char* kWorkload = R"(
metadata: {name: demo}
spec:
  image: rayproject/ray:2.52.1
  env: [{name: A, value: a}, {name: B, value: b}]
  volumes: [{name: data, emptyDir: {}}]
  volumeMounts: [{name: data, mountPath: /data}]
  imagePullSecrets: [{name: pull}]
  labels: {team: a}
  annotations: {note: x}
  head:
    resources: {limits: {cpu: '2'}}
    tolerations: [{key: k, operator: Exists}]
    rayStartParams: {object-store-memory: '100'}
  workerGroups:
    - {name: w0}
    - name: w1
      replicas: 2
      resources: {limits: {nvidia.com/gpu: 1}}
      tolerations: [{key: gpu, operator: Exists}]
)";

std::string mapped(std::string_view kind, std::string_view path) {
  static const json::Document wl = yaml_doc(kWorkload);
  return spec_path_of(kind, path, wl).value_or("<operator's own>");
}
}  // namespace

TEST(FindingPaths, FieldsCopiedFromTheSpecNameTheSpec) {
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.template.spec.containers[0].env[1].value"), "spec.env[1].value");
  EXPECT_EQ(mapped("RayCluster", "spec.workerGroupSpecs[1].template.spec.containers[0].env[0].name"),
            "spec.env[0].name");
  EXPECT_EQ(mapped("RayCluster", "spec.workerGroupSpecs[0].template.spec.containers[0].volumeMounts[0].mountPath"),
            "spec.volumeMounts[0].mountPath");
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.template.spec.volumes[0].name"), "spec.volumes[0].name");
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.template.spec.imagePullSecrets[0]"), "spec.imagePullSecrets[0]");
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.template.spec.containers[0].image"), "spec.image");
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.template.spec.containers[0].resources.limits.cpu"),
            "spec.head.resources.limits.cpu");
  EXPECT_EQ(
      mapped("RayCluster", "spec.workerGroupSpecs[1].template.spec.containers[0].resources.limits[nvidia.com/gpu]"),
      "spec.workerGroups[1].resources.limits[nvidia.com/gpu]");
  EXPECT_EQ(mapped("RayCluster", "spec.workerGroupSpecs[1].template.spec.tolerations[0].key"),
            "spec.workerGroups[1].tolerations[0].key");
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.rayStartParams[object-store-memory]"),
            "spec.head.rayStartParams[object-store-memory]");
  EXPECT_EQ(mapped("RayCluster", "spec.workerGroupSpecs[1].groupName"), "spec.workerGroups[1].name");
  EXPECT_EQ(mapped("RayCluster", "spec.workerGroupSpecs[1].replicas"), "spec.workerGroups[1].replicas");
  EXPECT_EQ(mapped("RayCluster", "metadata.labels.team"), "spec.labels.team");
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.template.metadata.annotations.note"), "spec.annotations.note");
  // The same fields inside an AppWrapper and a RayJob.
  EXPECT_EQ(mapped("AppWrapper",
                   "spec.components[0].template.spec.workerGroupSpecs[1].template.spec.containers[0]"
                   ".env[0].name"),
            "spec.env[0].name");
  EXPECT_EQ(mapped("RayJob", "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].env[1].name"),
            "spec.env[1].name");
}

TEST(FindingPaths, TheOperatorsOwnFieldsKeepTheObjectsPath) {
  // The env entries after the user's (RAY_USAGE_STATS_ENABLED...), a group's resources the user did not write (the
  // SDK's defaults), rayStartParams the operator derives, the head's tolerations when only its resources were given.
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.template.spec.containers[0].env[2].name"), "<operator's own>");
  EXPECT_EQ(mapped("RayCluster", "spec.workerGroupSpecs[0].template.spec.containers[0].resources.limits.cpu"),
            "<operator's own>");
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.rayStartParams[num-cpus]"), "<operator's own>");
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.template.spec.containers[0].command"), "<operator's own>");
  EXPECT_EQ(mapped("RayCluster", "spec.headGroupSpec.template.spec.containers[1].env[0].name"), "<operator's own>");
  EXPECT_EQ(mapped("RayCluster", "metadata.labels[ray.io/cluster]"), "<operator's own>");
  EXPECT_EQ(mapped("LocalQueue", "spec.clusterQueue"), "<operator's own>");
}

// One env var copied into the head and both worker groups is one finding, at the user's field.
TEST(FindingPaths, AFindingCopiedIntoEveryContainerIsReportedOnce) {
  const json::Document wl = yaml_doc(kWorkload);
  FieldErrors found;
  for (const char* group : {"headGroupSpec", "workerGroupSpecs[0]", "workerGroupSpecs[1]"})
    found.push_back({std::string("spec.") + group + ".template.spec.containers[0].env[0].name", "EnvVarName", "core/v1",
                     "bad name", Severity::Warning});
  found.push_back({"spec.headGroupSpec.template.spec.containers[0].command", "Other", "core/v1", "x"});
  FieldErrors errs;
  add_child_findings(std::move(found), "RayCluster", "RayCluster/demo", wl, errs);
  ASSERT_EQ(errs.size(), 2u) << dump(errs);
  EXPECT_EQ(errs[0].path, "spec.env[0].name");
  EXPECT_EQ(errs[0].severity, Severity::Warning);
  EXPECT_EQ(errs[1].path, "RayCluster/demo: spec.headGroupSpec.template.spec.containers[0].command");
}

// A field of a written group that the user should add is named where it would go (family 6 of issue 13): a missing
// limit next to limits the user wrote, tolerations for a flavor's taint, a replica count left to its default.
TEST(FindingPaths, AFieldTheUserShouldAddIsNamedWhereItGoes) {
  const json::Document wl = yaml_doc(R"(
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata: {name: demo}
spec:
  queue: {localQueue: team-q, priorityClass: high}
  workerGroups:
    - name: gpu
      resources: {requests: {cpu: "1", nvidia.com/gpu: 1}}
)");
  auto at = [&](const char* kind, const char* path) { return spec_path_of(kind, path, wl).value_or("<own>"); };
  EXPECT_EQ(at("RayCluster", "spec.workerGroupSpecs[0].template.spec.containers[0].resources.limits[nvidia.com/gpu]"),
            "spec.workerGroups[0].resources.limits[nvidia.com/gpu]");
  EXPECT_EQ(at("RayCluster", "spec.workerGroupSpecs[0].template.spec.tolerations"), "spec.workerGroups[0].tolerations");
  EXPECT_EQ(at("RayCluster", "spec.workerGroupSpecs[0].replicas"), "spec.workerGroups[0].replicas");
  EXPECT_EQ(at("RayCluster", "spec.workerGroupSpecs[0].template.spec.tolerations[0].key"), "<own>")
      << "an item of a list the user did not write is the operator's";
  EXPECT_EQ(at("RayCluster", "spec.workerGroupSpecs[1].replicas"), "<own>") << "a group the user did not write";
  EXPECT_EQ(at("RayCluster", "spec.headGroupSpec.template.spec.containers[0].resources.limits.cpu"), "<own>")
      << "the head's resources are the SDK's defaults here";
  EXPECT_EQ(at("RayCluster", "metadata.labels[kueue.x-k8s.io/queue-name]"), "spec.queue.localQueue");
  EXPECT_EQ(at("RayJob", "metadata.labels[kueue.x-k8s.io/priority-class]"), "spec.queue.priorityClass");
}

// Only limits written: the requests are the limits (README, "Only limits given"), so a finding on a request (Kueue
// charges requests: an admissibility finding) names the limit the user wrote (the thirtieth user trial was told
// requests[...]); a request next to requests the user wrote, and the head's SDK defaults, are as before.
TEST(FindingPaths, ARequestTakenFromALimitNamesTheLimit) {
  const json::Document wl = yaml_doc(R"(
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata: {name: demo}
spec:
  workerGroups:
    - name: gpu
      resources: {limits: {cpu: "4", nvidia.com/gpu: 1}}
    - name: cpu
      resources: {requests: {cpu: "1"}, limits: {memory: 8G}}
)");
  auto at = [&](const char* path) { return spec_path_of("RayCluster", path, wl).value_or("<own>"); };
  EXPECT_EQ(at("spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu"),
            "spec.workerGroups[0].resources.limits.cpu");
  EXPECT_EQ(at("spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests[nvidia.com/gpu]"),
            "spec.workerGroups[0].resources.limits[nvidia.com/gpu]");
  EXPECT_EQ(at("spec.workerGroupSpecs[1].template.spec.containers[0].resources.requests.cpu"),
            "spec.workerGroups[1].resources.requests.cpu");
  EXPECT_EQ(at("spec.workerGroupSpecs[1].template.spec.containers[0].resources.requests.memory"),
            "spec.workerGroups[1].resources.limits.memory");
  EXPECT_EQ(at("spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.memory"),
            "spec.workerGroups[0].resources.requests.memory")
      << "a resource the user wrote neither way is named where it would go, as before";
  EXPECT_EQ(at("spec.headGroupSpec.template.spec.containers[0].resources.requests.cpu"), "<own>");
}

TEST(FindingPaths, NewPlainFieldsNameTheirWorkloadField) {
  json::Document wl = yaml_doc(R"({metadata: {name: demo}, spec: {rayVersion: 2.52.1, authOptions: {mode: token},
    upgradeStrategy: {type: Recreate}, queue: {multiKueue: true}, autoscaling: {version: v2},
    head: {serviceType: NodePort, enableIngress: true},
    workerGroups: [{name: w, suspend: true, idleTimeoutSeconds: 5}],
    job: {entrypoint: x, backoffLimit: 1, submissionMode: HTTPMode,
          deletionRules: [{policy: DeleteSelf, condition: {jobStatus: FAILED}}], submitter: {backoffLimit: 2}}}})");
  auto m = [&](std::string_view kind, std::string_view path) {
    return spec_path_of(kind, path, wl).value_or("<operator's own>");
  };
  EXPECT_EQ(m("RayCluster", "spec.rayVersion"), "spec.rayVersion");
  EXPECT_EQ(m("RayCluster", "spec.authOptions.mode"), "spec.authOptions.mode");
  EXPECT_EQ(m("RayCluster", "spec.upgradeStrategy"), "spec.upgradeStrategy");
  EXPECT_EQ(m("RayCluster", "spec.managedBy"), "spec.queue.multiKueue");
  EXPECT_EQ(m("RayCluster", "spec.autoscalerOptions.version"), "spec.autoscaling.version");
  EXPECT_EQ(m("RayCluster", "spec.autoscalerOptions.upscalingMode"), "<operator's own>");  // not written by the user
  EXPECT_EQ(m("RayCluster", "spec.headGroupSpec.serviceType"), "spec.head.serviceType");
  EXPECT_EQ(m("RayCluster", "spec.headGroupSpec.enableIngress"), "spec.head.enableIngress");
  EXPECT_EQ(m("RayCluster", "spec.workerGroupSpecs[0].suspend"), "spec.workerGroups[0].suspend");
  EXPECT_EQ(m("RayCluster", "spec.workerGroupSpecs[0].idleTimeoutSeconds"), "spec.workerGroups[0].idleTimeoutSeconds");
  EXPECT_EQ(m("RayJob", "spec.rayClusterSpec.upgradeStrategy"), "spec.upgradeStrategy");
  EXPECT_EQ(m("RayJob", "spec.backoffLimit"), "spec.job.backoffLimit");
  EXPECT_EQ(m("RayJob", "spec.submissionMode"), "spec.job.submissionMode");
  EXPECT_EQ(m("RayJob", "spec.deletionStrategy.deletionRules[0].policy"), "spec.job.deletionRules[0].policy");
  EXPECT_EQ(m("RayJob", "spec.submitterConfig.backoffLimit"), "spec.job.submitter.backoffLimit");
  EXPECT_EQ(m("RayJob", "spec.managedBy"), "spec.queue.multiKueue");
  EXPECT_EQ(m("AppWrapper", "spec.managedBy"), "spec.queue.multiKueue");
}

TEST(FindingPaths, RecordedOriginsWinAndTheLongestOneCounts) {
  PathOrigins origins = {
      {"spec.workerGroupSpecs[0].template.spec.containers[0].env[2]", "spec.workerGroups[0].env[0]"},
      {"spec.workerGroupSpecs[0].template.spec.containers[1]", "spec.template.spec.containers[0]"},
      {"spec.workerGroupSpecs[0].template.spec.containers[1]", "spec.workerGroups[0].template.spec.containers[0]"},
      {"spec.workerGroupSpecs[0].template.spec.containers[1].image", "spec.template.spec.containers[0].image"},
  };
  auto o = [&](std::string_view p) { return origin_path_of(origins, p).value_or("<none>"); };
  EXPECT_EQ(o("spec.workerGroupSpecs[0].template.spec.containers[0].env[2].name"), "spec.workerGroups[0].env[0].name");
  // Two origins of the same length: the later merge (the group's template) wins; a deeper one wins over both.
  EXPECT_EQ(o("spec.workerGroupSpecs[0].template.spec.containers[1].ports[0]"),
            "spec.workerGroups[0].template.spec.containers[0].ports[0]");
  EXPECT_EQ(o("spec.workerGroupSpecs[0].template.spec.containers[1].image"), "spec.template.spec.containers[0].image");
  EXPECT_EQ(o("spec.workerGroupSpecs[0].template.spec.containers[1]"),
            "spec.workerGroups[0].template.spec.containers[0]");
  EXPECT_EQ(o("spec.workerGroupSpecs[0].template.spec.containers[0].env[1]"), "<none>");
  EXPECT_EQ(o("spec.workerGroupSpecs[0].template.spec.containers[10]"), "<none>");  // steps compare whole
}
