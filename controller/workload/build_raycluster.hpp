#pragma once
// CodeFlareWorkload -> RayCluster, field by field as codeflare-sdk build_ray_cluster.py builds it (HEAD d5acd62),
// without the OpenShift-only parts (ODH CA-bundle volumes and mounts, NB_PREFIX annotation).
#include <map>
#include <string>

#include "workload/raycluster_types.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// Where the RayCluster goes: as the top-level child (it then carries the Kueue labels and the owner reference to
/// the workload), or as the template inside an AppWrapper (neither: the AppWrapper carries them).
struct RayClusterPlacement {
  bool top_level = true;
  /// Kueue labels (kueue_labels()); only used when top_level.
  std::map<std::string, std::string> kueue_labels;
};

/// The owner reference every top-level child gets: {codeflare.dev/v1alpha1, CodeFlareWorkload, name, uid,
/// controller: true, blockOwnerDeletion: true}.
OwnerReference workload_owner_reference(const Workload& w);

/// Adds workload_owner_reference(w) to `meta` when the workload has a uid. An offline render has none (the object
/// was never stored), and the apiserver refuses owner references with an empty uid, so it gets no owner reference.
void set_workload_owner(ObjectMeta& meta, const Workload& w);

/// Labels of every child: codeflare.dev/workload=<name> (ours, so that children map back to their workload).
std::map<std::string, std::string> child_labels(const Workload& w);

/// Builds the RayCluster of a parsed, valid workload. Metadata: name and namespace of the workload; labels
/// controller-tools.k8s.io "1.0", ray.io/cluster <name>, codeflare.dev/workload <name>, the user labels, and the
/// Kueue labels when top-level; annotations = user annotations. Spec: rayVersion, in-tree autoscaling off,
/// autoscalerOptions, the head group (ray-head container with gcs/dashboard/client/metrics ports) and one worker
/// group per spec.workerGroups entry (machine-learning container, no ports).
RayCluster build_ray_cluster(const Workload& w, const RayClusterPlacement& placement);

}  // namespace cfo::workload
