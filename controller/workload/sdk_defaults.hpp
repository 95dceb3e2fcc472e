#pragma once
// Defaults of the CodeFlareWorkload API, taken from codeflare-sdk HEAD (d5acd62) unless said otherwise, in one
// option struct so that they are visible in one place.
#include <string>

#include "workload/pod_types.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// Default cpu and memory of one container, as quantity text.
struct ContainerDefaults {
  std::string cpu_request;
  std::string cpu_limit;
  std::string memory_request;
  std::string memory_limit;
};

/// Every default the operator applies.
struct SdkDefaults {
  /// codeflare-sdk constants.RAY_VERSION at 9870725 (the last AppWrapper-era commit); HEAD moved to 2.55.1.
  std::string ray_version = "2.52.1";
  /// Repository of the default image; the tag is the ray version. The SDK instead picks a quay.io/modh digest by
  /// the *client's* Python minor version (update_image), which has no meaning for a server-side operator and can
  /// even yield no image; a public upstream Ray image pinned to spec.rayVersion keeps image and rayVersion in step.
  std::string image_repository = "quay.io/rayproject/ray";
  /// ClusterConfiguration head_cpu_requests=1, head_cpu_limits=2, head_memory_requests=5, head_memory_limits=8
  /// (ints mean decimal gigabytes in the SDK, hence "G").
  ContainerDefaults head{"1", "2", "5G", "8G"};
  /// ClusterConfiguration worker_cpu_requests=1, worker_cpu_limits=1, worker_memory_requests=3,
  /// worker_memory_limits=6.
  ContainerDefaults worker{"1", "1", "3G", "6G"};
  /// build_ray_cluster.py autoscalerOptions.resources: cpu 500m and memory 512Mi as both request and limit.
  ContainerDefaults autoscaler{"500m", "500m", "512Mi", "512Mi"};
  /// KubeRay's submitter container when a RayJob gives no submitterPodTemplate (v1.7.0 common/job.go
  /// GetDefaultSubmitterContainer; Kueue v0.19.2 charges the same, rayjob_controller.go defaultSubmitterResources):
  /// cpu 500m / 1, memory 200Mi / 1Gi. The operator writes them when it writes a submitter template.
  ContainerDefaults submitter{"500m", "1", "200Mi", "1Gi"};
  /// build_ray_cluster.py autoscalerOptions: idleTimeoutSeconds 60, upscalingMode Default.
  int32_t autoscaler_idle_timeout_seconds = 60;
  std::string autoscaler_upscaling_mode = "Default";
  /// ClusterConfiguration num_workers=1; the single group is named "small-group-<name>" (build_ray_cluster.py).
  int32_t default_worker_replicas = 1;
  std::string default_group_prefix = "small-group-";
};

/// The defaults in force (a process-wide constant).
const SdkDefaults& sdk_defaults();

/// The default image for a Ray version: "<image_repository>:<ray_version>".
std::string default_image(const std::string& ray_version);

/// Name of the worker group generated when spec.workerGroups is empty: "small-group-<workload name>", cut to 63
/// characters (a DNS-1123 label) without a trailing '-'.
std::string default_group_name(const std::string& workload_name);

/// Fills in cpu and memory of user-given requirements from `d`, per resource:
///  - neither request nor limit given: both defaults;
///  - only the limit L given: request = L (Kubernetes defaults a missing request to the limit; Kueue charges requests);
///  - only the request R given: limit = max(default limit, R).
/// Extended resources are mirrored so that each is in both requests and limits (the SDK puts them in both).
/// Requests and limits keep the order: cpu, memory, then the others in the user's order.
ResourceRequirements apply_resource_defaults(const ResourceRequirements& user, const ContainerDefaults& d);

}  // namespace cfo::workload
