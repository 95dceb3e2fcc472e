// operator/drift.hpp (a child changed by another field manager, the restore pacing) and operator/namespace_cache.hpp
// (the Pod Security level of a cached Namespace).
#include <gtest/gtest.h>

#include "core/json.hpp"
#include "operator/drift.hpp"
#include "operator/namespace_cache.hpp"

using namespace cfo;
using namespace cfo::op;
using namespace std::chrono_literals;

namespace {
json::Document doc(const char* text) {
  auto d = json::parse(text);
  EXPECT_TRUE(d.has_value());
  return d ? std::move(*d) : json::Document(rapidjson::kObjectType);
}

const char* kDesired = R"({"kind":"RayCluster","metadata":{"name":"w","annotations":{"codeflare.dev/spec-hash":"abc"}},
  "spec":{"autoscalerOptions":{"idleTimeoutSeconds":60}}})";
}  // namespace

TEST(Drift, AnotherManagerChangedAnOwnedFieldAndIsNamed) {
  const auto desired = doc(kDesired);
  auto live = doc(R"({"kind":"RayCluster","metadata":{"name":"w","annotations":{"codeflare.dev/spec-hash":"abc"},
    "managedFields":[{"manager":"codeflare-operator","operation":"Apply","time":"2025-01-01T00:00:05Z"},
                     {"manager":"kubectl-edit","operation":"Update","time":"2025-01-01T00:00:01Z"},
                     {"manager":"chaos-fighter","operation":"Apply","time":"2025-01-01T00:00:09Z"}]},
    "spec":{"autoscalerOptions":{"idleTimeoutSeconds":61}}})");
  auto d = detect_drift(desired, live, "codeflare-operator");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->managers.size(), 2u);
  EXPECT_EQ(d->managers[0], "chaos-fighter (Apply)") << "the most recent writer first";
  const std::string msg = describe_drift(*d, "RayCluster", "w");
  EXPECT_NE(msg.find("chaos-fighter"), std::string::npos) << msg;
}

TEST(Drift, NoDriftWhenUnchangedOrWhenOurDesiredStateChanged) {
  const auto desired = doc(kDesired);
  // Same hash, same fields: nothing to say.
  auto same = doc(kDesired);
  EXPECT_FALSE(detect_drift(desired, same, "codeflare-operator"));
  // A different hash on the live object: the operator's own spec changed, an ordinary update.
  auto older = doc(R"({"kind":"RayCluster","metadata":{"name":"w","annotations":{"codeflare.dev/spec-hash":"old"}},
    "spec":{"autoscalerOptions":{"idleTimeoutSeconds":30}}})");
  EXPECT_FALSE(detect_drift(desired, older, "codeflare-operator"));
}

// The annotation removed by hand (kubectl annotate ...-) is a drift too, and a removal that left no field manager
// behind is told as such (trial 57, #4: both were set back without a word, or with "another field manager").
TEST(Drift, ARemovedHashAnnotationIsADriftAndAnUnnamedWriterIsExplained) {
  const auto desired = doc(kDesired);
  auto stripped = doc(R"({"kind":"RayCluster","metadata":{"name":"w"},
    "spec":{"autoscalerOptions":{"idleTimeoutSeconds":60}}})");
  auto d = detect_drift(desired, stripped, "codeflare-operator");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->managers.empty());
  const std::string msg = describe_drift(*d, "RayCluster", "w");
  EXPECT_NE(msg.find("only removed"), std::string::npos) << msg;
}

TEST(Drift, ReducedManagedFieldsKeepWhoAndWhen) {
  auto obj = doc(R"({"metadata":{"managedFields":[{"manager":"m","operation":"Update","time":"t",
    "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}},"apiVersion":"ray.io/v1"}]}})");
  reduce_managed_fields(obj);
  const json::Value& e = (*json::find_path(obj, "metadata.managedFields"))[0];
  EXPECT_TRUE(json::find(e, "manager"));
  EXPECT_TRUE(json::find(e, "time"));
  EXPECT_FALSE(json::find(e, "fieldsV1"));
}

TEST(RestorePacer, SpacesRestoresOutAndStartsAgainAfterQuiet) {
  RestorePacer pacer(1000ms, 8000ms);
  const auto t0 = RestorePacer::Clock::time_point{} + 1h;
  EXPECT_EQ(pacer.admit("ns/w", t0), 0) << "the first restore goes at once";
  EXPECT_GT(pacer.admit("ns/w", t0 + 100ms), 0) << "the next waits";
  EXPECT_EQ(pacer.admit("ns/w", t0 + 1000ms), 0);
  EXPECT_GT(pacer.admit("ns/w", t0 + 2500ms), 0) << "the gap doubled to 2 s";
  EXPECT_EQ(pacer.admit("ns/w", t0 + 3000ms), 0);
  // Over a fight of 60 s with a change every 200 ms, at most a handful of restores pass.
  int restores = 0;
  for (auto t = t0 + 3200ms; t < t0 + 63s; t += 200ms) restores += pacer.admit("ns/w", t) == 0;
  EXPECT_LE(restores, 10);
  EXPECT_GE(restores, 5);
  EXPECT_EQ(pacer.admit("other/w", t0 + 3200ms), 0) << "per workload";
  EXPECT_EQ(pacer.admit("ns/w", t0 + 200s), 0) << "after a quiet spell, at once again";
}

TEST(NamespaceCache, TransformKeepsTheLabelsAndTheLevelFollowsTheEnforceLabel) {
  auto ns = doc(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team","uid":"u","resourceVersion":"7",
    "labels":{"pod-security.kubernetes.io/enforce":"restricted","team":"a"},"annotations":{"x":"y"}},
    "spec":{"finalizers":["kubernetes"]}})");
  namespace_transform(ns);
  EXPECT_FALSE(json::find(ns, "spec"));
  EXPECT_FALSE(json::find_path(ns, "metadata.annotations"));
  EXPECT_EQ(json::string_at(ns, "metadata.labels.team"), "a") << "ClusterQueues' namespaceSelectors select on it";
  EXPECT_EQ(pod_security_level_of(&ns), validation::PodSecurityLevel::kRestricted);
  auto plain = doc(R"({"metadata":{"name":"team"}})");
  namespace_transform(plain);
  EXPECT_EQ(pod_security_level_of(&plain), validation::PodSecurityLevel::kPrivileged);
  EXPECT_EQ(pod_security_level_of(nullptr), validation::PodSecurityLevel::kPrivileged);
  auto odd = doc(R"({"metadata":{"name":"team","labels":{"pod-security.kubernetes.io/enforce":"strict"}}})");
  EXPECT_EQ(pod_security_level_of(&odd), validation::PodSecurityLevel::kRestricted);
}
