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

/// Kueue topology-aware scheduling of one PodSet (the kueue.x-k8s.io/podset-*-topology annotations of its Pod
/// template; Kueue v0.19.2 apis/kueue/v1beta2 topology_types.go). Empty strings and unset numbers are not written.
struct TopologyRequest {
  /// A node label (a topology level) all Pods of the PodSet must share (podset-required-topology).
  std::string required;
  /// A level Kueue tries to keep the Pods in, falling back to wider ones (podset-preferred-topology).
  std::string preferred;
  /// Topology-aware placement without a level constraint (podset-unconstrained-topology: "true").
  bool unconstrained = false;
  /// The level each slice of slice_size Pods must share (podset-slice-required-topology, with podset-slice-size).
  std::string slice_required;
  std::optional<int32_t> slice_size;
  /// PodSets of one group are placed together (podset-group-name).
  std::string pod_set_group;

  bool empty() const {
    return required.empty() && preferred.empty() && !unconstrained && slice_required.empty() && !slice_size &&
           pod_set_group.empty();
  }
  /// The annotations Kueue reads, keyed by their names.
  std::map<std::string, std::string> annotations() const;
};

/// What a workload says about the Pods of one group beyond its size: all optional, none written when unset.
struct PodFields {
  /// The image of this group's Ray container instead of spec.image; empty: spec.image.
  std::string image;
  /// Env vars of this group's Ray container, merged by name over spec.env (a name of spec.env is replaced in
  /// place, the others come after spec.env).
  std::vector<EnvVar> env;
  /// Labels and annotations of this group's Pods (annotations merged over spec.annotations).
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  /// The group's Pod template fragment, merged over the generated template after spec.template.
  std::optional<Fragment> template_;
  TopologyRequest topology;
};

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
  PodFields pod;
  /// headGroupSpec.serviceType of the head Service: ClusterIP (default), NodePort or LoadBalancer.
  std::string service_type = "ClusterIP";
  /// headGroupSpec.enableIngress: KubeRay creates an Ingress for the dashboard.
  bool enable_ingress = false;
  /// headGroupSpec.ingressOptions (host, path, pathType, tls), as given; only with enable_ingress.
  std::optional<Fragment> ingress_options;
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
  PodFields pod;
  /// workerGroupSpecs[].suspend: KubeRay deletes the group's Pods while true (written only when true).
  bool suspend = false;
  /// workerGroupSpecs[].idleTimeoutSeconds: the v2 autoscaler's idle timeout for this group.
  std::optional<int32_t> idle_timeout_seconds;
};

/// spec.queue: Kueue LocalQueue name, the ClusterQueue of a LocalQueue the operator manages, and the
/// WorkloadPriorityClass name (all optional, empty when unset). When cluster_queue is set and local_queue is not,
/// local_queue takes the ClusterQueue's name.
struct QueueSpec {
  std::string local_queue;
  std::string cluster_queue;
  std::string priority_class;
  /// MultiKueue: the top-level child gets spec.managedBy kueue.x-k8s.io/multikueue, so that Kueue dispatches it to
  /// a worker cluster instead of it running here.
  bool multi_kueue = false;
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
  /// autoscalerOptions.version: v1 or v2; empty leaves KubeRay's default (v1).
  std::string version;
  /// autoscalerOptions.image of the autoscaler sidecar; empty leaves KubeRay's default (the head's image).
  std::string image;
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

/// One entry of spec.job.deletionRules (RayJob deletionStrategy.deletionRules, KubeRay v1.7): what to delete
/// (DeleteCluster, DeleteWorkers, DeleteSelf, DeleteNone) how long after the job reached a status.
struct DeletionRule {
  std::string policy;
  /// Exactly one of the two: the Ray job status (SUCCEEDED, FAILED) or the deployment status (Failed).
  std::string job_status;
  std::string job_deployment_status;
  int32_t ttl_seconds = 0;
};

/// spec.job.submitter: the Pod that runs `ray job submit` (K8sJobMode only).
struct SubmitterSpec {
  /// A Pod template fragment merged over KubeRay's default submitter template (submitterPodTemplate).
  std::optional<Fragment> template_;
  TopologyRequest topology;
  /// submitterConfig.backoffLimit: retries of the submitter Job.
  std::optional<int32_t> backoff_limit;
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
  /// K8sJobMode, HTTPMode, SidecarMode or InteractiveMode; empty leaves KubeRay's default (K8sJobMode).
  std::string submission_mode;
  /// Retries of the whole job, each on a new cluster.
  std::optional<int32_t> backoff_limit;
  SubmitterSpec submitter;
  /// deletionStrategy.deletionRules; with them shutdown_after_job_finishes is false (KubeRay refuses both).
  std::vector<DeletionRule> deletion_rules;
  std::optional<int32_t> pre_running_deadline_seconds;
  /// Ray resources reserved for the entrypoint (entrypointNumCpus, entrypointNumGpus, entrypointResources).
  std::optional<double> entrypoint_num_cpus;
  std::optional<double> entrypoint_num_gpus;
  std::vector<std::pair<std::string, double>> entrypoint_resources;
  /// Metadata stored with the Ray job.
  std::map<std::string, std::string> metadata;
  /// The Ray job's submission id; empty lets KubeRay generate one.
  std::string job_id;

  /// The submission mode in effect (KubeRay's default when unset).
  std::string mode() const { return submission_mode.empty() ? "K8sJobMode" : submission_mode; }
};

/// spec.authOptions: Ray's token authentication for the dashboard and the Ray client (RayCluster authOptions).
struct AuthOptions {
  /// disabled or token.
  std::string mode;
  /// A Secret holding the token; empty lets KubeRay create one.
  std::string secret_name;
  std::optional<bool> enable_k8s_token_auth;
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
  /// spec.template: a Pod template fragment merged over every Pod the workload makes (head, each worker group and
  /// the job's submitter), before the group's own template.
  std::optional<Fragment> template_;
  std::optional<AuthOptions> auth_options;
  /// RayCluster upgradeStrategy.type: Recreate or None; empty: not written.
  std::string upgrade_strategy;
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
