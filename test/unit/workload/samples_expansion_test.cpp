// What the samples of the newer API fields expand to (config/samples): beyond their golden files, the facts each
// sample is there to show, asserted one by one.
#include <gtest/gtest.h>

#include "parse_test_util.hpp"
#include "workload/quota_preview.hpp"
#include "workload/reconcile.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
Outcome expand(const std::string& file, const validation::SchemaSet& schemas) {
  ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  Outcome out = reconcile(sample(file), Observed{}, facts, schemas, "2026-01-01T00:00:00Z");
  EXPECT_TRUE(out.valid) << file << "\n" << dump(out.errors);
  return out;
}

std::string container_names(const json::Value& tpl) {
  std::string out;
  for (const auto& c : at(tpl, {"spec", "containers"}).GetArray())
    out += (out.empty() ? "" : ",") + json::string_at(c, "name");
  return out;
}

std::string annotation(const json::Value& tpl, const char* key) {
  const json::Value* a = json::find_path(tpl, "metadata.annotations");
  return a ? json::get_string(*a, key).value_or("") : "";
}
}  // namespace

TEST(SamplesExpansion, PodOverridesOnAGpuGroup) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = expand("cfw_pod_overrides.yaml", schemas);
  ASSERT_EQ(out.desired.size(), 1u);
  const json::Value& rc = out.desired[0];
  const json::Value& gpu = at(rc, {"spec", "workerGroupSpecs", 0, "template"});
  EXPECT_EQ(json::get_string(at(gpu, {"spec", "nodeSelector"}), "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB");
  EXPECT_TRUE(json::find_path(gpu, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"));
  EXPECT_EQ(json::string_at(gpu, "spec.serviceAccountName"), "training-data-reader");
  EXPECT_EQ(json::string_at(gpu, "spec.priorityClassName"), "research-high");
  EXPECT_EQ(json::string_at(gpu, "metadata.labels.accelerator"), "a100");
  EXPECT_EQ(json::get_string(at(gpu, {"spec", "containers", 0, "resources", "limits"}), "nvidia.com/gpu"), "1");
  const json::Value& head = at(rc, {"spec", "headGroupSpec", "template"});
  EXPECT_EQ(json::string_at(head, "spec.securityContext.seccompProfile.type"), "RuntimeDefault");
  EXPECT_FALSE(json::find_path(head, "spec.nodeSelector"));
  // Kueue charges the GPUs of both workers.
  EXPECT_EQ(json::get_string(at(out.status, {"totalRequests"}), "nvidia.com/gpu"), "2");
}

TEST(SamplesExpansion, ASidecarBesideRay) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = expand("cfw_sidecar.yaml", schemas);
  const json::Value& rc = out.desired[0];
  const json::Value& w = at(rc, {"spec", "workerGroupSpecs", 0, "template"});
  EXPECT_EQ(container_names(w), "machine-learning,log-shipper");
  EXPECT_EQ(json::string_at(at(w, {"spec", "containers", 0, "volumeMounts", 0}), "name"), "ray-logs");
  EXPECT_EQ(container_names(at(rc, {"spec", "headGroupSpec", "template"})), "ray-head");  // the head has no sidecar
  for (const json::Value* t : {&w, &at(rc, {"spec", "headGroupSpec", "template"})}) {
    EXPECT_EQ(json::string_at(at(*t, {"spec", "volumes", 0}), "name"), "ray-logs");
    EXPECT_EQ(json::get_string(at(*t, {"metadata", "labels"}), "app.kubernetes.io/part-of"), "log-pipeline");
  }
  EXPECT_EQ(json::string_at(at(w, {"spec", "containers", 0, "env", 1}), "name"), "LOG_SHIPPER_ENDPOINT");
  EXPECT_EQ(annotation(w, "example.com/logs"), "shipped");
  // The sidecar's requests are charged to each worker Pod.
  QuotaPreview q = quota_preview(rc);
  ASSERT_EQ(q.pod_sets.size(), 2u);
  EXPECT_EQ(quantity_text(q.pod_sets[1].requests[0].second), "1050m");
}

TEST(SamplesExpansion, ARayJobInEachSubmissionModeWithDeletionRules) {
  CFO_REQUIRE_SCHEMAS(schemas);
  struct Case {
    const char* file;
    const char* mode;
    std::size_t rules;
    bool submitter_template;
    const char* pod_sets;
  };
  const Case cases[] = {{"cfw_rayjob_k8s_job_mode.yaml", "K8sJobMode", 3, true, "head,workers,submitter"},
                        {"cfw_rayjob_http_mode.yaml", "HTTPMode", 2, false, "head,workers"},
                        {"cfw_rayjob_sidecar_mode.yaml", "SidecarMode", 2, false, "head,workers"},
                        {"cfw_rayjob_interactive_mode.yaml", "InteractiveMode", 2, false, "head,workers"}};
  for (const auto& c : cases) {
    Outcome out = expand(c.file, schemas);
    ASSERT_EQ(out.desired.size(), 1u) << c.file;
    const json::Value& job = out.desired[0];
    EXPECT_EQ(json::string_at(job, "kind"), "RayJob") << c.file;
    EXPECT_EQ(json::string_at(job, "spec.submissionMode"), c.mode) << c.file;
    EXPECT_EQ(at(job, {"spec", "deletionStrategy", "deletionRules"}).Size(), c.rules) << c.file;
    EXPECT_EQ(json::get_bool(at(job, {"spec"}), "shutdownAfterJobFinishes"), false) << c.file;
    EXPECT_EQ(json::find_path(job, "spec.submitterPodTemplate") != nullptr, c.submitter_template) << c.file;
    std::string names;
    for (const auto& ps : quota_preview(job).pod_sets) names += (names.empty() ? "" : ",") + ps.name;
    EXPECT_EQ(names, c.pod_sets) << c.file;
  }
  // SidecarMode: the submitter's requests go to the head.
  Outcome sidecar = expand("cfw_rayjob_sidecar_mode.yaml", schemas);
  EXPECT_EQ(quantity_text(quota_preview(sidecar.desired[0]).pod_sets[0].requests[0].second), "1500m");
  // InteractiveMode: no entrypoint, a job id.
  Outcome interactive = expand("cfw_rayjob_interactive_mode.yaml", schemas);
  EXPECT_FALSE(json::find_path(interactive.desired[0], "spec.entrypoint"));  // unset, not ""
  EXPECT_EQ(json::string_at(interactive.desired[0], "spec.jobId"), "interactive-1");
}

TEST(SamplesExpansion, TopologyAnnotationsOnTheRightTemplates) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = expand("cfw_topology.yaml", schemas);
  const json::Value& rc = out.desired[0];
  const json::Value& head = at(rc, {"spec", "headGroupSpec", "template"});
  const json::Value& w = at(rc, {"spec", "workerGroupSpecs", 0, "template"});
  EXPECT_EQ(annotation(head, "kueue.x-k8s.io/podset-preferred-topology"), "cloud.provider.com/topology-block");
  EXPECT_EQ(annotation(head, "kueue.x-k8s.io/podset-required-topology"), "");
  EXPECT_EQ(annotation(w, "kueue.x-k8s.io/podset-required-topology"), "cloud.provider.com/topology-rack");
  EXPECT_EQ(annotation(w, "kueue.x-k8s.io/podset-slice-required-topology"), "kubernetes.io/hostname");
  EXPECT_EQ(annotation(w, "kueue.x-k8s.io/podset-slice-size"), "4");
  EXPECT_EQ(annotation(rc, "kueue.x-k8s.io/podset-required-topology"), "");  // not on the RayCluster itself
}

TEST(SamplesExpansion, AMultiKueueWorkload) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = expand("cfw_multikueue.yaml", schemas);
  const json::Value& rc = out.desired[0];
  EXPECT_EQ(json::string_at(rc, "spec.managedBy"), "kueue.x-k8s.io/multikueue");
  EXPECT_EQ(json::get_string(at(rc, {"metadata", "labels"}), "kueue.x-k8s.io/queue-name"), "team-a-queue");
  EXPECT_EQ(json::get_string(at(rc, {"metadata", "labels"}), "kueue.x-k8s.io/priority-class"), "high-priority");
}

TEST(SamplesExpansion, ClusterOptions) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = expand("cfw_cluster_options.yaml", schemas);
  const json::Value& spec = at(out.desired[0], {"spec"});
  EXPECT_EQ(json::string_at(spec, "authOptions.mode"), "token");
  EXPECT_EQ(json::string_at(spec, "upgradeStrategy.type"), "Recreate");
  EXPECT_EQ(json::string_at(spec, "headGroupSpec.serviceType"), "NodePort");
  EXPECT_EQ(json::string_at(spec, "autoscalerOptions.version"), "v2");
  EXPECT_EQ(json::get_int(at(spec, {"workerGroupSpecs", 0}), "idleTimeoutSeconds"), 300);
}
