#pragma once
// The CodeFlareWorkload API (codeflare.dev/v1alpha1) as typed C++: what parse_workload produces and the builders
// consume. Field names follow crds/codeflare.dev_codeflareworkloads.yaml; the functional model is codeflare-sdk's
// ClusterConfiguration (src/codeflare_sdk/ray/cluster/config.py).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workload/fragment.hpp"
#include "workload/pod_types.hpp"
#include "workload/resource_mapping.hpp"

namespace cfo::workload {

inline constexpr const char* kWorkloadApiVersion = "codeflare.dev/v1alpha1";
inline constexpr const char* kWorkloadKind = "CodeFlareWorkload";
/// Annotation of a CodeFlareWorkload that turns off some of the operator's own checks: a comma-separated list of
/// rule ids, e.g. "MemoryUnits" for a memory below 1Mi that is really meant.
inline constexpr const char* kIgnoreChecksAnnotation = "codeflare.dev/ignore-checks";
/// The rule ids kIgnoreChecksAnnotation may name: the operator's own guesses at a mistake, never a rule that a
/// cluster enforces.
inline constexpr std::string_view kIgnorableChecks[] = {"MemoryUnits", "RayVersionMatchesImage"};

/// spec.head: resources of the Ray head container, tolerations of the head pod and extra `ray start` parameters.
struct HeadSpec {
  /// After parsing: cpu and memory requests and limits always present (SDK defaults filled in), each extended
  /// resource present in both requests and limits with the same whole value.
  ResourceRequirements resources;
  std::vector<Fragment> tolerations;
  /// Extra rayStartParams (e.g. "object-store-memory"), merged with the ones the operator derives; the derived keys
  /// (block, dashboard-host, num-cpus, num-gpus, resources) and `labels` cannot be given here (see
  /// parse_ray_start_params.hpp).
  std::map<std::string, std::string> ray_start_params;
};

/// One entry of spec.workerGroups. Replica counts are pods; after parsing min_replicas <= replicas <= max_replicas.
/// Without autoscaling all three equal replicas (the SDK's num_workers); with it they are the user's bounds and
/// replicas defaults to min_replicas (see resolve_replicas in parse_autoscaling.hpp).
struct WorkerGroup {
  std::string name;
  int32_t replicas = 1;
  int32_t min_replicas = 1;
  int32_t max_replicas = 1;
  /// Same shape as HeadSpec::resources after parsing.
  ResourceRequirements resources;
  std::vector<Fragment> tolerations;
  /// Extra rayStartParams of this group (same rules as HeadSpec::ray_start_params, without dashboard-host among the
  /// derived keys).
  std::map<std::string, std::string> ray_start_params;
};

/// spec.queue: Kueue LocalQueue name, the ClusterQueue of a LocalQueue the operator manages, and the
/// WorkloadPriorityClass name (all optional, empty when unset). When cluster_queue is set and local_queue is not,
/// local_queue takes the ClusterQueue's name.
struct QueueSpec {
  std::string local_queue;
  std::string cluster_queue;
  std::string priority_class;
};

/// spec.autoscaling: KubeRay's in-tree autoscaler (RayCluster enableInTreeAutoscaling and autoscalerOptions).
struct AutoscalingSpec {
  bool enabled = false;
  /// Seconds an idle worker is kept before it is removed (autoscalerOptions.idleTimeoutSeconds).
  int32_t idle_timeout_seconds = 60;
  /// Default | Aggressive | Conservative (autoscalerOptions.upscalingMode).
  std::string upscaling_mode = "Default";
  /// The autoscaler sidecar's resources; after parsing cpu and memory are always present (500m / 512Mi by
  /// default, the SDK's values).
  ResourceRequirements resources;
  /// Asks Kueue to admit the cluster as an elastic job (annotation kueue.x-k8s.io/elastic-job: "true"), the only
  /// way Kueue accepts an autoscaling RayCluster or RayJob. Takes effect only with `enabled` (a warning otherwise);
  /// refused with spec.appWrapper.
  bool elastic_job = false;
};

/// A key of a Secret in the workload's namespace.
struct SecretKeyRef {
  std::string name;
  std::string key;
};

/// spec.gcsFaultTolerance: RayCluster gcsFaultToleranceOptions (Redis-backed GCS). With it, the env vars
/// RAY_REDIS_ADDRESS and REDIS_PASSWORD, the annotations ray.io/ft-enabled and ray.io/external-storage-namespace and
/// the head rayStartParams redis-password are refused (KubeRay ValidateRayClusterSpec; see check_spec_conflicts.hpp).
struct GcsFaultToleranceSpec {
  /// host:port of Redis; required.
  std::string redis_address;
  /// The Secret key holding the Redis password; both name and key are required when given.
  std::optional<SecretKeyRef> redis_password;
  /// Namespace of the cluster's keys in Redis; empty leaves KubeRay's default.
  std::string external_storage_namespace;
};

/// spec.job: run one Ray job as a KubeRay RayJob (ray.io/v1) instead of a bare RayCluster.
struct JobSpec {
  /// The command the submitter runs, e.g. "python train.py"; required.
  std::string entrypoint;
  /// Ray runtime environment as YAML text (pip, env_vars, working_dir...), passed through unchanged.
  std::string runtime_env_yaml;
  /// Delete the cluster when the job finishes. After parsing always set: defaults to true with a new cluster (a
  /// Kueue-managed RayJob must shut down) and false with an existing one.
  bool shutdown_after_job_finishes = true;
  /// Seconds to keep the cluster after the job finishes (only with shutdown_after_job_finishes).
  int32_t ttl_seconds_after_finished = 0;
  /// Seconds the job may run before it is failed; unset means no limit.
  std::optional<int32_t> active_deadline_seconds;
  /// Run on an existing RayCluster chosen by these labels (normally {"ray.io/cluster": <name>}) instead of creating
  /// one; empty means a new cluster built from the rest of the spec.
  std::map<std::string, std::string> cluster_selector;
};

/// spec, with defaults applied (ray_version and image are never empty after parsing; worker_groups is never empty).
struct WorkloadSpec {
  /// The extended-resource mapping in force: the SDK's defaults in their order (an overwritten default keeps its
  /// place), then the new keys of spec.extendedResourceMapping in the user's order (see parse_resource_mapping.hpp).
  std::vector<ResourceMapping> resource_mapping = default_resource_mapping();
  std::string ray_version;
  std::string image;
  std::vector<std::string> image_pull_secrets;
  HeadSpec head;
  std::vector<WorkerGroup> worker_groups;
  std::vector<EnvVar> env;
  std::vector<Fragment> volumes;
  std::vector<Fragment> volume_mounts;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  QueueSpec queue;
  bool app_wrapper = false;
  AutoscalingSpec autoscaling;
  std::optional<GcsFaultToleranceSpec> gcs_fault_tolerance;
  /// RAY_USAGE_STATS_ENABLED is "1" when true, "0" otherwise (always set after the user's env, as the SDK does; a
  /// user env var of that name is refused).
  bool usage_stats = false;
  /// Mount the OpenDataHub trusted CA bundle (ConfigMap odh-trusted-ca-bundle) into every Ray container, as the
  /// SDK always does; off by default since the ConfigMap exists only on OpenDataHub / OpenShift AI. The volumes and
  /// mounts come after the user's (see odh_ca_bundle.hpp); user volumes and mounts may not reuse their names/paths.
  bool odh_trusted_ca_bundle = false;
  /// The user's request to stop the workload (spec.suspend: true on the top-level child: the RayCluster, RayJob or
  /// AppWrapper, never a RayCluster inside an AppWrapper). False leaves the child's spec.suspend to Kueue: it is not
  /// written at all.
  bool suspend = false;
  std::optional<JobSpec> job;
};

/// A CodeFlareWorkload: the metadata the operator needs plus its spec.
struct Workload {
  std::string name;
  std::string namespace_;
  std::string uid;
  int64_t generation = 0;
  /// The rule ids the user turned off with the annotation codeflare.dev/ignore-checks (kIgnoreChecksAnnotation);
  /// only the operator's own heuristics (kIgnorableChecks) can be.
  std::vector<std::string> ignored_checks;
  WorkloadSpec spec;

  /// True when the user turned off the check `rule` on this workload.
  bool ignores(std::string_view rule) const {
    for (const auto& r : ignored_checks)
      if (r == rule) return true;
    return false;
  }
};

}  // namespace cfo::workload
