// RayCluster features (head Service type, Ingress, authOptions, per-group suspend and idleTimeoutSeconds,
// autoscaler version and image, upgradeStrategy) and Kueue features (MultiKueue's managedBy, elastic jobs), with the
// rules KubeRay and Kueue apply to them.
#include <gtest/gtest.h>

#include "reconcile_test_util.hpp"
#include "workload/build_raycluster.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

TEST(ClusterFeatures, WrittenWhereKubeRayReadsThem) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({head: {serviceType: LoadBalancer}, authOptions: {mode: token},
      upgradeStrategy: {type: Recreate},
      autoscaling: {enabled: true, version: v2, image: 'quay.io/rayproject/ray:2.52.1'},
      workerGroups: [{name: a, minReplicas: 0, maxReplicas: 2, idleTimeoutSeconds: 30}, {name: b, suspend: true}]})",
                               schemas);
  // Group b has no bounds: autoscaling needs them, and a suspended group cannot autoscale.
  EXPECT_TRUE(error_at(out, "spec.workerGroups[1]", "AutoscalingReplicaBounds")) << dump(out.errors);

  out = reconcile_spec(R"({head: {serviceType: LoadBalancer}, authOptions: {mode: token},
      upgradeStrategy: {type: Recreate}, autoscaling: {enabled: true, version: v2, image: 'quay.io/rayproject/ray:2.52.1'},
      workerGroups: [{name: a, minReplicas: 0, maxReplicas: 2, idleTimeoutSeconds: 30}]})",
                       schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value& spec = at(top(out), {"spec"});
  EXPECT_EQ(json::string_at(spec, "headGroupSpec.serviceType"), "LoadBalancer");
  EXPECT_EQ(json::string_at(spec, "authOptions.mode"), "token");
  EXPECT_EQ(json::string_at(spec, "upgradeStrategy.type"), "Recreate");
  EXPECT_EQ(json::string_at(spec, "autoscalerOptions.version"), "v2");
  EXPECT_EQ(json::string_at(spec, "autoscalerOptions.image"), "quay.io/rayproject/ray:2.52.1");
  EXPECT_EQ(json::get_int(at(spec, {"workerGroupSpecs", 0}), "idleTimeoutSeconds"), 30);

  Outcome suspended = reconcile_spec("{workerGroups: [{name: a}, {name: b, suspend: true}]}", schemas);
  ASSERT_TRUE(suspended.valid) << dump(suspended.errors);
  EXPECT_EQ(json::get_bool(at(top(suspended), {"spec", "workerGroupSpecs", 1}), "suspend"), true);
  EXPECT_FALSE(json::find(at(top(suspended), {"spec", "workerGroupSpecs", 0}), "suspend"));
}

TEST(ClusterFeatures, KubeRayRulesNameTheWorkloadField) {
  CFO_REQUIRE_SCHEMAS(schemas);
  struct Case {
    const char* spec;
    const char* path;
    const char* rule;
  };
  const Case cases[] = {
      {"{rayVersion: '2.46.0', image: 'quay.io/rayproject/ray:2.46.0', authOptions: {mode: token}}",
       "spec.authOptions.mode", "AuthRayVersion"},
      {"{authOptions: {mode: token, enableK8sTokenAuth: true}}", "spec.authOptions.enableK8sTokenAuth", "K8sTokenAuth"},
      {"{autoscaling: {enabled: true}, workerGroups: [{name: a, minReplicas: 0, maxReplicas: 2, suspend: true}]}",
       "spec.workerGroups[0].suspend", "WorkerGroupSuspend"},
      {"{workerGroups: [{name: a, idleTimeoutSeconds: 10}]}", "spec.workerGroups[0].idleTimeoutSeconds",
       "IdleTimeoutSeconds"},
      {"{upgradeStrategy: {type: Recreate}, job: {entrypoint: x}}", "spec.upgradeStrategy.type",
       "UpgradeStrategyOwner"},
      {"{head: {serviceType: ExternalName}}", "spec.head.serviceType", "schema:enum"},
      {"{autoscaling: {enabled: true, version: v3}, workerGroups: [{name: a, minReplicas: 0, maxReplicas: 1}]}",
       "spec.autoscaling.version", "schema:enum"},
      {"{head: {enableIngress: true, ingressOptions: {pathType: Regex}}}", "spec.head.ingressOptions.pathType",
       "schema:enum"},
  };
  for (const auto& c : cases) {
    Outcome out = reconcile_spec(c.spec, schemas);
    EXPECT_FALSE(out.valid) << c.spec;
    EXPECT_TRUE(error_at(out, c.path, c.rule)) << c.spec << "\n" << dump(out.errors);
  }
}

TEST(ClusterFeatures, IngressIsWrittenAndJudgedByTheCodeFlareRule) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string spec = "{head: {enableIngress: true, ingressOptions: {host: ray.example.com, pathType: Prefix}}}";
  ParsedWorkload p = parse_workload(workload_doc(spec));
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  json::Document rc = build_ray_cluster(p.workload, RayClusterPlacement{}).to_json();
  EXPECT_EQ(json::get_bool(at(rc, {"spec", "headGroupSpec"}), "enableIngress"), true);
  EXPECT_EQ(json::string_at(rc, "spec.headGroupSpec.ingressOptions.host"), "ray.example.com");
  // Under the odh profile the RayCluster is judged as the CodeFlare operator's RayCluster webhook (OpenDataHub)
  // judges it: refused, at the workload's field. Elsewhere no such webhook runs.
  ClusterFacts odh;
  odh.profile.name = validation::Profile::kOdh;
  Outcome out = reconcile_spec(spec, schemas, odh);
  EXPECT_FALSE(out.valid);
  EXPECT_TRUE(error_at(out, "spec.head.enableIngress", "EnableIngress")) << dump(out.errors);
  Outcome vanilla = reconcile_spec(spec, schemas);
  EXPECT_TRUE(vanilla.valid) << dump(vanilla.errors);
  Outcome ignored = reconcile_spec("{head: {ingressOptions: {host: h}}}", schemas);
  ASSERT_TRUE(ignored.valid) << dump(ignored.errors);
  bool warned = false;
  for (const auto& w : ignored.errors) warned = warned || w.rule == "IngressOptionsIgnored";
  EXPECT_TRUE(warned) << dump(ignored.errors);
}

TEST(ClusterFeatures, MultiKueueSetsManagedByOnTheTopLevelChild) {
  CFO_REQUIRE_SCHEMAS(schemas);
  for (const char* extra : {"", ", appWrapper: true", ", job: {entrypoint: x}"}) {
    Outcome out = reconcile_spec(std::string("{queue: {localQueue: q, multiKueue: true}") + extra + "}", schemas,
                                 with_default_queue());
    ASSERT_TRUE(out.valid) << extra << "\n" << dump(out.errors);
    EXPECT_EQ(json::string_at(top(out), "spec.managedBy"), "kueue.x-k8s.io/multikueue") << extra;
  }
  // Inside an AppWrapper, the RayCluster is not the one MultiKueue dispatches.
  Outcome aw =
      reconcile_spec("{appWrapper: true, queue: {localQueue: q, multiKueue: true}}", schemas, with_default_queue());
  const json::Value& inner = at(top(aw), {"spec", "components", 0, "template"});
  EXPECT_FALSE(json::find_path(inner, "spec.managedBy"));
}

TEST(ClusterFeatures, MultiKueueNeedsAQueueAndCannotBeAddedToARunningChild) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome unqueued = reconcile_spec("{queue: {multiKueue: true}}", schemas);
  EXPECT_TRUE(error_at(unqueued, "spec.queue.multiKueue", "MultiKueueNeedsQueue")) << dump(unqueued.errors);

  json::Document live = yaml_doc(R"({apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: demo, namespace: team-a,
      labels: {kueue.x-k8s.io/queue-name: q}}, spec: {rayVersion: 2.52.1, headGroupSpec: {rayStartParams: {},
      template: {spec: {containers: [{name: ray-head, image: x}]}}}}})");
  Observed observed;
  observed.ray_cluster = &live;
  Outcome out = reconcile_spec("{queue: {localQueue: q, multiKueue: true}}", schemas, with_default_queue(), observed);
  EXPECT_TRUE(error_at(out, "spec.queue.multiKueue", "ManagedByImmutable")) << dump(out.errors);
}

TEST(ClusterFeatures, AQueuedClusterCannotBecomeOrStopBeingAnElasticJob) {
  CFO_REQUIRE_SCHEMAS(schemas);
  json::Document live = yaml_doc(R"({apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: demo, namespace: team-a,
      labels: {kueue.x-k8s.io/queue-name: q}}, spec: {rayVersion: 2.52.1, headGroupSpec: {rayStartParams: {},
      template: {spec: {containers: [{name: ray-head, image: x}]}}}}})");
  Observed observed;
  observed.ray_cluster = &live;
  const char* elastic = R"({queue: {localQueue: q}, autoscaling: {enabled: true, elasticJob: true},
      workerGroups: [{name: w, minReplicas: 0, maxReplicas: 2}]})";
  Outcome out = reconcile_spec(elastic, schemas, with_default_queue(), observed);
  EXPECT_TRUE(error_at(out, "spec.autoscaling.elasticJob", "ElasticJobImmutable")) << dump(out.errors);
  Outcome fresh = reconcile_spec(elastic, schemas, with_default_queue());
  EXPECT_TRUE(fresh.valid) << dump(fresh.errors);
}
