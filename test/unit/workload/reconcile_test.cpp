#include <gtest/gtest.h>

#include "core/condition.hpp"
#include "parse_test_util.hpp"
#include "workload/reconcile.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
constexpr const char* kNow = "2026-01-01T00:00:00Z";

std::optional<std::string> queue_label(const json::Value& obj) {
  const json::Value* labels = json::find_path(obj, "metadata.labels");
  return labels ? json::get_string(*labels, "kueue.x-k8s.io/queue-name") : std::nullopt;
}
}  // namespace

TEST(Reconcile, DefaultLocalQueueIsPickedUpWhenSpecNamesNone) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = sample("cfw_cpu.yaml");
  ClusterFacts facts;
  facts.default_local_queue = "default-queue";
  Outcome out = reconcile(d, Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  ASSERT_EQ(out.desired.size(), 1u);
  EXPECT_EQ(queue_label(out.desired[0]), "default-queue");
  EXPECT_EQ(json::get_string(out.status, "queue"), "default-queue");
}

TEST(Reconcile, NoQueueLabelWhenNeitherSpecNorDefault) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile(sample("cfw_cpu.yaml"), Observed{}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_FALSE(queue_label(out.desired[0]));
  EXPECT_FALSE(json::find(out.status, "queue"));
}

TEST(Reconcile, WrappedPutsTheQueueOnTheAppWrapperOnly) {
  CFO_REQUIRE_SCHEMAS(schemas);
  ClusterFacts facts;
  facts.default_local_queue = "ignored-default";
  Outcome out = reconcile(sample("cfw_appwrapper.yaml"), Observed{}, facts, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  ASSERT_EQ(out.desired.size(), 1u);
  const auto& aw = out.desired[0];
  EXPECT_EQ(json::get_string(aw, "kind"), "AppWrapper");
  EXPECT_EQ(queue_label(aw), "team-a-queue");
  const json::Value* inner = json::find_path(aw, "spec.components");
  ASSERT_TRUE(inner && inner->IsArray() && inner->Size() == 1);
  EXPECT_FALSE(queue_label((*inner)[0]["template"]));
  EXPECT_EQ(json::get_string(out.status, "appWrapperName"), "raytest-aw");
  EXPECT_EQ(json::get_string(out.status, "rayClusterName"), "raytest-aw");
}

TEST(Reconcile, StatusCountsAndConditions) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = sample("cfw_multi_group.yaml");
  json::Document rc = yaml_doc("status: {state: ready, readyWorkerReplicas: 3}\n");
  Outcome out = reconcile(d, Observed{&rc, nullptr}, ClusterFacts{}, schemas, kNow);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_EQ(json::get_int(out.status, "observedGeneration"), 1);
  EXPECT_EQ(json::get_string(out.status, "phase"), "Running");
  EXPECT_EQ(json::get_int(out.status, "desiredWorkers"), 3);
  EXPECT_EQ(json::get_int(out.status, "readyWorkers"), 3);
  // The first status: one event announcing the phase, nothing else.
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_EQ(out.events[0].reason, "Running");
  EXPECT_EQ(out.events[0].type, "Normal");
  auto conds = conditions_from_json(*json::find(out.status, "conditions"));
  ASSERT_NE(find_condition(conds, "Valid"), nullptr);
  EXPECT_EQ(find_condition(conds, "Valid")->status, "True");
  EXPECT_EQ(find_condition(conds, "Ready")->status, "True");
}

TEST(Reconcile, KeepsTransitionTimesFromTheWorkloadsOwnStatus) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document d = sample("cfw_cpu.yaml");
  Outcome first = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  d.AddMember("status", json::Value(first.status, d.GetAllocator()), d.GetAllocator());
  Outcome second = reconcile(d, Observed{}, ClusterFacts{}, schemas, "2026-01-02T00:00:00Z");
  EXPECT_EQ(json::dump(second.status), json::dump(first.status));
}

TEST(Reconcile, InvalidSpecNamesTheFieldsAndGeneratesNothing) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto d = yaml_doc("metadata: {name: demo}\nspec: {workerGroups: [{name: w, replicas: -2}], bogus: 1}\n");
  set_identity(d, "team-a", "uid-1", 4);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(out.valid);
  EXPECT_TRUE(out.desired.empty());
  EXPECT_EQ(json::get_string(out.status, "phase"), "Invalid");
  EXPECT_EQ(json::get_int(out.status, "observedGeneration"), 4);
  auto conds = conditions_from_json(*json::find(out.status, "conditions"));
  const Condition* valid = find_condition(conds, "Valid");
  ASSERT_NE(valid, nullptr);
  EXPECT_EQ(valid->status, "False");
  EXPECT_EQ(valid->reason, "InvalidSpec");
  EXPECT_EQ(valid->observed_generation, 4);
  EXPECT_NE(valid->message.find("spec.workerGroups[0].replicas"), std::string::npos) << valid->message;
  EXPECT_NE(valid->message.find("spec.bogus"), std::string::npos) << valid->message;
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_EQ(out.events[0].type, "Warning");
  EXPECT_EQ(out.events[0].reason, "InvalidSpec");
}

TEST(Reconcile, TooManyPodSetsForKueue) {
  CFO_REQUIRE_SCHEMAS(schemas);
  std::string groups;
  for (int i = 0; i < 8; ++i) groups += (i ? ", " : "") + std::string("{name: g") + std::to_string(i) + "}";
  auto d = yaml_doc("metadata: {name: demo}\nspec: {queue: {localQueue: q}, workerGroups: [" + groups + "]}\n");
  set_identity(d);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_FALSE(out.valid);
  EXPECT_NE(finding(out.errors, "spec.workerGroups", "KueueMaxPodSets"), nullptr) << dump(out.errors);
  ClusterFacts newer;
  newer.profile.kueue_max_pod_sets = 18;
  EXPECT_TRUE(reconcile(d, Observed{}, newer, schemas, kNow).valid);
}

TEST(Reconcile, PriorityClassWithoutAnyQueueIsAWarning) {
  CFO_REQUIRE_SCHEMAS(schemas);
  auto d = yaml_doc("metadata: {name: demo}\nspec: {queue: {priorityClass: high}}\n");
  set_identity(d);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, schemas, kNow);
  EXPECT_TRUE(out.valid) << dump(out.errors);
  const FieldError* w = finding(out.errors, "spec.queue.priorityClass", "PriorityClassWithoutQueue");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, Severity::Warning);
}

TEST(Reconcile, LongUserInputDoesNotOverflowTheMessages) {
  // Parsing fails before any generated object is validated, so an empty SchemaSet will do.
  validation::SchemaSet none;
  auto d = yaml_doc("metadata: {name: demo}\nspec: {head: {resources: {limits: {memory: '" + std::string(100000, '9') +
                    "x'}}}, a: 1, b: 2, c: 3}\n");
  set_identity(d);
  Outcome out = reconcile(d, Observed{}, ClusterFacts{}, none, kNow);
  EXPECT_FALSE(out.valid);
  auto conds = conditions_from_json(*json::find(out.status, "conditions"));
  ASSERT_NE(find_condition(conds, "Valid"), nullptr);
  EXPECT_LE(find_condition(conds, "Valid")->message.size(), 4096u);
  ASSERT_EQ(out.events.size(), 1u);
  EXPECT_LE(out.events[0].message.size(), 1024u);
  EXPECT_NE(out.events[0].message.find("spec.head.resources.limits.memory"), std::string::npos);
}
