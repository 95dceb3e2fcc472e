// End-to-end tests of the workload lifecycle with Kueue and RayJobs, against the real apiserver of the ctest fixture.
// Nothing runs KubeRay, Kueue or the AppWrapper controller here: the tests write the children's status (and Kueue's
// Workload) as those controllers would, and check what the operator makes of it.
#include <gtest/gtest.h>

#include <thread>

#include "operator_support.hpp"

using namespace cfo;
using namespace cfo::it;

namespace {

const ResourceType kKueueWorkloads{"kueue.x-k8s.io", "v1beta2", "workloads", true};
const ResourceType kPriorityClasses{"kueue.x-k8s.io", "v1beta2", "workloadpriorityclasses", false};

void create(const ResourceType& t, const std::string& ns, const std::string& yaml_text) {
  auto r = api().create(t.collection_path(ns), from_yaml(yaml_text));
  ASSERT_TRUE(r.has_value()) << r.error().message;
}

void create_local_queue(const std::string& ns, const std::string& name) {
  create(kLocalQueues, ns,
         "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: " + name +
             "\nspec:\n  clusterQueue: cq\n");
}

// Merge-patches the status subresource of an object, as its controller would.
void patch_status(const ResourceType& t, const std::string& ns, const std::string& name, const std::string& yaml) {
  client::WriteOptions wo;
  wo.field_manager = "fake-controller";
  auto r = api().merge_patch(t.object_path(ns, name) + "/status", from_yaml(yaml), wo);
  ASSERT_TRUE(r.has_value()) << r.error().message;
}

std::string phase_of(const std::string& ns, const std::string& name) {
  auto w = get(kWorkloads, ns, name);
  if (!w) return "<absent>";
  const json::Value* p = json::find_path(*w, "status.phase");
  return p && p->IsString() ? p->GetString() : "";
}

// Waits for the workload's phase; the failure message shows the whole status and the operator's log.
::testing::AssertionResult reaches_phase(const std::string& ns, const std::string& name, const std::string& phase) {
  if (eventually([&] { return phase_of(ns, name) == phase; })) return ::testing::AssertionSuccess();
  auto w = get(kWorkloads, ns, name);
  return ::testing::AssertionFailure() << "phase is " << phase_of(ns, name) << ", not " << phase << "\n"
                                       << (w ? json::dump((*w)["status"]) : "") << "\n"
                                       << operator_log();
}

bool has_finalizer(const json::Value& obj) {
  const json::Value* f = json::find_path(obj, "metadata.finalizers");
  if (!f || !f->IsArray()) return false;
  for (const auto& v : f->GetArray())
    if (v.IsString() && std::string(v.GetString()) == "codeflare.dev/managed-local-queue") return true;
  return false;
}

const ResourceType kClusterQueues{"kueue.x-k8s.io", "v1beta2", "clusterqueues", false};
const ResourceType kResourceFlavors{"kueue.x-k8s.io", "v1beta2", "resourceflavors", false};

// ResourceFlavor "<prefix>-rf" and ClusterQueue "<prefix>-cq" of `cpu` cpu and 64Gi memory in it, selecting the
// namespaces `selector` (flow-style YAML, "{}" for all).
void create_quota(const std::string& prefix, int cpu, const std::string& selector = "{}") {
  ASSERT_NO_FATAL_FAILURE(
      create(kResourceFlavors, "",
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: " + prefix + "-rf\n"));
  ASSERT_NO_FATAL_FAILURE(
      create(kClusterQueues, "",
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: " + prefix +
                 "-cq\nspec:\n  namespaceSelector: " + selector +
                 "\n  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n"
                 "    - name: " +
                 prefix + "-rf\n      resources:\n      - {name: cpu, nominalQuota: " + std::to_string(cpu) +
                 "}\n      - {name: memory, nominalQuota: 64Gi}\n"));
}

// Deletes what create_quota made.
void remove_quota(const std::string& prefix) {
  api().remove(kClusterQueues.object_path("", prefix + "-cq"));
  api().remove(kResourceFlavors.object_path("", prefix + "-rf"));
}
}  // namespace

TEST(Lifecycle, RayJobIsCreatedQueuedAndFollowedToSuccess) {
  const std::string ns = unique_namespace("job");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(create_local_queue(ns, "team-q"));
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns, cpu_workload("train", 1,
                                      "  queue: {localQueue: team-q}\n  job:\n    entrypoint: python train.py\n"
                                      "    runtimeEnvYAML: |\n      pip: [torch]\n    activeDeadlineSeconds: 600\n")));
  std::optional<json::Document> rj;
  ASSERT_TRUE(eventually([&] { return (rj = get(kRayJobs, ns, "train")).has_value(); })) << operator_log();
  EXPECT_EQ(json::get_string((*rj)["metadata"]["labels"], "kueue.x-k8s.io/queue-name"), "team-q");
  EXPECT_EQ(json::get_string((*rj)["spec"], "entrypoint"), "python train.py");
  EXPECT_TRUE((*rj)["spec"]["shutdownAfterJobFinishes"].GetBool()) << "a queued RayJob must shut down";
  EXPECT_EQ((*rj)["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"].GetInt(), 1);
  const json::Value* owners = json::find_path(*rj, "metadata.ownerReferences");
  ASSERT_TRUE(owners && owners->IsArray() && owners->Size() == 1);
  EXPECT_EQ(json::get_string((*owners)[0], "kind"), "CodeFlareWorkload");
  EXPECT_FALSE(get(kRayClusters, ns, "train")) << "a job workload has no bare RayCluster";

  // KubeRay starts the job, then it succeeds.
  ASSERT_NO_FATAL_FAILURE(
      patch_status(kRayJobs, ns, "train", "status: {jobDeploymentStatus: Running, jobStatus: RUNNING}"));
  ASSERT_TRUE(reaches_phase(ns, "train", "Running"));
  auto w = get(kWorkloads, ns, "train");
  ASSERT_TRUE(w);
  EXPECT_EQ(condition_status(*w, "Ready"), "True");
  EXPECT_EQ(condition_status(*w, "Admitted"), "True") << "a running job has been admitted";
  ASSERT_NO_FATAL_FAILURE(
      patch_status(kRayJobs, ns, "train", "status: {jobDeploymentStatus: Complete, jobStatus: SUCCEEDED}"));
  ASSERT_TRUE(reaches_phase(ns, "train", "Succeeded"));
  w = get(kWorkloads, ns, "train");
  EXPECT_EQ(condition_status(*w, "Succeeded"), "True");
  EXPECT_EQ(json::get_string((*w)["status"], "jobStatus"), "SUCCEEDED");

  // A new spec runs again: the finished RayJob is replaced by one with the new entrypoint.
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns, cpu_workload("train", 1,
                                      "  queue: {localQueue: team-q}\n  job:\n    entrypoint: python train2.py\n"
                                      "    runtimeEnvYAML: |\n      pip: [torch]\n    activeDeadlineSeconds: 600\n")));
  ASSERT_TRUE(eventually(
      [&] {
        rj = get(kRayJobs, ns, "train");
        return rj && json::get_string((*rj)["spec"], "entrypoint") == std::string("python train2.py");
      },
      std::chrono::seconds(30)))
      << operator_log();
  EXPECT_NE(phase_of(ns, "train"), "Succeeded") << "the new run has not finished";
}

TEST(Lifecycle, MissingLocalQueueIsAConditionUntilItAppears) {
  const std::string ns = unique_namespace("nolq");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("waiting", 1, "  queue: {localQueue: later-q}\n")));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "waiting");
    return w && condition_status(*w, "Queued", &message) == "False";
  })) << operator_log();
  EXPECT_NE(message.find("later-q"), std::string::npos) << message;
  EXPECT_EQ(phase_of(ns, "waiting"), "Pending");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_FALSE(get(kRayClusters, ns, "waiting")) << "nothing is created for a queue that does not exist";

  // The LocalQueue appears: the operator is woken by it and goes ahead.
  ASSERT_NO_FATAL_FAILURE(create_local_queue(ns, "later-q"));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "waiting")).has_value(); }, std::chrono::seconds(20)))
      << operator_log();
  EXPECT_EQ(json::get_string((*rc)["metadata"]["labels"], "kueue.x-k8s.io/queue-name"), "later-q");
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "waiting");
    return w && condition_status(*w, "Queued") == "True";
  })) << operator_log();
}

TEST(Lifecycle, MissingPriorityClassIsACondition) {
  const std::string ns = unique_namespace("nopc");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(create_local_queue(ns, "team-q"));
  const std::string pc = "urgent-" + ns;  // cluster-scoped: unique per run
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns, cpu_workload("prio", 1, "  queue: {localQueue: team-q, priorityClass: " + pc + "}\n")));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "prio");
    return w && condition_status(*w, "Queued", &message) == "False";
  })) << operator_log();
  EXPECT_NE(message.find(pc), std::string::npos) << message;
  EXPECT_FALSE(get(kRayClusters, ns, "prio"));

  // Once the WorkloadPriorityClass exists (seen at the next re-check, within 30 s), the cluster carries its label.
  ASSERT_NO_FATAL_FAILURE(create(
      kPriorityClasses, "",
      "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata:\n  name: " + pc + "\nvalue: 1000\n"));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "prio")).has_value(); }, std::chrono::seconds(45)))
      << operator_log();
  EXPECT_EQ(json::get_string((*rc)["metadata"]["labels"], "kueue.x-k8s.io/priority-class"), pc);
}

TEST(Lifecycle, ManagedLocalQueueIsCreatedSharedAndCleanedUp) {
  const std::string ns = unique_namespace("mlq");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("first", 1, "  queue: {clusterQueue: team-cq}\n")));
  std::optional<json::Document> lq;
  ASSERT_TRUE(eventually([&] { return (lq = get(kLocalQueues, ns, "team-cq")).has_value(); })) << operator_log();
  EXPECT_EQ(json::get_string((*lq)["spec"], "clusterQueue"), "team-cq");
  EXPECT_EQ(json::get_string((*lq)["metadata"]["labels"], "app.kubernetes.io/managed-by"), "codeflare-operator");
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "first");
    return w && has_finalizer(*w);
  })) << operator_log();
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "first")).has_value(); })) << operator_log();
  EXPECT_EQ(json::get_string((*rc)["metadata"]["labels"], "kueue.x-k8s.io/queue-name"), "team-cq");

  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("second", 1, "  queue: {clusterQueue: team-cq}\n")));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "second").has_value(); })) << operator_log();

  // The first goes: the LocalQueue stays for the second, and the finalizer does not hold the deletion.
  ASSERT_TRUE(api().remove(kWorkloads.object_path(ns, "first")).has_value());
  ASSERT_TRUE(eventually([&] { return !get(kWorkloads, ns, "first"); })) << operator_log();
  EXPECT_TRUE(get(kLocalQueues, ns, "team-cq")) << "still used by the second workload";

  // The last user goes: the LocalQueue goes with it.
  ASSERT_TRUE(api().remove(kWorkloads.object_path(ns, "second")).has_value());
  ASSERT_TRUE(eventually([&] { return !get(kWorkloads, ns, "second") && !get(kLocalQueues, ns, "team-cq"); }))
      << operator_log();
}

// A managed LocalQueue whose users went while no operator saw them (a leader killed, a workload deleted before any
// reconcile gave it the finalizer) is found by the collector and deleted; one labelled by nobody is left alone.
TEST(Lifecycle, AnOrphanedManagedLocalQueueIsCollected) {
  const std::string ns = unique_namespace("mlqorphan");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(create(kLocalQueues, ns,
                                 "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: orphan\n"
                                 "  labels: {app.kubernetes.io/managed-by: codeflare-operator}\nspec:\n"
                                 "  clusterQueue: orphan\n"));
  ASSERT_NO_FATAL_FAILURE(create_local_queue(ns, "users-own"));
  ASSERT_TRUE(eventually([&] { return !get(kLocalQueues, ns, "orphan").has_value(); })) << operator_log();
  EXPECT_TRUE(get(kLocalQueues, ns, "users-own").has_value()) << "a LocalQueue the operator did not make was deleted";
}

// The last user of a managed LocalQueue names it by spec.queue.localQueue only (it manages nothing, so carries no
// finalizer): the LocalQueue goes with it all the same.
TEST(Lifecycle, AManagedLocalQueueGoesWithALastUserThatOnlyNamesIt) {
  const std::string ns = unique_namespace("mlqnamed");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("maker", 1, "  queue: {clusterQueue: shared-cq}\n")));
  ASSERT_TRUE(eventually([&] { return get(kLocalQueues, ns, "shared-cq").has_value(); })) << operator_log();
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("namer", 1, "  queue: {localQueue: shared-cq}\n")));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "namer").has_value(); })) << operator_log();
  ASSERT_TRUE(api().remove(kWorkloads.object_path(ns, "maker")).has_value());
  ASSERT_TRUE(eventually([&] { return !get(kWorkloads, ns, "maker"); })) << operator_log();
  EXPECT_TRUE(get(kLocalQueues, ns, "shared-cq")) << "still named by the second workload";
  ASSERT_TRUE(api().remove(kWorkloads.object_path(ns, "namer")).has_value());
  ASSERT_TRUE(eventually([&] { return !get(kLocalQueues, ns, "shared-cq").has_value(); })) << operator_log();
}

// The finalizers of others stay: the operator adds and removes its own entry only (the twenty-second user trial: a
// server-side apply of the list, which kube-apiserver 1.20 keeps as one value, stripped them and the deletion they
// held went ahead).
TEST(Lifecycle, TheFinalizersOfOthersAreKept) {
  const std::string ns = unique_namespace("mlqfin");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  std::string held = cpu_workload("held", 1, "  queue: {clusterQueue: fin-cq}\n");
  held.replace(held.find("\nspec:"), 6, "\n  finalizers: [example.com/hold]\nspec:");
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, held));
  auto finalizers = [&] {
    auto w = get(kWorkloads, ns, "held");
    const json::Value* f = w ? json::find_path(*w, "metadata.finalizers") : nullptr;
    std::string out;
    if (f && f->IsArray())
      for (const auto& v : f->GetArray()) out += std::string(out.empty() ? "" : ",") + v.GetString();
    return out;
  };
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "held").has_value(); })) << operator_log();
  EXPECT_EQ(finalizers(), "example.com/hold,codeflare.dev/managed-local-queue");
  // Deleted: the operator's clean-up runs and its finalizer goes; the other one still holds the workload.
  ASSERT_TRUE(api().remove(kWorkloads.object_path(ns, "held")).has_value());
  ASSERT_TRUE(eventually([&] { return !get(kLocalQueues, ns, "fin-cq").has_value(); })) << operator_log();
  ASSERT_TRUE(eventually([&] { return finalizers() == "example.com/hold"; })) << finalizers() << operator_log();
  EXPECT_TRUE(get(kWorkloads, ns, "held").has_value()) << "deleted while another finalizer held it";
  ASSERT_NO_FATAL_FAILURE(patch_spec(kWorkloads, ns, "held", "metadata: {finalizers: []}"));
  ASSERT_TRUE(eventually([&] { return !get(kWorkloads, ns, "held").has_value(); })) << operator_log();
}

// The managed LocalQueue is remembered in the stored status (the CRD declares the field), so a workload that moves to
// another queue releases the one it made, which then goes when nobody uses it.
TEST(Lifecycle, AManagedLocalQueueIsReleasedWhenTheWorkloadMovesAway) {
  const std::string ns = unique_namespace("mlqmove");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(create_local_queue(ns, "team-q"));
  ASSERT_NO_FATAL_FAILURE(apply_workload(
      ns, cpu_workload("mover", 1, "  suspend: true\n  queue: {clusterQueue: cq-m, localQueue: lq-m}\n")));
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "mover");
    return w && json::string_at(*w, "status.managedLocalQueue") == "lq-m";
  })) << "status.managedLocalQueue is not stored"
      << operator_log();
  ASSERT_TRUE(get(kLocalQueues, ns, "lq-m").has_value());
  // Suspended, it may change queue; the LocalQueue it made is no longer used and goes.
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns, cpu_workload("mover", 1, "  suspend: true\n  queue: {localQueue: team-q}\n")));
  ASSERT_TRUE(eventually([&] { return !get(kLocalQueues, ns, "lq-m").has_value(); })) << operator_log();
  auto w = get(kWorkloads, ns, "mover");
  ASSERT_TRUE(w);
  EXPECT_EQ(json::string_at(*w, "status.managedLocalQueue"), "");
  ASSERT_TRUE(api().remove(kWorkloads.object_path(ns, "mover")).has_value());
}

TEST(Lifecycle, PhasesFollowKueueAndKubeRay) {
  const std::string ns = unique_namespace("phase");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(create_local_queue(ns, "team-q"));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("life", 2, "  queue: {localQueue: team-q}\n")));
  std::optional<json::Document> rc;
  ASSERT_TRUE(eventually([&] { return (rc = get(kRayClusters, ns, "life")).has_value(); })) << operator_log();
  ASSERT_TRUE(reaches_phase(ns, "life", "Pending"));

  // Kueue's webhook suspends the cluster and its controller creates a Workload that waits for quota.
  ASSERT_NO_FATAL_FAILURE(patch_spec(kRayClusters, ns, "life", "spec: {suspend: true}"));
  ASSERT_TRUE(reaches_phase(ns, "life", "Queued"));
  std::string uid = json::get_string((*rc)["metadata"], "uid").value_or("");
  ASSERT_NO_FATAL_FAILURE(
      create(kKueueWorkloads, ns,
             "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:\n  name: raycluster-life-abc12\n  labels:\n"
             "    kueue.x-k8s.io/job-uid: " +
                 uid + "\n  ownerReferences:\n  - {apiVersion: ray.io/v1, kind: RayCluster, name: life, uid: " + uid +
                 ", controller: true}\nspec:\n  queueName: team-q\n  podSets:\n"
                 "  - name: head\n    count: 1\n    template: {spec: {containers: [{name: ray-head, image: ray}]}}\n"));
  ASSERT_NO_FATAL_FAILURE(patch_status(kKueueWorkloads, ns, "raycluster-life-abc12",
                                       "status:\n  conditions:\n  - {type: QuotaReserved, status: 'False', reason: "
                                       "Pending, message: 'insufficient quota for cpu in flavor default', "
                                       "lastTransitionTime: '2026-01-01T00:00:00Z'}\n"));
  // The workload is woken by its own next change; nudge it with a label as a user might.
  ASSERT_NO_FATAL_FAILURE(patch_spec(kRayClusters, ns, "life", "metadata: {labels: {nudge: '1'}}"));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "life");
    return w && condition_status(*w, "Admitted", &message) == "False" &&
           message.find("insufficient quota") != std::string::npos;
  })) << message
      << "\n"
      << operator_log();

  // Kueue admits it and unsuspends the cluster; the operator leaves Kueue's spec.suspend alone throughout.
  ASSERT_NO_FATAL_FAILURE(patch_status(
      kKueueWorkloads, ns, "raycluster-life-abc12",
      "status:\n  admission:\n    clusterQueue: cq\n    podSetAssignments:\n    - {name: head, count: 1}\n"
      "  conditions:\n  - {type: QuotaReserved, status: 'True', reason: QuotaReserved, message: ok, "
      "lastTransitionTime: '2026-01-01T00:00:01Z'}\n  - {type: Admitted, status: 'True', reason: Admitted, "
      "message: ok, lastTransitionTime: '2026-01-01T00:00:01Z'}\n"));
  ASSERT_NO_FATAL_FAILURE(patch_spec(kRayClusters, ns, "life", "spec: {suspend: false}"));
  ASSERT_TRUE(reaches_phase(ns, "life", "Admitted"));
  auto w = get(kWorkloads, ns, "life");
  EXPECT_EQ(condition_status(*w, "Admitted"), "True");
  EXPECT_EQ(json::get_string((*w)["status"]["admission"], "clusterQueue"), "cq");

  // KubeRay reports the cluster ready.
  ASSERT_NO_FATAL_FAILURE(patch_status(kRayClusters, ns, "life",
                                       "status: {state: ready, readyWorkerReplicas: 2, head: {serviceName: "
                                       "life-head-svc}}"));
  ASSERT_TRUE(reaches_phase(ns, "life", "Running"));
  w = get(kWorkloads, ns, "life");
  EXPECT_EQ(condition_status(*w, "Ready"), "True");
  EXPECT_EQ(json::get_int((*w)["status"], "readyWorkers"), 2);
  EXPECT_EQ(json::get_string((*w)["status"], "dashboardURL"), "http://life-head-svc." + ns + ".svc:8265");
  rc = get(kRayClusters, ns, "life");
  EXPECT_FALSE((*rc)["spec"]["suspend"].GetBool()) << "spec.suspend is Kueue's";
}

TEST(Lifecycle, DriftIsRepairedAndOthersFieldsAreKept) {
  const std::string ns = unique_namespace("fix");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("steady", 1)));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "steady").has_value(); })) << operator_log();
  // Someone else changes a field the operator owns, and adds one of their own.
  ASSERT_NO_FATAL_FAILURE(
      patch_spec(kRayClusters, ns, "steady", "metadata: {labels: {team: blue}}\nspec: {rayVersion: '2.0.0'}"));
  ASSERT_TRUE(eventually([&] {
    auto rc = get(kRayClusters, ns, "steady");
    return rc && json::get_string((*rc)["spec"], "rayVersion") != "2.0.0";
  })) << operator_log();
  auto rc = get(kRayClusters, ns, "steady");
  EXPECT_EQ(json::get_string((*rc)["metadata"]["labels"], "team"), "blue") << "fields of other managers stay";
}

TEST(Lifecycle, UserSuspendStopsTheCluster) {
  const std::string ns = unique_namespace("stop");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("pause", 1)));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "pause").has_value(); })) << operator_log();
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("pause", 1, "  suspend: true\n")));
  ASSERT_TRUE(eventually([&] {
    auto rc = get(kRayClusters, ns, "pause");
    const json::Value* s = rc ? json::find_path(*rc, "spec.suspend") : nullptr;
    return s && s->IsBool() && s->GetBool();
  })) << operator_log();
  ASSERT_TRUE(reaches_phase(ns, "pause", "Suspended"));
}

// A workload its ClusterQueue can never admit says so (Admissible=False, Ready's reason) instead of only waiting; a
// change of the ClusterQueue's quota wakes it and the condition turns True. Nothing runs Kueue here: the verdict is
// the operator's, from its ClusterQueue and ResourceFlavor caches.
TEST(Lifecycle, InadmissibleWorkloadIsAConditionUntilItsQueueGrows) {
  const std::string ns = unique_namespace("admit");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(create_quota(ns, 4));
  ASSERT_NO_FATAL_FAILURE(create(kLocalQueues, ns,
                                 "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: small\n"
                                 "spec:\n  clusterQueue: " +
                                     ns + "-cq\n"));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("big", 8, "  queue: {localQueue: small}\n")));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "big");
    return w && condition_status(*w, "Admissible", &message) == "False";
  })) << operator_log();
  EXPECT_NE(message.find("spec.workerGroups[0].replicas"), std::string::npos) << message;
  auto w = get(kWorkloads, ns, "big");
  ASSERT_TRUE(w);
  EXPECT_EQ(condition_status(*w, "Valid"), "True");
  EXPECT_TRUE(get(kRayClusters, ns, "big").has_value()) << "the child is applied: the queue may still grow";
  // The ClusterQueue grows: the workload is woken and can be admitted.
  ASSERT_NO_FATAL_FAILURE(
      patch_spec(kClusterQueues, "", ns + "-cq",
                 "spec:\n  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n    - name: " + ns +
                     "-rf\n      resources:\n      - {name: cpu, nominalQuota: 64}\n      - {name: memory, "
                     "nominalQuota: 64Gi}\n"));
  EXPECT_TRUE(eventually([&] {
    auto now = get(kWorkloads, ns, "big");
    return now && condition_status(*now, "Admissible") == "True";
  })) << operator_log();
  remove_quota(ns);
}

// A ClusterQueue's namespaceSelector is judged against the workload's Namespace labels, from the operator's Namespace
// cache (the thirty-sixth user trial: a ClusterQueue selecting team=z was said to admit a workload of a namespace
// without that label); labelling the namespace wakes the workload.
TEST(Lifecycle, NamespaceNotSelectedUntilTheNamespaceIsLabelled) {
  const std::string ns = unique_namespace("nssel");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(create_quota(ns, 64, "{matchLabels: {team: " + ns + "}}"));
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns, cpu_workload("picky", 1, "  queue: {localQueue: sel, clusterQueue: " + ns + "-cq}\n")));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "picky");
    return w && condition_status(*w, "Admissible", &message) == "False";
  })) << operator_log();
  EXPECT_NE(message.find("namespaceSelector"), std::string::npos) << message;
  ASSERT_NO_FATAL_FAILURE(patch_spec(kNamespaces, "", ns, "metadata:\n  labels:\n    team: " + ns + "\n"));
  EXPECT_TRUE(eventually([&] {
    auto now = get(kWorkloads, ns, "picky");
    return now && condition_status(*now, "Admissible") == "True";
  })) << operator_log();
  remove_quota(ns);
}

// spec.queue.clusterQueue naming a ClusterQueue that does not exist (the thirty-fourth user trial: the managed
// LocalQueue was created and the workload showed Queued=True, Admitted=False Pending, nothing more): Admissible=False
// ClusterQueueNotFound, from the first status on; creating the ClusterQueue wakes it and it turns True.
TEST(Lifecycle, MissingClusterQueueIsAConditionUntilItIsCreated) {
  const std::string ns = unique_namespace("nocq");
  ASSERT_NO_FATAL_FAILURE(create_namespace(ns));
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns, cpu_workload("typo", 1, "  queue: {localQueue: mine, clusterQueue: " + ns + "-cq}\n")));
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto w = get(kWorkloads, ns, "typo");
    return w && condition_status(*w, "Admissible", &message) == "False";
  })) << operator_log();
  EXPECT_NE(message.find("ClusterQueue " + ns + "-cq, which LocalQueue mine points at, does not exist"),
            std::string::npos)
      << message;
  EXPECT_TRUE(get(kLocalQueues, ns, "mine").has_value()) << "the managed LocalQueue is created all the same";
  ASSERT_NO_FATAL_FAILURE(create_quota(ns, 4));
  EXPECT_TRUE(eventually([&] {
    auto now = get(kWorkloads, ns, "typo");
    return now && condition_status(*now, "Admissible") == "True";
  })) << operator_log();
  remove_quota(ns);
}
