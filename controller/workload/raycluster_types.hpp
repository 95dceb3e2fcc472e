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
  /// v1 or v2; written only when set, as is the sidecar's image.
  std::string version;
  std::string image;

  json::Value to_json(json::Allocator& a) const;
};

/// spec.headGroupSpec. rayStartParams values are strings (KubeRay map[string]string).
struct HeadGroupSpec {
  std::string service_type;
  bool enable_ingress = false;
  /// ingressOptions as the user gave them; written only when set.
  std::optional<Fragment> ingress_options;
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
  /// Written only when true / set.
  bool suspend = false;
  std::optional<int32_t> idle_timeout_seconds;
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

/// spec.authOptions (KubeRay AuthOptions): mode, secretName and enableK8sTokenAuth, each written only when set.
struct RayAuthOptions {
  std::string mode;
  std::string secret_name;
  std::optional<bool> enable_k8s_token_auth;

  json::Value to_json(json::Allocator& a) const;
};

/// RayCluster spec. `suspend` is written only when true: false is never written, since Kueue owns the field of a
/// queued cluster. managedBy, authOptions and upgradeStrategy are written only when set.
struct RayClusterSpec {
  std::string ray_version;
  bool enable_in_tree_autoscaling = false;
  AutoscalerOptions autoscaler_options;
  HeadGroupSpec head_group_spec;
  std::vector<WorkerGroupSpec> worker_group_specs;
  std::optional<GcsFaultToleranceOptions> gcs_fault_tolerance_options;
  std::string managed_by;
  std::optional<RayAuthOptions> auth_options;
  /// upgradeStrategy.type (Recreate or None).
  std::string upgrade_strategy;
  bool suspend = false;

  json::Value to_json(json::Allocator& a) const;
  /// Where the values of the Pod templates came from (PodTemplateSpec::collect_origins), with child paths under
  /// `at` (the path of this spec in the generated object: "spec", "spec.rayClusterSpec", ...).
  void collect_origins(const std::string& at, PathOrigins& out) const;
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
