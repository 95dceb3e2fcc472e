#pragma once
// Label keys the operator sets on generated objects. Users may not set them through spec.labels.
#include <string_view>

namespace cfo::workload {

/// codeflare-sdk build_ray_cluster.py base labels of every RayCluster.
inline constexpr std::string_view kControllerToolsLabel = "controller-tools.k8s.io";
inline constexpr std::string_view kControllerToolsValue = "1.0";
inline constexpr std::string_view kRayClusterLabel = "ray.io/cluster";
/// Ours: names the CodeFlareWorkload a child belongs to, so that watches on children map back to it.
inline constexpr std::string_view kWorkloadLabel = "codeflare.dev/workload";
/// Kueue job-integration labels (kueue constants.QueueLabel and constants.WorkloadPriorityClassLabel).
inline constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr std::string_view kPriorityClassLabel = "kueue.x-k8s.io/priority-class";

/// True for a key the operator owns (the five above); a user label with such a key is rejected.
bool is_reserved_label(std::string_view key);

}  // namespace cfo::workload
