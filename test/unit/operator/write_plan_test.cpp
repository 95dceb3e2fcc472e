#include <gtest/gtest.h>

#include "operator/write_plan.hpp"
#include "test_files.hpp"

using namespace cfo;
using namespace cfo::op;

namespace {
json::Document doc(const std::string& text) { return cfo::test_support::yaml_doc(text); }

const char* kOwned = "{controller: true, kind: CodeFlareWorkload, name: demo, uid: uid-1}";

json::Document child(const char* kind, const char* extra = "") {
  return doc(std::string("{apiVersion: x/v1, kind: ") + kind + ", metadata: {name: demo, namespace: ns, " +
             "ownerReferences: [" + kOwned + "]}, spec: {a: 1" + extra + "}}");
}

workload::Outcome outcome_with(std::vector<json::Document> desired) {
  workload::Outcome out;
  out.valid = true;
  out.desired = std::move(desired);
  return out;
}

constexpr std::size_t kRc = static_cast<std::size_t>(ChildKind::kRayCluster);
constexpr std::size_t kAw = static_cast<std::size_t>(ChildKind::kAppWrapper);
}  // namespace

// One write is its own gate (a refused apply writes nothing); two writes, or a finalizer before them, are judged by
// the dry run first.
TEST(WritePlan, TheDryRunOnlyWhereARefusalCouldComeAfterAWrite) {
  std::vector<json::Document> desired;
  desired.push_back(child("RayCluster"));
  auto outcome = outcome_with(std::move(desired));
  Plan plan = decide(outcome, Observation{}, "demo", true);
  EXPECT_FALSE(plan.blocker);
  ASSERT_EQ(plan.writes.size(), 1u);
  EXPECT_EQ(plan.writes[0].kind, "RayCluster");
  EXPECT_FALSE(plan.writes[0].exists);
  EXPECT_EQ(plan.writes[0].type.object_path("ns", "demo"), "/apis/ray.io/v1/namespaces/ns/rayclusters/demo");
  EXPECT_FALSE(plan.dry_run);
  EXPECT_EQ(plan.top, ChildKind::kRayCluster);

  std::vector<json::Document> two;
  two.push_back(doc("{kind: LocalQueue, metadata: {name: q, namespace: ns}}"));
  two.push_back(child("RayCluster"));
  auto with_queue = outcome_with(std::move(two));
  Observation kueue;
  kueue.kueue_version = "v1beta2";
  EXPECT_TRUE(decide(with_queue, kueue, "demo", true).dry_run);
  EXPECT_FALSE(decide(with_queue, kueue, "demo", false).dry_run);  // --server-dry-run=false
  outcome.needs_finalizer = true;
  EXPECT_TRUE(decide(outcome, Observation{}, "demo", true).dry_run);
}

TEST(WritePlan, AChildThatAlreadyHasEverythingIsNotWritten) {
  std::vector<json::Document> desired;
  desired.push_back(child("RayCluster"));
  auto outcome = outcome_with(std::move(desired));
  json::Document live = child("RayCluster", ", status: ready");
  Observation seen;
  seen.cached[kRc] = &live;
  seen.controlled[kRc] = true;
  Plan plan = decide(outcome, seen, "demo", true);
  EXPECT_TRUE(plan.writes.empty());
  EXPECT_FALSE(plan.dry_run);  // nothing to judge, no request
  // A changed field is written again.
  json::Document drifted =
      doc(std::string("{metadata: {name: demo, ownerReferences: [") + kOwned + "]}, spec: {a: 2}}");
  seen.cached[kRc] = &drifted;
  EXPECT_EQ(decide(outcome, seen, "demo", true).writes.size(), 1u);
}

TEST(WritePlan, AChildOfSomeoneElseBlocksEverything) {
  std::vector<json::Document> desired;
  desired.push_back(child("RayCluster"));
  auto outcome = outcome_with(std::move(desired));
  Observation seen;
  seen.holder = ChildHolder{ChildHolder::Kind::kOtherController, "RayJob", "other"};
  Plan plan = decide(outcome, seen, "demo", true);
  ASSERT_TRUE(plan.blocker);
  const auto* conflict = std::get_if<ChildConflict>(&*plan.blocker);
  ASSERT_NE(conflict, nullptr);
  EXPECT_EQ(describe(conflict->holder), "is controlled by RayJob other");
  EXPECT_TRUE(plan.writes.empty());
  EXPECT_FALSE(plan.dry_run);
  seen.holder = ChildHolder{ChildHolder::Kind::kNoController, "", ""};
  EXPECT_EQ(describe(std::get<ChildConflict>(*decide(outcome, seen, "demo", true).blocker).holder),
            "has no controller");
}

// A child left by a workload deleted and made again under the same name (another uid) is told as such: it goes with
// the garbage collector, where a child of someone else needs the user.
TEST(WritePlan, AChildOfAnEarlierWorkloadOfTheSameNameIsToldAsSuch) {
  json::Document child =
      json::parse(R"({"metadata":{"name":"demo","ownerReferences":[{"kind":"CodeFlareWorkload","name":"demo",)"
                  R"("uid":"old-uid","controller":true}]}})")
          .value();
  ChildHolder h = holder_of(&child, "new-uid");
  EXPECT_EQ(h.kind, ChildHolder::Kind::kEarlierWorkload);
  EXPECT_NE(describe(h).find("earlier CodeFlareWorkload demo"), std::string::npos) << describe(h);
  EXPECT_EQ(holder_of(&child, "old-uid").kind, ChildHolder::Kind::kNone) << "ours";
  child["metadata"]["ownerReferences"][0]["name"].SetString("other", child.GetAllocator());
  EXPECT_EQ(holder_of(&child, "new-uid").kind, ChildHolder::Kind::kOtherController);
}

TEST(WritePlan, OurAppWrapperHoldingTheClusterIsHandedOver) {
  std::vector<json::Document> desired;
  desired.push_back(child("RayCluster"));
  auto outcome = outcome_with(std::move(desired));
  json::Document aw = child("AppWrapper");
  Observation seen;
  seen.cached[kAw] = &aw;
  seen.controlled[kAw] = true;
  seen.holder = ChildHolder{ChildHolder::Kind::kOtherController, "AppWrapper", "demo"};
  Plan plan = decide(outcome, seen, "demo", true);
  ASSERT_TRUE(plan.blocker);
  ASSERT_TRUE(std::holds_alternative<HandOver>(*plan.blocker));
  EXPECT_EQ(std::get<HandOver>(*plan.blocker).old_child.kind, ChildKind::kAppWrapper);
  EXPECT_FALSE(plan.dry_run);
  // ...but not an AppWrapper of another workload.
  seen.controlled[kAw] = false;
  EXPECT_TRUE(std::holds_alternative<ChildConflict>(*decide(outcome, seen, "demo", true).blocker));
}

TEST(WritePlan, AChildThatCannotBeUpdatedIsReplacedAfterTheDryRun) {
  std::vector<json::Document> desired;
  desired.push_back(child("AppWrapper"));
  auto outcome = outcome_with(std::move(desired));
  outcome.recreate = true;
  json::Document live = child("AppWrapper");
  Observation seen;
  seen.cached[kAw] = &live;
  seen.controlled[kAw] = true;
  Plan plan = decide(outcome, seen, "demo", true);
  ASSERT_TRUE(plan.blocker);
  ASSERT_TRUE(std::holds_alternative<Replacement>(*plan.blocker));
  EXPECT_TRUE(plan.dry_run);          // the new object is judged before the old one goes
  EXPECT_EQ(plan.writes.size(), 1u);  // written even though the live one looks the same
  EXPECT_FALSE(std::get<Replacement>(*plan.blocker).already_going);
  // On its way out already (the twenty-second user trial: deleted again, and told as a replacement, while its CRD
  // was deleted): waited for.
  json::set(live["metadata"], "deletionTimestamp", json::str("2026-12-03T00:00:00Z", live.GetAllocator()),
            live.GetAllocator());
  Plan waiting = decide(outcome, seen, "demo", true);
  EXPECT_TRUE(std::get<Replacement>(*waiting.blocker).already_going);
  EXPECT_FALSE(waiting.dry_run) << "nothing is written while it goes: nothing to judge";
}

// The twenty-fourth user trial: appWrapper turned false while the AppWrapper, without a RayCluster of that name, was
// held by a finalizer: the RayCluster was created beside it. It waits for the AppWrapper to go.
TEST(WritePlan, ARayClusterTakingOverFromAnAppWrapperStillThereWaitsForIt) {
  std::vector<json::Document> desired;
  desired.push_back(child("RayCluster"));
  auto outcome = outcome_with(std::move(desired));
  json::Document aw = child("AppWrapper");
  Observation seen;
  seen.cached[kAw] = &aw;
  seen.controlled[kAw] = true;
  Plan plan = decide(outcome, seen, "demo", true);
  ASSERT_TRUE(plan.blocker);
  ASSERT_TRUE(std::holds_alternative<HandOver>(*plan.blocker));
  EXPECT_FALSE(std::get<HandOver>(*plan.blocker).already_going);
  json::set(aw["metadata"], "deletionTimestamp", json::str("2026-12-04T00:00:00Z", aw.GetAllocator()),
            aw.GetAllocator());
  EXPECT_TRUE(std::get<HandOver>(*decide(outcome, seen, "demo", true).blocker).already_going);
  // Our DELETE sent, its deletionTimestamp not in the cache yet: going all the same.
  aw["metadata"].RemoveMember("deletionTimestamp");
  seen.deletion_sent[kAw] = true;
  EXPECT_TRUE(std::get<HandOver>(*decide(outcome, seen, "demo", true).blocker).already_going);
  seen.cached[kAw] = nullptr;  // gone: the RayCluster is written
  seen.deletion_sent[kAw] = false;
  EXPECT_FALSE(decide(outcome, seen, "demo", true).blocker);
}

// The twenty-fifth user trial: every other kind change created the new child at once, beside the old one held by a
// finalizer (RayCluster -> AppWrapper in the same queue, RayCluster -> RayJob, RayJob -> RayCluster). Each waits for
// the old child; once the new one exists, a child of another kind still there is only removed (stale).
TEST(WritePlan, EveryKindChangeWaitsForTheOldChildToGo) {
  constexpr std::size_t kRj = static_cast<std::size_t>(ChildKind::kRayJob);
  struct Case {
    const char* to;
    std::size_t old_index;
    const char* old_kind;
    ChildKind old;
  };
  for (const Case& c : {Case{"AppWrapper", kRc, "RayCluster", ChildKind::kRayCluster},
                        Case{"RayJob", kRc, "RayCluster", ChildKind::kRayCluster},
                        Case{"RayCluster", kRj, "RayJob", ChildKind::kRayJob},
                        Case{"RayJob", kAw, "AppWrapper", ChildKind::kAppWrapper},
                        Case{"AppWrapper", kRj, "RayJob", ChildKind::kRayJob}}) {
    std::vector<json::Document> desired;
    desired.push_back(child(c.to));
    auto outcome = outcome_with(std::move(desired));
    json::Document old = child(c.old_kind);
    Observation seen;
    seen.cached[c.old_index] = &old;
    seen.controlled[c.old_index] = true;
    Plan plan = decide(outcome, seen, "demo", true);
    ASSERT_TRUE(plan.blocker) << c.old_kind << " -> " << c.to;
    ASSERT_TRUE(std::holds_alternative<HandOver>(*plan.blocker)) << c.old_kind << " -> " << c.to;
    EXPECT_EQ(std::get<HandOver>(*plan.blocker).old_child.kind, c.old) << c.old_kind << " -> " << c.to;
    EXPECT_FALSE(plan.dry_run) << "nothing is written while it waits";
    // The new child exists already (made before this rule, or by hand meanwhile): the old one is only removed.
    const ChildKindInfo* to = child_kind_named(c.to);
    ASSERT_NE(to, nullptr);
    json::Document made = child(c.to);
    seen.cached[static_cast<std::size_t>(to->kind)] = &made;
    seen.controlled[static_cast<std::size_t>(to->kind)] = true;
    plan = decide(outcome, seen, "demo", true);
    EXPECT_FALSE(plan.blocker) << c.old_kind << " -> " << c.to;
    ASSERT_EQ(plan.stale.size(), 1u) << c.old_kind << " -> " << c.to;
    EXPECT_EQ(plan.stale[0].kind, c.old);
  }
}

TEST(WritePlan, ChildrenOfTheOtherKindsAreRemovedAndTheFinalizerFollowsTheQueue) {
  std::vector<json::Document> desired;
  desired.push_back(child("RayCluster"));
  auto outcome = outcome_with(std::move(desired));
  outcome.needs_finalizer = true;
  outcome.release_local_queue = "old-queue";
  json::Document aw = child("AppWrapper");
  json::Document rc = child("RayCluster");
  Observation seen;
  seen.cached[kAw] = &aw;
  seen.controlled[kAw] = true;
  seen.cached[kRc] = &rc;  // the RayCluster exists already (made before the AppWrapper was gone)
  seen.controlled[kRc] = true;
  Plan plan = decide(outcome, seen, "demo", true);
  ASSERT_EQ(plan.stale.size(), 1u);
  EXPECT_EQ(plan.stale[0].kind, ChildKind::kAppWrapper);
  EXPECT_TRUE(plan.add_finalizer);
  EXPECT_FALSE(plan.drop_finalizer);
  EXPECT_EQ(plan.release_local_queue, "");  // Kueue is not served: nothing to release
  seen.kueue_version = "v1beta2";
  seen.has_finalizer = true;
  plan = decide(outcome, seen, "demo", true);
  EXPECT_FALSE(plan.add_finalizer);
  EXPECT_EQ(plan.release_local_queue, "old-queue");
  outcome.needs_finalizer = false;
  EXPECT_TRUE(decide(outcome, seen, "demo", true).drop_finalizer);
  outcome.valid = false;  // an invalid spec never drops the finalizer
  EXPECT_FALSE(decide(outcome, seen, "demo", true).drop_finalizer);
}

TEST(WritePlan, AnUnknownKindWritesNothing) {
  std::vector<json::Document> desired;
  desired.push_back(doc("{kind: Mystery, metadata: {name: demo}}"));
  desired.push_back(child("RayCluster"));
  Plan plan = decide(outcome_with(std::move(desired)), Observation{}, "demo", true);
  EXPECT_EQ(plan.unknown_kind, "Mystery");
  EXPECT_TRUE(plan.writes.empty());
}
