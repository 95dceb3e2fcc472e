// validation/admissibility.hpp (rules/kueue_admission_rules.cpp, kueue_pod_sets.cpp, node_matching.cpp): can a
// queued job ever be admitted? One failing and one passing case per rule, and the PodSets Kueue builds.
#include "test_support.hpp"
#include "validation/admissibility.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::judge_admissibility;
using validation::QueueObjects;

namespace {
using Edits = std::vector<std::pair<std::string, std::string>>;
const std::string kQueue = "metadata.labels[kueue.x-k8s.io/queue-name]";
const std::string kW0 = "spec.workerGroupSpecs[0]";
const std::string kF0 = "spec.resourceGroups[0].flavors[0]";

/// A LocalQueue -> ClusterQueue -> ResourceFlavor chain (team-a-queue -> team-a-cq: cpu 16, memory 64Gi ->
/// default-flavor), edited, and the objects that stay alive for the QueueObjects pointing at them.
struct Chain {
  json::Document flavor, queue, local;
  std::vector<json::Document> extra;
  static Chain with(Edits cq = {}, Edits rf = {}) {
    Chain c;
    c.flavor = patched(yaml1(resourceflavor_yaml()), rf);
    c.queue = patched(yaml1(clusterqueue_yaml()), cq);
    c.local = yaml1(localqueue_yaml());
    return c;
  }
  QueueObjects objects() const {
    QueueObjects q;
    for (const json::Value* o : {&flavor, &queue, &local}) q.add(o);
    for (const auto& e : extra) q.add(&e);
    return q;
  }
};

json::Document queued_cluster(Edits e = {}) {
  Edits all = {{kQueue, "team-a-queue"}};
  all.insert(all.end(), e.begin(), e.end());
  return patched(yaml1(raycluster_yaml()), all);
}

FieldErrors judge(const json::Value& job, const Chain& c) { return judge_admissibility(job, c.objects()); }
}  // namespace

TEST(Admissibility, AdmissibleWorkloadHasNoFinding) {
  Chain c = Chain::with();
  auto errs = judge(queued_cluster(), c);
  EXPECT_TRUE(errs.empty()) << describe(errs);
}

TEST(Admissibility, NotJudgedWithoutTheWholeChain) {
  Chain c = Chain::with();
  EXPECT_TRUE(judge(queued_cluster({{kQueue, "other-queue"}}), c).empty()) << "LocalQueue not given";
  Chain other_cq = Chain::with();
  other_cq.local = patched(other_cq.local, {{"spec.clusterQueue", "elsewhere"}});
  EXPECT_TRUE(judge(queued_cluster({{kW0 + ".replicas", "100"}}), other_cq).empty()) << "ClusterQueue not given";
  EXPECT_TRUE(judge(yaml1(raycluster_yaml()), c).empty()) << "not queued";
}

TEST(Admissibility, MissingQueueLinkNamesTheFirstObjectNotGiven) {
  using validation::missing_queue_link;
  Chain c = Chain::with();
  EXPECT_FALSE(missing_queue_link(queued_cluster(), c.objects())) << "the chain is whole";
  EXPECT_FALSE(missing_queue_link(yaml1(raycluster_yaml()), c.objects())) << "not queued";
  auto lq = missing_queue_link(queued_cluster({{kQueue, "other-queue"}}), c.objects());
  ASSERT_TRUE(lq);
  EXPECT_EQ(lq->kind, "LocalQueue");
  EXPECT_EQ(lq->name, "other-queue");
  Chain other_cq = Chain::with();
  other_cq.local = patched(other_cq.local, {{"spec.clusterQueue", "elsewhere"}});
  auto cq = missing_queue_link(queued_cluster(), other_cq.objects());
  ASSERT_TRUE(cq);
  EXPECT_EQ(cq->kind, "ClusterQueue");
  EXPECT_EQ(cq->name, "elsewhere");
  EXPECT_EQ(cq->of, "team-a-queue");
  Chain other_rf = Chain::with({{kF0 + ".name", "gpu-flavor"}});
  auto rf = missing_queue_link(queued_cluster(), other_rf.objects());
  ASSERT_TRUE(rf);
  EXPECT_EQ(rf->kind, "ResourceFlavor");
  EXPECT_EQ(rf->name, "gpu-flavor");
  EXPECT_EQ(rf->of, "team-a-cq");
  EXPECT_TRUE(judge(queued_cluster(), other_rf).empty()) << "no verdict either";
}

// ---- ValidateAdmissibility --------------------------------------------------------------------------------------

TEST(Admissibility, ValidateAdmissibilityAbsentSelectorSelectsNoNamespace) {
  Chain c = Chain::with({{"spec.namespaceSelector", "~delete"}});
  auto errs = judge(queued_cluster(), c);
  ASSERT_TRUE(has(errs, kQueue, "ValidateAdmissibility")) << describe(errs);
  EXPECT_NE(errs[0].reason.find("selects no namespace"), std::string::npos) << errs[0].reason;
}

TEST(Admissibility, ValidateAdmissibilityUsesTheNamespaceLabelsItKnows) {
  Chain by_name = Chain::with({{"spec.namespaceSelector", "{matchLabels: {kubernetes.io/metadata.name: team-b}}"}});
  EXPECT_TRUE(has(judge(queued_cluster(), by_name), kQueue, "ValidateAdmissibility"));
  Chain own_name = Chain::with({{"spec.namespaceSelector", "{matchLabels: {kubernetes.io/metadata.name: team-a}}"}});
  EXPECT_TRUE(judge(queued_cluster(), own_name).empty());

  Chain by_label = Chain::with({{"spec.namespaceSelector", "{matchLabels: {team: a}}"}});
  EXPECT_TRUE(judge(queued_cluster(), by_label).empty()) << "the namespace's labels are not known: no verdict";
  by_label.extra.push_back(yaml1("{apiVersion: v1, kind: Namespace, metadata: {name: team-a, labels: {team: b}}}"));
  EXPECT_TRUE(has(judge(queued_cluster(), by_label), kQueue, "ValidateAdmissibility"));
  by_label.extra[0] = yaml1("{apiVersion: v1, kind: Namespace, metadata: {name: team-a, labels: {team: a}}}");
  EXPECT_TRUE(judge(queued_cluster(), by_label).empty());
}

// ---- FindFlavorForPodSets ---------------------------------------------------------------------------------------

TEST(Admissibility, FindFlavorForPodSetsEveryRequestedResourceIsCovered) {
  Chain c = Chain::with();
  const std::string gpu = kW0 + ".template.spec.containers[0].resources.limits[nvidia.com/gpu]";
  auto errs = judge(queued_cluster({{gpu, "1"}}), c);
  ASSERT_TRUE(has(errs, gpu, "FindFlavorForPodSets")) << describe(errs);
  EXPECT_TRUE(judge(queued_cluster({{gpu, "0"}}), c).empty()) << "a zero request of an uncovered resource is skipped";
  Chain with_gpu = Chain::with({{"spec.resourceGroups[1]",
                                 "{coveredResources: [nvidia.com/gpu], flavors: [{name: default-flavor-"
                                 "gpu, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]}"}});
  with_gpu.extra.push_back(
      yaml1("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: "
            "default-flavor-gpu}}"));
  auto ok = judge(queued_cluster({{gpu, "1"}}), with_gpu);
  EXPECT_TRUE(ok.empty()) << describe(ok);
}

// ---- CheckFlavorForPodSets --------------------------------------------------------------------------------------

TEST(Admissibility, CheckFlavorForPodSetsTaintsMustBeTolerated) {
  Chain tainted = Chain::with({}, {{"spec.nodeTaints", "[{key: nvidia.com/gpu, effect: NoSchedule}]"}});
  auto errs = judge(queued_cluster(), tainted);
  EXPECT_TRUE(has(errs, "spec.headGroupSpec.template.spec.tolerations", "CheckFlavorForPodSets")) << describe(errs);
  EXPECT_TRUE(has(errs, kW0 + ".template.spec.tolerations", "CheckFlavorForPodSets")) << describe(errs);
  const std::string tol = "[{key: nvidia.com/gpu, operator: Exists}]";
  auto ok = judge(queued_cluster({{"spec.headGroupSpec.template.spec.tolerations", tol},
                                  {kW0 + ".template.spec.tolerations", tol}}),
                  tainted);
  EXPECT_TRUE(ok.empty()) << describe(ok);
  Chain self_tolerated =
      Chain::with({}, {{"spec.nodeTaints", "[{key: nvidia.com/gpu, effect: NoSchedule}]"},
                       {"spec.tolerations", "[{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]"}});
  EXPECT_TRUE(judge(queued_cluster(), self_tolerated).empty()) << "the flavor's own tolerations count";
  Chain prefer = Chain::with({}, {{"spec.nodeTaints", "[{key: spot, effect: PreferNoSchedule}]"}});
  EXPECT_TRUE(judge(queued_cluster(), prefer).empty()) << "PreferNoSchedule taints do not block";
}

TEST(Admissibility, CheckFlavorForPodSetsNodeLabelsMustMatch) {
  Chain c = Chain::with();  // default-flavor: cloud.example.com/pool=gpu
  const std::string sel = kW0 + ".template.spec.nodeSelector";
  auto errs = judge(queued_cluster({{sel, "{cloud.example.com/pool: cpu}"}}), c);
  EXPECT_TRUE(has(errs, sel + "[cloud.example.com/pool]", "CheckFlavorForPodSets")) << describe(errs);
  EXPECT_TRUE(judge(queued_cluster({{sel, "{cloud.example.com/pool: gpu}"}}), c).empty());
  EXPECT_TRUE(judge(queued_cluster({{sel, "{zone: a}"}}), c).empty())
      << "keys the flavor has no label for are left out";

  const std::string aff = kW0 + ".template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  auto bad_aff =
      judge(queued_cluster({{aff,
                             "{nodeSelectorTerms: [{matchExpressions: [{key: cloud.example.com/pool, operator: In, "
                             "values: [cpu]}]}]}"}}),
            c);
  EXPECT_TRUE(has(bad_aff, aff, "CheckFlavorForPodSets")) << describe(bad_aff);
  auto ok_aff = judge(
      queued_cluster({{aff,
                       "{nodeSelectorTerms: [{matchExpressions: [{key: cloud.example.com/pool, operator: In, "
                       "values: [cpu]}]}, {matchExpressions: [{key: cloud.example.com/pool, operator: Exists}]}]}"}}),
      c);
  EXPECT_TRUE(ok_aff.empty()) << "terms are ORed\n" << describe(ok_aff);
}

// A PodSet asking for a topology takes only a flavor with spec.topologyName (flavorassigner
// checkPodSetAndFlavorMatchForTAS): without one, the workload waits forever.
TEST(Admissibility, CheckFlavorForPodSetsTopologyNeedsATopologyFlavor) {
  const std::string ann = kW0 + ".template.metadata.annotations[kueue.x-k8s.io/podset-required-topology]";
  Chain plain = Chain::with();
  auto errs = judge(queued_cluster({{ann, "cloud.example.com/rack"}}), plain);
  ASSERT_TRUE(has(errs, ann, "CheckFlavorForPodSets")) << describe(errs);
  EXPECT_NE(errs[0].reason.find("no spec.topologyName"), std::string::npos) << errs[0].reason;
  Chain tas = Chain::with({}, {{"spec.topologyName", "default-topology"}});
  auto ok = judge(queued_cluster({{ann, "cloud.example.com/rack"}}), tas);
  EXPECT_TRUE(ok.empty()) << describe(ok);
  EXPECT_TRUE(judge(queued_cluster(), plain).empty()) << "no topology asked: any flavor";
}

// ---- FitsResourceQuota ------------------------------------------------------------------------------------------

TEST(Admissibility, FitsResourceQuotaOnePodTooLargeNamesTheRequest) {
  Chain c = Chain::with();
  const std::string cpu = kW0 + ".template.spec.containers[0].resources";
  auto errs = judge(queued_cluster({{cpu + ".requests.cpu", "\"20\""}, {cpu + ".limits.cpu", "\"20\""}}), c);
  EXPECT_TRUE(has(errs, cpu + ".requests.cpu", "FitsResourceQuota")) << describe(errs);
}

// Every resource the PodSet is short of is reported in one run, with amounts as quantities ("80Gi", not bytes).
TEST(Admissibility, FitsResourceQuotaNamesEveryShortResourceInUnits) {
  Chain c = Chain::with();  // cpu 16, memory 64Gi
  const std::string res = kW0 + ".template.spec.containers[0].resources";
  auto errs = judge(queued_cluster({{res + ".requests.cpu", "\"20\""},
                                    {res + ".limits.cpu", "\"20\""},
                                    {res + ".requests.memory", "80Gi"},
                                    {res + ".limits.memory", "80Gi"}}),
                    c);
  const FieldError* cpu = nullptr;
  const FieldError* memory = nullptr;
  for (const auto& e : errs) {
    if (e.path == res + ".requests.cpu") cpu = &e;
    if (e.path == res + ".requests.memory") memory = &e;
  }
  ASSERT_NE(cpu, nullptr) << describe(errs);
  ASSERT_NE(memory, nullptr) << "memory too, not only the first resource\n" << describe(errs);
  EXPECT_EQ(memory->rule, "FitsResourceQuota");
  EXPECT_NE(memory->reason.find("Pods x 80Gi"), std::string::npos) << memory->reason;
  EXPECT_NE(memory->reason.find("at most 64Gi"), std::string::npos) << memory->reason;
  EXPECT_NE(cpu->reason.find("Pods x 20)"), std::string::npos) << cpu->reason;
}

TEST(Admissibility, FitsResourceQuotaTooManyReplicasNamesTheCount) {
  Chain c = Chain::with();  // 16 cpu: head 1 + 7 x 2 = 15 fits, 8 x 2 does not fit with the head
  EXPECT_TRUE(judge(queued_cluster({{kW0 + ".replicas", "7"}}), c).empty());
  auto errs = judge(queued_cluster({{kW0 + ".replicas", "9"}}), c);
  EXPECT_TRUE(has(errs, kW0 + ".replicas", "FitsResourceQuota")) << describe(errs);
  auto together = judge(queued_cluster({{kW0 + ".replicas", "8"}}), c);
  EXPECT_TRUE(has(together, kW0 + ".replicas", "FitsResourceQuota")) << "17 cpu in all\n" << describe(together);
}

TEST(Admissibility, FitsResourceQuotaCountsWhatTheCohortCanLend) {
  const Edits in_cohort = {{"spec.cohortName", "research"}};
  Chain alone = Chain::with(in_cohort);
  EXPECT_TRUE(has(judge(queued_cluster({{kW0 + ".replicas", "9"}}), alone), kW0 + ".replicas", "FitsResourceQuota"))
      << "a cohort of one lends nothing";
  Chain lender = Chain::with(in_cohort);
  lender.extra.push_back(
      patched(yaml1(clusterqueue_yaml()), {{"metadata.name", "team-b-cq"}, {"spec.cohortName", "research"}}));
  auto ok = judge(queued_cluster({{kW0 + ".replicas", "9"}}), lender);
  EXPECT_TRUE(ok.empty()) << "team-b-cq lends its 16 cpu\n" << describe(ok);
  Chain capped = Chain::with({{"spec.cohortName", "research"}, {kF0 + ".resources[0].borrowingLimit", "\"1\""}});
  capped.extra.push_back(patched(lender.extra[0], {}));
  EXPECT_TRUE(has(judge(queued_cluster({{kW0 + ".replicas", "9"}}), capped), kW0 + ".replicas", "FitsResourceQuota"))
      << "borrowingLimit 1 caps it at 17 cpu";
  Chain keeps = Chain::with(in_cohort);
  keeps.extra.push_back(patched(lender.extra[0], {{kF0 + ".resources[0].lendingLimit", "\"0\""}}));
  EXPECT_TRUE(has(judge(queued_cluster({{kW0 + ".replicas", "9"}}), keeps), kW0 + ".replicas", "FitsResourceQuota"))
      << "lendingLimit 0 lends nothing";
}

TEST(Admissibility, FitsResourceQuotaSearchesEveryFlavorAssignment) {
  // Two flavors of 10 cpu: the head (1) and one group of 9 fit in one, a second group of 9 in the other.
  Chain c =
      Chain::with({{"spec.resourceGroups[0].flavors",
                    "[{name: a, resources: [{name: cpu, nominalQuota: 10}, {name: memory, nominalQuota: 64Gi}]}, "
                    "{name: b, resources: [{name: cpu, nominalQuota: 10}, {name: memory, nominalQuota: 64Gi}]}]"}});
  c.extra.push_back(yaml1("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: a}}"));
  c.extra.push_back(yaml1("{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: b}}"));
  const std::string g = json::dump(yaml1(raycluster_yaml())["spec"]["workerGroupSpecs"][0]);
  auto two = queued_cluster({{kW0 + ".replicas", "4"},  // 8 cpu
                             {"spec.workerGroupSpecs[1]", g},
                             {"spec.workerGroupSpecs[1].groupName", "more"},
                             {"spec.workerGroupSpecs[1].replicas", "4"}});
  auto ok = judge(two, c);
  EXPECT_TRUE(ok.empty()) << describe(ok);
  auto three = patched(two, {{"spec.workerGroupSpecs[2]", g},
                             {"spec.workerGroupSpecs[2].groupName", "third"},
                             {"spec.workerGroupSpecs[2].replicas", "2"}});
  auto errs = judge(three, c);
  EXPECT_TRUE(!errs.empty() && errs[0].rule == "FitsResourceQuota") << "21 cpu in two flavors of 10\n"
                                                                    << describe(errs);
}

// ---- the PodSets Kueue builds -------------------------------------------------------------------------------------

TEST(Admissibility, AutoscalerSidecarAndSubmitterAreCounted) {
  Chain tight = Chain::with({{kF0 + ".resources[0].nominalQuota", "\"3\""}});  // head 1 + worker 2 = 3 cpu
  EXPECT_TRUE(judge(queued_cluster(), tight).empty());
  auto errs = judge(queued_cluster({{"spec.enableInTreeAutoscaling", "true"}}), tight);
  EXPECT_TRUE(has(errs, "spec.enableInTreeAutoscaling", "FitsResourceQuota") ||
              has(errs, "spec.workerGroupSpecs[0].replicas", "FitsResourceQuota"))
      << "the autoscaler sidecar asks for 500m\n"
      << describe(errs);

  // A RayJob in K8sJobMode: head 1 + worker 2 + the default submitter 500m.
  auto job = patched(
      yaml1(rayjob_yaml()),
      {{kQueue, "team-a-queue"},
       {"spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources", "{requests: {cpu: \"1\"}}"},
       {"spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources", "{requests: {cpu: \"2\"}}"}});
  auto sub = judge(job, tight);
  EXPECT_FALSE(sub.empty()) << "the submitter does not fit";
  auto http = judge(patched(job, {{"spec.submissionMode", "HTTPMode"}}), tight);
  EXPECT_TRUE(http.empty()) << describe(http);
}

TEST(Admissibility, AppWrapperPodSets) {
  Chain tight = Chain::with({{kF0 + ".resources[0].nominalQuota", "\"4\""}});
  auto aw = patched(yaml1(appwrapper_yaml()),
                    {{"spec.components[0].template.spec.workerGroupSpecs[0].template.spec.containers[0].resources",
                      "{limits: {cpu: \"2\"}}"}});
  auto errs = judge(aw, tight);  // 2 replicas x 2 cpu = 4: fits; then 3 replicas do not
  EXPECT_TRUE(errs.empty()) << describe(errs);
  auto more = patched(aw, {{"spec.components[0].template.spec.workerGroupSpecs[0].replicas", "3"},
                           {"spec.components[0].template.spec.workerGroupSpecs[0].maxReplicas", "3"},
                           {"spec.components[0].template.spec.workerGroupSpecs[0].minReplicas", "3"}});
  auto bad = judge(more, tight);
  EXPECT_TRUE(has(bad, "spec.components[0].template.spec.workerGroupSpecs[0].replicas", "FitsResourceQuota"))
      << describe(bad);
}
