#include <gtest/gtest.h>

#include "parse_test_util.hpp"
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
  EXPECT_EQ(at(groups, {0, "minReplicas"}).GetInt(), 1);
  EXPECT_EQ(at(groups, {0, "maxReplicas"}).GetInt(), 4);
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

TEST(BuildRayCluster, UserSetUsageStatsIsNotDuplicated) {
  auto p = parse_spec("{env: [{name: RAY_USAGE_STATS_ENABLED, value: '1'}]}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  json::Document rc = build_ray_cluster(p.workload, {}).to_json();
  const auto& env = at(rc, {"spec", "headGroupSpec", "template", "spec", "containers", 0, "env"});
  ASSERT_EQ(env.Size(), 1u);
  EXPECT_EQ(s(at(env, {0, "value"})), "1");
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
