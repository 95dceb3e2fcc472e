// rules/kueue_rules.cpp: job labels, Kueue-managed RayCluster/RayJob, queue objects, closed-set references.
#include "test_support.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::ClusterProfile;
using validation::validate_object;
using validation::validate_set;

namespace {
using Edits = std::vector<std::pair<std::string, std::string>>;
const std::string kQueue = "metadata.labels[kueue.x-k8s.io/queue-name]";
FieldErrors rc(const validation::SchemaSet& s, Edits e, ClusterProfile p = {}) {
  return validate_object(s, patched(yaml1(raycluster_yaml()), e), p);
}
FieldErrors rj(const validation::SchemaSet& s, Edits e) { return validate_object(s, patched(yaml1(rayjob_yaml()), e)); }
FieldErrors cq(const validation::SchemaSet& s, Edits e) {
  return validate_object(s, patched(yaml1(clusterqueue_yaml()), e));
}
FieldErrors rf(const validation::SchemaSet& s, Edits e) {
  return validate_object(s, patched(yaml1(resourceflavor_yaml()), e));
}
const std::string kF0 = "spec.resourceGroups[0].flavors[0]";

/// A RayCluster with `groups` worker groups named g0, g1, ...
json::Document with_groups(int groups, Edits extra = {}) {
  auto base = yaml1(raycluster_yaml());
  const std::string group = json::dump(base["spec"]["workerGroupSpecs"][0]);
  Edits edits;
  for (int i = 1; i < groups; ++i) edits.push_back({"spec.workerGroupSpecs[" + std::to_string(i) + "]", group});
  for (int i = 0; i < groups; ++i)
    edits.push_back({"spec.workerGroupSpecs[" + std::to_string(i) + "].groupName", "g" + std::to_string(i)});
  edits.insert(edits.end(), extra.begin(), extra.end());
  return patched(base, edits);
}
}  // namespace

// ---- jobframework labels ------------------------------------------------------------------------------------------

TEST(KueueRules, QueueNameLabel) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_EQ(error_count(rc(schemas, {{kQueue, "team-a.queue"}})), 0u);
  auto errs = rc(schemas, {{kQueue, "Team_A"}});
  ASSERT_TRUE(has(errs, kQueue, "QueueNameLabel")) << describe(errs);
  EXPECT_EQ(matching(errs, kQueue, "QueueNameLabel")[0].source, "kueue:webhook");
}

TEST(KueueRules, MaxExecTimeSeconds) {
  CFO_REQUIRE_SCHEMAS();
  const std::string key = "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]";
  EXPECT_TRUE(has(rc(schemas, {{key, "\"0\""}}), key, "MaxExecTimeSeconds"));
  EXPECT_TRUE(has(rc(schemas, {{key, "1h"}}), key, "MaxExecTimeSeconds"));
  EXPECT_EQ(error_count(rc(schemas, {{key, "\"3600\""}})), 0u);
}

TEST(KueueRules, PrebuiltWorkloadName) {
  CFO_REQUIRE_SCHEMAS();
  const std::string key = "metadata.labels[kueue.x-k8s.io/prebuilt-workload-name]";
  EXPECT_TRUE(has(rc(schemas, {{key, "Bad_Name"}}), key, "PrebuiltWorkloadName"));
}

TEST(KueueRules, ElasticJobKind) {
  CFO_REQUIRE_SCHEMAS();
  const std::string key = "metadata.annotations[kueue.x-k8s.io/elastic-job]";
  auto errs = validate_object(schemas, patched(yaml1(appwrapper_yaml()), {{key, "\"true\""}}));
  EXPECT_TRUE(has(errs, key, "ElasticJobKind")) << describe(errs);
}

// ---- Kueue-managed RayCluster ---------------------------------------------------------------------------------------

TEST(KueueRules, KueueAutoscaling) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rc(schemas, {{kQueue, "q"}, {"spec.enableInTreeAutoscaling", "true"}});
  EXPECT_TRUE(has(errs, "spec.enableInTreeAutoscaling", "KueueAutoscaling")) << describe(errs);
  EXPECT_EQ(error_count(rc(schemas, {{"spec.enableInTreeAutoscaling", "true"}})), 0u) << "not Kueue-managed";
  auto elastic = rc(schemas, {{kQueue, "q"},
                              {"spec.enableInTreeAutoscaling", "true"},
                              {"metadata.annotations[kueue.x-k8s.io/elastic-job]", "\"true\""}});
  EXPECT_FALSE(has(elastic, "spec.enableInTreeAutoscaling", "KueueAutoscaling")) << describe(elastic);
}

TEST(KueueRules, AutoscalingInsideAQueuedAppWrapperIsAWarning) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, patched(yaml1(appwrapper_yaml()),
                                               {{"spec.components[0].template.spec.enableInTreeAutoscaling", "true"}}));
  EXPECT_TRUE(
      has(errs, "spec.components[0].template.spec.enableInTreeAutoscaling", "KueueAutoscaling", Severity::Warning))
      << describe(errs);
  EXPECT_EQ(error_count(errs), 0u) << describe(errs);
  // With its own queue label the wrapped cluster meets Kueue's RayCluster webhook when it is created.
  auto own = validate_object(
      schemas, patched(yaml1(appwrapper_yaml()),
                       {{"spec.components[0].template.spec.enableInTreeAutoscaling", "true"},
                        {"spec.components[0].template.metadata.labels[kueue.x-k8s.io/queue-name]", "q"}}));
  EXPECT_TRUE(has(own, "spec.components[0].template.spec.enableInTreeAutoscaling", "KueueAutoscaling"))
      << describe(own);
}

TEST(KueueRules, MaxPodSetsFollowsTheClusterProfile) {
  CFO_REQUIRE_SCHEMAS();
  auto seven = validate_object(schemas, with_groups(7, {{kQueue, "q"}}));
  EXPECT_EQ(error_count(seven), 0u) << describe(seven);
  auto eight = validate_object(schemas, with_groups(8, {{kQueue, "q"}}));
  EXPECT_TRUE(has(eight, "spec.workerGroupSpecs", "MaxPodSets")) << describe(eight);
  auto newer = validate_object(schemas, with_groups(8, {{kQueue, "q"}}), ClusterProfile{18});
  EXPECT_FALSE(has(newer, "spec.workerGroupSpecs", "MaxPodSets")) << describe(newer);
  EXPECT_EQ(error_count(validate_object(schemas, with_groups(8))), 0u) << "not Kueue-managed";
}

TEST(KueueRules, ReservedHeadGroupName) {
  CFO_REQUIRE_SCHEMAS();
  const std::string at = "spec.workerGroupSpecs[0].groupName";
  EXPECT_TRUE(has(rc(schemas, {{kQueue, "q"}, {at, "head"}}), at, "ReservedHeadGroupName"));
  auto plain = rc(schemas, {{at, "head"}});
  EXPECT_TRUE(has(plain, at, "ReservedHeadGroupName", Severity::Warning)) << describe(plain);
  EXPECT_EQ(error_count(plain), 0u) << describe(plain);
}

TEST(KueueRules, PodSetNames) {
  CFO_REQUIRE_SCHEMAS();
  auto clash = validate_object(schemas, with_groups(2, {{kQueue, "q"},
                                                        {"spec.workerGroupSpecs[0].groupName", "GPU"},
                                                        {"spec.workerGroupSpecs[1].groupName", "gpu"}}));
  EXPECT_TRUE(has(clash, "spec.workerGroupSpecs[1].groupName", "PodSetNames")) << describe(clash);
  auto shape = rc(schemas, {{kQueue, "q"}, {"spec.workerGroupSpecs[0].groupName", "gpu_workers"}});
  EXPECT_TRUE(has(shape, "spec.workerGroupSpecs[0].groupName", "PodSetNames")) << describe(shape);
}

// ---- Kueue-managed RayJob
// ----------------------------------------------------------------------------------------------

TEST(KueueRules, KueueShutdownAfterJobFinishes) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rj(schemas, {{kQueue, "q"}, {"spec.shutdownAfterJobFinishes", "false"}});
  EXPECT_TRUE(has(errs, "spec.shutdownAfterJobFinishes", "KueueShutdownAfterJobFinishes")) << describe(errs);
  EXPECT_EQ(error_count(rj(schemas, {{"spec.shutdownAfterJobFinishes", "false"}})), 0u);
}

TEST(KueueRules, KueueClusterSelector) {
  CFO_REQUIRE_SCHEMAS();
  const Edits both = {{"spec.clusterSelector[ray.io/cluster]", "existing"}};
  auto plain = rj(schemas, both);
  EXPECT_TRUE(has(plain, "spec.clusterSelector", "KueueClusterSelector", Severity::Warning)) << describe(plain);
  auto managed = rj(schemas, {both[0], {kQueue, "q"}});
  EXPECT_TRUE(has(managed, "spec.clusterSelector", "KueueClusterSelector")) << describe(managed);
}

TEST(KueueRules, RayJobSubmitterCountsAsAPodSet) {
  CFO_REQUIRE_SCHEMAS();
  auto base = yaml1(rayjob_yaml());
  const std::string group = json::dump(base["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]);
  Edits edits = {{kQueue, "q"}};
  for (int i = 1; i < 7; ++i) {
    edits.push_back({"spec.rayClusterSpec.workerGroupSpecs[" + std::to_string(i) + "]", group});
    edits.push_back(
        {"spec.rayClusterSpec.workerGroupSpecs[" + std::to_string(i) + "].groupName", "g" + std::to_string(i)});
  }
  auto errs = validate_object(schemas, patched(base, edits));
  ASSERT_TRUE(has(errs, "spec.rayClusterSpec.workerGroupSpecs", "MaxPodSets")) << describe(errs);
  EXPECT_EQ(matching(errs, "spec.rayClusterSpec.workerGroupSpecs", "MaxPodSets")[0].source, "kueue:workload");
  edits.push_back({"spec.submissionMode", "HTTPMode"});
  EXPECT_FALSE(
      has(validate_object(schemas, patched(base, edits)), "spec.rayClusterSpec.workerGroupSpecs", "MaxPodSets"));
}

TEST(KueueRules, SubmitterGroupName) {
  CFO_REQUIRE_SCHEMAS();
  const std::string at = "spec.rayClusterSpec.workerGroupSpecs[0].groupName";
  EXPECT_TRUE(has(rj(schemas, {{kQueue, "q"}, {at, "submitter"}}), at, "PodSetNames"));
  EXPECT_TRUE(has(rj(schemas, {{at, "submitter"}}), at, "PodSetNames", Severity::Warning));
}

// ---- ClusterQueue ---------------------------------------------------------------------------------------------------

TEST(KueueRules, FlavorResourceCount) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = cq(schemas, {{kF0 + ".resources[2]", "{name: nvidia.com/gpu, nominalQuota: 2}"}});
  ASSERT_TRUE(has(errs, kF0 + ".resources", "FlavorResourceCount")) << describe(errs);
  EXPECT_EQ(matching(errs, kF0 + ".resources", "FlavorResourceCount")[0].source, "kueue:CEL");
}

TEST(KueueRules, FlavorResourceOrder) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = cq(schemas, {{kF0 + ".resources[0].name", "memory"}, {kF0 + ".resources[1].name", "cpu"}});
  EXPECT_TRUE(has(errs, kF0 + ".resources[0].name", "FlavorResourceOrder")) << describe(errs);
}

TEST(KueueRules, CoveredResourcesAndFlavorsAreUnique) {
  CFO_REQUIRE_SCHEMAS();
  auto base = yaml1(clusterqueue_yaml());
  auto errs = cq(schemas, {{"spec.resourceGroups[1]", json::dump(base["spec"]["resourceGroups"][0])}});
  EXPECT_TRUE(has(errs, "spec.resourceGroups[1].coveredResources[0]", "CoveredResources")) << describe(errs);
  EXPECT_TRUE(has(errs, "spec.resourceGroups[1].flavors[0].name", "UniqueFlavorNames")) << describe(errs);
}

TEST(KueueRules, QuotaRules) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(cq(schemas, {{kF0 + ".resources[0].nominalQuota", "\"-1\""}}), kF0 + ".resources[0].nominalQuota",
                  "NonNegativeQuota"));
  EXPECT_TRUE(has(cq(schemas, {{kF0 + ".resources[0].borrowingLimit", "1"}}), kF0 + ".resources[0].borrowingLimit",
                  "LimitsNeedCohort"));
  auto lend = cq(schemas, {{"spec.cohortName", "all"}, {kF0 + ".resources[0].lendingLimit", "32"}});
  EXPECT_TRUE(has(lend, kF0 + ".resources[0].lendingLimit", "LendingLimitWithinNominal")) << describe(lend);
}

TEST(KueueRules, PreemptionAndFungibilityCEL) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(cq(schemas, {{"spec.preemption.borrowWithinCohort.policy", "LowerPriority"}}),
                  "spec.preemption.borrowWithinCohort.policy", "PreemptionPolicies"));
  EXPECT_TRUE(has(cq(schemas, {{"spec.flavorFungibility.preference", "BorrowingOverPreemption"}}),
                  "spec.flavorFungibility.preference", "FungibilityPreference"));
}

TEST(KueueRules, NamespaceSelectorMissingIsAWarning) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = cq(schemas, {{"spec.namespaceSelector", "~delete"}});
  EXPECT_TRUE(has(errs, "spec.namespaceSelector", "NamespaceSelector", Severity::Warning)) << describe(errs);
  EXPECT_EQ(error_count(errs), 0u) << describe(errs);
}

TEST(KueueRules, AdmissionCheckFlavors) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = cq(schemas, {{"spec.admissionChecksStrategy.admissionChecks", "[{name: prov, onFlavors: [spot]}]"}});
  EXPECT_TRUE(has(errs, "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]", "AdmissionCheckFlavors"))
      << describe(errs);
}

// ---- ResourceFlavor, LocalQueue, WorkloadPriorityClass
// -------------------------------------------------------------------

TEST(KueueRules, ResourceFlavorRules) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(rf(schemas, {{"spec.nodeLabels[bad key]", "x"}}), "spec.nodeLabels[bad key]", "LabelKey"));
  auto taints = rf(schemas, {{"spec.nodeTaints",
                              "[{key: gpu, value: a, effect: NoSchedule}, {key: gpu, value: b, effect: NoSchedule},"
                              " {key: x, effect: Sometimes}]"}});
  EXPECT_TRUE(has(taints, "spec.nodeTaints[1]", "NodeTaints")) << describe(taints);
  EXPECT_TRUE(has(taints, "spec.nodeTaints[2].effect", "NodeTaints")) << describe(taints);
  auto tol = rf(schemas, {{"spec.tolerations",
                           "[{operator: Equal, value: x}, {key: a, operator: Exists, value: y},"
                           " {key: b, tolerationSeconds: 5, effect: NoSchedule}]"}});
  EXPECT_TRUE(has(tol, "spec.tolerations[0].operator", "Tolerations")) << describe(tol);
  EXPECT_TRUE(has(tol, "spec.tolerations[1].value", "Tolerations")) << describe(tol);
  EXPECT_TRUE(has(tol, "spec.tolerations[2].effect", "Tolerations")) << describe(tol);
  auto topo = rf(schemas, {{"spec.nodeLabels", "~delete"}, {"spec.topologyName", "default"}});
  EXPECT_TRUE(has(topo, "spec.nodeLabels", "TopologyNeedsNodeLabels")) << describe(topo);
}

TEST(KueueRules, LocalQueueAndPriorityClassNames) {
  CFO_REQUIRE_SCHEMAS();
  auto lq = validate_object(schemas, patched(yaml1(localqueue_yaml()), {{"spec.clusterQueue", "~delete"}}));
  EXPECT_TRUE(has(lq, "spec.clusterQueue", "LocalQueueClusterQueue", Severity::Warning)) << describe(lq);
  EXPECT_EQ(error_count(lq), 0u) << describe(lq);
  auto wpc = validate_object(schemas, yaml1("apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\n"
                                            "metadata: {name: high.priority}\nvalue: 1000\n"));
  EXPECT_TRUE(has(wpc, "metadata.name", "ReferencedByLabelName", Severity::Warning)) << describe(wpc);
  EXPECT_EQ(error_count(wpc), 0u) << describe(wpc);
  auto no_value = validate_object(schemas, yaml1("apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\n"
                                                 "metadata: {name: high}\n"));
  EXPECT_TRUE(has(no_value, "value", "schema:required")) << describe(no_value);
}

// ---- closed sets
// ------------------------------------------------------------------------------------------------------

TEST(KueueRules, ReferencesWithinAClosedSet) {
  CFO_REQUIRE_SCHEMAS();
  auto flavor = yaml1(resourceflavor_yaml());
  auto queue = yaml1(clusterqueue_yaml());
  auto local = yaml1(localqueue_yaml());
  auto cluster = patched(yaml1(raycluster_yaml()),
                         {{kQueue, "team-a-queue"}, {"metadata.labels[kueue.x-k8s.io/priority-class]", "high"}});
  auto ok = validate_set(schemas, {&flavor, &queue, &local, &cluster});
  ASSERT_EQ(ok.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(error_count(ok[i]), 0u) << describe(ok[i]);
  // The set is closed for the kinds it holds: with one WorkloadPriorityClass in it, "high" must be there too.
  auto low = yaml1(
      "{apiVersion: kueue.x-k8s.io/v1beta2, kind: WorkloadPriorityClass, metadata: {name: low}, "
      "value: 10}");
  auto high = yaml1(
      "{apiVersion: kueue.x-k8s.io/v1beta2, kind: WorkloadPriorityClass, metadata: {name: high}, "
      "value: 1000}");
  auto no_class = validate_set(schemas, {&flavor, &queue, &local, &low, &cluster});
  EXPECT_TRUE(has(no_class[4], "metadata.labels[kueue.x-k8s.io/priority-class]", "PriorityClassExists"))
      << describe(no_class[4]);
  auto with_class = validate_set(schemas, {&flavor, &queue, &local, &high, &cluster});
  EXPECT_EQ(error_count(with_class[4]), 0u) << describe(with_class[4]);

  auto wrong_cq = patched(local, {{"spec.clusterQueue", "other"}});
  auto wrong_flavor = patched(queue, {{kF0 + ".name", "spot"}});
  auto wrong_queue = patched(cluster, {{kQueue, "nope"}});
  auto bad = validate_set(schemas, {&flavor, &wrong_flavor, &wrong_cq, &wrong_queue});
  EXPECT_TRUE(has(bad[1], kF0 + ".name", "ClusterQueueFlavorExists")) << describe(bad[1]);
  EXPECT_TRUE(has(bad[2], "spec.clusterQueue", "LocalQueueClusterQueueExists")) << describe(bad[2]);
  EXPECT_TRUE(has(bad[3], kQueue, "QueueNameExists")) << describe(bad[3]);
  // Each says why the reference must resolve among the objects given, and how to judge a file whose object is on the
  // cluster (the thirtieth user trial was blamed for a LocalQueue the folder did not hold).
  EXPECT_NE(describe(bad[3]).find("the objects given hold LocalQueues, so they are taken to be all of them"),
            std::string::npos)
      << describe(bad[3]);
  EXPECT_NE(describe(bad[2]).find("the objects given hold ClusterQueues"), std::string::npos) << describe(bad[2]);
  EXPECT_NE(describe(bad[1]).find("the objects given hold ResourceFlavors"), std::string::npos) << describe(bad[1]);

  auto single = validate_set(schemas, {&wrong_cq});
  EXPECT_EQ(error_count(single[0]), 0u) << "a single object is not a closed set\n" << describe(single[0]);

  // A LocalQueue the operator makes for a workload (render generates it) is there for the jobs naming it, but does
  // not close the set for LocalQueues: "nope" may well be on the cluster.
  auto managed = patched(
      local, {{"metadata.name", "team-b"}, {"metadata.labels[app.kubernetes.io/managed-by]", "codeflare-operator"}});
  auto in_managed = patched(cluster, {{kQueue, "team-b"}});
  auto open = validate_set(schemas, {&managed, &wrong_queue, &in_managed});
  EXPECT_FALSE(has(open[1], kQueue, "QueueNameExists")) << describe(open[1]);
  EXPECT_EQ(error_count(open[2]), 0u) << describe(open[2]);
  auto given = patched(managed, {{"metadata.labels[app.kubernetes.io/managed-by]", "someone-else"}});
  auto closed = validate_set(schemas, std::vector<const json::Value*>{&given, &wrong_queue});
  EXPECT_TRUE(has(closed[1], kQueue, "QueueNameExists")) << describe(closed[1]);
}

// A large set is judged on several threads: each object gets what validate_object gives it alone, in its place,
// and the references between them still hold (the last RayCluster names a queue that is not in the set).
TEST(KueueRules, ALargeSetIsJudgedObjectByObjectInOrder) {
  CFO_REQUIRE_SCHEMAS();
  auto flavor = yaml1(resourceflavor_yaml());
  auto queue = yaml1(clusterqueue_yaml());
  auto local = yaml1(localqueue_yaml());
  std::vector<json::Document> clusters;
  for (int i = 0; i < 150; ++i) {
    std::vector<std::pair<std::string, std::string>> edits = {{"metadata.name", "rc-" + std::to_string(i)}};
    if (i % 3 == 0) edits.push_back({"spec.headGroupSpec.rayStartParams.num-cpus", "many"});  // an error of its own
    if (i == 149) edits.push_back({kQueue, "nope"});
    clusters.push_back(patched(yaml1(raycluster_yaml()), edits));
  }
  std::vector<const json::Value*> set = {&flavor, &queue, &local};
  for (const auto& c : clusters) set.push_back(&c);
  auto judged = validate_set(schemas, set);
  ASSERT_EQ(judged.size(), set.size());
  for (std::size_t i = 0; i + 1 < clusters.size(); ++i) {
    auto alone = validate_object(schemas, clusters[i]);
    ASSERT_EQ(describe(judged[i + 3]), describe(alone)) << "RayCluster " << i;
    EXPECT_EQ(error_count(alone) > 0, i % 3 == 0) << describe(alone);
  }
  EXPECT_TRUE(has(judged.back(), kQueue, "QueueNameExists")) << describe(judged.back());
}

TEST(KueueRules, ResourceGroupLimitsAndFairSharingWeight) {
  CFO_REQUIRE_SCHEMAS();
  // 33 flavors x 16 covered resources = 528 pairs in one group (> 512).
  std::string covered = "[";
  std::string resources = "[";
  for (int r = 0; r < 16; ++r) {
    covered += (r ? ", " : "") + std::string("r") + std::to_string(r);
    resources += (r ? ", " : "") + std::string("{name: r") + std::to_string(r) + ", nominalQuota: 1}";
  }
  covered += "]";
  resources += "]";
  std::string flavors = "[";
  for (int f = 0; f < 33; ++f)
    flavors += (f ? ", " : "") + std::string("{name: f") + std::to_string(f) + ", resources: " + resources + "}";
  flavors += "]";
  auto errs =
      cq(schemas, {{"spec.resourceGroups[0].coveredResources", covered}, {"spec.resourceGroups[0].flavors", flavors}});
  EXPECT_TRUE(has(errs, "spec.resourceGroups[0]", "ResourceGroupLimits")) << describe(errs);
  auto weight = cq(schemas, {{"spec.fairSharing.weight", "\"-1\""}});
  EXPECT_TRUE(has(weight, "spec.fairSharing.weight", "FairSharingWeight")) << describe(weight);
}

// ---- the rest of the webhook rules (issue 13, family 4) ------------------------------------------------------------

TEST(KueueRules, FairSharingWeightAbove1n) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(cq(schemas, {{"spec.fairSharing.weight", "1n"}}), "spec.fairSharing.weight", "FairSharingWeight"));
  EXPECT_EQ(error_count(cq(schemas, {{"spec.fairSharing.weight", "\"0\""}})), 0u);
  EXPECT_EQ(error_count(cq(schemas, {{"spec.fairSharing.weight", "2n"}})), 0u);
}

TEST(KueueRules, ResourceFlavorTolerationKey) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rf(schemas, {{"spec.tolerations", "[{key: \"bad key\", operator: Exists}]"}});
  EXPECT_TRUE(has(errs, "spec.tolerations[0].key", "TolerationKey")) << describe(errs);
  EXPECT_EQ(error_count(rf(schemas, {{"spec.tolerations", "[{key: example.com/gpu, operator: Exists}]"}})), 0u);
}

TEST(KueueRules, CohortWebhook) {
  CFO_REQUIRE_SCHEMAS();
  auto cohort = yaml1(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: research}
spec:
  parentName: org
  resourceGroups:
    - coveredResources: [cpu]
      flavors: [{name: default-flavor, resources: [{name: cpu, nominalQuota: 8, lendingLimit: 10}]}]
)");
  auto ok = validate_object(schemas, cohort);
  EXPECT_EQ(error_count(ok), 0u) << "a Cohort may lend more than its own quota\n" << describe(ok);
  auto orphan = validate_object(schemas, patched(cohort, {{"spec.parentName", "~delete"}}));
  EXPECT_TRUE(has(orphan, kF0 + ".resources[0].lendingLimit", "LimitsNeedCohort")) << describe(orphan);
  auto borrow = validate_object(schemas, patched(cohort, {{kF0 + ".resources[0].borrowingLimit", "\"1\""}}));
  EXPECT_EQ(error_count(borrow), 0u) << describe(borrow);
  auto weight = validate_object(schemas, patched(cohort, {{"spec.fairSharing.weight", "\"-1\""}}));
  EXPECT_TRUE(has(weight, "spec.fairSharing.weight", "FairSharingWeight")) << describe(weight);
}

TEST(KueueRules, AdmissionGatedByAndPrebuiltAnnotation) {
  CFO_REQUIRE_SCHEMAS();
  const std::string gate = "metadata.annotations[kueue.x-k8s.io/admission-gated-by]";
  EXPECT_TRUE(has(rc(schemas, {{gate, "example.com/a,example.com/a"}}), gate, "AdmissionGatedBy"));
  EXPECT_TRUE(has(rc(schemas, {{gate, "no-domain"}}), gate, "AdmissionGatedBy"));
  EXPECT_TRUE(has(rc(schemas, {{gate, "example.com/" + std::string(60, 'g')}}), gate, "AdmissionGatedBy"));
  EXPECT_EQ(error_count(rc(schemas, {{gate, "example.com/a, example.com/b"}})), 0u);
  const std::string pre = "metadata.annotations[kueue.x-k8s.io/prebuilt-workload-name]";
  EXPECT_TRUE(has(rc(schemas, {{pre, "Bad_Name"}}), pre, "PrebuiltWorkloadName"));
  EXPECT_EQ(error_count(rc(
                schemas, {{pre, "good-name"}, {"metadata.labels[kueue.x-k8s.io/prebuilt-workload-name]", "Bad_Name"}})),
            0u)
      << "the annotation takes precedence over the label";
}

TEST(KueueRules, ElasticMultiKueueAutoscaling) {
  CFO_REQUIRE_SCHEMAS();
  Edits elastic = {{kQueue, "q"},
                   {"spec.enableInTreeAutoscaling", "true"},
                   {"metadata.annotations[kueue.x-k8s.io/elastic-job]", "\"true\""}};
  EXPECT_EQ(error_count(rc(schemas, elastic)), 0u);
  elastic.push_back({"spec.managedBy", "kueue.x-k8s.io/multikueue"});
  EXPECT_TRUE(has(rc(schemas, elastic), "spec.enableInTreeAutoscaling", "ElasticMultiKueueAutoscaling"));
}

TEST(KueueRules, PodsResourceIsReservedForKueue) {
  CFO_REQUIRE_SCHEMAS();
  const std::string pods = "spec.headGroupSpec.template.spec.containers[0].resources.limits.pods";
  EXPECT_TRUE(has(rc(schemas, {{kQueue, "q"}, {pods, "\"1\""}}), pods, "PodsResourceReserved"));
  EXPECT_FALSE(has(rc(schemas, {{pods, "\"1\""}}), pods, "PodsResourceReserved")) << "no Workload without Kueue";
}

TEST(KueueRules, TASPodSetRequest) {
  CFO_REQUIRE_SCHEMAS();
  const std::string ann = "spec.workerGroupSpecs[0].template.metadata.annotations";
  const std::string p = "kueue.x-k8s.io/podset-";
  auto two = rc(schemas, {{ann, "{" + p + "required-topology: rack, " + p + "preferred-topology: block}"}});
  EXPECT_TRUE(has(two, ann, "TASPodSetRequest")) << describe(two);
  EXPECT_EQ(error_count(rc(schemas, {{ann, "{" + p + "required-topology: cloud.example.com/rack}"}})), 0u);
  auto slice = rc(schemas, {{ann, "{" + p + "slice-required-topology: rack, " + p + "slice-size: \"3\"}"}});
  EXPECT_TRUE(has(slice, ann + "[" + p + "slice-size]", "TASPodSetRequest")) << "a slice of 3 for a group of 1 Pod\n"
                                                                             << describe(slice);
  EXPECT_EQ(error_count(rc(schemas, {{ann, "{" + p + "slice-required-topology: rack, " + p + "slice-size: \"1\"}"}})),
            0u);
  const std::string c = "{" + p +
                        "slice-required-topology-constraints: '[{\"topology\": \"block\", \"size\": 4}, "
                        "{\"topology\": \"rack\", \"size\": 3}]'}";
  auto layers = rc(
      schemas, {{"spec.workerGroupSpecs[0].replicas", "4"}, {"spec.workerGroupSpecs[0].maxReplicas", "4"}, {ann, c}});
  EXPECT_TRUE(has(layers, ann + "[" + p + "slice-required-topology-constraints][1].size", "TASPodSetRequest"))
      << "3 does not divide 4\n"
      << describe(layers);
  // A group of two PodSets: the head (1 Pod) and the workers, with one required topology.
  auto grouped = rc(schemas, {{"spec.headGroupSpec.template.metadata.annotations",
                               "{" + p + "group-name: g, " + p + "required-topology: rack}"},
                              {ann, "{" + p + "group-name: g, " + p + "required-topology: rack}"}});
  EXPECT_EQ(error_count(grouped), 0u) << describe(grouped);
  auto lonely = rc(schemas, {{ann, "{" + p + "group-name: g, " + p + "required-topology: rack}"}});
  EXPECT_TRUE(has(lonely, ann + "[" + p + "group-name]", "TASPodSetRequest")) << describe(lonely);
}
