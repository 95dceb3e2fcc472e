// The x-kubernetes-validations rules of the pinned upstream CRDs, evaluated by SchemaSet / validate_object /
// validate_update: every rule is in the CEL subset (or on the allow-list below), real rules catch real violations,
// transition rules run on updates only, and the upstream samples pass.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "test_support.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::CelRuleInfo;
using validation::SchemaSet;
using validation::validate_object;
using validation::validate_update;

namespace {

namespace fs = std::filesystem;
using Edits = std::vector<std::pair<std::string, std::string>>;

/// Rules of the pinned CRDs that are allowed to stay outside the CEL subset, keyed by
/// "<apiVersion>/<Kind> <schema path>: <rule>", each with the reason it is acceptable. Empty today: every rule of
/// every pinned CRD evaluates. Add an entry only with a reason (e.g. "transition rule on status, which we never
/// write"), never to make a new upstream rule pass unnoticed.
const std::map<std::string, std::string> kAllowedUnsupported = {};

std::string rule_key(const CelRuleInfo& r) { return r.api_version + "/" + r.kind + " " + r.path + ": " + r.rule; }

/// Every folder of pinned CRDs: $UPSTREAM_CRDS/upstream and its sub-folders (other Kueue versions).
std::vector<fs::path> crd_folders(const std::string& upstream) {
  std::vector<fs::path> out{fs::path(upstream) / "upstream"};
  std::error_code ec;
  for (fs::directory_iterator it(out[0], ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory()) out.push_back(it->path());
  std::sort(out.begin() + 1, out.end());
  return out;
}

/// Counts x-kubernetes-validations entries anywhere below `node` (independently of the SchemaSet's own walk).
std::size_t count_rules(const json::Value& node) {
  std::size_t n = 0;
  if (node.IsObject()) {
    for (auto it = node.MemberBegin(); it != node.MemberEnd(); ++it) {
      if (std::string_view(it->name.GetString()) == "x-kubernetes-validations" && it->value.IsArray())
        n += it->value.Size();
      n += count_rules(it->value);
    }
  } else if (node.IsArray()) {
    for (auto it = node.Begin(); it != node.End(); ++it) n += count_rules(*it);
  }
  return n;
}

/// Rules counted in the raw CRD files of a folder, served versions only.
std::size_t raw_rule_count(const fs::path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".yaml") continue;
    for (const auto& doc : yaml_file(it->path().string())) {
      if (json::get_string(doc, "kind") != "CustomResourceDefinition") continue;
      const json::Value* versions = json::find_path(doc, "spec.versions");
      if (!versions || !versions->IsArray()) continue;
      for (auto v = versions->Begin(); v != versions->End(); ++v)
        if (json::get_bool(*v, "served") != false)
          if (const json::Value* s = json::find_path(*v, "schema.openAPIV3Schema")) n += count_rules(*s);
    }
  }
  return n;
}

std::vector<FieldError> cel_findings(const FieldErrors& errs) {
  std::vector<FieldError> out;
  for (const auto& e : errs)
    if (e.rule.starts_with("cel:")) out.push_back(e);
  return out;
}

/// The single finding of a CEL rule whose name contains `fragment`, at `path`; fails the test otherwise.
const FieldError* cel_at(const FieldErrors& errs, std::string_view path, std::string_view fragment) {
  const FieldError* found = nullptr;
  for (const auto& e : errs)
    if (e.rule.starts_with("cel:") && e.path == path && e.rule.find(fragment) != std::string::npos) found = &e;
  EXPECT_TRUE(found) << "no cel finding containing '" << fragment << "' at " << path << "\n" << describe(errs);
  return found;
}

json::Document doc(const char* yaml, const Edits& edits = {}) { return patched(yaml1(yaml), edits); }

}  // namespace

// ---- coverage of the pinned CRDs ----------------------------------------------------------------------------------

// A pinned CRD gaining a rule outside the CEL subset breaks this test (unless the rule is allow-listed with a reason).
TEST(CelRulesOfPinnedCrds, EveryRuleIsInTheSubset) {
  auto dir = upstream_crds_dir();
  if (!dir) GTEST_SKIP() << "UPSTREAM_CRDS is not set; skipping";
  std::size_t total = 0;
  std::set<std::string> allowed_seen;
  for (const auto& folder : crd_folders(*dir)) {
    SCOPED_TRACE(folder.string());
    auto set = SchemaSet::load_dir(folder.string());
    ASSERT_TRUE(set.has_value()) << set.error().message;
    const auto rules = set->cel_rules();
    // The SchemaSet finds every rule of the files, at any depth (items, additionalProperties, the root).
    EXPECT_EQ(rules.size(), raw_rule_count(folder));
    total += rules.size();
    for (const auto& r : rules) {
      if (r.supported) continue;
      if (kAllowedUnsupported.contains(rule_key(r))) {
        allowed_seen.insert(rule_key(r));
        continue;
      }
      ADD_FAILURE() << "rule outside the CEL subset: " << rule_key(r) << "\n  why: " << r.why;
    }
    EXPECT_EQ(
        set->unsupported_cel_rules().size(),
        static_cast<std::size_t>(std::count_if(rules.begin(), rules.end(), [](auto& r) { return !r.supported; })));
  }
  EXPECT_GE(total, 150u);  // 77 in upstream/, 69 in kueue-v0.19.2/, 12 in kueue-v0.14.0-v1beta1-only/ today
  for (const auto& [key, why] : kAllowedUnsupported)
    EXPECT_TRUE(allowed_seen.contains(key)) << "stale allow-list entry (the rule is gone or now supported): " << key;
}

TEST(CelRulesOfPinnedCrds, RulesPerKind) {
  CFO_REQUIRE_SCHEMAS();
  std::map<std::string, std::size_t> by_kind;
  std::size_t transition = 0;
  for (const auto& r : schemas.cel_rules()) {
    ++by_kind[r.kind];
    transition += r.transition;
  }
  // What the pinned CRDs hold (served versions); AppWrapper and WorkloadPriorityClass have no CEL rules.
  EXPECT_EQ(by_kind["RayCluster"], 3u);
  EXPECT_EQ(by_kind["RayJob"], 9u);
  EXPECT_EQ(by_kind["ClusterQueue"], 8u);
  EXPECT_EQ(by_kind["LocalQueue"], 2u);
  EXPECT_EQ(by_kind["ResourceFlavor"], 16u);
  EXPECT_EQ(by_kind["AppWrapper"], 0u);
  EXPECT_EQ(by_kind["WorkloadPriorityClass"], 0u);
  EXPECT_GT(transition, 5u);
  bool managed_by = false;
  for (const auto& r : schemas.cel_rules())
    if (r.kind == "RayJob" && r.path == "spec.rayClusterSpec.managedBy" && r.transition) managed_by = true;
  EXPECT_TRUE(managed_by) << "nested rule locations are reported with their schema path";
}

// ---- Kueue ---------------------------------------------------------------------------------------------------------

TEST(CelRulesKueue, ClusterQueueFlavorResourceCount) {
  CFO_REQUIRE_SCHEMAS();
  auto errs =
      validate_object(schemas, doc(clusterqueue_yaml(), {{"spec.resourceGroups[0].coveredResources", "[cpu]"}}));
  const FieldError* f = cel_at(errs, "spec.resourceGroups[0]", "same number of resources");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->source, "crd:kueue.x-k8s.io/v1beta2/ClusterQueue");
  EXPECT_EQ(f->reason, "flavors must have the same number of resources as the coveredResources");
  EXPECT_EQ(f->severity, Severity::Error);
  EXPECT_TRUE(cel_findings(validate_object(schemas, doc(clusterqueue_yaml()))).empty());
}

TEST(CelRulesKueue, ClusterQueueBorrowingLimitNeedsACohort) {
  CFO_REQUIRE_SCHEMAS();
  const std::string limit = "spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit";
  auto errs = validate_object(schemas, doc(clusterqueue_yaml(), {{limit, "4"}}));
  cel_at(errs, "spec", "borrowingLimit must be nil");
  auto with_cohort = validate_object(schemas, doc(clusterqueue_yaml(), {{limit, "4"}, {"spec.cohortName", "all"}}));
  EXPECT_TRUE(cel_findings(with_cohort).empty()) << describe(with_cohort);
  // v1beta1 spells the field `cohort`.
  auto v1 =
      validate_object(schemas, doc(clusterqueue_yaml(), {{"apiVersion", "kueue.x-k8s.io/v1beta1"}, {limit, "4"}}));
  cel_at(v1, "spec", "borrowingLimit must be nil");
  auto v1_ok = validate_object(
      schemas,
      doc(clusterqueue_yaml(), {{"apiVersion", "kueue.x-k8s.io/v1beta1"}, {limit, "4"}, {"spec.cohort", "x"}}));
  EXPECT_TRUE(cel_findings(v1_ok).empty()) << describe(v1_ok);
}

// These two rules only decide correctly because the CRD defaults are applied first: without them,
// whenCanBorrow / reclaimWithinCohort would be "no such key".
TEST(CelRulesKueue, ClusterQueueRulesSeeTheDefaults) {
  CFO_REQUIRE_SCHEMAS();
  auto pref = validate_object(
      schemas, doc(clusterqueue_yaml(), {{"spec.flavorFungibility.preference", "BorrowingOverPreemption"}}));
  const FieldError* f = cel_at(pref, "spec.flavorFungibility", "preference can only be set");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::Error);
  EXPECT_EQ(f->reason.find("cannot be evaluated"), std::string::npos) << f->reason;
  auto pref_ok = validate_object(
      schemas, doc(clusterqueue_yaml(), {{"spec.flavorFungibility.preference", "BorrowingOverPreemption"},
                                         {"spec.flavorFungibility.whenCanBorrow", "TryNextFlavor"}}));
  EXPECT_TRUE(cel_findings(pref_ok).empty()) << describe(pref_ok);

  auto borrow = validate_object(
      schemas, doc(clusterqueue_yaml(), {{"spec.preemption.borrowWithinCohort.policy", "LowerPriority"}}));
  cel_at(borrow, "spec.preemption", "reclaimWithinCohort=Never");
  auto borrow_ok =
      validate_object(schemas, doc(clusterqueue_yaml(), {{"spec.preemption.borrowWithinCohort.policy", "LowerPriority"},
                                                         {"spec.preemption.reclaimWithinCohort", "Any"}}));
  EXPECT_TRUE(cel_findings(borrow_ok).empty()) << describe(borrow_ok);
}

TEST(CelRulesKueue, ResourceFlavorTolerationsAndTaints) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(
      schemas, doc(resourceflavor_yaml(), {{"spec.tolerations", "[{operator: Equal, value: x}]"},
                                           {"spec.nodeTaints", "[{key: a, value: b, effect: Sometimes}]"}}));
  cel_at(errs, "spec.tolerations", "operator must be Exists when 'key' is empty");
  cel_at(errs, "spec.nodeTaints", "supported taint effect values");
  auto ok = validate_object(schemas, doc(resourceflavor_yaml(), {{"spec.tolerations", "[{operator: Exists}]"}}));
  EXPECT_TRUE(cel_findings(ok).empty()) << describe(ok);
  auto seconds = validate_object(
      schemas,
      doc(resourceflavor_yaml(), {{"spec.tolerations", "[{key: a, tolerationSeconds: 5, effect: NoSchedule}]"}}));
  cel_at(seconds, "spec.tolerations", "tolerationSeconds");
}

TEST(CelRulesKueue, ResourceFlavorTopologyNeedsNodeLabels) {
  CFO_REQUIRE_SCHEMAS();
  auto empty =
      validate_object(schemas, doc(resourceflavor_yaml(), {{"spec.nodeLabels", "{}"}, {"spec.topologyName", "t"}}));
  cel_at(empty, "spec", "at least one nodeLabel");
  // Without nodeLabels at all the rule cannot be evaluated (no such key), which the apiserver rejects as well.
  auto missing = validate_object(
      schemas, doc(resourceflavor_yaml(), {{"spec.nodeLabels", "~delete"}, {"spec.topologyName", "t"}}));
  const FieldError* f = cel_at(missing, "spec", "at least one nodeLabel");
  ASSERT_TRUE(f);
  EXPECT_NE(f->reason.find("no such key: nodeLabels"), std::string::npos) << f->reason;
  auto ok = validate_object(schemas, doc(resourceflavor_yaml(), {{"spec.topologyName", "t"}}));
  EXPECT_TRUE(cel_findings(ok).empty()) << describe(ok);
}

TEST(CelRulesKueue, WorkloadPodSetMinCount) {
  CFO_REQUIRE_SCHEMAS();
  const char* wl = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: team-a}
spec:
  queueName: q
  podSets:
    - name: main
      count: 2
      minCount: 3
      template:
        spec:
          containers: [{name: c, image: busybox}]
)";
  auto errs = validate_object(schemas, doc(wl));
  cel_at(errs, "spec.podSets[0]", "minCount should be positive");
  auto ok = validate_object(schemas, doc(wl, {{"spec.podSets[0].minCount", "1"}}));
  EXPECT_TRUE(cel_findings(ok).empty()) << describe(ok);
}

// ---- KubeRay and AppWrapper ---------------------------------------------------------------------------------------

TEST(CelRulesKubeRay, ManagedByValue) {
  CFO_REQUIRE_SCHEMAS();
  auto rc = validate_object(schemas, doc(raycluster_yaml(), {{"spec.managedBy", "someone/else"}}));
  const FieldError* f = cel_at(rc, "spec.managedBy", "managedBy field value must be either");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->source, "crd:ray.io/v1/RayCluster");
  EXPECT_TRUE(
      cel_findings(validate_object(schemas, doc(raycluster_yaml(), {{"spec.managedBy", "kueue.x-k8s.io/multikueue"}})))
          .empty());
  auto rj =
      validate_object(schemas, doc(rayjob_yaml(), {{"spec.managedBy", "x"}, {"spec.rayClusterSpec.managedBy", "yy"}}));
  cel_at(rj, "spec.managedBy", "managedBy field value");
  cel_at(rj, "spec.rayClusterSpec.managedBy", "managedBy field value");
}

TEST(CelRulesKubeRay, RayJobDeletionStrategy) {
  CFO_REQUIRE_SCHEMAS();
  auto half =
      validate_object(schemas, doc(rayjob_yaml(), {{"spec.deletionStrategy.onSuccess.policy", "DeleteCluster"}}));
  cel_at(half, "spec.deletionStrategy", "requires either BOTH onSuccess and onFailure");
  auto both = validate_object(
      schemas, doc(rayjob_yaml(), {{"spec.deletionStrategy",
                                    "{onSuccess: {policy: DeleteCluster}, onFailure: {policy: DeleteCluster},"
                                    " deletionRules: [{policy: DeleteCluster, condition: {jobStatus: SUCCEEDED}}]}"}}));
  cel_at(both, "spec.deletionStrategy", "cannot be used together");
  auto cond = validate_object(
      schemas, doc(rayjob_yaml(), {{"spec.deletionStrategy.deletionRules",
                                    "[{policy: DeleteCluster, condition: {jobStatus: SUCCEEDED,"
                                    " jobDeploymentStatus: Failed}}, {policy: DeleteCluster, condition: {}}]"}}));
  cel_at(cond, "spec.deletionStrategy.deletionRules[0].condition", "cannot be used together");
  cel_at(cond, "spec.deletionStrategy.deletionRules[1].condition", "requires either the JobStatus");
}

// An AppWrapper's components are judged with their own CRD, so the RayCluster rules apply inside the wrapper.
TEST(CelRulesKubeRay, InsideAnAppWrapper) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = validate_object(schemas, doc(appwrapper_yaml(), {{"spec.components[0].template.spec.managedBy", "me"}}));
  cel_at(errs, "spec.components[0].template.spec.managedBy", "managedBy field value");
}

// ---- transition rules ---------------------------------------------------------------------------------------------

TEST(CelTransitionRules, RunOnlyOnUpdates) {
  CFO_REQUIRE_SCHEMAS();
  auto lq = doc(localqueue_yaml());
  auto moved = doc(localqueue_yaml(), {{"spec.clusterQueue", "other-cq"}});
  // Created: no old object, so "field is immutable" does not run.
  EXPECT_TRUE(cel_findings(validate_object(schemas, moved)).empty());
  auto upd = validate_update(schemas, moved, lq);
  const FieldError* f = cel_at(upd, "spec.clusterQueue", "field is immutable");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->source, "crd:kueue.x-k8s.io/v1beta2/LocalQueue");
  EXPECT_TRUE(cel_findings(validate_update(schemas, lq, lq)).empty());
  // A field that did not exist before has no old value to compare with.
  auto no_old_field = doc(localqueue_yaml(), {{"spec.clusterQueue", "~delete"}});
  EXPECT_TRUE(cel_findings(validate_update(schemas, lq, no_old_field)).empty());
}

TEST(CelTransitionRules, RayClusterManagedByAndBackendAreImmutable) {
  CFO_REQUIRE_SCHEMAS();
  auto old = doc(raycluster_yaml(), {{"spec.managedBy", "ray.io/kuberay-operator"},
                                     {"spec.gcsFaultToleranceOptions.backend", "redis"},
                                     {"spec.gcsFaultToleranceOptions.redisAddress", "redis:6379"}});
  auto changed = patched(
      old, {{"spec.managedBy", "kueue.x-k8s.io/multikueue"}, {"spec.gcsFaultToleranceOptions.backend", "rocksdb"}});
  auto errs = validate_update(schemas, changed, old);
  cel_at(errs, "spec.managedBy", "the managedBy field is immutable");
  cel_at(errs, "spec.gcsFaultToleranceOptions.backend", "backend is immutable");
  EXPECT_TRUE(cel_findings(validate_update(schemas, old, old)).empty()) << describe(validate_update(schemas, old, old));
}

TEST(CelTransitionRules, ResourceFlavorTopologyNameIsImmutable) {
  CFO_REQUIRE_SCHEMAS();
  auto old = doc(resourceflavor_yaml(), {{"spec.topologyName", "rack"}});
  auto renamed = validate_update(schemas, doc(resourceflavor_yaml(), {{"spec.topologyName", "zone"}}), old);
  cel_at(renamed, "spec", "topologyName is immutable");
  auto removed = validate_update(schemas, doc(resourceflavor_yaml()), old);
  cel_at(removed, "spec", "topologyName is immutable");
  auto added = validate_update(schemas, old, doc(resourceflavor_yaml()));
  EXPECT_TRUE(cel_findings(added).empty()) << describe(added);
}

// Items of an x-kubernetes-list-type: map list are correlated with the old items by their keys.
TEST(CelTransitionRules, ListMapItemsCorrelateByKey) {
  SchemaSet set;
  auto crd = example_crd("Box", R"(
spec:
  type: object
  properties:
    slots:
      type: array
      x-kubernetes-list-type: map
      x-kubernetes-list-map-keys: [name]
      items:
        type: object
        properties:
          name: {type: string}
          size: {type: integer, x-kubernetes-validations: [{rule: self >= oldSelf, message: cannot shrink}]}
    plain:
      type: array
      items:
        type: object
        properties:
          size: {type: integer, x-kubernetes-validations: [{rule: self >= oldSelf, message: no shrink}]}
)");
  ASSERT_TRUE(set.add_crd(crd).has_value());
  auto old = yaml1(
      "{apiVersion: example.com/v1, kind: Box, metadata: {name: b},"
      " spec: {slots: [{name: a, size: 5}, {name: b, size: 5}], plain: [{size: 5}]}}");
  auto reordered = yaml1(
      "{apiVersion: example.com/v1, kind: Box, metadata: {name: b},"
      " spec: {slots: [{name: b, size: 6}, {name: a, size: 4}, {name: c, size: 1}],"
      " plain: [{size: 1}]}}");
  auto errs = set.validate_update(reordered, old);
  // "a" moved to index 1 and shrank; "b" grew; "c" is new. The atomic list's items are not correlated.
  ASSERT_EQ(errs.size(), 1u) << describe(errs);
  EXPECT_EQ(errs[0].path, "spec.slots[1].size");
  EXPECT_EQ(errs[0].rule, "cel:cannot shrink");
  EXPECT_EQ(errs[0].reason, "cannot shrink");
  EXPECT_TRUE(set.validate(reordered).empty()) << describe(set.validate(reordered));
}

// On updates, a rule without oldSelf that fails on a value unchanged from the old object is not reported
// (validation ratcheting), while a changed value is.
TEST(CelTransitionRules, UnchangedValuesAreRatcheted) {
  CFO_REQUIRE_SCHEMAS();
  auto bad = doc(resourceflavor_yaml(), {{"spec.tolerations", "[{operator: Equal, value: x}]"}});
  EXPECT_FALSE(cel_findings(validate_object(schemas, bad)).empty());
  EXPECT_TRUE(cel_findings(validate_update(schemas, bad, bad)).empty());
  auto worse = patched(bad, {{"spec.tolerations[0].value", "other"}});
  cel_at(validate_update(schemas, worse, bad), "spec.tolerations", "operator must be Exists");
}

TEST(CelTransitionRules, OldObjectOfAnotherVersionIsIgnored) {
  CFO_REQUIRE_SCHEMAS();
  auto old = doc(localqueue_yaml(), {{"apiVersion", "kueue.x-k8s.io/v1beta1"}});
  auto moved = doc(localqueue_yaml(), {{"spec.clusterQueue", "other-cq"}});
  EXPECT_TRUE(cel_findings(validate_update(schemas, moved, old)).empty());
}

// ---- the upstream samples -----------------------------------------------------------------------------------------

TEST(CelRulesOnSamples, UpstreamSamplesPassEveryRule) {
  CFO_REQUIRE_SCHEMAS();
  auto shared = shared_dir();
  if (!shared) GTEST_SKIP() << "CFO_SHARED_DIR is not set; skipping";
  std::size_t judged = 0;
  std::set<std::string> kinds_with_rules;
  for (const auto& r : schemas.cel_rules()) kinds_with_rules.insert(r.api_version + " " + r.kind);
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(*shared) / "samples" / "upstream", ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().extension() != ".yaml") continue;
    for (const auto& d : yaml_file(it->path().string())) {
      const std::string key =
          json::get_string(d, "apiVersion").value_or("") + " " + json::get_string(d, "kind").value_or("");
      if (!kinds_with_rules.contains(key)) continue;
      ++judged;
      auto errs = schemas.validate(d);
      EXPECT_TRUE(cel_findings(errs).empty()) << it->path().filename() << " " << key << "\n" << describe(errs);
      // An update with no change passes the transition rules as well.
      auto same = schemas.validate_update(d, d);
      EXPECT_TRUE(cel_findings(same).empty()) << it->path().filename() << " " << key << "\n" << describe(same);
    }
  }
  EXPECT_GE(judged, 5u);
}
