// rules/kuberay_rules.cpp and rules/codeflare_operator_rules.cpp.
#include "test_support.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::validate_object;

namespace {
using Edits = std::vector<std::pair<std::string, std::string>>;
FieldErrors rc(const validation::SchemaSet& s, Edits e) {
  return validate_object(s, patched(yaml1(raycluster_yaml()), e));
}
FieldErrors rj(const validation::SchemaSet& s, Edits e) { return validate_object(s, patched(yaml1(rayjob_yaml()), e)); }
const std::string kW0 = "spec.workerGroupSpecs[0]";
const std::string kHeadEnv = "spec.headGroupSpec.template.spec.containers[0].env";
}  // namespace

// ---- metadata and webhook ---------------------------------------------------------------------------------------

TEST(KubeRayRules, DNS1035Name) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rc(schemas, {{"metadata.name", "1-cluster"}});
  ASSERT_TRUE(has(errs, "metadata.name", "DNS1035Name")) << describe(errs);
  EXPECT_EQ(matching(errs, "metadata.name", "DNS1035Name")[0].source, "kuberay:ValidateRayClusterMetadata");
  auto job = rj(schemas, {{"metadata.name", "train.v2"}});
  EXPECT_TRUE(has(job, "metadata.name", "DNS1035Name")) << describe(job);
}

TEST(KubeRayRules, MaxNameLength) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_EQ(error_count(rc(schemas, {{"metadata.name", "a" + std::string(52, 'b')}})), 0u);
  EXPECT_TRUE(has(rc(schemas, {{"metadata.name", "a" + std::string(53, 'b')}}), "metadata.name", "MaxNameLength"));
  EXPECT_EQ(error_count(rj(schemas, {{"metadata.name", "a" + std::string(46, 'b')}})), 0u);
  EXPECT_TRUE(has(rj(schemas, {{"metadata.name", "a" + std::string(47, 'b')}}), "metadata.name", "MaxNameLength"));
  // generateName: the apiserver appends 5 characters.
  auto gen = rj(schemas, {{"metadata.name", "~delete"}, {"metadata.generateName", "a" + std::string(42, 'b') + "-"}});
  EXPECT_TRUE(has(gen, "metadata.generateName", "MaxNameLength")) << describe(gen);
}

TEST(KubeRayRules, UniqueGroupName) {
  CFO_REQUIRE_SCHEMAS();
  auto base = yaml1(raycluster_yaml());
  auto doc = patched(base, {{"spec.workerGroupSpecs[1]", json::dump(base["spec"]["workerGroupSpecs"][0])}});
  auto errs = validate_object(schemas, doc);
  ASSERT_TRUE(has(errs, "spec.workerGroupSpecs[1].groupName", "UniqueGroupName")) << describe(errs);
  EXPECT_EQ(matching(errs, "spec.workerGroupSpecs[1].groupName", "UniqueGroupName")[0].source, "kuberay:webhook");
}

// ---- ValidateRayClusterSpec ---------------------------------------------------------------------------------------

TEST(KubeRayRules, ContainersRequired) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rc(schemas, {{kW0 + ".template.spec.containers", "[]"}});
  EXPECT_TRUE(has(errs, kW0 + ".template.spec.containers", "ContainersRequired")) << describe(errs);
  auto no_spec = rc(schemas, {{"spec", "~delete"}});
  EXPECT_TRUE(has(no_spec, "spec", "ContainersRequired")) << "KubeRay refuses the empty spec\n" << describe(no_spec);
}

TEST(KubeRayRules, MinWithinMaxAndNonNegativeReplicas) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(rc(schemas, {{kW0 + ".minReplicas", "3"}}), kW0 + ".minReplicas", "MinWithinMaxReplicas"));
  EXPECT_TRUE(has(rc(schemas, {{kW0 + ".minReplicas", "-1"}}), kW0 + ".minReplicas", "NonNegativeReplicas"));
}

TEST(KubeRayRules, ReplicasOutsideBoundsIsAWarning) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rc(schemas, {{kW0 + ".replicas", "5"}});
  EXPECT_TRUE(has(errs, kW0 + ".replicas", "ReplicasWithinBounds", Severity::Warning)) << describe(errs);
  EXPECT_EQ(error_count(errs), 0u) << describe(errs);
}

TEST(KubeRayRules, RayStartParamsLabels) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rc(schemas, {{kW0 + ".rayStartParams.labels", "\"{}\""}});
  EXPECT_TRUE(has(errs, kW0 + ".rayStartParams.labels", "RayStartParamsLabels")) << describe(errs);
}

TEST(KubeRayRules, GroupResourcesExclusive) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rc(schemas, {{kW0 + ".rayStartParams.num-cpus", "\"2\""}, {kW0 + ".resources.CPU", "\"2\""}});
  EXPECT_TRUE(has(errs, kW0 + ".rayStartParams.num-cpus", "GroupResourcesExclusive")) << describe(errs);
}

TEST(KubeRayRules, GroupLabels) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rc(schemas, {{kW0 + ".labels[bad key]", "x"}});
  EXPECT_TRUE(has(errs, kW0 + ".labels[bad key]", "GroupLabels")) << describe(errs);
}

TEST(KubeRayRules, IdleTimeoutSeconds) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(
      has(rc(schemas, {{kW0 + ".idleTimeoutSeconds", "60"}}), kW0 + ".idleTimeoutSeconds", "IdleTimeoutSeconds"));
  auto v2 = rc(schemas, {{kW0 + ".idleTimeoutSeconds", "60"},
                         {"spec.enableInTreeAutoscaling", "true"},
                         {"spec.autoscalerOptions.version", "v2"}});
  EXPECT_FALSE(has(v2, kW0 + ".idleTimeoutSeconds", "IdleTimeoutSeconds")) << describe(v2);
  EXPECT_TRUE(has(rc(schemas, {{"spec.autoscalerOptions.idleTimeoutSeconds", "-1"}}),
                  "spec.autoscalerOptions.idleTimeoutSeconds", "IdleTimeoutSeconds"));
}

TEST(KubeRayRules, WorkerGroupPriority) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rc(schemas, {{kW0 + ".priority", "5"}});
  EXPECT_TRUE(has(errs, kW0 + ".priority", "WorkerGroupPriority")) << describe(errs);
  auto ok = rc(schemas, {{kW0 + ".priority", "5"},
                         {"spec.rayVersion", "\"2.56.0\""},
                         {"spec.enableInTreeAutoscaling", "true"},
                         {"spec.autoscalerOptions.version", "v2"}});
  EXPECT_FALSE(has(ok, kW0 + ".priority", "WorkerGroupPriority")) << describe(ok);
}

TEST(KubeRayRules, GcsFaultTolerance) {
  CFO_REQUIRE_SCHEMAS();
  auto conflict = rc(schemas, {{"metadata.annotations[ray.io/ft-enabled]", "\"true\""},
                               {"spec.gcsFaultToleranceOptions.redisAddress", "redis:6379"}});
  EXPECT_TRUE(has(conflict, "metadata.annotations[ray.io/ft-enabled]", "GcsFTAnnotationConflict"))
      << "the annotation key is the field at fault\n"
      << describe(conflict);

  auto implicit = rc(schemas, {{kHeadEnv, "[{name: RAY_REDIS_ADDRESS, value: \"redis:6379\"}]"}});
  EXPECT_TRUE(has(implicit, kHeadEnv + "[0]", "RedisAddressNeedsGcsFT")) << describe(implicit);

  auto forbidden = rc(schemas, {{"spec.gcsFaultToleranceOptions.redisAddress", "redis:6379"},
                                {"spec.headGroupSpec.rayStartParams.redis-password", "secret"}});
  EXPECT_TRUE(has(forbidden, "spec.headGroupSpec.rayStartParams.redis-password", "GcsFTForbiddenSetting"))
      << describe(forbidden);

  auto user = rc(schemas, {{kHeadEnv, "[{name: REDIS_USERNAME, value: u}]"}});
  EXPECT_TRUE(has(user, kHeadEnv + "[0]", "RedisUsername")) << describe(user);

  auto storage = rc(schemas, {{"spec.gcsFaultToleranceOptions.redisAddress", "redis:6379"},
                              {"spec.gcsFaultToleranceOptions.storage.size", "1Gi"}});
  EXPECT_TRUE(has(storage, "spec.gcsFaultToleranceOptions.storage", "GcsFTBackend")) << describe(storage);
}

TEST(KubeRayRules, AutoscalerRules) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(rc(schemas, {{"spec.enableInTreeAutoscaling", "true"}, {kW0 + ".suspend", "true"}}), kW0 + ".suspend",
                  "WorkerGroupSuspend"));
  EXPECT_TRUE(has(rc(schemas, {{kHeadEnv, "[{name: RAY_enable_autoscaler_v2, value: \"1\"}]"}}), kHeadEnv + "[0]",
                  "AutoscalerV2Env"));
  EXPECT_TRUE(has(rc(schemas, {{"spec.enableInTreeAutoscaling", "true"},
                               {"spec.autoscalerOptions.version", "v2"},
                               {kHeadEnv, "[{name: RAY_enable_autoscaler_v2, value: \"1\"}]"}}),
                  "spec.autoscalerOptions.version", "AutoscalerVersionConflict"));
  EXPECT_TRUE(has(rc(schemas, {{"spec.enableInTreeAutoscaling", "true"},
                               {"spec.autoscalerOptions.version", "v2"},
                               {kW0 + ".template.spec.restartPolicy", "Always"}}),
                  kW0 + ".template.spec.restartPolicy", "AutoscalerV2RestartPolicy"));
  EXPECT_TRUE(has(rc(schemas, {{"spec.autoscalerOptions.env", "[{name: KUBERAY_GEN_AUTOSCALER_START_CMD, value: x}]"}}),
                  "spec.autoscalerOptions.env[0]", "AutoscalerEnvReserved"));
}

TEST(KubeRayRules, AuthRules) {
  CFO_REQUIRE_SCHEMAS();
  // The field too new for the rayVersion is named, not rayVersion.
  EXPECT_TRUE(has(rc(schemas, {{"spec.authOptions.mode", "token"}}), "spec.authOptions.mode", "AuthRayVersion"));
  EXPECT_FALSE(has(rc(schemas, {{"spec.authOptions.mode", "token"}, {"spec.rayVersion", "\"2.52.0\""}}),
                   "spec.authOptions.mode", "AuthRayVersion"));
  auto k8s = rc(schemas, {{"spec.authOptions.enableK8sTokenAuth", "true"}});
  EXPECT_TRUE(has(k8s, "spec.authOptions.enableK8sTokenAuth", "K8sTokenAuth")) << describe(k8s);
  auto job = rj(schemas, {{"spec.rayClusterSpec.authOptions", "{mode: token, enableK8sTokenAuth: true}"}});
  EXPECT_TRUE(has(job, "spec.rayClusterSpec.authOptions.enableK8sTokenAuth", "K8sTokenAuth")) << describe(job);
}

TEST(KubeRayRules, FeatureGatedBlocks) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rc(schemas, {{"spec.networkPolicy.mode", "DenyAll"}, {kW0 + ".groupName", "Workers"}});
  EXPECT_TRUE(has(errs, "spec.networkPolicy", "FeatureGate")) << describe(errs);
  EXPECT_TRUE(has(errs, kW0 + ".groupName", "NetworkPolicyGroupName")) << describe(errs);
  auto tls = rc(schemas, {{"spec.tlsOptions.enabled", "true"}, {kHeadEnv, "[{name: RAY_USE_TLS, value: \"1\"}]"}});
  EXPECT_TRUE(has(tls, kHeadEnv + "[0]", "TLSEnv")) << describe(tls);
}

TEST(KubeRayRules, UpgradeStrategyNotOnARayJobCluster) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rj(schemas, {{"spec.rayClusterSpec.upgradeStrategy.type", "Recreate"}});
  EXPECT_TRUE(has(errs, "spec.rayClusterSpec.upgradeStrategy.type", "UpgradeStrategyOwner")) << describe(errs);
  EXPECT_EQ(error_count(rc(schemas, {{"spec.upgradeStrategy.type", "Recreate"}})), 0u);
  EXPECT_EQ(error_count(rj(schemas, {{"spec.rayClusterSpec.upgradeStrategy", "{}"}})), 0u) << "no type, no refusal";
  EXPECT_TRUE(has(rc(schemas, {{"spec.upgradeStrategy.type", "Recreate"},
                               {"metadata.labels[ray.io/originated-from-crd]", "RayService"}}),
                  "spec.upgradeStrategy.type", "UpgradeStrategyOwner"))
      << "a RayService's cluster, told by its label";
}

// The CRD's CEL rule on spec.managedBy, evaluated by SchemaSet (it replaced a hand-written copy; same path).
TEST(KubeRayRules, ManagedByCEL) {
  CFO_REQUIRE_SCHEMAS();
  const std::string rule =
      "cel:the managedBy field value must be either 'ray.io/kuberay-operator' or 'kueue.x-k8s.io/multikueue'";
  auto errs = rc(schemas, {{"spec.managedBy", "someone/else"}});
  EXPECT_TRUE(has(errs, "spec.managedBy", rule)) << describe(errs);
  EXPECT_EQ(error_count(errs), 1u) << describe(errs);
  EXPECT_EQ(error_count(rc(schemas, {{"spec.managedBy", "kueue.x-k8s.io/multikueue"}})), 0u);
}

TEST(KubeRayRules, GroupNameMustBeALabelValueAndShouldBeADNSLabel) {
  CFO_REQUIRE_SCHEMAS();
  auto bad = rc(schemas, {{kW0 + ".groupName", "workers/gpu"}});
  EXPECT_TRUE(has(bad, kW0 + ".groupName", "GroupNameLabelValue")) << describe(bad);
  // Upper case and dots survive KubeRay's lower-casing into the worker Pods' generateName: only a warning.
  auto upper = rc(schemas, {{kW0 + ".groupName", "GPU.Workers"}});
  EXPECT_TRUE(has(upper, kW0 + ".groupName", "GroupNameDNS1123", Severity::Warning)) << describe(upper);
  EXPECT_EQ(error_count(upper), 0u) << describe(upper);
  // An underscore does not: every worker Pod would be refused (KubeRay's PodName).
  auto underscore = rc(schemas, {{kW0 + ".groupName", "GPU_Workers"}});
  EXPECT_TRUE(has(underscore, kW0 + ".groupName", "PodName")) << describe(underscore);
}

TEST(KubeRayRules, EnableIngressIsRejectedByTheCodeFlareOperatorUnderOdhOnly) {
  CFO_REQUIRE_SCHEMAS();
  validation::ClusterProfile odh;
  odh.name = validation::Profile::kOdh;
  auto yes = patched(yaml1(raycluster_yaml()), {{"spec.headGroupSpec.enableIngress", "true"}});
  auto errs = validation::validate_object(schemas, yes, odh);
  ASSERT_TRUE(has(errs, "spec.headGroupSpec.enableIngress", "EnableIngress")) << describe(errs);
  EXPECT_EQ(matching(errs, "spec.headGroupSpec.enableIngress", "EnableIngress")[0].source,
            "codeflare-operator:webhook");
  auto vanilla = validation::validate_object(schemas, yes);
  EXPECT_EQ(error_count(vanilla), 0u) << "KubeRay itself makes the Ingress\n" << describe(vanilla);
  auto no = patched(yaml1(raycluster_yaml()), {{"spec.headGroupSpec.enableIngress", "false"}});
  EXPECT_EQ(error_count(validation::validate_object(schemas, no, odh)), 0u);
}

// ---- RayJob -------------------------------------------------------------------------------------------------------

TEST(KubeRayRules, ValidRayJob) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rj(schemas, {});
  EXPECT_TRUE(errs.empty()) << describe(errs);
}

TEST(KubeRayRules, RayJobSuspendAndTTL) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(rj(schemas, {{"spec.shutdownAfterJobFinishes", "false"}, {"spec.suspend", "true"}}), "spec.suspend",
                  "SuspendNeedsShutdown"));
  EXPECT_TRUE(has(rj(schemas, {{"spec.shutdownAfterJobFinishes", "false"}, {"spec.ttlSecondsAfterFinished", "10"}}),
                  "spec.ttlSecondsAfterFinished", "TTLSecondsAfterFinished"));
}

TEST(KubeRayRules, RayJobClusterSource) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(rj(schemas, {{"spec.rayClusterSpec", "~delete"}}), "spec.rayClusterSpec", "ClusterSource"));
  // Without any spec (the CRD does not require one), KubeRay reads the empty spec: neither a cluster nor a selector.
  EXPECT_TRUE(has(rj(schemas, {{"spec", "~delete"}}), "spec.rayClusterSpec", "ClusterSource"));
  auto sel =
      rj(schemas, {{"spec.rayClusterSpec", "~delete"}, {"spec.clusterSelector.team", "a"}, {"spec.suspend", "true"}});
  EXPECT_TRUE(has(sel, "spec.clusterSelector[ray.io/cluster]", "ClusterSelector")) << describe(sel);
  EXPECT_TRUE(has(sel, "spec.suspend", "ClusterSelector")) << describe(sel);
}

TEST(KubeRayRules, RayJobSubmissionModes) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(rj(schemas, {{"spec.submissionMode", "InteractiveMode"}, {"spec.backoffLimit", "2"}}),
                  "spec.backoffLimit", "InteractiveModeBackoff"));
  auto sidecar = rj(schemas, {{"spec.submissionMode", "SidecarMode"},
                              {"spec.submitterConfig.backoffLimit", "1"},
                              {"spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy", "Always"}});
  EXPECT_TRUE(has(sidecar, "spec.submitterConfig", "SidecarMode")) << describe(sidecar);
  EXPECT_TRUE(has(sidecar, "spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy", "SidecarMode"))
      << describe(sidecar);
}

TEST(KubeRayRules, RayJobRuntimeEnvAndDeadlines) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(rj(schemas, {{"spec.runtimeEnvYAML", "\"pip: [a\""}}), "spec.runtimeEnvYAML", "RuntimeEnvYAML"));
  EXPECT_TRUE(has(rj(schemas, {{"spec.runtimeEnvYAML", "\"- a\""}}), "spec.runtimeEnvYAML", "RuntimeEnvYAML"));
  EXPECT_FALSE(
      has(rj(schemas, {{"spec.runtimeEnvYAML", "\"pip: [requests]\""}}), "spec.runtimeEnvYAML", "RuntimeEnvYAML"));
  EXPECT_TRUE(has(rj(schemas, {{"spec.activeDeadlineSeconds", "0"}}), "spec.activeDeadlineSeconds", "JobDeadlines"));
  EXPECT_TRUE(has(rj(schemas, {{"spec.backoffLimit", "-1"}}), "spec.backoffLimit", "JobDeadlines"));
}

TEST(KubeRayRules, RayJobDeletionStrategy) {
  CFO_REQUIRE_SCHEMAS();
  // The shape rules are the CRD's CEL rules (evaluated by SchemaSet; they replaced a hand-written copy, same paths).
  auto shape = rj(schemas, {{"spec.deletionStrategy.onSuccess.policy", "DeleteCluster"}});
  EXPECT_TRUE(has(shape, "spec.deletionStrategy",
                  "cel:deletionStrategy requires either BOTH onSuccess and onFailure, OR the deletionRules field "
                  "(cannot be empty)"))
      << describe(shape);
  auto none =
      rj(schemas, {{"spec.deletionStrategy", "{onSuccess: {policy: DeleteNone}, onFailure: {policy: DeleteCluster}}"}});
  EXPECT_TRUE(has(none, "spec.deletionStrategy.onSuccess.policy", "DeletionPolicies")) << describe(none);
  auto rules = rj(schemas, {{"spec.shutdownAfterJobFinishes", "false"},
                            {"spec.deletionStrategy.deletionRules",
                             "[{policy: DeleteCluster, condition: {jobStatus: SUCCEEDED, ttlSeconds: 10}},"
                             " {policy: DeleteWorkers, condition: {jobStatus: SUCCEEDED, ttlSeconds: 60}},"
                             " {policy: DeleteCluster, condition: {jobStatus: SUCCEEDED}}]"}});
  EXPECT_TRUE(has(rules, "spec.deletionStrategy.deletionRules[2]", "DeletionPolicies")) << describe(rules);
  EXPECT_TRUE(has(rules, "spec.deletionStrategy.deletionRules", "DeletionPolicies")) << describe(rules);
  auto with_shutdown = rj(
      schemas, {{"spec.deletionStrategy.deletionRules", "[{policy: DeleteCluster, condition: {jobStatus: FAILED}}]"}});
  EXPECT_TRUE(has(with_shutdown, "spec.shutdownAfterJobFinishes", "DeletionPolicies")) << describe(with_shutdown);
  auto empty = rj(schemas, {{"spec.shutdownAfterJobFinishes", "false"}, {"spec.deletionStrategy.deletionRules", "[]"}});
  EXPECT_TRUE(has(empty, "spec.deletionStrategy.deletionRules", "DeletionPolicies")) << describe(empty);
  auto one =
      rj(schemas, {{"spec.shutdownAfterJobFinishes", "false"},
                   {"spec.deletionStrategy.deletionRules", "[{policy: DeleteSelf, condition: {jobStatus: FAILED}}]"}});
  EXPECT_FALSE(has(one, "spec.deletionStrategy.deletionRules", "DeletionPolicies")) << describe(one);
}

TEST(KubeRayRules, RayJobSubmitterTemplateGetsPodRules) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = rj(schemas, {{"spec.submitterPodTemplate.spec.containers", "[{name: Submit, image: x}]"}});
  EXPECT_TRUE(has(errs, "spec.submitterPodTemplate.spec.containers[0].name", "validateContainerCommon"))
      << describe(errs);
}

TEST(KubeRayRules, RocksdbBackendNeedsItsFeatureGateAndNoRedisFields) {
  CFO_REQUIRE_SCHEMAS();
  const std::string ft = "spec.gcsFaultToleranceOptions";
  auto errs = rc(schemas, {{ft + ".backend", "rocksdb"}, {ft + ".redisAddress", "redis:6379"}});
  EXPECT_TRUE(has(errs, ft + ".redisAddress", "GcsFTBackend")) << describe(errs);
  EXPECT_TRUE(has(errs, ft + ".backend", "GcsFTBackend")) << "GCSFaultToleranceEmbeddedStorage is off by default\n"
                                                          << describe(errs);
  auto claim = rc(
      schemas, {{ft + ".backend", "rocksdb"},
                {ft + ".storage", "{claimName: gcs, size: 1Gi}"},
                {ft + ".externalStorageNamespace", "ns"},
                {kHeadEnv, "[{name: RAY_gcs_storage, value: rocksdb}]"},
                {"spec.headGroupSpec.template.spec.containers[0].volumeMounts", "[{name: data, mountPath: /data/gcs}]"},
                {"spec.headGroupSpec.template.spec.volumes", "[{name: gcs-storage, emptyDir: {}}]"}});
  EXPECT_TRUE(has(claim, ft + ".storage.size", "GcsFTBackend")) << describe(claim);
  EXPECT_TRUE(has(claim, ft + ".externalStorageNamespace", "GcsFTBackend")) << describe(claim);
  EXPECT_TRUE(has(claim, kHeadEnv + "[0].name", "GcsFTBackend")) << describe(claim);
  EXPECT_TRUE(has(claim, "spec.headGroupSpec.template.spec.containers[0].volumeMounts[0]", "GcsFTBackend"))
      << describe(claim);
  EXPECT_TRUE(has(claim, "spec.headGroupSpec.template.spec.volumes[0].name", "GcsFTBackend")) << describe(claim);
  auto redis = rc(schemas, {{ft + ".redisAddress", "redis:6379"}});
  EXPECT_FALSE(has(redis, ft + ".backend", "GcsFTBackend")) << "the Redis backend needs no gate";
}

TEST(KubeRayRules, HeadServiceType) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(has(rc(schemas, {{"spec.headGroupSpec.serviceType", "Loadbalancer"}}), "spec.headGroupSpec.serviceType",
                  "HeadServiceType"));
  EXPECT_EQ(error_count(rc(schemas, {{"spec.headGroupSpec.serviceType", "NodePort"}})), 0u);
  EXPECT_TRUE(has(rc(schemas, {{"spec.headGroupSpec.serviceType", "ExternalName"}}), "spec.headGroupSpec.serviceType",
                  "HeadServiceType"));
  auto external = rc(schemas, {{"spec.headGroupSpec.serviceType", "ExternalName"},
                               {"spec.headGroupSpec.headService", "{spec: {externalName: ray.example.com}}"}});
  EXPECT_EQ(error_count(external), 0u) << describe(external);
  auto own = rc(schemas, {{"spec.headGroupSpec.serviceType", "ClusterIP"},
                          {"spec.headGroupSpec.headService", "{spec: {type: Bogus}}"}});
  EXPECT_TRUE(has(own, "spec.headGroupSpec.headService.spec.type", "HeadServiceType")) << "headService's type wins";
}

TEST(KubeRayRules, PreRunningDeadlineAndDeletionRulesByDeploymentStatus) {
  CFO_REQUIRE_SCHEMAS();
  EXPECT_TRUE(
      has(rj(schemas, {{"spec.preRunningDeadlineSeconds", "0"}}), "spec.preRunningDeadlineSeconds", "JobDeadlines"));
  EXPECT_EQ(error_count(rj(schemas, {{"spec.preRunningDeadlineSeconds", "60"}})), 0u);
  auto dup = rj(schemas, {{"spec.shutdownAfterJobFinishes", "false"},
                          {"spec.deletionStrategy.deletionRules",
                           "[{policy: DeleteCluster, condition: {jobDeploymentStatus: Failed}}, "
                           "{policy: DeleteCluster, condition: {jobDeploymentStatus: Failed, ttlSeconds: 10}}]"}});
  EXPECT_TRUE(has(dup, "spec.deletionStrategy.deletionRules[1]", "DeletionPolicies")) << describe(dup);
  auto mixed = rj(schemas, {{"spec.shutdownAfterJobFinishes", "false"},
                            {"spec.deletionStrategy.deletionRules",
                             "[{policy: DeleteCluster, condition: {jobDeploymentStatus: Failed}}, "
                             "{policy: DeleteCluster, condition: {jobStatus: FAILED}}]"}});
  EXPECT_EQ(error_count(mixed), 0u) << "a JobStatus and a JobDeploymentStatus rule are apart\n" << describe(mixed);
}

// The CodeFlare operator's mutating webhook (odh only): a mount where it mounts its certificates, and the head's
// service account it replaces.
TEST(KubeRayRules, CodeFlareOperatorInjectionsUnderOdh) {
  CFO_REQUIRE_SCHEMAS();
  validation::ClusterProfile odh;
  odh.name = validation::Profile::kOdh;
  const std::string mounts = "spec.workerGroupSpecs[0].template.spec.containers[0].volumeMounts";
  auto clash = patched(yaml1(raycluster_yaml()),
                       {{mounts, "[{name: certs, mountPath: /home/ray/workspace/ca}]"},
                        {"spec.workerGroupSpecs[0].template.spec.volumes", "[{name: certs, emptyDir: {}}]"}});
  auto errs = validation::validate_object(schemas, clash, odh);
  EXPECT_TRUE(has(errs, mounts + "[0].mountPath", "CodeFlareCertMounts")) << describe(errs);
  EXPECT_EQ(error_count(validation::validate_object(schemas, clash)), 0u) << "vanilla: nobody injects there";
  auto own = patched(clash, {{mounts, "[{name: ca-vol, mountPath: /home/ray/workspace/ca}]"},
                             {"spec.workerGroupSpecs[0].template.spec.volumes", "[{name: ca-vol, emptyDir: {}}]"}});
  EXPECT_EQ(error_count(validation::validate_object(schemas, own, odh)), 0u) << "the same name is replaced, no clash";
  auto sa = patched(yaml1(raycluster_yaml()), {{"spec.headGroupSpec.template.spec.serviceAccountName", "ray-sa"}});
  EXPECT_TRUE(has(validation::validate_object(schemas, sa, odh), "spec.headGroupSpec.template.spec.serviceAccountName",
                  "CodeFlareOAuthServiceAccount", Severity::Warning));
  EXPECT_TRUE(validation::validate_object(schemas, sa).empty());
}
