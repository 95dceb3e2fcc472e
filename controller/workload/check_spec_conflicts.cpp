#include "workload/check_spec_conflicts.hpp"

#include "workload/field_reader.hpp"
#include "workload/labels.hpp"
#include "workload/odh_ca_bundle.hpp"
#include "workload/parse_ray_start_params.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kKubeRaySpec = "kuberay:ValidateRayClusterSpec";
constexpr const char* kUsageStatsEnv = "RAY_USAGE_STATS_ENABLED";

// Calls f(entry, path) for each object entry of the array member `key` of `obj` (at `path`).
template <class F>
void each_entry(const json::Value& obj, const std::string& path, const char* key, F f) {
  const json::Value* arr = json::find(obj, key);
  if (!arr || !arr->IsArray()) return;
  for (rapidjson::SizeType i = 0; i < arr->Size(); ++i)
    if ((*arr)[i].IsObject()) f((*arr)[i], index_path(join_path(path, key), i));
}

// The env list `key` of `owner` (at `owner_path`): spec.env, and a group's own env (spec.head.env,
// spec.workerGroups[i].env), which lands in the same Ray containers.
void check_env(const json::Value& owner, const std::string& owner_path, const WorkloadSpec& s, FieldErrors& errs) {
  const bool gcs_ft = s.gcs_fault_tolerance.has_value();
  auto ft = s.annotations.find(std::string(kFtEnabledAnnotation));
  const bool legacy_ft = ft != s.annotations.end() && ft->second == "true";
  each_entry(owner, owner_path, "env", [&](const json::Value& e, const std::string& p) {
    auto name = json::get_string(e, "name");
    if (!name) return;
    const std::string at = join_path(p, "name");
    if (*name == kUsageStatsEnv)
      add_error(errs, at, "ReservedEnvVar",
                "RAY_USAGE_STATS_ENABLED is set by the operator; use spec.usageStats (true gives \"1\", else \"0\")");
    else if (gcs_ft && (*name == "RAY_REDIS_ADDRESS" || *name == "REDIS_PASSWORD"))
      add_error(errs, at, "GcsFTForbiddenSetting",
                *name + " is not allowed with spec.gcsFaultTolerance; set " +
                    (*name == "REDIS_PASSWORD" ? "spec.gcsFaultTolerance.redisPassword" : "its redisAddress") +
                    " instead",
                kKubeRaySpec);
    else if (!gcs_ft && !legacy_ft && *name == "RAY_REDIS_ADDRESS")
      add_error(errs, at, "RedisAddressNeedsGcsFT",
                "RAY_REDIS_ADDRESS turns on GCS fault tolerance, which KubeRay then requires to be configured; use "
                "spec.gcsFaultTolerance.redisAddress",
                kKubeRaySpec);
    else if (*name == "REDIS_USERNAME")
      add_error(errs, at, "RedisUsername", "KubeRay takes the Redis user name only from gcsFaultToleranceOptions",
                kKubeRaySpec);
  });
}

void check_gcs_ft(const WorkloadSpec& s, FieldErrors& errs) {
  const std::string head_params = "spec.head.rayStartParams";
  if (s.head.ray_start_params.contains("redis-username"))
    add_error(errs, ray_start_param_path(head_params, "redis-username"), "RedisUsername",
              "KubeRay takes the Redis user name only from gcsFaultToleranceOptions", kKubeRaySpec);
  if (!s.gcs_fault_tolerance) return;
  if (s.head.ray_start_params.contains("redis-password"))
    add_error(errs, ray_start_param_path(head_params, "redis-password"), "GcsFTForbiddenSetting",
              "not allowed with spec.gcsFaultTolerance; use spec.gcsFaultTolerance.redisPassword", kKubeRaySpec);
  if (s.annotations.contains(std::string(kFtEnabledAnnotation)))
    add_error(errs, key_path("spec.annotations", std::string(kFtEnabledAnnotation)), "GcsFTAnnotationConflict",
              "not allowed with spec.gcsFaultTolerance, which alone turns fault tolerance on", kKubeRaySpec);
  if (s.annotations.contains(std::string(kExternalStorageNamespaceAnnotation)))
    add_error(
        errs, key_path("spec.annotations", std::string(kExternalStorageNamespaceAnnotation)), "GcsFTForbiddenSetting",
        "not allowed with spec.gcsFaultTolerance; use spec.gcsFaultTolerance.externalStorageNamespace", kKubeRaySpec);
}

void check_odh(const json::Value& spec, const WorkloadSpec& s, FieldErrors& errs) {
  if (!s.odh_trusted_ca_bundle) return;
  each_entry(spec, "spec", "volumes", [&](const json::Value& v, const std::string& p) {
    if (auto name = json::get_string(v, "name"); name && is_odh_ca_bundle_volume(*name))
      add_error(errs, join_path(p, "name"), "ReservedVolumeName",
                "volume \"" + *name + "\" is added by the operator for spec.odhTrustedCABundle; rename this one");
  });
  each_entry(spec, "spec", "volumeMounts", [&](const json::Value& m, const std::string& p) {
    if (auto path = json::get_string(m, "mountPath"); path && is_odh_ca_bundle_mount_path(*path))
      add_error(errs, join_path(p, "mountPath"), "ReservedMountPath",
                *path + " is where the operator mounts the OpenDataHub CA bundle for spec.odhTrustedCABundle");
  });
}

void check_autoscaling(const json::Value& spec, const WorkloadSpec& s, FieldErrors& errs) {
  if (!s.autoscaling.enabled) return;
  if (s.autoscaling.elastic_job && s.app_wrapper)
    add_error(errs, "spec.autoscaling.elasticJob", "ElasticJobInAppWrapper",
              "an AppWrapper cannot be an elastic job: Kueue admits the AppWrapper, not the RayCluster inside it",
              "kueue:ValidateJobOnCreate (elastic-job annotation)");
  const json::Value* groups = json::find(spec, "workerGroups");
  if (!groups || groups->IsNull() || (groups->IsArray() && groups->Empty()))
    add_error(errs, "spec.workerGroups", "AutoscalingReplicaBounds",
              "with spec.autoscaling.enabled give at least one worker group with minReplicas and maxReplicas",
              "codeflare-sdk:ClusterConfiguration._validate_autoscaling");
}
}  // namespace

void check_spec_conflicts(const json::Value& spec, const WorkloadSpec& s, FieldErrors& errs) {
  if (!spec.IsObject()) return;
  check_env(spec, "spec", s, errs);
  if (const json::Value* head = json::find(spec, "head"); head && head->IsObject())
    check_env(*head, "spec.head", s, errs);
  if (const json::Value* groups = json::find(spec, "workerGroups"); groups && groups->IsArray())
    for (rapidjson::SizeType i = 0; i < groups->Size(); ++i)
      if ((*groups)[i].IsObject()) check_env((*groups)[i], index_path("spec.workerGroups", i), s, errs);
  check_gcs_ft(s, errs);
  check_odh(spec, s, errs);
  check_autoscaling(spec, s, errs);
}

}  // namespace cfo::workload
