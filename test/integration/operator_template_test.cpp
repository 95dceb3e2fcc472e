// End-to-end tests of the Pod template overrides and the quota preview against a real kube-apiserver: an override
// change rolls into the RayCluster by server-side apply without touching what another field manager set (as Kueue
// does when it admits a cluster), a refused override never reaches a RayCluster, and the status carries the quota
// preview.
#include <gtest/gtest.h>

#include <thread>

#include "operator_support.hpp"

using namespace cfo;
using namespace cfo::it;

namespace {
std::string overrides_workload(const std::string& priority, const std::string& pool) {
  return "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: rolling\nspec:\n"
         "  head:\n    template:\n      spec:\n        priorityClassName: " +
         priority +
         "\n  workerGroups:\n  - name: workers\n    replicas: 1\n    template:\n      spec:\n"
         "        nodeSelector: {pool: " +
         pool + "}\n";
}

std::string at_string(const json::Value& v, const char* dotted) { return json::string_at(v, dotted); }
}  // namespace

TEST(OperatorTemplates, AnOverrideChangeRollsInAndLeavesFieldsOfOthersAlone) {
  const std::string ns = unique_namespace("tpl-roll");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, overrides_workload("low", "a")));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] {
    rc = get(kRayClusters, ns, "rolling");
    return rc && at_string(*rc, "spec.headGroupSpec.template.spec.priorityClassName") == "low";
  })) << operator_log();
  const json::Value& worker = (*rc)["spec"]["workerGroupSpecs"][0]["template"];
  EXPECT_EQ(at_string(worker, "spec.nodeSelector.pool"), "a");

  // Another field manager adds to the RayCluster what Kueue adds on admission: an annotation, a Pod label and a node
  // selector of the head's template (fields the workload does not set).
  auto theirs = from_yaml(R"(apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: rolling
  annotations: {example.com/admitted-by: kueue}
spec:
  headGroupSpec:
    template:
      metadata:
        labels: {kueue.x-k8s.io/podset: head}
      spec:
        nodeSelector: {flavor: on-demand}
)");
  client::WriteOptions wo;
  wo.field_manager = "kueue-admission";
  wo.force = false;
  auto applied = api().apply(kRayClusters.object_path(ns, "rolling"), theirs, wo);
  ASSERT_TRUE(applied.has_value()) << applied.error().message;

  // The override changes: the operator's server-side apply rolls it in.
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, overrides_workload("high", "b")));
  ASSERT_TRUE(eventually([&] {
    rc = get(kRayClusters, ns, "rolling");
    return rc && at_string(*rc, "spec.headGroupSpec.template.spec.priorityClassName") == "high" &&
           at_string((*rc)["spec"]["workerGroupSpecs"][0]["template"], "spec.nodeSelector.pool") == "b";
  })) << operator_log();
  // What the other manager set is still there, and still its own.
  EXPECT_EQ(json::get_string((*rc)["metadata"]["annotations"], "example.com/admitted-by"), "kueue");
  const json::Value& head = (*rc)["spec"]["headGroupSpec"]["template"];
  EXPECT_EQ(json::get_string(head["metadata"]["labels"], "kueue.x-k8s.io/podset"), "head");
  EXPECT_EQ(at_string(head, "spec.nodeSelector.flavor"), "on-demand");
  bool theirs_kept = false;
  for (const auto& m : (*rc)["metadata"]["managedFields"].GetArray())
    theirs_kept = theirs_kept || json::get_string(m, "manager") == "kueue-admission";
  EXPECT_TRUE(theirs_kept) << "the other field manager lost its fields";
  // The workload is valid and reports the generation it saw.
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "rolling");
    return w && condition_status(*w, "Valid") == "True" &&
           json::get_int((*w)["status"], "observedGeneration") == json::get_int((*w)["metadata"], "generation");
  })) << operator_log();
}

TEST(OperatorTemplates, ARefusedOverrideIsValidFalseNamingBothFieldsAndNoRayCluster) {
  const std::string ns = unique_namespace("tpl-refused");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, R"(apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: refused
spec:
  workerGroups:
  - name: workers
    template:
      spec:
        containers:
        - name: machine-learning
          command: [python, serve.py]
)"));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "refused");
    return w && condition_status(*w, "Valid", &message) == "False";
  })) << operator_log();
  EXPECT_NE(message.find("spec.workerGroups[0].template.spec.containers[0].command"), std::string::npos) << message;
  EXPECT_NE(message.find("spec.workerGroups[0].rayStartParams"), std::string::npos) << message;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_FALSE(get(kRayClusters, ns, "refused").has_value());
}

TEST(OperatorTemplates, TheQuotaPreviewIsInTheStatus) {
  const std::string ns = unique_namespace("tpl-quota");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, R"(apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: charged
spec:
  head:
    resources:
      limits: {cpu: "2", memory: 4Gi}
  workerGroups:
  - name: gpu-workers
    replicas: 3
    resources:
      limits: {cpu: "4", memory: 16Gi, nvidia.com/gpu: 1}
    template:
      spec:
        containers:
        - name: shipper
          image: busybox
          resources:
            limits: {cpu: 500m, memory: 256Mi}
  job:
    entrypoint: python train.py
)"));
  std::optional<json::Document> w;
  ASSERT_TRUE(eventually([&] {
    w = get(kWorkloads, ns, "charged");
    return w && json::find_path(*w, "status.podSets");
  })) << operator_log();
  const json::Value& sets = (*w)["status"]["podSets"];
  ASSERT_EQ(sets.Size(), 3u) << json::dump((*w)["status"]);
  EXPECT_EQ(json::get_string(sets[0], "name"), "head");
  EXPECT_EQ(json::get_string(sets[0]["requests"], "memory"), "4Gi");
  EXPECT_EQ(json::get_string(sets[1], "name"), "gpu-workers");
  EXPECT_EQ(json::get_int(sets[1], "count"), 3);
  EXPECT_EQ(json::get_string(sets[1]["requests"], "cpu"), "4500m");  // the sidecar's limit stands for its request
  EXPECT_EQ(json::get_string(sets[1]["requests"], "nvidia.com/gpu"), "1");
  EXPECT_EQ(json::get_string(sets[2], "name"), "submitter");
  EXPECT_EQ(json::get_string(sets[2]["requests"], "cpu"), "500m");
  const json::Value& total = (*w)["status"]["totalRequests"];
  EXPECT_EQ(json::get_string(total, "cpu"), "16");  // 2 + 3 x 4.5 + 0.5
  EXPECT_EQ(json::get_string(total, "nvidia.com/gpu"), "3");
}
