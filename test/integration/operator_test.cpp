// End-to-end tests of `codeflare-operator run` against a real kube-apiserver and etcd (the ctest fixture
// control_plane starts them): the RayCluster and AppWrapper basics. Each test works in a namespace of its own; the
// operator runs as a child process (operator_support.cpp).
#include <gtest/gtest.h>

#include <thread>

#include "operator_support.hpp"

using namespace cfo;
using namespace cfo::it;

TEST(Operator, CpuWorkloadYieldsOwnedRayClusterAndValidTrue) {
  const std::string ns = unique_namespace("cpu");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("demo", 2)));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "demo")).has_value(); })) << operator_log();
  const json::Value& meta = (*rc)["metadata"];
  EXPECT_EQ(json::get_string(meta["labels"], "ray.io/cluster"), "demo");
  const json::Value* owners = json::find(meta, "ownerReferences");
  ASSERT_TRUE(owners && owners->IsArray() && owners->Size() == 1);
  EXPECT_EQ(json::get_string((*owners)[0], "kind"), "CodeFlareWorkload");
  EXPECT_TRUE((*owners)[0]["controller"].GetBool());
  auto wl = get(kWorkloads, ns, "demo");
  ASSERT_TRUE(wl);
  EXPECT_EQ(json::get_string((*owners)[0], "uid"), json::get_string((*wl)["metadata"], "uid"));
  const json::Value& worker = (*rc)["spec"]["workerGroupSpecs"][0];
  EXPECT_EQ(worker["replicas"].GetInt(), 2);
  const json::Value& limits = worker["template"]["spec"]["containers"][0]["resources"]["limits"];
  EXPECT_EQ(json::get_string(limits, "memory"), "2Gi");
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "demo");
    return w && condition_status(*w, "Valid") == "True" &&
           json::get_int((*w)["status"], "observedGeneration") == json::get_int((*w)["metadata"], "generation");
  })) << operator_log();
}

TEST(Operator, AppWrapperHoldsRayClusterAndCarriesQueueLabel) {
  const std::string ns = unique_namespace("aw");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  // The queue must exist: a workload naming a missing LocalQueue is held (operator_kueue_test.cpp).
  auto lq = from_yaml(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: team-queue\n"
      "spec:\n  clusterQueue: cq\n");
  auto created = api().create(kLocalQueues.collection_path(ns), lq);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns, cpu_workload("wrapped", 1, "  appWrapper: true\n  queue:\n    localQueue: team-queue\n")));
  std::optional<json::Document> aw;
  ASSERT_TRUE(eventually([&] { return (aw = get(kAppWrappers, ns, "wrapped")).has_value(); })) << operator_log();
  EXPECT_EQ(json::get_string((*aw)["metadata"]["labels"], "kueue.x-k8s.io/queue-name"), "team-queue");
  const json::Value& tmpl = (*aw)["spec"]["components"][0]["template"];
  EXPECT_EQ(json::get_string(tmpl, "kind"), "RayCluster");
  const json::Value* inner_labels = json::find_path(tmpl, "metadata.labels");
  ASSERT_TRUE(inner_labels);
  EXPECT_FALSE(json::find(*inner_labels, "kueue.x-k8s.io/queue-name")) << "the wrapped RayCluster must not be queued";
  EXPECT_FALSE(get(kRayClusters, ns, "wrapped").has_value()) << "no bare RayCluster when wrapped";
}

TEST(Operator, InvalidWorkloadGetsValidFalseNamingTheFieldAndNoChild) {
  const std::string ns = unique_namespace("bad");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns,
                     "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: broken\nspec:\n"
                     "  workerGroups:\n  - name: workers\n    replicas: 1\n    resources:\n"
                     "      requests: {cpu: \"1\", memory: 4Gi}\n      limits: {cpu: \"1\", memory: 2Gi}\n"));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "broken");
    return w && condition_status(*w, "Valid", &message) == "False";
  })) << operator_log();
  // The apiserver accepts this spec (each quantity is well formed); only the operator knows that a request above its
  // limit makes every worker pod fail at creation.
  EXPECT_NE(message.find("spec.workerGroups[0].resources.requests.memory"), std::string::npos) << message;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_FALSE(get(kRayClusters, ns, "broken").has_value());
  EXPECT_FALSE(get(kAppWrappers, ns, "broken").has_value());
}

TEST(Operator, EditingReplicasUpdatesTheRayCluster) {
  const std::string ns = unique_namespace("edit");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("scale", 1)));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "scale").has_value(); })) << operator_log();
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("scale", 3)));
  ASSERT_TRUE(eventually([&] {
    auto rc = get(kRayClusters, ns, "scale");
    return rc && (*rc)["spec"]["workerGroupSpecs"][0]["replicas"].GetInt() == 3;
  })) << operator_log();
}

// A child is created by a POST, which records our field manager with operation Update; its first update turns that
// entry into an Apply entry. A label left out of the workload then leaves the RayCluster: with the Update entry kept,
// the apply would not own metadata.labels.team and it would stay (checked). A worker group goes either way (the
// list is atomic: the applier replaces it whole).
TEST(Operator, ALabelAndAWorkerGroupRemovedAfterCreationLeaveTheRayCluster) {
  const std::string ns = unique_namespace("groups");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  const std::string second =
      "  - name: extra\n    replicas: 1\n    resources:\n      requests: {cpu: \"1\", memory: 1Gi}\n"
      "      limits: {cpu: \"1\", memory: 1Gi}\n";
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("two", 1, second + "  labels: {team: a}\n")));
  auto managers = [&](const json::Value& rc) {
    std::string out;
    if (const json::Value* mf = json::find_path(rc, "metadata.managedFields"); mf && mf->IsArray())
      for (const auto& e : mf->GetArray())
        out += json::string_at(e, "manager") + "/" + json::string_at(e, "operation") + " ";
    return out;
  };
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "two")).has_value(); })) << operator_log();
  ASSERT_EQ((*rc)["spec"]["workerGroupSpecs"].Size(), 2u);
  ASSERT_EQ(json::string_at(*rc, "metadata.labels.team"), "a");
  EXPECT_NE(managers(*rc).find("codeflare-operator/Update"), std::string::npos) << managers(*rc);
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("two", 2)));
  ASSERT_TRUE(eventually([&] {
    rc = get(kRayClusters, ns, "two");
    return rc && (*rc)["spec"]["workerGroupSpecs"].Size() == 1u &&
           (*rc)["spec"]["workerGroupSpecs"][0]["replicas"].GetInt() == 2;
  })) << operator_log();
  EXPECT_EQ(json::find_path(*rc, "metadata.labels.team"), nullptr) << "the label left out stays";
  EXPECT_EQ((*rc)["spec"]["workerGroupSpecs"][0]["replicas"].GetInt(), 2);
  EXPECT_EQ(json::string_at((*rc)["spec"]["workerGroupSpecs"][0], "groupName"), "workers");
  EXPECT_EQ(managers(*rc).find("codeflare-operator/Update"), std::string::npos) << managers(*rc);
  EXPECT_NE(managers(*rc).find("codeflare-operator/Apply"), std::string::npos) << managers(*rc);
}

// The thirty-eighth user trial: a RayCluster suspended by hand (another field manager) stayed suspended when its
// workload, never suspended or suspended and resumed, left spec.suspend out. Without a queue the operator writes
// suspend: false, owns it, and so resumes it.
TEST(Operator, ARayClusterSuspendedByHandIsResumed) {
  const std::string ns = unique_namespace("resume");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("held", 1)));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "held").has_value(); })) << operator_log();
  ASSERT_NO_FATAL_FAILURE(patch_spec(kRayClusters, ns, "held", "spec: {suspend: true}"));
  ASSERT_TRUE(eventually([&] {
    auto rc = get(kRayClusters, ns, "held");
    const json::Value* v = rc ? json::find_path(*rc, "spec.suspend") : nullptr;
    return v && v->IsBool() && !v->GetBool();
  })) << operator_log();
  // Suspended through the workload, then resumed, with the other manager's suspend still there: resumed too.
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("held", 1, "  suspend: true\n")));
  ASSERT_TRUE(eventually([&] {
    auto rc = get(kRayClusters, ns, "held");
    const json::Value* v = rc ? json::find_path(*rc, "spec.suspend") : nullptr;
    return v && v->IsBool() && v->GetBool();
  })) << operator_log();
  ASSERT_NO_FATAL_FAILURE(patch_spec(kRayClusters, ns, "held", "spec: {suspend: true}"));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("held", 1)));
  ASSERT_TRUE(eventually([&] {
    auto rc = get(kRayClusters, ns, "held");
    const json::Value* v = rc ? json::find_path(*rc, "spec.suspend") : nullptr;
    return v && v->IsBool() && !v->GetBool();
  })) << operator_log();
}

TEST(Operator, DeletedChildIsRecreated) {
  const std::string ns = unique_namespace("drift");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("phoenix", 1)));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "phoenix")).has_value(); })) << operator_log();
  std::string old_uid = json::get_string((*rc)["metadata"], "uid").value_or("");
  ASSERT_TRUE(api().remove(kRayClusters.object_path(ns, "phoenix")).has_value());
  ASSERT_TRUE(eventually([&] {
    auto again = get(kRayClusters, ns, "phoenix");
    return again && json::get_string((*again)["metadata"], "uid").value_or("") != old_uid;
  })) << operator_log();
}

TEST(Operator, DefaultLocalQueueIsPickedUp) {
  const std::string ns = unique_namespace("lq");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  auto lq = from_yaml(
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: team-default\n"
      "  annotations:\n    kueue.x-k8s.io/default-queue: \"true\"\nspec:\n  clusterQueue: cq\n");
  auto created = api().create(kLocalQueues.collection_path(ns), lq);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  // The default queue is chosen when the child is created, from the operator's LocalQueue cache, which its watch
  // fills a moment after the create returns (as Kueue's own defaulting reads its cache). Probe workloads show when
  // the operator knows the LocalQueue; from then on every new workload must get it.
  bool known = false;
  for (int i = 0; i < 20 && !known; ++i) {
    const std::string probe = "probe-" + std::to_string(i);
    ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload(probe, 1)));
    std::optional<json::Document> probe_rc;
    ASSERT_TRUE(eventually([&] { return (probe_rc = get(kRayClusters, ns, probe)).has_value(); })) << operator_log();
    known = json::get_string((*probe_rc)["metadata"]["labels"], "kueue.x-k8s.io/queue-name") == "team-default";
  }
  ASSERT_TRUE(known) << "no probe workload got the default LocalQueue\n" << operator_log();
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("queued", 1)));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "queued")).has_value(); })) << operator_log();
  EXPECT_EQ(json::get_string((*rc)["metadata"]["labels"], "kueue.x-k8s.io/queue-name"), "team-default");
}

TEST(Operator, ForeignRayClusterIsNotTakenOver) {
  const std::string ns = unique_namespace("foreign");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  auto theirs = from_yaml(
      "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: taken\n  labels: {team: other}\nspec:\n"
      "  headGroupSpec:\n    template:\n      spec:\n        containers:\n        - {name: ray-head, image: ray}\n");
  auto created = api().create(kRayClusters.collection_path(ns), theirs);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("taken", 1)));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "taken");
    return w && condition_status(*w, "Ready", &message) == "False" &&
           message.find("not take it over") != std::string::npos;
  })) << operator_log();
  auto rc = get(kRayClusters, ns, "taken");
  ASSERT_TRUE(rc);
  EXPECT_FALSE(json::find((*rc)["metadata"], "ownerReferences")) << "the operator must not adopt it";
  EXPECT_FALSE(json::find((*rc)["spec"], "workerGroupSpecs")) << "the operator must not rewrite it";

  // Once it is deleted, the workload goes on when the deletion is seen (the foreign object's events wake the workload
  // of its name), not at the next periodic recheck 25 s later.
  const std::string foreign_uid = json::get_string((*rc)["metadata"], "uid").value_or("");
  ASSERT_TRUE(api().remove(kRayClusters.object_path(ns, "taken")).has_value());
  EXPECT_TRUE(eventually(
      [&] {
        auto ours = get(kRayClusters, ns, "taken");
        return ours && json::get_string((*ours)["metadata"], "uid").value_or("") != foreign_uid;
      },
      std::chrono::seconds(12)))
      << operator_log();
}

// The switch deletes the running RayCluster: refused (ChildKindChangeWhileRunning) unless the change suspends it.
TEST(Operator, SwitchingToAppWrapperRemovesTheBareRayCluster) {
  const std::string ns = unique_namespace("switch");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("flip", 1)));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "flip").has_value(); })) << operator_log();
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("flip", 1, "  appWrapper: true\n")));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "flip");
    return w && condition_status(*w, "Valid", &message) == "False";
  })) << operator_log();
  EXPECT_NE(message.find("spec.appWrapper: the workload runs as RayCluster flip"), std::string::npos) << message;
  EXPECT_TRUE(get(kRayClusters, ns, "flip").has_value());
  EXPECT_FALSE(get(kAppWrappers, ns, "flip").has_value());
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("flip", 1, "  appWrapper: true\n  suspend: true\n")));
  ASSERT_TRUE(eventually([&] { return get(kAppWrappers, ns, "flip").has_value() && !get(kRayClusters, ns, "flip"); }))
      << operator_log();
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("flip", 1, "  appWrapper: false\n  suspend: true\n")));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "flip").has_value() && !get(kAppWrappers, ns, "flip"); }))
      << operator_log();
}

// The twenty-fifth user trial: with a finalizer holding the RayCluster (as KubeRay's or any controller's may), the
// switch to an AppWrapper created it beside the RayCluster being deleted, and the RayCluster was deleted again every
// recheck. The AppWrapper comes once the RayCluster is gone; one DELETE and one Replacing event meanwhile.
TEST(Operator, AKindChangeWaitsForTheOldChildHeldByAFinalizer) {
  const std::string ns = unique_namespace("handover");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("held", 1)));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "held").has_value(); })) << operator_log();
  ASSERT_NO_FATAL_FAILURE(patch_spec(kRayClusters, ns, "held", "metadata: {finalizers: [example.com/hold]}"));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("held", 1, "  appWrapper: true\n  suspend: true\n")));
  ASSERT_TRUE(eventually([&] {
    auto rc = get(kRayClusters, ns, "held");
    return rc && json::find_path(*rc, "metadata.deletionTimestamp") != nullptr;
  })) << operator_log();
  std::this_thread::sleep_for(std::chrono::seconds(5));  // two rechecks of the wait
  EXPECT_FALSE(get(kAppWrappers, ns, "held").has_value()) << "created beside the RayCluster still held";
  std::string valid;
  auto w = get(kWorkloads, ns, "held");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(condition_status(*w, "Valid", &valid), "True") << valid;
  // Unsuspended while it waits: still valid (the RayCluster is being deleted, it does not count as running).
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("held", 1, "  appWrapper: true\n")));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  w = get(kWorkloads, ns, "held");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(condition_status(*w, "Valid", &valid), "True") << valid;
  // Each removal is logged with its event: one (its deletionTimestamp above), however many rechecks (the log's tail).
  const std::string log = operator_log();
  const std::string removal = ns + "/held: Replacing: RayCluster held removed";  // this namespace's (GTEST_REPEAT)
  std::size_t removals = 0;
  for (std::size_t at = log.find(removal); at != std::string::npos; at = log.find(removal, at + 1)) ++removals;
  EXPECT_LE(removals, 1u) << log;
  ASSERT_NO_FATAL_FAILURE(patch_spec(kRayClusters, ns, "held", "metadata: {finalizers: []}"));
  ASSERT_TRUE(eventually([&] { return get(kAppWrappers, ns, "held").has_value() && !get(kRayClusters, ns, "held"); }))
      << operator_log();
}
