#pragma once
// KubeRay RayCluster (ray.io/v1), reduced to the fields the operator generates (ray-operator/apis/ray/v1
// raycluster_types.go). Every generated RayCluster is built as these structs and serialised with to_json.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "workload/object_meta.hpp"
#include "workload/pod_types.hpp"

namespace cfo::workload {

inline constexpr const char* kRayClusterApiVersion = "ray.io/v1";
inline constexpr const char* kRayClusterKind = "RayCluster";

/// spec.autoscalerOptions: upscaling mode (Default|Aggressive|Conservative), idle timeout in seconds, and the
/// autoscaler sidecar's resources.
struct AutoscalerOptions {
  std::string upscaling_mode;
  int32_t idle_timeout_seconds = 0;
  ResourceRequirements resources;

  json::Value to_json(json::Allocator& a) const;
};

/// spec.headGroupSpec. rayStartParams values are strings (KubeRay map[string]string).
struct HeadGroupSpec {
  std::string service_type;
  bool enable_ingress = false;
  std::map<std::string, std::string> ray_start_params;
  PodTemplateSpec template_;

  json::Value to_json(json::Allocator& a) const;
};

/// One entry of spec.workerGroupSpecs. Replica counts are pods (numOfHosts is left at its default, 1).
struct WorkerGroupSpec {
  std::string group_name;
  int32_t replicas = 0;
  int32_t min_replicas = 0;
  int32_t max_replicas = 0;
  std::map<std::string, std::string> ray_start_params;
  PodTemplateSpec template_;

  json::Value to_json(json::Allocator& a) const;
};

/// core/v1 SecretKeySelector: one key of a Secret in the object's namespace.
struct SecretKeySelector {
  std::string name;
  std::string key;
};

/// spec.gcsFaultToleranceOptions (KubeRay GcsFaultToleranceOptions, Redis backend): the Redis endpoint (host:port),
/// the Redis password read from a Secret key (written as redisPassword.valueFrom.secretKeyRef), and the namespace of
/// the cluster's keys in Redis. Absent optional parts are omitted from the JSON.
struct GcsFaultToleranceOptions {
  std::string redis_address;
  std::optional<SecretKeySelector> redis_password;
  std::string external_storage_namespace;

  json::Value to_json(json::Allocator& a) const;
};

/// RayCluster spec. `suspend` is written only when true: false is never written, since Kueue owns the field of a
/// queued cluster.
struct RayClusterSpec {
  std::string ray_version;
  bool enable_in_tree_autoscaling = false;
  AutoscalerOptions autoscaler_options;
  HeadGroupSpec head_group_spec;
  std::vector<WorkerGroupSpec> worker_group_specs;
  std::optional<GcsFaultToleranceOptions> gcs_fault_tolerance_options;
  bool suspend = false;

  json::Value to_json(json::Allocator& a) const;
};

/// A whole RayCluster object (apiVersion, kind, metadata, spec; no status).
struct RayCluster {
  ObjectMeta metadata;
  RayClusterSpec spec;

  /// The object as a standalone JSON document.
  json::Document to_json() const;
  /// The object as a value allocated in `a` (to embed it, e.g. as an AppWrapper component template).
  json::Value to_json(json::Allocator& a) const;
};

}  // namespace cfo::workload
