#pragma once
// The collector of managed LocalQueues: a LocalQueue the operator made (workload::is_managed_local_queue) that no
// live workload of its namespace uses is deleted. The finalizer deletes a workload's LocalQueue with its last user;
// the collector catches what that path cannot see: a user deleted before any reconcile gave it the finalizer, a
// deletion made while no replica led (no event for it reaches the next leader), a last user that names the queue
// by spec.queue.localQueue only (it manages nothing). Keyed by the LocalQueue, "namespace/name".
#include <functional>
#include <string>

#include "operator/api.hpp"
#include "operator/plan_executor.hpp"
#include "runtime/controller.hpp"

namespace cfo::op {

/// How long before a managed LocalQueue used only by workloads of another shard is looked at again (ms).
inline constexpr int64_t kOtherShardRecheckMs = 60'000;

/// What the collector reads. Empty functions read as "nothing cached".
struct LocalQueueCollectorReads {
  /// The cached LocalQueue of key "namespace/name" (local_queue_transform keeps its labels); nullptr when absent.
  std::function<runtime::ObjectPtr(const std::string& key)> local_queue;
  /// The workloads the operator's cache holds in a namespace (no request).
  std::function<std::vector<runtime::ObjectPtr>(const std::string& ns)> cached_workloads_in;
  /// Every workload of a namespace: the cache, or a live list when --label-selector narrows the cache to a shard.
  WorkloadLister workloads_in;
  /// The served Kueue API version ("v1beta1", "v1beta2"); empty when Kueue is not served.
  std::function<std::string()> kueue_version;
};

/// One collection of LocalQueue `key`. Nothing is requested unless the cached LocalQueue is managed and no cached
/// workload uses it (uses_local_queue; those being deleted do not count); then the namespace's workloads are read
/// through `workloads_in`: when one of them uses it (another shard's), it is looked at again in
/// kOtherShardRecheckMs; else clean_up_local_queue reads the LocalQueue again and deletes it (404 counts as done).
/// Returns failed (retried with backoff) when a request fails.
runtime::ReconcileResult collect_local_queue(const std::string& key, const Api& api,
                                             const LocalQueueCollectorReads& reads);

/// The cached LocalQueues of a namespace (no request); empty when there is no cache yet.
using LocalQueueLister = std::function<std::vector<runtime::ObjectPtr>(const std::string& ns)>;

/// A workload to the LocalQueues its events may leave unused: the one spec.queue names, the one it manages and the
/// one its status records as in effect; for a workload that names no queue, also every managed LocalQueue of its
/// namespace that may be the default (may_be_default_queue, read from `local_queues`), which it counts as a user of
/// while it lives (the thirteenth user trial: deleting such a last user woke nothing, and the queue stayed).
runtime::KeysMapper workload_to_local_queues(LocalQueueLister local_queues = {});

/// The update predicate of the workload informer for the collector: the spec or metadata changed
/// (runtime::spec_or_metadata_changed), or the LocalQueues its status records (status.queue,
/// status.managedLocalQueue): a queue the status stops naming is looked at then, whatever path dropped it.
bool local_queues_may_have_changed(const json::Value& old_workload, const json::Value& new_workload);

/// A LocalQueue to its own key when the operator manages it (labels), else nothing.
runtime::KeyMapper managed_local_queue_key();

}  // namespace cfo::op
