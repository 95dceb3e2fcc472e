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

TEST(ParseWorkload, ReplicaBoundsDefaultToReplicas) {
  auto p =
      parse_spec("{workerGroups: [{name: w, replicas: 3}, {name: v, replicas: 2, minReplicas: 0, maxReplicas: 5}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  const auto& g = p.workload.spec.worker_groups;
  EXPECT_EQ(g[0].min_replicas, 3);
  EXPECT_EQ(g[0].max_replicas, 3);
  EXPECT_EQ(g[1].min_replicas, 0);
  EXPECT_EQ(g[1].max_replicas, 5);
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
  expect_error(parse_spec("{workerGroups: [{name: w, replicas: 1, minReplicas: 2, maxReplicas: 3}]}"),
               "spec.workerGroups[0].minReplicas", "ReplicasWithinBounds");
  expect_error(parse_spec("{workerGroups: [{name: w, replicas: 4, maxReplicas: 3}]}"),
               "spec.workerGroups[0].maxReplicas", "ReplicasWithinBounds");
}

TEST(ParseWorkloadChecks, ExtendedResourceMustBeInTheMapping) {
  expect_error(parse_spec("{head: {resources: {limits: {example.com/fpga: 1}}}}"),
               "spec.head.resources.limits[example.com/fpga]", "ExtendedResourceMapping");
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
  expect_error(parse_spec("{queue: {localQueue: Team_A}}"), "spec.queue.localQueue", "DNS1123Label");
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
  EXPECT_NE(finding(p.errors, "metadata"), nullptr) << dump(p.errors);
}

TEST(ParseWorkloadWarnings, BareMemoryNumberAndImageVersionMismatch) {
  auto p = parse_spec(
      "{rayVersion: '2.52.1', image: 'rayproject/ray:2.46.0', "
      "workerGroups: [{name: w, resources: {requests: {memory: 8}, limits: {memory: 8G}}}]}");
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  const FieldError* mem = finding(p.errors, "spec.workerGroups[0].resources.requests.memory", "MemoryUnits");
  ASSERT_NE(mem, nullptr) << dump(p.errors);
  EXPECT_EQ(mem->severity, Severity::Warning);
  const FieldError* img = finding(p.errors, "spec.image", "RayVersionMatchesImage");
  ASSERT_NE(img, nullptr) << dump(p.errors);
  EXPECT_EQ(img->severity, Severity::Warning);
}

TEST(ParseWorkloadChecks, GarbageNeverCrashes) {
  for (const char* spec :
       {"{head: 3}", "{head: {resources: []}}", "{head: {resources: {limits: []}}}", "{workerGroups: [1, null, 'x']}",
        "{env: [1]}", "{env: {}}", "{volumes: [[]]}", "{volumeMounts: 'x'}", "{labels: []}", "{annotations: 1}",
        "{queue: []}", "{imagePullSecrets: [1]}", "{head: {tolerations: [1]}}", "{image: 1}", "null",
        "{workerGroups: [{name: w, replicas: 99999999999}]}"}) {
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
