#include <gtest/gtest.h>

#include "parse_test_util.hpp"
#include "validation/validator.hpp"
#include "workload/build_raycluster.hpp"
#include "workload/kueue_labels.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
std::string s(const json::Value& v) {
  return v.IsString() ? v.GetString() : "<" + std::string(json::type_name(v)) + ">";
}

json::Document build(const json::Document& workload, const std::optional<std::string>& default_queue = std::nullopt) {
  auto p = parse_workload(workload);
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  auto queue = select_local_queue(p.workload.spec.queue, default_queue);
  return build_ray_cluster(p.workload, RayClusterPlacement{true, kueue_labels(queue, p.workload.spec.queue)}).to_json();
}

// The top-level RayCluster of a workload whose spec is the YAML `spec`; the parse must have no Error.
json::Document build_spec(const std::string& spec, bool top_level = true) {
  auto p = parse_spec(spec);
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  return build_ray_cluster(p.workload, RayClusterPlacement{top_level, {}}).to_json();
}

// The names of a list of {name: ...} objects, or of the members of an object, in order.
std::vector<std::string> names(const json::Value& v) {
  std::vector<std::string> out;
  if (v.IsArray())
    for (const auto& e : v.GetArray()) out.push_back(s(at(e, {"name"})));
  else if (v.IsObject())
    for (const auto& m : v.GetObject()) out.push_back(m.name.GetString());
  return out;
}

std::vector<std::string> mount_paths(const json::Value& container) {
  std::vector<std::string> out;
  if (const json::Value* m = json::find(container, "volumeMounts"))
    for (const auto& e : m->GetArray()) out.push_back(s(at(e, {"mountPath"})));
  return out;
}

// The head pod spec and the first worker pod spec of a built RayCluster.
std::vector<const json::Value*> pod_specs(const json::Value& rc) {
  return {&at(rc, {"spec", "headGroupSpec", "template", "spec"}),
          &at(rc, {"spec", "workerGroupSpecs", 0, "template", "spec"})};
}

// Validates a generated object against the upstream CRD schemas and rules; returns the findings as text.
std::string upstream_errors(const validation::SchemaSet& schemas, const json::Value& obj) {
  auto errs = validation::validate_object(schemas, obj);
  return has_errors(errs) ? dump(errs) : "";
}
}  // namespace

TEST(BuildRayCluster, CpuSampleMetadataAndOwner) {
  json::Document rc = build(sample("cfw_cpu.yaml"));
  EXPECT_EQ(s(at(rc, {"apiVersion"})), "ray.io/v1");
  EXPECT_EQ(s(at(rc, {"kind"})), "RayCluster");
  EXPECT_EQ(s(at(rc, {"metadata", "name"})), "raytest-cpu");
  EXPECT_EQ(s(at(rc, {"metadata", "namespace"})), "team-a");
  const auto& labels = at(rc, {"metadata", "labels"});
  EXPECT_EQ(s(at(labels, {"controller-tools.k8s.io"})), "1.0");
  EXPECT_EQ(s(at(labels, {"ray.io/cluster"})), "raytest-cpu");
  EXPECT_EQ(s(at(labels, {"codeflare.dev/workload"})), "raytest-cpu");
  EXPECT_FALSE(json::find(labels, "kueue.x-k8s.io/queue-name"));
  EXPECT_FALSE(json::find(labels, "kueue.x-k8s.io/priority-class"));

  const auto& refs = at(rc, {"metadata", "ownerReferences"});
  ASSERT_EQ(refs.Size(), 1u);
  EXPECT_EQ(s(at(refs, {0, "apiVersion"})), "codeflare.dev/v1alpha1");
  EXPECT_EQ(s(at(refs, {0, "kind"})), "CodeFlareWorkload");
  EXPECT_EQ(s(at(refs, {0, "name"})), "raytest-cpu");
  EXPECT_EQ(s(at(refs, {0, "uid"})), "uid-1");
  EXPECT_TRUE(at(refs, {0, "controller"}).GetBool());
  EXPECT_TRUE(at(refs, {0, "blockOwnerDeletion"}).GetBool());
}

TEST(BuildRayCluster, SpecFollowsTheSdk) {
  json::Document rc = build(sample("cfw_cpu.yaml"));
  const auto& spec = at(rc, {"spec"});
  EXPECT_EQ(s(at(spec, {"rayVersion"})), "2.52.1");
  EXPECT_FALSE(at(spec, {"enableInTreeAutoscaling"}).GetBool());
  EXPECT_EQ(s(at(spec, {"autoscalerOptions", "upscalingMode"})), "Default");
  EXPECT_EQ(at(spec, {"autoscalerOptions", "idleTimeoutSeconds"}).GetInt(), 60);
  for (const char* side : {"requests", "limits"}) {
    EXPECT_EQ(s(at(spec, {"autoscalerOptions", "resources", side, "cpu"})), "500m");
    EXPECT_EQ(s(at(spec, {"autoscalerOptions", "resources", side, "memory"})), "512Mi");
  }
  const auto& head = at(spec, {"headGroupSpec"});
  EXPECT_EQ(s(at(head, {"serviceType"})), "ClusterIP");
  EXPECT_FALSE(at(head, {"enableIngress"}).GetBool());
  const auto& params = at(head, {"rayStartParams"});
  EXPECT_EQ(params.MemberCount(), 5u);
  EXPECT_EQ(s(at(params, {"dashboard-host"})), "0.0.0.0");
  EXPECT_EQ(s(at(params, {"block"})), "true");
  EXPECT_EQ(s(at(params, {"num-cpus"})), "2");
  EXPECT_EQ(s(at(params, {"num-gpus"})), "0");
  EXPECT_EQ(s(at(params, {"resources"})), "\"{}\"");

  const auto& pod = at(head, {"template", "spec"});
  ASSERT_EQ(at(pod, {"containers"}).Size(), 1u);
  const auto& c = at(pod, {"containers", 0});
  EXPECT_EQ(s(at(c, {"name"})), "ray-head");
  EXPECT_EQ(s(at(c, {"image"})), "quay.io/rayproject/ray:2.52.1");
  EXPECT_EQ(s(at(c, {"imagePullPolicy"})), "Always");
  const auto& ports = at(c, {"ports"});
  ASSERT_EQ(ports.Size(), 4u);
  std::vector<std::pair<std::string, int>> want = {
      {"gcs", 6379}, {"dashboard", 8265}, {"client", 10001}, {"metrics", 8080}};
  for (rapidjson::SizeType i = 0; i < 4; ++i) {
    EXPECT_EQ(s(at(ports, {static_cast<int>(i), "name"})), want[i].first);
    EXPECT_EQ(at(ports, {static_cast<int>(i), "containerPort"}).GetInt(), want[i].second);
  }
  const auto& cmd = at(c, {"lifecycle", "preStop", "exec", "command"});
  ASSERT_EQ(cmd.Size(), 3u);
  EXPECT_EQ(s(cmd[0]), "/bin/sh");
  EXPECT_EQ(s(cmd[1]), "-c");
  EXPECT_EQ(s(cmd[2]), "ray stop");
  EXPECT_EQ(s(at(c, {"resources", "requests", "cpu"})), "1");
  EXPECT_EQ(s(at(c, {"resources", "limits", "cpu"})), "2");
  EXPECT_EQ(s(at(c, {"resources", "requests", "memory"})), "5G");
  EXPECT_EQ(s(at(c, {"resources", "limits", "memory"})), "8G");
  // User env first, then RAY_USAGE_STATS_ENABLED=0.
  const auto& env = at(c, {"env"});
  ASSERT_EQ(env.Size(), 2u);
  EXPECT_EQ(s(at(env, {0, "name"})), "PIP_DISABLE_PIP_VERSION_CHECK");
  EXPECT_EQ(s(at(env, {1, "name"})), "RAY_USAGE_STATS_ENABLED");
  EXPECT_EQ(s(at(env, {1, "value"})), "0");

  const auto& groups = at(spec, {"workerGroupSpecs"});
  ASSERT_EQ(groups.Size(), 1u);
  const auto& g = groups[0];
  EXPECT_EQ(s(at(g, {"groupName"})), "cpu-workers");
  EXPECT_EQ(at(g, {"replicas"}).GetInt(), 2);
  EXPECT_EQ(at(g, {"minReplicas"}).GetInt(), 2);
  EXPECT_EQ(at(g, {"maxReplicas"}).GetInt(), 2);
  const auto& wparams = at(g, {"rayStartParams"});
  EXPECT_EQ(wparams.MemberCount(), 4u);
  EXPECT_FALSE(json::find(wparams, "dashboard-host"));
  EXPECT_EQ(s(at(wparams, {"block"})), "true");
  EXPECT_EQ(s(at(wparams, {"num-cpus"})), "1");
  const auto& wc = at(g, {"template", "spec", "containers", 0});
  EXPECT_EQ(s(at(wc, {"name"})), "machine-learning");
  EXPECT_FALSE(json::find(wc, "ports"));
  EXPECT_EQ(s(at(wc, {"lifecycle", "preStop", "exec", "command", 2})), "ray stop");
  EXPECT_EQ(at(wc, {"env"}).Size(), 2u);
}

TEST(BuildRayCluster, GpuInRequestsAndLimitsAndQueueLabelOnTheRayCluster) {
  json::Document rc = build(sample("cfw_gpu_queue.yaml"));
  EXPECT_EQ(s(at(rc, {"metadata", "labels", "kueue.x-k8s.io/queue-name"})), "team-a-queue");
  const auto& g = at(rc, {"spec", "workerGroupSpecs", 0});
  const auto& res = at(g, {"template", "spec", "containers", 0, "resources"});
  EXPECT_EQ(s(at(res, {"requests", "nvidia.com/gpu"})), "1");
  EXPECT_EQ(s(at(res, {"limits", "nvidia.com/gpu"})), "1");
  EXPECT_EQ(s(at(g, {"rayStartParams", "num-gpus"})), "1");
  EXPECT_EQ(s(at(g, {"rayStartParams", "num-cpus"})), "4");
  EXPECT_EQ(s(at(g, {"rayStartParams", "resources"})), "\"{}\"");
  EXPECT_EQ(s(at(g, {"template", "spec", "tolerations", 0, "key"})), "nvidia.com/gpu");
  EXPECT_EQ(s(at(rc, {"spec", "headGroupSpec", "rayStartParams", "num-gpus"})), "0");
  EXPECT_FALSE(json::find(at(rc, {"spec", "headGroupSpec", "template", "spec"}), "tolerations"));
}

TEST(BuildRayCluster, MultiGroupSamplePassesUserFragmentsThrough) {
  json::Document rc = build(sample("cfw_multi_group.yaml"));
  EXPECT_EQ(s(at(rc, {"metadata", "labels", "app.kubernetes.io/part-of"})), "ranking");
  const auto& groups = at(rc, {"spec", "workerGroupSpecs"});
  ASSERT_EQ(groups.Size(), 2u);
  EXPECT_EQ(at(groups, {0, "replicas"}).GetInt(), 2);
  EXPECT_EQ(at(groups, {0, "minReplicas"}).GetInt(), 2);
  EXPECT_EQ(at(groups, {0, "maxReplicas"}).GetInt(), 2);
  EXPECT_EQ(s(at(groups, {1, "rayStartParams", "resources"})), R"("{\"TPU\": 2}")");
  EXPECT_EQ(s(at(groups, {1, "rayStartParams", "num-gpus"})), "0");
  EXPECT_EQ(s(at(groups, {1, "template", "spec", "containers", 0, "resources", "requests", "google.com/tpu"})), "2");
  EXPECT_EQ(s(at(groups, {1, "template", "spec", "containers", 0, "resources", "limits", "google.com/tpu"})), "2");
  for (const auto* pod :
       {&at(rc, {"spec", "headGroupSpec", "template", "spec"}), &at(groups, {1, "template", "spec"})}) {
    EXPECT_EQ(s(at(*pod, {"volumes", 0, "name"})), "datasets");
    EXPECT_EQ(s(at(*pod, {"volumes", 0, "persistentVolumeClaim", "claimName"})), "datasets");
    EXPECT_EQ(s(at(*pod, {"imagePullSecrets", 0, "name"})), "regcred");
    const auto& c = at(*pod, {"containers", 0});
    EXPECT_EQ(s(at(c, {"volumeMounts", 0, "mountPath"})), "/data");
    EXPECT_TRUE(at(c, {"volumeMounts", 0, "readOnly"}).GetBool());
    ASSERT_EQ(at(c, {"env"}).Size(), 3u);
    EXPECT_EQ(s(at(c, {"env", 0, "name"})), "RAY_LOG_TO_STDERR");
    EXPECT_EQ(s(at(c, {"env", 1, "valueFrom", "fieldRef", "fieldPath"})), "metadata.namespace");
    EXPECT_EQ(s(at(c, {"env", 2, "name"})), "RAY_USAGE_STATS_ENABLED");
  }
}

TEST(BuildRayCluster, AnnotationsGoOnTheClusterAndThePodTemplates) {
  json::Document rc = build(sample("cfw_appwrapper.yaml"));
  EXPECT_EQ(s(at(rc, {"metadata", "annotations", "example.com/owner"})), "data-science");
  EXPECT_EQ(s(at(rc, {"spec", "headGroupSpec", "template", "metadata", "annotations", "example.com/owner"})),
            "data-science");
  EXPECT_EQ(s(at(rc, {"spec", "workerGroupSpecs", 0, "template", "metadata", "annotations", "example.com/owner"})),
            "data-science");
  json::Document plain = build(sample("cfw_cpu.yaml"));
  EXPECT_FALSE(json::find(at(plain, {"spec", "headGroupSpec", "template"}), "metadata"));
}

TEST(BuildRayCluster, UsageStatsSetsTheEnvVarAfterTheUsersEnv) {
  for (bool on : {true, false}) {
    json::Document rc = build_spec(std::string("{usageStats: ") + (on ? "true" : "false") +
                                   ", env: [{name: B, value: b}, {name: A, value: a}]}");
    for (const json::Value* pod : pod_specs(rc)) {
      const auto& env = at(*pod, {"containers", 0, "env"});
      EXPECT_EQ(names(env), (std::vector<std::string>{"B", "A", "RAY_USAGE_STATS_ENABLED"}));
      EXPECT_EQ(s(at(env, {2, "value"})), on ? "1" : "0");
    }
  }
}

TEST(BuildRayCluster, ExtendedResourceMappingDrivesRayStartParams) {
  json::Document rc = build_spec(
      "{extendedResourceMapping: {example.com/fpga: FPGA, intel.com/gpu: TPU}, overwriteDefaultResourceMapping: true, "
      "head: {resources: {limits: {nvidia.com/gpu: 1, intel.com/gpu: 2}}}, "
      "workerGroups: [{name: w, resources: {limits: {example.com/fpga: 3, amd.com/gpu: 1}}}]}");
  const auto& head = at(rc, {"spec", "headGroupSpec", "rayStartParams"});
  EXPECT_EQ(s(at(head, {"num-gpus"})), "1") << "intel.com/gpu is TPU now";
  EXPECT_EQ(s(at(head, {"resources"})), R"("{\"TPU\": 2}")");
  const auto& worker = at(rc, {"spec", "workerGroupSpecs", 0, "rayStartParams"});
  EXPECT_EQ(s(at(worker, {"num-gpus"})), "1");
  EXPECT_EQ(s(at(worker, {"resources"})), R"("{\"FPGA\": 3}")");
  const auto& res = at(rc, {"spec", "workerGroupSpecs", 0, "template", "spec", "containers", 0, "resources"});
  EXPECT_EQ(s(at(res, {"requests", "example.com/fpga"})), "3");
  EXPECT_EQ(s(at(res, {"limits", "example.com/fpga"})), "3");
}

TEST(BuildRayCluster, RayStartParamsExtrasAreMergedWithTheDerivedOnes) {
  json::Document rc = build_spec(
      "{head: {rayStartParams: {object-store-memory: '100000000'}}, "
      "workerGroups: [{name: w, rayStartParams: {object-store-memory: '200000000', metrics-export-port: '8081'}}]}");
  const auto& head = at(rc, {"spec", "headGroupSpec", "rayStartParams"});
  EXPECT_EQ(names(head), (std::vector<std::string>{"block", "dashboard-host", "num-cpus", "num-gpus",
                                                   "object-store-memory", "resources"}));
  EXPECT_EQ(s(at(head, {"object-store-memory"})), "100000000");
  EXPECT_EQ(s(at(head, {"block"})), "true");
  const auto& worker = at(rc, {"spec", "workerGroupSpecs", 0, "rayStartParams"});
  EXPECT_EQ(names(worker), (std::vector<std::string>{"block", "metrics-export-port", "num-cpus", "num-gpus",
                                                     "object-store-memory", "resources"}));
  EXPECT_EQ(s(at(worker, {"object-store-memory"})), "200000000");
}

TEST(BuildRayCluster, AutoscalingOnFollowsTheSpec) {
  json::Document rc = build_spec(
      "{autoscaling: {enabled: true, idleTimeoutSeconds: 120, upscalingMode: Aggressive, "
      "resources: {limits: {cpu: 1, memory: 1Gi}}}, "
      "workerGroups: [{name: w, minReplicas: 1, maxReplicas: 6}, {name: v, replicas: 2, minReplicas: 0, "
      "maxReplicas: 3}]}");
  const auto& spec = at(rc, {"spec"});
  EXPECT_TRUE(at(spec, {"enableInTreeAutoscaling"}).GetBool());
  EXPECT_EQ(s(at(spec, {"autoscalerOptions", "upscalingMode"})), "Aggressive");
  EXPECT_EQ(at(spec, {"autoscalerOptions", "idleTimeoutSeconds"}).GetInt(), 120);
  // Limits alone: the requests are the limits, as Kubernetes defaults them.
  EXPECT_EQ(s(at(spec, {"autoscalerOptions", "resources", "requests", "cpu"})), "1");
  EXPECT_EQ(s(at(spec, {"autoscalerOptions", "resources", "limits", "cpu"})), "1");
  EXPECT_EQ(s(at(spec, {"autoscalerOptions", "resources", "requests", "memory"})), "1Gi");
  EXPECT_EQ(s(at(spec, {"autoscalerOptions", "resources", "limits", "memory"})), "1Gi");
  const auto& g = at(spec, {"workerGroupSpecs"});
  EXPECT_EQ(at(g, {0, "replicas"}).GetInt(), 1);
  EXPECT_EQ(at(g, {0, "minReplicas"}).GetInt(), 1);
  EXPECT_EQ(at(g, {0, "maxReplicas"}).GetInt(), 6);
  EXPECT_EQ(at(g, {1, "replicas"}).GetInt(), 2);
  EXPECT_EQ(at(g, {1, "minReplicas"}).GetInt(), 0);
  EXPECT_EQ(at(g, {1, "maxReplicas"}).GetInt(), 3);
  EXPECT_FALSE(json::find(at(rc, {"metadata"}), "annotations")) << "no elastic job asked for";
}

TEST(BuildRayCluster, AutoscalingOffKeepsTheSdkOptionsAndFixedReplicas) {
  json::Document rc = build_spec("{workerGroups: [{name: w, replicas: 3, minReplicas: 1, maxReplicas: 5}]}");
  const auto& spec = at(rc, {"spec"});
  EXPECT_FALSE(at(spec, {"enableInTreeAutoscaling"}).GetBool());
  EXPECT_EQ(s(at(spec, {"autoscalerOptions", "upscalingMode"})), "Default");
  EXPECT_EQ(at(spec, {"autoscalerOptions", "idleTimeoutSeconds"}).GetInt(), 60);
  for (const char* f : {"replicas", "minReplicas", "maxReplicas"})
    EXPECT_EQ(at(spec, {"workerGroupSpecs", 0, f}).GetInt(), 3) << f;
}

TEST(BuildRayCluster, ElasticJobAnnotationOnTheTopLevelClusterOnly) {
  const std::string spec =
      "{autoscaling: {enabled: true, elasticJob: true}, annotations: {example.com/team: a}, "
      "workerGroups: [{name: w, minReplicas: 0, maxReplicas: 4}]}";
  json::Document top = build_spec(spec);
  const auto& ann = at(top, {"metadata", "annotations"});
  EXPECT_EQ(s(at(ann, {"kueue.x-k8s.io/elastic-job"})), "true");
  EXPECT_EQ(s(at(ann, {"example.com/team"})), "a");
  for (const auto* tmpl :
       {&at(top, {"spec", "headGroupSpec", "template"}), &at(top, {"spec", "workerGroupSpecs", 0, "template"})}) {
    EXPECT_EQ(s(at(*tmpl, {"metadata", "annotations", "example.com/team"})), "a");
    EXPECT_FALSE(json::find(at(*tmpl, {"metadata", "annotations"}), "kueue.x-k8s.io/elastic-job"))
        << "pods are not Kueue jobs";
  }
  json::Document inner = build_spec(spec, false);
  EXPECT_FALSE(json::find(at(inner, {"metadata", "annotations"}), "kueue.x-k8s.io/elastic-job"));
  // Without autoscaling the flag is ignored (and warned about when parsing).
  json::Document off = build_spec("{autoscaling: {elasticJob: true}}");
  EXPECT_FALSE(json::find(at(off, {"metadata"}), "annotations"));
}

TEST(BuildRayCluster, GcsFaultToleranceOptions) {
  json::Document rc = build_spec(
      "{gcsFaultTolerance: {redisAddress: 'redis.team-a.svc:6379', redisPassword: {name: redis-auth, key: password}, "
      "externalStorageNamespace: ray-demo}}");
  const auto& ft = at(rc, {"spec", "gcsFaultToleranceOptions"});
  EXPECT_EQ(names(ft), (std::vector<std::string>{"redisAddress", "redisPassword", "externalStorageNamespace"}));
  EXPECT_EQ(s(at(ft, {"redisAddress"})), "redis.team-a.svc:6379");
  EXPECT_EQ(s(at(ft, {"redisPassword", "valueFrom", "secretKeyRef", "name"})), "redis-auth");
  EXPECT_EQ(s(at(ft, {"redisPassword", "valueFrom", "secretKeyRef", "key"})), "password");
  EXPECT_EQ(s(at(ft, {"externalStorageNamespace"})), "ray-demo");
  json::Document bare = build_spec("{gcsFaultTolerance: {redisAddress: 'redis:6379'}}");
  EXPECT_EQ(names(at(bare, {"spec", "gcsFaultToleranceOptions"})), (std::vector<std::string>{"redisAddress"}));
  EXPECT_FALSE(json::find(at(build_spec("{}"), {"spec"}), "gcsFaultToleranceOptions"));
}

TEST(BuildRayCluster, OdhCaBundleAfterTheUsersVolumesAndMounts) {
  json::Document rc = build_spec(
      "{odhTrustedCABundle: true, volumes: [{name: data, emptyDir: {}}], "
      "volumeMounts: [{name: data, mountPath: /data}]}");
  for (const json::Value* pod : pod_specs(rc)) {
    const auto& vols = at(*pod, {"volumes"});
    EXPECT_EQ(names(vols), (std::vector<std::string>{"data", "odh-trusted-ca-cert", "odh-ca-cert"}));
    EXPECT_EQ(s(at(vols, {1, "configMap", "name"})), "odh-trusted-ca-bundle");
    EXPECT_EQ(s(at(vols, {1, "configMap", "items", 0, "key"})), "ca-bundle.crt");
    EXPECT_EQ(s(at(vols, {1, "configMap", "items", 0, "path"})), "odh-trusted-ca-bundle.crt");
    EXPECT_TRUE(at(vols, {1, "configMap", "optional"}).GetBool());
    EXPECT_EQ(s(at(vols, {2, "configMap", "name"})), "odh-trusted-ca-bundle");
    EXPECT_EQ(s(at(vols, {2, "configMap", "items", 0, "key"})), "odh-ca-bundle.crt");
    EXPECT_EQ(s(at(vols, {2, "configMap", "items", 0, "path"})), "odh-ca-bundle.crt");
    EXPECT_TRUE(at(vols, {2, "configMap", "optional"}).GetBool());
    const auto& c = at(*pod, {"containers", 0});
    EXPECT_EQ(mount_paths(c),
              (std::vector<std::string>{"/data", "/etc/pki/tls/certs/odh-trusted-ca-bundle.crt",
                                        "/etc/ssl/certs/odh-trusted-ca-bundle.crt",
                                        "/etc/pki/tls/certs/odh-ca-bundle.crt", "/etc/ssl/certs/odh-ca-bundle.crt"}));
    const auto& mounts = at(c, {"volumeMounts"});
    EXPECT_EQ(names(mounts), (std::vector<std::string>{"data", "odh-trusted-ca-cert", "odh-trusted-ca-cert",
                                                       "odh-ca-cert", "odh-ca-cert"}));
    EXPECT_EQ(s(at(mounts, {1, "subPath"})), "odh-trusted-ca-bundle.crt");
    EXPECT_EQ(s(at(mounts, {4, "subPath"})), "odh-ca-bundle.crt");
  }
  json::Document off = build_spec("{}");
  for (const json::Value* pod : pod_specs(off)) {
    EXPECT_FALSE(json::find(*pod, "volumes"));
    EXPECT_FALSE(json::find(at(*pod, {"containers", 0}), "volumeMounts"));
  }
}

TEST(BuildRayCluster, SuspendOnlyWhenAskedAndOnlyTopLevel) {
  EXPECT_TRUE(at(build_spec("{suspend: true}"), {"spec", "suspend"}).GetBool());
  EXPECT_FALSE(json::find(at(build_spec("{suspend: true}", false), {"spec"}), "suspend"));
  EXPECT_FALSE(json::find(at(build_spec("{suspend: false}"), {"spec"}), "suspend")) << "Kueue owns suspend: false";
  EXPECT_FALSE(json::find(at(build_spec("{}"), {"spec"}), "suspend"));
  auto p = parse_spec("{suspend: true}");
  EXPECT_FALSE(build_ray_cluster_spec(p.workload).suspend) << "a RayJob's embedded cluster spec is never suspended";
}

TEST(BuildRayCluster, EveryNewFeatureValidatesAgainstTheUpstreamSchema) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const char* specs[] = {
      "{autoscaling: {enabled: true, idleTimeoutSeconds: 30, upscalingMode: Conservative, elasticJob: true}, "
      "workerGroups: [{name: w, minReplicas: 0, maxReplicas: 4, rayStartParams: {object-store-memory: '1000000'}}], "
      "head: {rayStartParams: {include-dashboard: 'true'}}}",
      "{gcsFaultTolerance: {redisAddress: 'redis:6379', redisPassword: {name: s, key: k}, "
      "externalStorageNamespace: x}, usageStats: true, suspend: true}",
      "{odhTrustedCABundle: true, volumes: [{name: data, emptyDir: {}}], volumeMounts: [{name: data, mountPath: /d}], "
      "extendedResourceMapping: {example.com/fpga: FPGA}, "
      "workerGroups: [{name: w, resources: {limits: {example.com/fpga: 2}}}]}",
  };
  for (const char* spec : specs) {
    json::Document rc = build_spec(spec);
    EXPECT_EQ(upstream_errors(schemas, rc), "") << spec;
    json::Document inner = build_spec(spec, false);
    EXPECT_EQ(upstream_errors(schemas, inner), "") << spec;
  }
}

TEST(BuildRayCluster, DefaultLocalQueueIsUsedWhenSpecNamesNone) {
  json::Document rc = build(sample("cfw_cpu.yaml"), std::string("default-queue"));
  EXPECT_EQ(s(at(rc, {"metadata", "labels", "kueue.x-k8s.io/queue-name"})), "default-queue");
  // An explicit queue wins over the default.
  json::Document gpu = build(sample("cfw_gpu_queue.yaml"), std::string("default-queue"));
  EXPECT_EQ(s(at(gpu, {"metadata", "labels", "kueue.x-k8s.io/queue-name"})), "team-a-queue");
}

TEST(BuildRayCluster, PriorityClassGoesWithTheQueueLabel) {
  auto p = parse_spec("{queue: {localQueue: q, priorityClass: high}}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  auto queue = select_local_queue(p.workload.spec.queue, std::nullopt);
  json::Document rc = build_ray_cluster(p.workload, {true, kueue_labels(queue, p.workload.spec.queue)}).to_json();
  EXPECT_EQ(s(at(rc, {"metadata", "labels", "kueue.x-k8s.io/queue-name"})), "q");
  EXPECT_EQ(s(at(rc, {"metadata", "labels", "kueue.x-k8s.io/priority-class"})), "high");
}

TEST(KueueLabels, QueueSelection) {
  QueueSpec none;
  EXPECT_FALSE(select_local_queue(none, std::nullopt));
  EXPECT_FALSE(select_local_queue(none, std::string("")));
  EXPECT_EQ(select_local_queue(none, std::string("dflt")), "dflt");
  QueueSpec named{"mine", ""};
  EXPECT_EQ(select_local_queue(named, std::string("dflt")), "mine");
  EXPECT_TRUE(kueue_labels(std::nullopt, none).empty());
}

TEST(BuildRayCluster, NoOwnerReferenceWithoutWorkloadUid) {
  json::Document w = sample("cfw_cpu.yaml");
  w["metadata"].RemoveMember("uid");
  json::Document rc = build(w);
  EXPECT_FALSE(json::find(at(rc, {"metadata"}), "ownerReferences"))
      << "an offline render has no uid; an owner reference with an empty uid would be refused by the apiserver";
}
