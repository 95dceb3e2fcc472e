#pragma once
// What reconcile is told about the cluster besides the workload itself: the facts the controller read (Kueue's
// objects, the served APIs) and the children as they are now.
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/json.hpp"
#include "validation/admissibility.hpp"
#include "validation/validator.hpp"

namespace cfo::workload {

/// Whether an object the workload names exists on the cluster. Unknown when it could not be asked (Kueue not
/// served, or the operator may not read it); the workload then goes ahead, as the CodeFlare SDK does.
enum class Presence { kUnknown, kPresent, kAbsent };

/// What the controller read from the cluster before calling reconcile.
struct ClusterFacts {
  /// Name of the LocalQueue annotated `kueue.x-k8s.io/default-queue: "true"` in the workload's namespace, if any.
  /// (The first by name when several are; when none is, the one named `default`.)
  std::optional<std::string> default_local_queue;
  /// The other LocalQueues of the namespace annotated as its default, by name (the annotation should be on one):
  /// a workload that takes the default is warned (DefaultLocalQueueAmbiguous).
  std::vector<std::string> other_default_local_queues;
  /// Offline (validate; render without --default-local-queue) whether the namespace has a default LocalQueue cannot
  /// be told: the warnings that hold only when it has none (ElasticJobWithoutQueue, PriorityClassWithoutQueue) are
  /// not given.
  bool default_local_queue_unknown = false;
  /// The LocalQueue named by spec.queue (localQueue, or clusterQueue's name) as it is on the cluster: null when
  /// absent or not asked. Only read when the spec names one.
  const json::Value* local_queue = nullptr;
  Presence local_queue_presence = Presence::kUnknown;
  /// The operator cannot read the namespace's LocalQueues: Kueue is served but the LocalQueue cache gave up its first
  /// list (it failed for 30 s). Never set offline. A queue hold in effect then stands, and a workload whose managed
  /// LocalQueue is not submitted yet waits (LocalQueueUnknown).
  bool local_queues_unreadable = false;
  /// When that LocalQueue is absent and the spec manages it (spec.queue.clusterQueue): the other workloads of the
  /// namespace that were submitted to it as its manager (status.managedLocalQueue, not held), as (name, their
  /// spec.queue.clusterQueue). One of another ClusterQueue re-creates it; this workload must not (LocalQueueMismatch).
  std::vector<std::pair<std::string, std::string>> local_queue_managers;
  /// The names of the LocalQueues of the workload's namespace, when known (the cache is synced): whether the queue in
  /// effect exists, whichever it is (the spec's, the namespace default, or the one a submitted child keeps).
  std::optional<std::set<std::string>> local_queue_names;
  /// Whether the WorkloadPriorityClass of spec.queue.priorityClass exists (only asked when the spec names one).
  Presence priority_class_presence = Presence::kUnknown;
  /// The Kueue API version served ("v1beta2", "v1beta1"), empty when Kueue is not installed.
  std::string kueue_version;
  /// Whether the cluster serves the CRDs of the child kinds (KubeRay's RayCluster, which every workload needs, the
  /// AppWrapper controller's, KubeRay's RayJob): installed, Established and not being deleted. A workload that needs
  /// one that is not served is held (reason RayClusterNotInstalled / AppWrapperNotInstalled / RayJobNotInstalled)
  /// instead of failing to apply. Offline (render, validate) all are taken as served.
  bool ray_cluster_served = true;
  bool app_wrapper_served = true;
  bool ray_job_served = true;
  /// Whether the cluster serves kueue.x-k8s.io at all (the operator knows; offline it is taken as served). A workload
  /// naming a LocalQueue on a cluster without Kueue is held (KueueNotInstalled): its queue label would do nothing.
  bool kueue_served = true;
  /// Kueue limits and other cluster properties used by validation.
  validation::ClusterProfile profile;
  /// The Kueue objects the admissibility of the queued child is judged against (validation::judge_admissibility):
  /// unset when they are not known (offline reconcile, caches not listed), and then nothing is judged.
  std::optional<validation::QueueObjects> queue_objects;
};

/// The children as they are now on the cluster (null when absent). Used for status only: desired objects never
/// copy fields from what is observed.
struct Observed {
  const json::Value* ray_cluster = nullptr;
  const json::Value* app_wrapper = nullptr;
  const json::Value* ray_job = nullptr;
  /// The Kueue Workload (kueue.x-k8s.io) Kueue made for the top-level child, when it is queued.
  const json::Value* kueue_workload = nullptr;
};

}  // namespace cfo::workload
