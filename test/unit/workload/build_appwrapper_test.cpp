#include <gtest/gtest.h>

#include "parse_test_util.hpp"
#include "workload/build_appwrapper.hpp"
#include "workload/build_raycluster.hpp"
#include "workload/kueue_labels.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
std::string s(const json::Value& v) { return v.IsString() ? v.GetString() : "<not a string>"; }

json::Document wrapped(const json::Document& workload) {
  auto p = parse_workload(workload);
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  EXPECT_TRUE(p.workload.spec.app_wrapper);
  auto labels = kueue_labels(select_local_queue(p.workload.spec.queue, std::nullopt), p.workload.spec.queue);
  RayCluster inner = build_ray_cluster(p.workload, RayClusterPlacement{false, {}});
  return build_app_wrapper(p.workload, inner, labels).to_json();
}
}  // namespace

TEST(BuildAppWrapper, QueueLabelsOnTheAppWrapperOnly) {
  json::Document aw = wrapped(sample("cfw_appwrapper.yaml"));
  EXPECT_EQ(s(at(aw, {"apiVersion"})), "workload.codeflare.dev/v1beta2");
  EXPECT_EQ(s(at(aw, {"kind"})), "AppWrapper");
  EXPECT_EQ(s(at(aw, {"metadata", "name"})), "raytest-aw");
  EXPECT_EQ(s(at(aw, {"metadata", "namespace"})), "team-a");
  const auto& labels = at(aw, {"metadata", "labels"});
  EXPECT_EQ(labels.MemberCount(), 4u);
  EXPECT_EQ(s(at(labels, {"codeflare.dev/workload"})), "raytest-aw");
  EXPECT_EQ(s(at(labels, {"team"})), "team-a");  // spec.labels, also on the wrapped RayCluster
  EXPECT_EQ(s(at(labels, {"kueue.x-k8s.io/queue-name"})), "team-a-queue");
  EXPECT_EQ(s(at(labels, {"kueue.x-k8s.io/priority-class"})), "high-priority");
  EXPECT_FALSE(json::find(at(aw, {"metadata"}), "annotations"));
  EXPECT_EQ(s(at(aw, {"metadata", "ownerReferences", 0, "kind"})), "CodeFlareWorkload");
  EXPECT_EQ(s(at(aw, {"metadata", "ownerReferences", 0, "uid"})), "uid-1");
  EXPECT_TRUE(at(aw, {"metadata", "ownerReferences", 0, "controller"}).GetBool());

  const auto& comps = at(aw, {"spec", "components"});
  ASSERT_EQ(comps.Size(), 1u);
  EXPECT_FALSE(json::find(comps[0], "podSets"));
  const auto& rc = at(comps, {0, "template"});
  EXPECT_EQ(s(at(rc, {"apiVersion"})), "ray.io/v1");
  EXPECT_EQ(s(at(rc, {"kind"})), "RayCluster");
  EXPECT_EQ(s(at(rc, {"metadata", "name"})), "raytest-aw");
  EXPECT_EQ(s(at(rc, {"metadata", "namespace"})), "team-a");
  const auto& rc_labels = at(rc, {"metadata", "labels"});
  EXPECT_FALSE(json::find(rc_labels, "kueue.x-k8s.io/queue-name"));
  EXPECT_FALSE(json::find(rc_labels, "kueue.x-k8s.io/priority-class"));
  EXPECT_EQ(s(at(rc_labels, {"ray.io/cluster"})), "raytest-aw");
  EXPECT_EQ(s(at(rc_labels, {"codeflare.dev/workload"})), "raytest-aw");
  EXPECT_EQ(s(at(rc_labels, {"team"})), "team-a");
  EXPECT_EQ(s(at(rc, {"metadata", "annotations", "example.com/owner"})), "data-science");
  EXPECT_FALSE(json::find(at(rc, {"metadata"}), "ownerReferences"));
  const auto& res = at(rc, {"spec", "workerGroupSpecs", 0, "template", "spec", "containers", 0, "resources"});
  EXPECT_EQ(s(at(res, {"requests", "nvidia.com/gpu"})), "1");
  EXPECT_EQ(s(at(res, {"limits", "nvidia.com/gpu"})), "1");
}

TEST(BuildAppWrapper, NoQueueMeansOnlyTheWorkloadLabel) {
  auto p = parse_spec("{appWrapper: true}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  RayCluster inner = build_ray_cluster(p.workload, RayClusterPlacement{false, {}});
  json::Document aw = build_app_wrapper(p.workload, inner, {}).to_json();
  EXPECT_EQ(at(aw, {"metadata", "labels"}).MemberCount(), 1u);
}

TEST(BuildAppWrapper, SuspendGoesOnTheAppWrapperNotTheInnerRayCluster) {
  auto p = parse_spec("{appWrapper: true, suspend: true}");
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  RayCluster inner = build_ray_cluster(p.workload, RayClusterPlacement{false, {}});
  json::Document aw = build_app_wrapper(p.workload, inner, {}).to_json();
  EXPECT_TRUE(at(aw, {"spec", "suspend"}).GetBool());
  EXPECT_FALSE(json::find(at(aw, {"spec", "components", 0, "template", "spec"}), "suspend"));

  auto q = parse_spec("{appWrapper: true}");
  ASSERT_TRUE(q.ok()) << dump(q.errors);
  json::Document plain =
      build_app_wrapper(q.workload, build_ray_cluster(q.workload, RayClusterPlacement{false, {}}), {}).to_json();
  EXPECT_FALSE(json::find(at(plain, {"spec"}), "suspend")) << "suspend: false is never written; Kueue owns it";
}
