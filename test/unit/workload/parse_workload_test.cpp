#include <gtest/gtest.h>

#include "parse_test_util.hpp"
#include "workload/parse_workload.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
std::string q(const ResourceList& l, const char* name) {
  const Quantity* x = l.find(name);
  return x ? x->text() : "<none>";
}

// Expects exactly: not ok, and an Error at `path` with `rule`.
void expect_error(const ParsedWorkload& p, const std::string& path, const std::string& rule) {
  EXPECT_FALSE(p.ok()) << dump(p.errors);
  const FieldError* e = finding(p.errors, path, rule);
  ASSERT_NE(e, nullptr) << "no " << rule << " at " << path << "; got:\n" << dump(p.errors);
  EXPECT_EQ(e->severity, Severity::Error);
  EXPECT_FALSE(e->reason.empty());
  EXPECT_FALSE(e->source.empty());
}
}  // namespace

TEST(ParseWorkload, EmptySpecGetsTheSdkDefaults) {
  auto p = parse_spec("{}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const auto& w = p.workload;
  EXPECT_EQ(w.name, "demo");
  EXPECT_EQ(w.namespace_, "team-a");
  EXPECT_EQ(w.uid, "uid-1");
  EXPECT_EQ(w.generation, 1);
  EXPECT_EQ(w.spec.ray_version, "2.52.1");
  EXPECT_EQ(w.spec.image, "quay.io/rayproject/ray:2.52.1");
  EXPECT_EQ(q(w.spec.head.resources.requests, "cpu"), "1");
  EXPECT_EQ(q(w.spec.head.resources.limits, "cpu"), "2");
  EXPECT_EQ(q(w.spec.head.resources.requests, "memory"), "5G");
  EXPECT_EQ(q(w.spec.head.resources.limits, "memory"), "8G");
  ASSERT_EQ(w.spec.worker_groups.size(), 1u);
  const auto& g = w.spec.worker_groups[0];
  EXPECT_EQ(g.name, "small-group-demo");
  EXPECT_EQ(g.replicas, 1);
  EXPECT_EQ(g.min_replicas, 1);
  EXPECT_EQ(g.max_replicas, 1);
  EXPECT_EQ(q(g.resources.requests, "cpu"), "1");
  EXPECT_EQ(q(g.resources.limits, "cpu"), "1");
  EXPECT_EQ(q(g.resources.requests, "memory"), "3G");
  EXPECT_EQ(q(g.resources.limits, "memory"), "6G");
  EXPECT_FALSE(w.spec.app_wrapper);
}

TEST(ParseWorkload, MissingSpecIsAnEmptySpec) {
  json::Document d = yaml_doc("metadata: {name: demo}\n");
  set_identity(d);
  auto p = parse_workload(d);
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_EQ(p.workload.spec.worker_groups.size(), 1u);
}

TEST(ParseWorkload, ImageFollowsRayVersionAndExplicitImageWins) {
  auto p = parse_spec("{rayVersion: '2.46.0'}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_EQ(p.workload.spec.image, "quay.io/rayproject/ray:2.46.0");
  p = parse_spec("{image: 'example.com/my/ray-custom:1'}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_EQ(p.workload.spec.image, "example.com/my/ray-custom:1");
}

TEST(ParseWorkload, DefaultGroupNameIsCutToALabel) {
  std::string name(53, 'a');
  auto p = parse_spec("{}", name);
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_EQ(p.workload.spec.worker_groups[0].name.size(), 63u);
}

// Kubernetes defaults a missing request to the limit, and Kueue charges requests: a limit alone is the request too,
// even where the SDK's default request would be lower (head cpu 1 < 2, worker memory 3G < 4G).
TEST(ParseWorkload, OnlyLimitsGivenMeansRequestsEqualLimits) {
  auto p = parse_spec(
      "{head: {resources: {limits: {cpu: 2, memory: 16G}}}, "
      "workerGroups: [{name: w, resources: {limits: {cpu: 3, memory: 4G}}}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const auto& h = p.workload.spec.head.resources;
  EXPECT_EQ(q(h.requests, "cpu"), "2");
  EXPECT_EQ(q(h.requests, "memory"), "16G");
  const auto& g = p.workload.spec.worker_groups[0].resources;
  EXPECT_EQ(q(g.requests, "cpu"), "3");
  EXPECT_EQ(q(g.requests, "memory"), "4G");
}

TEST(ParseWorkload, OneSidedCpuAndMemoryKeepRequestsWithinLimits) {
  auto p = parse_spec(
      "{head: {resources: {limits: {cpu: 500m}}}, "
      "workerGroups: [{name: w, resources: {requests: {cpu: 4, memory: 10G}}}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const auto& h = p.workload.spec.head.resources;
  EXPECT_EQ(q(h.requests, "cpu"), "500m");
  EXPECT_EQ(q(h.limits, "cpu"), "500m");
  const auto& g = p.workload.spec.worker_groups[0].resources;
  EXPECT_EQ(q(g.requests, "cpu"), "4");
  EXPECT_EQ(q(g.limits, "cpu"), "4");
  EXPECT_EQ(q(g.requests, "memory"), "10G");
  EXPECT_EQ(q(g.limits, "memory"), "10G");
}

TEST(ParseWorkload, ExtendedResourceGivenOnOneSideIsInBoth) {
  auto p = parse_spec("{workerGroups: [{name: w, resources: {limits: {nvidia.com/gpu: 2}}}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const auto& g = p.workload.spec.worker_groups[0].resources;
  EXPECT_EQ(q(g.requests, "nvidia.com/gpu"), "2");
  EXPECT_EQ(q(g.limits, "nvidia.com/gpu"), "2");
}

TEST(ParseWorkload, WithoutAutoscalingBoundsEqualReplicasAndGivenBoundsAreIgnored) {
  auto p = parse_spec(
      "{workerGroups: [{name: w, replicas: 3}, {name: v, replicas: 2, minReplicas: 0, maxReplicas: 5}, "
      "{name: u, replicas: 4, minReplicas: 4, maxReplicas: 4}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const auto& g = p.workload.spec.worker_groups;
  EXPECT_EQ(g[0].min_replicas, 3);
  EXPECT_EQ(g[0].max_replicas, 3);
  // The SDK sets min = max = num_workers without autoscaling and warns that min/max workers are ignored.
  EXPECT_EQ(g[1].replicas, 2);
  EXPECT_EQ(g[1].min_replicas, 2);
  EXPECT_EQ(g[1].max_replicas, 2);
  for (const char* f : {"minReplicas", "maxReplicas"}) {
    const FieldError* w = finding(p.errors, std::string("spec.workerGroups[1].") + f, "ReplicaBoundsIgnored");
    ASSERT_NE(w, nullptr) << f << "\n" << dump(p.errors);
    EXPECT_EQ(w->severity, Severity::Warning);
  }
  // Bounds equal to replicas say nothing new: no warning.
  EXPECT_EQ(finding(p.errors, "spec.workerGroups[2].minReplicas"), nullptr) << dump(p.errors);
  EXPECT_EQ(finding(p.errors, "spec.workerGroups[2].maxReplicas"), nullptr) << dump(p.errors);
}

TEST(ParseWorkload, WithAutoscalingReplicasDefaultToMinReplicas) {
  auto p = parse_spec(
      "{autoscaling: {enabled: true}, workerGroups: [{name: w, minReplicas: 1, maxReplicas: 5}, "
      "{name: v, replicas: 3, minReplicas: 0, maxReplicas: 4}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_TRUE(p.errors.empty()) << dump(p.errors);
  const auto& g = p.workload.spec.worker_groups;
  EXPECT_EQ(g[0].replicas, 1);
  EXPECT_EQ(g[0].min_replicas, 1);
  EXPECT_EQ(g[0].max_replicas, 5);
  EXPECT_EQ(g[1].replicas, 3);
  EXPECT_EQ(g[1].min_replicas, 0);
  EXPECT_EQ(g[1].max_replicas, 4);
}

TEST(ParseWorkload, AutoscalingDefaultsAreTheSdkValues) {
  for (const char* spec : {"{}", "{autoscaling: {enabled: false}}"}) {
    auto p = parse_spec(spec);
    ASSERT_TRUE(p.ok()) << dump(p.errors);
    const AutoscalingSpec& a = p.workload.spec.autoscaling;
    EXPECT_FALSE(a.enabled);
    EXPECT_EQ(a.idle_timeout_seconds, 60);
    EXPECT_EQ(a.upscaling_mode, "Default");
    EXPECT_FALSE(a.elastic_job);
    EXPECT_EQ(q(a.resources.requests, "cpu"), "500m");
    EXPECT_EQ(q(a.resources.limits, "cpu"), "500m");
    EXPECT_EQ(q(a.resources.requests, "memory"), "512Mi");
    EXPECT_EQ(q(a.resources.limits, "memory"), "512Mi");
  }
  auto p = parse_spec(
      "{autoscaling: {enabled: true, idleTimeoutSeconds: 0, upscalingMode: Conservative, elasticJob: true, "
      "resources: {limits: {cpu: 250m}, requests: {memory: 1Gi}}}, "
      "workerGroups: [{name: w, minReplicas: 0, maxReplicas: 2}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const AutoscalingSpec& a = p.workload.spec.autoscaling;
  EXPECT_TRUE(a.enabled);
  EXPECT_EQ(a.idle_timeout_seconds, 0);
  EXPECT_EQ(a.upscaling_mode, "Conservative");
  EXPECT_TRUE(a.elastic_job);
  // One-sided values are completed as for the Ray containers (apply_resource_defaults).
  EXPECT_EQ(q(a.resources.requests, "cpu"), "250m");
  EXPECT_EQ(q(a.resources.limits, "cpu"), "250m");
  EXPECT_EQ(q(a.resources.requests, "memory"), "1Gi");
  EXPECT_EQ(q(a.resources.limits, "memory"), "1Gi");
}

TEST(ParseWorkload, ExtendedResourceMappingIsReadBeforeTheResources) {
  auto p = parse_spec(
      "{head: {resources: {limits: {example.com/fpga: 1}}}, extendedResourceMapping: {example.com/fpga: FPGA}}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const auto& m = p.workload.spec.resource_mapping;
  ASSERT_EQ(m.size(), 9u);
  EXPECT_EQ(m.back().kubernetes_name, "example.com/fpga");
  EXPECT_EQ(m.back().ray_name, "FPGA");
  EXPECT_EQ(q(p.workload.spec.head.resources.requests, "example.com/fpga"), "1");
  EXPECT_EQ(parse_spec("{}").workload.spec.resource_mapping.size(), 8u);
}

TEST(ParseWorkload, NewScalarFields) {
  auto p = parse_spec("{usageStats: true, odhTrustedCABundle: true, suspend: true}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_TRUE(p.workload.spec.usage_stats);
  EXPECT_TRUE(p.workload.spec.odh_trusted_ca_bundle);
  EXPECT_TRUE(p.workload.spec.suspend);
  auto d = parse_spec("{}");
  EXPECT_FALSE(d.workload.spec.usage_stats);
  EXPECT_FALSE(d.workload.spec.odh_trusted_ca_bundle);
  EXPECT_FALSE(d.workload.spec.suspend);
  EXPECT_FALSE(d.workload.spec.gcs_fault_tolerance);
  expect_error(parse_spec("{suspend: 'yes'}"), "spec.suspend", "schema:type");
  expect_error(parse_spec("{usageStats: 1}"), "spec.usageStats", "schema:type");
  expect_error(parse_spec("{odhTrustedCABundle: 'true'}"), "spec.odhTrustedCABundle", "schema:type");
}

TEST(ParseWorkload, RayStartParamsExtras) {
  auto p = parse_spec(
      "{head: {rayStartParams: {object-store-memory: '100000000', include-dashboard: 'true'}}, "
      "workerGroups: [{name: w, rayStartParams: {object-store-memory: '200000000'}}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const auto& h = p.workload.spec.head.ray_start_params;
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h.at("object-store-memory"), "100000000");
  EXPECT_EQ(h.at("include-dashboard"), "true");
  EXPECT_EQ(p.workload.spec.worker_groups[0].ray_start_params.at("object-store-memory"), "200000000");
}

TEST(ParseWorkload, GcsFaultTolerance) {
  auto p = parse_spec(
      "{gcsFaultTolerance: {redisAddress: 'redis:6379', redisPassword: {name: redis-secret, key: password}, "
      "externalStorageNamespace: ns1}}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const auto& ft = p.workload.spec.gcs_fault_tolerance;
  ASSERT_TRUE(ft);
  EXPECT_EQ(ft->redis_address, "redis:6379");
  ASSERT_TRUE(ft->redis_password);
  EXPECT_EQ(ft->redis_password->name, "redis-secret");
  EXPECT_EQ(ft->redis_password->key, "password");
  EXPECT_EQ(ft->external_storage_namespace, "ns1");
  auto bare = parse_spec("{gcsFaultTolerance: {redisAddress: 'redis:6379'}}");
  ASSERT_TRUE(bare.ok()) << dump(bare.errors);
  EXPECT_FALSE(bare.workload.spec.gcs_fault_tolerance->redis_password);
}

// One failing case per check.

TEST(ParseWorkloadChecks, UnknownField) {
  expect_error(parse_spec("{workers: 2}"), "spec.workers", "schema:unknownField");
  expect_error(parse_spec("{head: {resources: {request: {cpu: 1}}}}"), "spec.head.resources.request",
               "schema:unknownField");
  expect_error(parse_spec("{queue: {name: q}}"), "spec.queue.name", "schema:unknownField");
}

TEST(ParseWorkloadChecks, WrongTypes) {
  expect_error(parse_spec("{workerGroups: [{name: w, replicas: '2'}]}"), "spec.workerGroups[0].replicas",
               "schema:type");
  expect_error(parse_spec("{appWrapper: 'true'}"), "spec.appWrapper", "schema:type");
  expect_error(parse_spec("{labels: {team: 1}}"), "spec.labels.team", "schema:type");
  expect_error(parse_spec("{workerGroups: {name: w}}"), "spec.workerGroups", "schema:type");
  expect_error(parse_spec("[]"), "spec", "schema:type");
  expect_error(parse_spec("{head: {resources: {limits: {cpu: 1.5}}}}"), "spec.head.resources.limits.cpu",
               "schema:type");
}

TEST(ParseWorkloadChecks, QuantityThatDoesNotParse) {
  expect_error(parse_spec("{workerGroups: [{name: w, resources: {limits: {memory: 6GG}}}]}"),
               "spec.workerGroups[0].resources.limits.memory", "Quantity");
}

TEST(ParseWorkloadChecks, NegativeQuantity) {
  expect_error(parse_spec("{head: {resources: {requests: {cpu: '-1'}}}}"), "spec.head.resources.requests.cpu",
               "NonNegativeQuantity");
}

TEST(ParseWorkloadChecks, DuplicateWorkerGroupNames) {
  expect_error(parse_spec("{workerGroups: [{name: w}, {name: v}, {name: w}]}"), "spec.workerGroups[2].name",
               "UniqueGroupName");
}

TEST(ParseWorkloadChecks, WorkerGroupNameIsADns1123Label) {
  expect_error(parse_spec("{workerGroups: [{name: Big_Workers}]}"), "spec.workerGroups[0].name", "DNS1123Label");
  expect_error(parse_spec("{workerGroups: [{name: head}]}"), "spec.workerGroups[0].name", "ReservedGroupName");
  expect_error(parse_spec("{workerGroups: [{replicas: 1}]}"), "spec.workerGroups[0].name", "schema:required");
}

TEST(ParseWorkloadChecks, NegativeReplicas) {
  expect_error(parse_spec("{workerGroups: [{name: w, replicas: -1}]}"), "spec.workerGroups[0].replicas",
               "schema:minimum");
}

TEST(ParseWorkloadChecks, MinWithinReplicasWithinMax) {
  const std::string on = "{autoscaling: {enabled: true}, workerGroups: [";
  expect_error(parse_spec(on + "{name: w, replicas: 1, minReplicas: 2, maxReplicas: 3}]}"),
               "spec.workerGroups[0].minReplicas", "ReplicasWithinBounds");
  expect_error(parse_spec(on + "{name: w, replicas: 4, minReplicas: 0, maxReplicas: 3}]}"),
               "spec.workerGroups[0].maxReplicas", "ReplicasWithinBounds");
  expect_error(parse_spec(on + "{name: w, minReplicas: 3, maxReplicas: 2}]}"), "spec.workerGroups[0].maxReplicas",
               "ReplicasWithinBounds");
  // Without autoscaling the bounds are not used, so they cannot be out of bounds: a warning only.
  auto off = parse_spec("{workerGroups: [{name: w, replicas: 1, minReplicas: 2, maxReplicas: 3}]}");
  EXPECT_TRUE(off.ok()) << dump(off.errors);
  EXPECT_NE(finding(off.errors, "spec.workerGroups[0].minReplicas", "ReplicaBoundsIgnored"), nullptr)
      << dump(off.errors);
}

TEST(ParseWorkloadChecks, AutoscalingNeedsBothBoundsOnEveryGroup) {
  expect_error(parse_spec("{autoscaling: {enabled: true}, workerGroups: [{name: w, minReplicas: 1, maxReplicas: 2}, "
                          "{name: v, replicas: 2, maxReplicas: 3}]}"),
               "spec.workerGroups[1]", "AutoscalingReplicaBounds");
  expect_error(parse_spec("{autoscaling: {enabled: true}, workerGroups: [{name: w, minReplicas: 1}]}"),
               "spec.workerGroups[0]", "AutoscalingReplicaBounds");
  expect_error(parse_spec("{autoscaling: {enabled: true}}"), "spec.workerGroups", "AutoscalingReplicaBounds");
  expect_error(parse_spec("{autoscaling: {enabled: true}, workerGroups: []}"), "spec.workerGroups",
               "AutoscalingReplicaBounds");
}

TEST(ParseWorkloadChecks, AutoscalingFields) {
  expect_error(parse_spec("{autoscaling: {upscalingMode: Fast}}"), "spec.autoscaling.upscalingMode", "schema:enum");
  expect_error(parse_spec("{autoscaling: {idleTimeoutSeconds: -1}}"), "spec.autoscaling.idleTimeoutSeconds",
               "schema:minimum");
  expect_error(parse_spec("{autoscaling: {enabled: 'true'}}"), "spec.autoscaling.enabled", "schema:type");
  expect_error(parse_spec("{autoscaling: {minReplicas: 1}}"), "spec.autoscaling.minReplicas", "schema:unknownField");
  expect_error(parse_spec("{autoscaling: {resources: {limits: {nvidia.com/gpu: 1}}}}"),
               "spec.autoscaling.resources.limits[nvidia.com/gpu]", "ExtendedResourceMapping");
  expect_error(parse_spec("{autoscaling: {resources: {requests: {cpu: 2}, limits: {cpu: 1}}}}"),
               "spec.autoscaling.resources.requests.cpu", "RequestsWithinLimits");
}

TEST(ParseWorkloadWarnings, AutoscalingSettingsWithoutAutoscaling) {
  auto p = parse_spec("{autoscaling: {elasticJob: true, idleTimeoutSeconds: 30}}");
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  const FieldError* e = finding(p.errors, "spec.autoscaling.elasticJob", "ElasticJobWithoutAutoscaling");
  ASSERT_NE(e, nullptr) << dump(p.errors);
  EXPECT_EQ(e->severity, Severity::Warning);
  const FieldError* i = finding(p.errors, "spec.autoscaling.idleTimeoutSeconds", "AutoscalingSettingsIgnored");
  ASSERT_NE(i, nullptr) << dump(p.errors);
  EXPECT_EQ(i->severity, Severity::Warning);
}

TEST(ParseWorkloadChecks, ElasticJob) {
  expect_error(parse_spec("{annotations: {kueue.x-k8s.io/elastic-job: 'true'}}"),
               "spec.annotations[kueue.x-k8s.io/elastic-job]", "ReservedAnnotation");
  auto p = parse_spec("{annotations: {kueue.x-k8s.io/elastic-job: 'true'}}");
  const FieldError* e = finding(p.errors, "spec.annotations[kueue.x-k8s.io/elastic-job]");
  ASSERT_NE(e, nullptr) << dump(p.errors);
  EXPECT_NE(e->reason.find("spec.autoscaling.elasticJob"), std::string::npos) << e->reason;
  expect_error(parse_spec("{appWrapper: true, autoscaling: {enabled: true, elasticJob: true}, "
                          "workerGroups: [{name: w, minReplicas: 0, maxReplicas: 2}]}"),
               "spec.autoscaling.elasticJob", "ElasticJobInAppWrapper");
}

TEST(ParseWorkloadChecks, ExtendedResourceMustBeInTheMapping) {
  expect_error(parse_spec("{head: {resources: {limits: {example.com/fpga: 1}}}}"),
               "spec.head.resources.limits[example.com/fpga]", "ExtendedResourceMapping");
  // The merged mapping is used, for workers too.
  expect_error(parse_spec("{extendedResourceMapping: {example.com/fpga: FPGA}, "
                          "workerGroups: [{name: w, resources: {limits: {example.com/asic: 1}}}]}"),
               "spec.workerGroups[0].resources.limits[example.com/asic]", "ExtendedResourceMapping");
}

TEST(ParseWorkloadChecks, ExtendedResourceMapping) {
  expect_error(parse_spec("{extendedResourceMapping: {intel.com/gpu: TPU}}"),
               "spec.extendedResourceMapping[intel.com/gpu]", "OverwriteDefaultResourceMapping");
  expect_error(parse_spec("{extendedResourceMapping: {fpga: FPGA}}"), "spec.extendedResourceMapping.fpga",
               "ExtendedResourceName");
  expect_error(parse_spec("{extendedResourceMapping: {example.com/fpga: ''}}"),
               "spec.extendedResourceMapping[example.com/fpga]", "schema:minLength");
  expect_error(parse_spec("{overwriteDefaultResourceMapping: 1}"), "spec.overwriteDefaultResourceMapping",
               "schema:type");
  auto p = parse_spec("{extendedResourceMapping: {intel.com/gpu: TPU}, overwriteDefaultResourceMapping: true}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const FieldError* w =
      finding(p.errors, "spec.extendedResourceMapping[intel.com/gpu]", "OverwriteDefaultResourceMapping");
  ASSERT_NE(w, nullptr) << dump(p.errors);
  EXPECT_EQ(w->severity, Severity::Warning);
  EXPECT_EQ(ray_resource_name("intel.com/gpu", p.workload.spec.resource_mapping), "TPU");
}

TEST(ParseWorkloadChecks, RayStartParams) {
  for (const char* key : {"block", "dashboard-host", "num-cpus", "num-gpus", "resources"})
    expect_error(parse_spec(std::string("{head: {rayStartParams: {") + key + ": 'x'}}}"),
                 std::string("spec.head.rayStartParams[") + key + "]", "RayStartParamReserved");
  for (const char* key : {"block", "num-cpus", "num-gpus", "resources"})
    expect_error(parse_spec(std::string("{workerGroups: [{name: w, rayStartParams: {") + key + ": 'x'}}]}"),
                 std::string("spec.workerGroups[0].rayStartParams[") + key + "]", "RayStartParamReserved");
  expect_error(parse_spec("{head: {rayStartParams: {object-store-memory: 100000000}}}"),
               "spec.head.rayStartParams[object-store-memory]", "schema:type");
  expect_error(parse_spec("{head: {rayStartParams: {labels: 'a=b'}}}"), "spec.head.rayStartParams[labels]",
               "RayStartParamsLabels");
  expect_error(parse_spec("{head: {rayStartParams: {'--bad key': x}}}"), "spec.head.rayStartParams[--bad key]",
               "RayStartParamKey");
  expect_error(parse_spec("{head: {rayStartParams: [x]}}"), "spec.head.rayStartParams", "schema:type");
}

TEST(ParseWorkloadChecks, GcsFaultToleranceFields) {
  expect_error(parse_spec("{gcsFaultTolerance: {}}"), "spec.gcsFaultTolerance.redisAddress", "schema:required");
  expect_error(parse_spec("{gcsFaultTolerance: {redisAddress: ''}}"), "spec.gcsFaultTolerance.redisAddress",
               "schema:minLength");
  expect_error(parse_spec("{gcsFaultTolerance: {redisAddress: r, redisPassword: {name: s}}}"),
               "spec.gcsFaultTolerance.redisPassword.key", "schema:required");
  expect_error(parse_spec("{gcsFaultTolerance: {redisAddress: r, redisPassword: {key: k}}}"),
               "spec.gcsFaultTolerance.redisPassword.name", "schema:required");
  expect_error(parse_spec("{gcsFaultTolerance: {redisAddress: r, redisUsername: u}}"),
               "spec.gcsFaultTolerance.redisUsername", "schema:unknownField");
}

TEST(ParseWorkloadChecks, SettingsKubeRayRefusesNextToGcsFaultTolerance) {
  const std::string ft = "gcsFaultTolerance: {redisAddress: 'redis:6379'}, ";
  expect_error(parse_spec("{" + ft + "env: [{name: A, value: '1'}, {name: RAY_REDIS_ADDRESS, value: 'r:1'}]}"),
               "spec.env[1].name", "GcsFTForbiddenSetting");
  expect_error(parse_spec("{" + ft + "env: [{name: REDIS_PASSWORD, value: p}]}"), "spec.env[0].name",
               "GcsFTForbiddenSetting");
  expect_error(parse_spec("{" + ft + "annotations: {ray.io/ft-enabled: 'true'}}"),
               "spec.annotations[ray.io/ft-enabled]", "GcsFTAnnotationConflict");
  expect_error(parse_spec("{" + ft + "annotations: {ray.io/external-storage-namespace: x}}"),
               "spec.annotations[ray.io/external-storage-namespace]", "GcsFTForbiddenSetting");
  expect_error(parse_spec("{" + ft + "head: {rayStartParams: {redis-password: p}}}"),
               "spec.head.rayStartParams[redis-password]", "GcsFTForbiddenSetting");
  // Without the options: RAY_REDIS_ADDRESS alone would switch fault tolerance on half-configured.
  expect_error(parse_spec("{env: [{name: RAY_REDIS_ADDRESS, value: 'r:1'}]}"), "spec.env[0].name",
               "RedisAddressNeedsGcsFT");
  EXPECT_TRUE(
      parse_spec("{env: [{name: RAY_REDIS_ADDRESS, value: 'r:1'}], annotations: {ray.io/ft-enabled: 'true'}}").ok())
      << "the annotation-driven (older) fault tolerance is still KubeRay's to judge";
  EXPECT_TRUE(
      parse_spec("{head: {rayStartParams: {redis-password: p}}, annotations: {ray.io/ft-enabled: 'true'}}").ok());
  expect_error(parse_spec("{env: [{name: REDIS_USERNAME, value: u}]}"), "spec.env[0].name", "RedisUsername");
  expect_error(parse_spec("{head: {rayStartParams: {redis-username: u}}}"), "spec.head.rayStartParams[redis-username]",
               "RedisUsername");
}

TEST(ParseWorkloadChecks, UsageStatsEnvVarIsTheOperators) {
  expect_error(parse_spec("{env: [{name: RAY_USAGE_STATS_ENABLED, value: '1'}]}"), "spec.env[0].name",
               "ReservedEnvVar");
  // The index is the one in the spec, even when an earlier entry is malformed.
  auto p = parse_spec("{env: [{value: x}, {name: RAY_USAGE_STATS_ENABLED, value: '1'}]}");
  expect_error(p, "spec.env[1].name", "ReservedEnvVar");
  const FieldError* e = finding(p.errors, "spec.env[1].name", "ReservedEnvVar");
  ASSERT_NE(e, nullptr) << dump(p.errors);
  EXPECT_NE(e->reason.find("spec.usageStats"), std::string::npos) << e->reason;
}

TEST(ParseWorkloadChecks, OdhCaBundleNamesAndPathsAreReserved) {
  const std::string on = "{odhTrustedCABundle: true, ";
  expect_error(parse_spec(on + "volumes: [{name: data, emptyDir: {}}, {name: odh-ca-cert, emptyDir: {}}]}"),
               "spec.volumes[1].name", "ReservedVolumeName");
  expect_error(parse_spec(on + "volumes: [{name: odh-trusted-ca-cert, emptyDir: {}}]}"), "spec.volumes[0].name",
               "ReservedVolumeName");
  expect_error(parse_spec(on + "volumes: [{name: d, emptyDir: {}}], "
                               "volumeMounts: [{name: d, mountPath: /etc/ssl/certs/odh-ca-bundle.crt}]}"),
               "spec.volumeMounts[0].mountPath", "ReservedMountPath");
  // Without the bundle the names are free; with it, the bundle volumes may be mounted elsewhere too.
  EXPECT_TRUE(parse_spec("{volumes: [{name: odh-ca-cert, emptyDir: {}}], "
                         "volumeMounts: [{name: odh-ca-cert, mountPath: /etc/ssl/certs/odh-ca-bundle.crt}]}")
                  .ok());
  auto p = parse_spec(on + "volumeMounts: [{name: odh-ca-cert, mountPath: /certs}]}");
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  expect_error(parse_spec("{volumeMounts: [{name: odh-ca-cert, mountPath: /certs}]}"), "spec.volumeMounts[0].name",
               "VolumeMountRefersToVolume");
}

TEST(ParseWorkloadChecks, ExtendedResourceIsWhole) {
  expect_error(parse_spec("{workerGroups: [{name: w, resources: {limits: {nvidia.com/gpu: '0.5'}}}]}"),
               "spec.workerGroups[0].resources.limits[nvidia.com/gpu]", "ExtendedResourceInteger");
}

TEST(ParseWorkloadChecks, ExtendedResourceRequestsEqualLimits) {
  expect_error(
      parse_spec(
          "{workerGroups: [{name: w, resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 2}}}]}"),
      "spec.workerGroups[0].resources.requests[nvidia.com/gpu]", "ExtendedResourceRequestsEqualLimits");
}

TEST(ParseWorkloadChecks, RequestsWithinLimits) {
  expect_error(parse_spec("{head: {resources: {requests: {memory: 9G}, limits: {memory: 8G}}}}"),
               "spec.head.resources.requests.memory", "RequestsWithinLimits");
}

TEST(ParseWorkloadChecks, UserLabelMayNotReplaceOperatorLabels) {
  expect_error(parse_spec("{labels: {controller-tools.k8s.io: '2.0'}}"), "spec.labels[controller-tools.k8s.io]",
               "ReservedLabel");
  expect_error(parse_spec("{labels: {kueue.x-k8s.io/priority-class: p}}"), "spec.labels[kueue.x-k8s.io/priority-class]",
               "ReservedLabel");
  expect_error(parse_spec("{labels: {ray.io/cluster: other}}"), "spec.labels[ray.io/cluster]", "ReservedLabel");
  expect_error(parse_spec("{labels: {kueue.x-k8s.io/queue-name: q}}"), "spec.labels[kueue.x-k8s.io/queue-name]",
               "ReservedLabel");
  expect_error(parse_spec("{labels: {codeflare.dev/workload: x}}"), "spec.labels[codeflare.dev/workload]",
               "ReservedLabel");
}

TEST(ParseWorkloadChecks, LabelAndAnnotationGrammar) {
  expect_error(parse_spec("{labels: {team: 'a b'}}"), "spec.labels.team", "LabelValue");
  expect_error(parse_spec("{annotations: {'bad key!': x}}"), "spec.annotations[bad key!]", "AnnotationKey");
}

TEST(ParseWorkloadChecks, EnvNamesUniqueAndValueOrValueFrom) {
  expect_error(parse_spec("{env: [{name: A, value: '1'}, {name: A, value: '2'}]}"), "spec.env[1].name", "Duplicate");
  expect_error(parse_spec("{env: [{name: A, value: '1', valueFrom: {fieldRef: {fieldPath: metadata.name}}}]}"),
               "spec.env[0].valueFrom", "EnvValueOrValueFrom");
  expect_error(parse_spec("{env: [{value: '1'}]}"), "spec.env[0].name", "schema:required");
}

TEST(ParseWorkloadChecks, VolumesAndMounts) {
  expect_error(parse_spec("{volumes: [{name: data, emptyDir: {}}, {name: data, emptyDir: {}}]}"),
               "spec.volumes[1].name", "Duplicate");
  expect_error(parse_spec("{volumes: [{emptyDir: {}}]}"), "spec.volumes[0].name", "schema:required");
  expect_error(parse_spec("{volumeMounts: [{name: data, mountPath: /data}]}"), "spec.volumeMounts[0].name",
               "VolumeMountRefersToVolume");
  expect_error(parse_spec("{volumes: [{name: d, emptyDir: {}}], volumeMounts: [{name: d, mountPath: /a}, "
                          "{name: d, mountPath: /a}]}"),
               "spec.volumeMounts[1].mountPath", "Duplicate");
  expect_error(parse_spec("{volumes: [{name: d, emptyDir: {}}], volumeMounts: [{name: d, mountPath: /a, ro: true}]}"),
               "spec.volumeMounts[0].ro", "schema:unknownField");
}

TEST(ParseWorkloadChecks, TolerationsAndPullSecrets) {
  expect_error(parse_spec("{head: {tolerations: [{key: k, tolerationSeconds: soon}]}}"),
               "spec.head.tolerations[0].tolerationSeconds", "schema:type");
  expect_error(parse_spec("{workerGroups: [{name: w, tolerations: [{key: k, operator: Matches}]}]}"),
               "spec.workerGroups[0].tolerations[0].operator", "schema:enum");
  expect_error(parse_spec("{imagePullSecrets: [{}]}"), "spec.imagePullSecrets[0].name", "schema:required");
}

TEST(ParseWorkloadChecks, QueueNames) {
  expect_error(parse_spec("{queue: {localQueue: Team_A}}"), "spec.queue.localQueue", "DNS1123Subdomain");
}

TEST(ParseWorkloadChecks, RayVersion) {
  expect_error(parse_spec("{rayVersion: latest}"), "spec.rayVersion", "RayVersion");
}

TEST(ParseWorkloadChecks, NameFitsARayCluster) {
  expect_error(parse_spec("{}", std::string(54, 'a')), "metadata.name", "MaxRayClusterNameLength");
  expect_error(parse_spec("{}", "1-cluster"), "metadata.name", "DNS1035Label");
}

TEST(ParseWorkloadChecks, AppWrapperHoldsAtMostSevenWorkerGroups) {
  std::string groups;
  for (int i = 0; i < 8; ++i) groups += (i ? ", " : "") + std::string("{name: g") + std::to_string(i) + "}";
  expect_error(parse_spec("{appWrapper: true, workerGroups: [" + groups + "]}"), "spec.workerGroups",
               "AppWrapperMaxPodSets");
  EXPECT_TRUE(parse_spec("{appWrapper: false, workerGroups: [" + groups + "]}").ok());
}

TEST(ParseWorkloadChecks, MissingMetadata) {
  json::Document d = yaml_doc("spec: {}\n");
  auto p = parse_workload(d);
  EXPECT_FALSE(p.ok());
  // The finding names what is missing (the name), not "metadata with name and namespace": the namespace comes
  // from -n or the context, as kubectl gives it.
  expect_error(p, "metadata.name", "schema:required");
  EXPECT_EQ(p.errors.size(), 1u) << dump(p.errors);
  json::Document wrong = yaml_doc("metadata: [a]\nspec: {}\n");
  expect_error(parse_workload(wrong), "metadata", "schema:type");
}

TEST(ParseWorkloadWarnings, ImageVersionMismatchIsAWarning) {
  auto p = parse_spec("{rayVersion: '2.52.1', image: 'rayproject/ray:2.46.0'}");
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  const FieldError* img = finding(p.errors, "spec.image", "RayVersionMatchesImage");
  ASSERT_NE(img, nullptr) << dump(p.errors);
  EXPECT_EQ(img->severity, Severity::Warning);
}

// `memory: 8` meant as 8 GB would give a Ray container 8 bytes: an error, not a warning that lets the cluster be made.
TEST(ParseWorkloadChecks, BareMemoryNumberBelow1MiIsAnError) {
  auto p = parse_spec("{workerGroups: [{name: w, resources: {requests: {memory: 8}, limits: {memory: 8G}}}]}");
  expect_error(p, "spec.workerGroups[0].resources.requests.memory", "MemoryUnits");
  EXPECT_NE(finding(p.errors, "spec.workerGroups[0].resources.requests.memory")->reason.find("\"8G\""),
            std::string::npos)
      << dump(p.errors);
  expect_error(parse_spec("{head: {resources: {limits: {memory: 512}}}}"), "spec.head.resources.limits.memory",
               "MemoryUnits");
  // A unit, or 1Mi and above, is taken as written.
  EXPECT_TRUE(parse_spec("{head: {resources: {requests: {memory: 512Ki}, limits: {memory: 1048576}}}}").ok());
}

// Milli-units of memory ("4096m", 4.096 bytes) are a slip for M or Mi, whatever the amount.
TEST(ParseWorkloadChecks, MemoryInMilliUnitsIsAnError) {
  auto p = parse_spec("{workerGroups: [{name: w, resources: {requests: {memory: 4096m}, limits: {memory: 8G}}}]}");
  expect_error(p, "spec.workerGroups[0].resources.requests.memory", "MemoryUnits");
  EXPECT_NE(finding(p.errors, "spec.workerGroups[0].resources.requests.memory")->reason.find("\"4096Mi\""),
            std::string::npos)
      << dump(p.errors);
  expect_error(parse_spec("{head: {resources: {limits: {memory: 20000000000m}}}}"), "spec.head.resources.limits.memory",
               "MemoryUnits");
  EXPECT_TRUE(parse_spec("{head: {resources: {requests: {memory: 4096M}, limits: {memory: 4096Mi}}}}").ok());
}

// Only a limit written: the request copies it (as Kubernetes defaults it), and the one mistake is reported once, at
// the field the user wrote.
TEST(ParseWorkloadChecks, BareMemoryLimitIsReportedOnlyWhereItIsWritten) {
  auto p = parse_spec("{workerGroups: [{name: w, resources: {limits: {cpu: '1', memory: 8}}}]}");
  expect_error(p, "spec.workerGroups[0].resources.limits.memory", "MemoryUnits");
  EXPECT_EQ(finding(p.errors, "spec.workerGroups[0].resources.requests.memory"), nullptr) << dump(p.errors);
  EXPECT_EQ(p.errors.size(), 1u) << dump(p.errors);
  // Both written: both are the user's, both are reported.
  auto both = parse_spec("{workerGroups: [{name: w, resources: {requests: {memory: 8}, limits: {memory: 8}}}]}");
  expect_error(both, "spec.workerGroups[0].resources.requests.memory", "MemoryUnits");
  expect_error(both, "spec.workerGroups[0].resources.limits.memory", "MemoryUnits");
}

static ParsedWorkload parse_annotated(const std::string& ignore, const std::string& spec) {
  json::Document d = yaml_doc(
      "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: demo\n"
      "  annotations: {codeflare.dev/ignore-checks: '" +
      ignore + "'}\nspec: " + spec + "\n");
  set_identity(d);
  return parse_workload(d);
}

TEST(ParseWorkloadChecks, IgnoreChecksAnnotationTurnsOffOnlyTheOperatorsOwnChecks) {
  const std::string tiny = "{image: 'rayproject/ray:2.46.0', head: {resources: {limits: {memory: 8}}}}";
  auto p = parse_annotated("MemoryUnits", tiny);
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_EQ(finding(p.errors, "spec.head.resources.limits.memory"), nullptr) << dump(p.errors);
  EXPECT_NE(finding(p.errors, "spec.image", "RayVersionMatchesImage"), nullptr) << dump(p.errors);
  p = parse_annotated(" MemoryUnits , RayVersionMatchesImage ", tiny);
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_TRUE(p.errors.empty()) << dump(p.errors);
  EXPECT_EQ(p.workload.ignored_checks, (std::vector<std::string>{"MemoryUnits", "RayVersionMatchesImage"}));
  // A rule a cluster enforces cannot be waved through.
  expect_error(parse_annotated("MemoryUnits,RequestsWithinLimits", tiny),
               "metadata.annotations[codeflare.dev/ignore-checks]", "IgnoreChecks");
}

TEST(ParseWorkloadChecks, GarbageNeverCrashes) {
  for (const char* spec :
       {"{head: 3}",
        "{head: {resources: []}}",
        "{head: {resources: {limits: []}}}",
        "{workerGroups: [1, null, 'x']}",
        "{env: [1]}",
        "{env: {}}",
        "{volumes: [[]]}",
        "{volumeMounts: 'x'}",
        "{labels: []}",
        "{annotations: 1}",
        "{queue: []}",
        "{imagePullSecrets: [1]}",
        "{head: {tolerations: [1]}}",
        "{image: 1}",
        "null",
        "{workerGroups: [{name: w, replicas: 99999999999}]}",
        "{autoscaling: 1}",
        "{autoscaling: {resources: 1}}",
        "{gcsFaultTolerance: []}",
        "{gcsFaultTolerance: {redisAddress: r, redisPassword: 1}}",
        "{extendedResourceMapping: 1}",
        "{extendedResourceMapping: {example.com/x: {}}}",
        "{head: {rayStartParams: 1}}",
        "{workerGroups: [{name: w, rayStartParams: {a: []}}]}",
        "{usageStats: null, suspend: []}",
        "{autoscaling: {enabled: true}, workerGroups: [{name: w, minReplicas: 99999999999, maxReplicas: -1}]}",
        "{odhTrustedCABundle: true, volumes: [{name: 1}], volumeMounts: [{mountPath: 2}], env: [{name: 3}]}"}) {
    auto p = parse_spec(spec);
    EXPECT_FALSE(p.ok() && std::string(spec) != "null") << spec;
    for (const auto& e : p.errors) EXPECT_TRUE(e.path.starts_with("spec")) << spec << ": " << e.path;
  }
}

TEST(ParseWorkload, UnknownTopLevelAndMetadataFieldsAreReported) {
  json::Document w = sample("cfw_cpu.yaml");
  auto& a = w.GetAllocator();
  w.AddMember("foo", 1, a);
  w["metadata"].AddMember("bogus", 1, a);
  auto p = parse_workload(w);
  bool top = false, meta = false;
  for (const auto& e : p.errors) {
    top = top || (e.path == "foo" && e.rule == "schema:unknownField");
    meta = meta || (e.path == "metadata.bogus" && e.rule == "schema:unknownField");
  }
  EXPECT_TRUE(top && meta) << dump(p.errors);
}

// The apiserver prunes null members of a workload's spec (no field is nullable), so a file with them is read as the
// operator will read the stored object: as if they were absent. A volume passes its source through unpruned.
TEST(ParseWorkload, NullMembersOfTheSpecAreAbsentAsAfterTheApiserversPruning) {
  auto p = parse_spec(
      "{labels: {team: null, keep: x}, rayVersion: null, workerGroups: [{name: w, replicas: 1,"
      " resources: {requests: {cpu: null, memory: 1Gi}, limits: {memory: 1Gi}}}],"
      " volumes: [{name: data, emptyDir: {}}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_EQ(p.workload.spec.labels.count("team"), 0u);
  EXPECT_EQ(p.workload.spec.labels.at("keep"), "x");
  EXPECT_FALSE(p.workload.spec.ray_version.empty()) << "a null rayVersion takes the default";
  // A null list item is not pruned: it is still an error.
  EXPECT_FALSE(parse_spec("{workerGroups: [null]}").ok());
}

// The commonest YAML slips get a hint that says what to write.
TEST(ParseWorkloadChecks, TypeErrorsOfCommonSlipsSayWhatToWrite) {
  auto reason = [](const ParsedWorkload& p, const std::string& path) {
    const FieldError* e = finding(p.errors, path, "schema:type");
    return e ? e->reason : "<no schema:type finding at " + path + ">\n" + dump(p.errors);
  };
  auto p = parse_spec(
      "{head: {resources: {limits: {cpu: 0.5, memory: 1.5}}}, env: [{name: F, value: y}, {name: N, "
      "value: 3}]}");
  EXPECT_NE(reason(p, "spec.head.resources.limits.cpu").find("write \"500m\" for 0.5 CPU"), std::string::npos);
  EXPECT_NE(reason(p, "spec.head.resources.limits.memory").find("write \"1.5G\""), std::string::npos);
  EXPECT_NE(reason(p, "spec.env[0].value").find("quote it"), std::string::npos);
  EXPECT_NE(reason(p, "spec.env[1].value").find("quote it: \"3\""), std::string::npos);
}

// A name of another type (`name: !!int 5`, `name: 5`) is refused as a type error; "is required" would send the user
// looking for a field they wrote.
TEST(ParseWorkloadMetadata, NameOfAnotherTypeIsATypeErrorNotAMissingName) {
  for (const char* name : {"!!int 5", "5", "[a]"}) {
    json::Document d = yaml_doc(std::string("apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\n") +
                                "metadata: {name: " + name + "}\nspec: {}\n");
    set_identity(d);
    auto p = parse_workload(d);
    expect_error(p, "metadata.name", "schema:type");
    EXPECT_EQ(finding(p.errors, "metadata.name", "schema:required"), nullptr) << name << ": " << dump(p.errors);
  }
}
