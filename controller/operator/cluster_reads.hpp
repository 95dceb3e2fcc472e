#pragma once
// What the CodeFlareWorkload controller knows of Kueue at every reconcile: the Kueue objects a workload names
// (LocalQueue, default LocalQueue, WorkloadPriorityClass), read from the caches (the API version and MaxPodSets come
// with the served APIs, served_apis.hpp). An object Kueue does not serve, or that the operator may not read, reads as
// unknown rather than as absent, as the CodeFlare SDK's checks do.
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "runtime/store.hpp"
#include "workload/reconcile.hpp"

namespace cfo::op {

/// The Kueue caches a reconcile reads (informers; see operator.cpp). A member is empty when Kueue is not served.
struct KueueCaches {
  /// The LocalQueues of a namespace, and one by key ("ns/name").
  std::function<std::vector<runtime::ObjectPtr>(const std::string& ns)> local_queues_in;
  std::function<runtime::ObjectPtr(const std::string& key)> local_queue;
  /// True once the LocalQueue cache has listed: before that (or when the list is forbidden) absence means nothing.
  std::function<bool()> local_queues_synced;
  /// True while the LocalQueue cache is still making its first list (however long, unless that list fails; then up
  /// to kKueueCacheWaitMs from the first failure with no page since):
  /// a reconcile then waits, as the namespace's default queue, a managed queue's presence and a hold all read from it.
  /// Unset: never pending.
  std::function<bool()> local_queues_pending;
  /// True once that wait was given up on a failing list (and the cache has still not listed): facts then say the
  /// queues cannot be read (ClusterFacts::local_queues_unreadable). Unset: never.
  std::function<bool()> local_queues_given_up;
  /// A WorkloadPriorityClass by name, and whether that cache has listed.
  std::function<runtime::ObjectPtr(const std::string& name)> priority_class;
  std::function<bool()> priority_classes_synced;
  /// The Kueue Workload that Kueue made for the child with this uid (label kueue.x-k8s.io/job-uid), or nullptr.
  std::function<runtime::ObjectPtr(const std::string& child_uid)> workload_of;
  /// Every cached ClusterQueue and ResourceFlavor, or nullopt until both caches have listed (their list may be
  /// forbidden): the admissibility of a queued workload is judged from them.
  std::function<std::optional<std::vector<runtime::ObjectPtr>>()> quota_objects;
};

/// What reconcile needs to know of Kueue for `workload`, read from the caches (no request): facts.kueue_version,
/// facts.default_local_queue (when the spec names no LocalQueue: the one annotated kueue.x-k8s.io/default-queue
/// "true", any case, else one named "default", as Kueue's LocalQueueDefaulting), facts.local_queue and its presence,
/// and facts.priority_class_presence. A cache that has not listed (e.g. its list is forbidden) leaves the presence
/// Unknown, so the workload goes ahead as the CodeFlare SDK's checks do. `local_queue` keeps the LocalQueue that
/// facts.local_queue points into alive.
void fill_kueue_facts(const json::Value& workload, const std::string& kueue_version, const KueueCaches& caches,
                      workload::ClusterFacts& facts, runtime::ObjectPtr& local_queue);

/// facts.local_queue_managers: of `others` (the workloads of `workload`'s namespace), those that manage the LocalQueue
/// `workload` names (status.managedLocalQueue) with a spec.queue.clusterQueue, are not being deleted, and are not held
/// for LocalQueueMismatch themselves (status.heldFor, or the Queued reason of a status written before heldFor), as
/// (name, clusterQueue). Meant for a managed LocalQueue found absent: those workloads create it again.
std::vector<std::pair<std::string, std::string>> local_queue_managers(const json::Value& workload,
                                                                      const std::vector<runtime::ObjectPtr>& others);

/// facts.queue_objects for the admissibility judgement: the cached LocalQueues of the workload's namespace, every
/// cached ClusterQueue and ResourceFlavor (Cohort objects are not read, so cohorts_known is false: a cohort may lend
/// more than the ClusterQueues show), and `ns`, the workload's cached Namespace (its labels, for the ClusterQueues'
/// namespaceSelectors; null when not cached: only kubernetes.io/metadata.name is known). Left unset while a cache has
/// not listed. `keep` holds the objects alive.
void fill_queue_objects(const json::Value& workload, const KueueCaches& caches, runtime::ObjectPtr ns,
                        workload::ClusterFacts& facts, std::vector<runtime::ObjectPtr>& keep);

}  // namespace cfo::op
