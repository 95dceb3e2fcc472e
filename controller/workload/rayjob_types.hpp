#pragma once
// KubeRay RayJob (ray.io/v1), reduced to the fields the operator generates (ray-operator/apis/ray/v1
// rayjob_types.go). submissionMode is left to KubeRay's default (K8sJobMode: a submitter Job runs `ray job submit`).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "workload/object_meta.hpp"
#include "workload/raycluster_types.hpp"

namespace cfo::workload {

inline constexpr const char* kRayJobApiVersion = "ray.io/v1";
inline constexpr const char* kRayJobKind = "RayJob";

/// A whole RayJob object (apiVersion, kind, metadata, spec; no status).
///
/// JSON shape (to_json): spec.entrypoint when non-empty (always but in InteractiveMode); spec.runtimeEnvYAML only when
/// non-empty; spec.shutdownAfterJobFinishes always; spec.ttlSecondsAfterFinished only when shutdownAfterJobFinishes is
/// true (KubeRay ValidateRayJobSpec refuses a positive TTL without it, and 0 is the CRD default);
/// spec.activeDeadlineSeconds only when set; spec.suspend only when true (Kueue suspends a queued job and unsuspends it
/// on admission, so the operator never writes false); spec.rayClusterSpec when ray_cluster_spec is set, else
/// spec.clusterSelector when non-empty. deletionStrategy.deletionRules[i] (KubeRay v1.7 DeletionRule).
struct RayJobDeletionRule {
  std::string policy;
  std::string job_status;
  std::string job_deployment_status;
  int32_t ttl_seconds = 0;

  json::Value to_json(json::Allocator& a) const;
};

struct RayJob {
  ObjectMeta metadata;
  std::string entrypoint;
  std::string runtime_env_yaml;
  bool shutdown_after_job_finishes = false;
  int32_t ttl_seconds_after_finished = 0;
  std::optional<int32_t> active_deadline_seconds;
  bool suspend = false;
  /// Exactly one of the two is used: a new cluster, or an existing one selected by labels. When both are set,
  /// ray_cluster_spec wins and the selector is not written.
  std::optional<RayClusterSpec> ray_cluster_spec;
  std::map<std::string, std::string> cluster_selector;
  /// The fields below are written only when set (non-empty), after activeDeadlineSeconds; submitterPodTemplate last.
  std::optional<int32_t> backoff_limit;
  std::string submission_mode;
  std::optional<int32_t> pre_running_deadline_seconds;
  std::optional<double> entrypoint_num_cpus;
  std::optional<double> entrypoint_num_gpus;
  /// entrypointResources: a JSON object as text ({"Custom":1}), as KubeRay passes it to `ray job submit`.
  std::string entrypoint_resources;
  std::map<std::string, std::string> job_metadata;
  std::string job_id;
  std::vector<RayJobDeletionRule> deletion_rules;
  /// submitterConfig.backoffLimit.
  std::optional<int32_t> submitter_backoff_limit;
  std::string managed_by;
  std::optional<PodTemplateSpec> submitter_pod_template;

  json::Document to_json() const;
  /// The object as a value allocated in `a` (to embed it, e.g. in a list of desired objects).
  json::Value to_json(json::Allocator& a) const;
  /// Where the values of the cluster's and the submitter's Pod templates came from (see PodTemplateSpec).
  void collect_origins(PathOrigins& out) const;
};

}  // namespace cfo::workload
