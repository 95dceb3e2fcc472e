#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "operator/kueue_index.hpp"
#include "runtime/cached_object.hpp"
#include "test_files.hpp"

using namespace cfo;
using namespace cfo::op;

namespace {
json::Document doc(const std::string& text) { return cfo::test_support::yaml_doc(text); }
}  // namespace

// A cached Kueue Workload keeps what the status reads; its PodSets (full Pod templates) are dropped.
TEST(KueueTransforms, AKueueWorkloadKeepsItsAdmissionOnly) {
  json::Document wl = doc(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: raycluster-demo-1a2b
  namespace: team-a
  uid: w-1
  labels: {kueue.x-k8s.io/job-uid: uid-rc, other: x}
  ownerReferences: [{kind: RayCluster, name: demo, controller: true}]
  managedFields: [{manager: kueue}]
spec:
  podSets: [{name: head, count: 1, template: {spec: {containers: [{name: ray-head, image: ray}]}}}]
status:
  admission: {clusterQueue: cq-a, podSetAssignments: [{name: head}]}
  conditions: [{type: Admitted, status: "True", reason: Admitted, message: ok, lastTransitionTime: x}]
)");
  kueue_workload_transform(wl);
  EXPECT_EQ(json::find(wl, "spec"), nullptr);
  EXPECT_EQ(json::find_path(wl, "metadata.managedFields"), nullptr);
  EXPECT_EQ(json::find_path(wl, "metadata.labels")->MemberCount(), 1u);
  EXPECT_EQ(json::string_at(wl, "status.admission.clusterQueue"), "cq-a");
  EXPECT_EQ(json::find_path(wl, "status.admission.podSetAssignments"), nullptr);
  EXPECT_EQ(json::string_at((*json::find_path(wl, "status.conditions"))[0], "message"), "ok");
  EXPECT_EQ(json::find((*json::find_path(wl, "status.conditions"))[0], "lastTransitionTime"), nullptr);
  EXPECT_EQ(json::string_at((*json::find_path(wl, "metadata.ownerReferences"))[0], "name"), "demo");
}

// Someone else's object under a child kind is kept only for the conflict check; ours whole, with managedFields reduced
// to who wrote when (fieldsV1 dropped: drift.hpp names the other field manager from it).
TEST(KueueTransforms, AChildOfSomeoneElseKeepsOnlyItsOwners) {
  json::Document foreign =
      doc("{kind: RayCluster, metadata: {name: demo, namespace: a, ownerReferences: [{kind: X}], "
          "annotations: {big: y}}, spec: {headGroupSpec: {}}, status: {state: ready}}");
  child_transform(foreign);
  EXPECT_EQ(json::find(foreign, "spec"), nullptr);
  EXPECT_EQ(json::find(foreign, "status"), nullptr);
  EXPECT_EQ(json::find_path(foreign, "metadata.annotations"), nullptr);
  EXPECT_NE(json::find_path(foreign, "metadata.ownerReferences"), nullptr);
  json::Document ours =
      doc("{kind: RayCluster, metadata: {name: demo, labels: {codeflare.dev/workload: demo}, "
          "managedFields: [{manager: kubectl, operation: Update, time: '2026-12-01T10:00:00Z', "
          "fieldsType: FieldsV1, fieldsV1: {f:spec: {}}}]}, spec: {a: 1}, status: {state: ready}}");
  child_transform(ours);
  const json::Value* mf = json::find_path(ours, "metadata.managedFields");
  ASSERT_NE(mf, nullptr);
  EXPECT_EQ(json::string_at((*mf)[0], "manager"), "kubectl");
  EXPECT_EQ(json::find((*mf)[0], "fieldsV1"), nullptr);
  EXPECT_EQ(json::string_at(ours, "status.state"), "ready");
  EXPECT_NE(json::find(ours, "spec"), nullptr);
}

TEST(KueueTransforms, LocalQueuesAndPriorityClassesKeepWhatReconcileReads) {
  json::Document lq =
      doc("{metadata: {name: q, namespace: a, annotations: {kueue.x-k8s.io/default-queue: 'true', note: "
          "'a long text nobody reads'}, labels: {app.kubernetes.io/managed-by: codeflare-operator, team: x}}, "
          "spec: {clusterQueue: cq, stopPolicy: None}, status: {pendingWorkloads: 3}}");
  local_queue_transform(lq);
  EXPECT_EQ(json::string_at(lq, "spec.clusterQueue"), "cq");
  EXPECT_EQ(json::find_path(lq, "spec.stopPolicy"), nullptr);
  EXPECT_EQ(json::find(lq, "status"), nullptr);
  // Only the label and the annotation that are read stay (the thirteenth user trial: 2,500 LocalQueues with 2 KB
  // annotations took 6 MB of cache).
  const json::Value* annotations = json::find_path(lq, "metadata.annotations");
  ASSERT_NE(annotations, nullptr);
  EXPECT_EQ(annotations->MemberCount(), 1u);
  EXPECT_EQ(json::get_string(*annotations, "kueue.x-k8s.io/default-queue"), "true");
  const json::Value* labels = json::find_path(lq, "metadata.labels");
  ASSERT_NE(labels, nullptr);
  EXPECT_EQ(labels->MemberCount(), 1u);
  EXPECT_EQ(json::get_string(*labels, "app.kubernetes.io/managed-by"), "codeflare-operator");
  json::Document pc = doc("{metadata: {name: high, labels: {a: b}}, value: 1000, description: important}");
  priority_class_transform(pc);
  EXPECT_EQ(json::get_int(pc, "value"), 1000);
  EXPECT_EQ(json::find(pc, "description"), nullptr);
}

TEST(KueueWorkloadIndex, FindsAWorkloadByItsJobUidAndForgetsItWhenDeleted) {
  // A scripted list: two Workloads; then a watch stream that deletes one of them and stays open until stopped.
  runtime::ListWatcher io;
  io.list = [](const std::string&) -> Result<json::Document> {
    return doc(
        "{apiVersion: kueue.x-k8s.io/v1beta2, kind: WorkloadList, metadata: {resourceVersion: '5'}, items: ["
        "{metadata: {name: w1, namespace: a, uid: u1, labels: {kueue.x-k8s.io/job-uid: job-1}}},"
        "{metadata: {name: w2, namespace: a, uid: u2, labels: {kueue.x-k8s.io/job-uid: job-2}}}]}");
  };
  std::atomic<bool> deleted{false};
  io.watch = [&deleted](const std::string&, const std::function<bool(std::string_view)>& on_line,
                        client::StopToken& stop) -> Result<void> {
    if (!deleted.exchange(true))
      on_line(R"({"type":"DELETED","object":{"metadata":{"name":"w1","namespace":"a","uid":"u1",)"
              R"("resourceVersion":"6","labels":{"kueue.x-k8s.io/job-uid":"job-1"}}}})");
    while (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return {};
  };
  runtime::InformerOptions o;
  o.resource = {"kueue.x-k8s.io", "v1beta2", "workloads", true};
  o.transform = kueue_workload_transform;
  runtime::Informer informer(io, o);
  KueueWorkloadIndex index;
  index.follow(informer);
  ASSERT_TRUE(informer.start().has_value());
  ASSERT_TRUE(informer.wait_for_sync(5000));
  for (int i = 0; i < 500 && index.get("job-1"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  informer.stop();
  EXPECT_EQ(index.get("job-1"), nullptr);
  ASSERT_NE(index.get("job-2"), nullptr);
  EXPECT_EQ(json::string_at(*index.get("job-2"), "metadata.name"), "w2");
  EXPECT_EQ(index.size(), 1u);
}

// ClusterQueues and ResourceFlavors keep what the admissibility judgement reads; their status (Kueue's usage) goes.
TEST(KueueTransforms, QuotaObjectsKeepWhatAdmissibilityReads) {
  json::Document cq = doc(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq, uid: u, resourceVersion: "7", generation: 3, managedFields: [{}], annotations: {a: b}}
spec:
  cohortName: research
  namespaceSelector: {}
  queueingStrategy: BestEffortFIFO
  resourceGroups: [{coveredResources: [cpu], flavors: [{name: rf, resources: [{name: cpu, nominalQuota: 8}]}]}]
status: {flavorsUsage: [{name: rf}], pendingWorkloads: 3}
)");
  cluster_queue_transform(cq);
  EXPECT_FALSE(json::find(cq, "status"));
  EXPECT_EQ(json::string_at(cq, "spec.cohortName"), "research");
  EXPECT_TRUE(json::find_path(cq, "spec.resourceGroups"));
  EXPECT_TRUE(json::find_path(cq, "spec.namespaceSelector"));
  EXPECT_FALSE(json::find_path(cq, "spec.queueingStrategy"));
  EXPECT_EQ(json::get_int(cq["metadata"], "generation"), 3) << "a spec change is told by the generation";
  EXPECT_FALSE(json::find_path(cq, "metadata.managedFields"));
  json::Document rf = doc(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: rf, generation: 1}
spec: {nodeLabels: {pool: a}, nodeTaints: [{key: k, effect: NoSchedule}], tolerations: [{key: k, operator: Exists}],
       topologyName: t}
)");
  resource_flavor_transform(rf);
  EXPECT_TRUE(json::find_path(rf, "spec.nodeLabels"));
  EXPECT_TRUE(json::find_path(rf, "spec.nodeTaints"));
  EXPECT_TRUE(json::find_path(rf, "spec.tolerations"));
  // A PodSet asking for a topology takes only a flavor with a topologyName (checkPodSetAndFlavorMatchForTAS): dropping
  // it made every topology-aware workload look never admissible.
  EXPECT_EQ(json::string_at(rf, "spec.topologyName"), "t");
}
