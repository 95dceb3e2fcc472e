#pragma once
// Wrapping a RayCluster in a CodeFlare AppWrapper (codeflare-sdk 9870725 build_ray_cluster.wrap_cluster).
#include <map>
#include <string>

#include "workload/appwrapper_types.hpp"
#include "workload/raycluster_types.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// The AppWrapper of a wrapped workload: name and namespace of the workload, labels spec.labels (also on the inner
/// RayCluster), codeflare.dev/workload and `kueue_labels` (the Kueue labels go here, not on the inner RayCluster;
/// the SDK puts no user label on the AppWrapper, this operator does, so that `-l` finds it), the owner reference to the
/// workload, and one component whose template is `inner` (built with RayClusterPlacement{top_level = false}). No
/// podSets are declared: the AppWrapper controller infers them for a RayCluster (head + one per worker group).
/// spec.suspend is true when the workload's spec.suspend is (then the AppWrapper, not the inner RayCluster, is
/// suspended), and absent otherwise; spec.managedBy is kueue.x-k8s.io/multikueue with spec.queue.multiKueue.
AppWrapper build_app_wrapper(const Workload& w, const RayCluster& inner,
                             const std::map<std::string, std::string>& kueue_labels);

}  // namespace cfo::workload
