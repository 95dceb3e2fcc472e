#pragma once
// The finalizer of workloads that use a LocalQueue the operator manages (workload::kLocalQueueFinalizer): adding and
// removing it by server-side apply, and the clean-up it guards.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "operator/api.hpp"
#include "core/error.hpp"
#include "core/json.hpp"

namespace cfo::op {

/// Field manager of the finalizer patches.
inline constexpr const char* kFinalizerFieldManager = "codeflare-operator-finalizer";
/// After this long in deletion, a clean-up that keeps failing is given up and the finalizer removed anyway: a
/// finalizer must never block a deletion forever.
inline constexpr int64_t kFinalizerGiveUpSeconds = 300;

/// True when the workload object lists the finalizer.
bool has_local_queue_finalizer(const json::Value& workload);

/// Adds (`present` true) or removes the finalizer on `workload` (the CodeFlareWorkload as cached: namespace, name,
/// uid, resourceVersion, finalizers) with a JSON patch (RFC 6902) that touches that one entry: the finalizers of
/// others (a user's, `foregroundDeletion`) are kept. A server-side apply of the list took them away where the
/// apiserver treats metadata.finalizers as one atomic value (kube-apiserver 1.20 for custom resources; the
/// twenty-second user trial: another controller's finalizer stripped, a foreground deletion lost). Every patch tests
/// metadata.uid first (a missing object is never created, a replaced one never touched); an addition also tests the
/// resourceVersion cached (the list is then as seen: no duplicate), a removal the entry at its index. A failed test
/// writes nothing (HTTP 422): the object is then read once (GET) and the patch made again from it, unless its uid
/// changed; a second failure is the Error. Nothing is sent when there is nothing to change.
Result<void> set_local_queue_finalizer(const Api& api, const json::Value& workload, bool present);

/// The LocalQueue name a workload object uses through spec.queue (localQueue, else clusterQueue); empty when none.
std::string queue_name_of(const json::Value& workload);

/// What the clean-up did, for the event.
struct CleanupResult {
  bool deleted = false;
  /// Other live workloads of the namespace still use the LocalQueue (it is kept).
  std::size_t other_users = 0;
  std::string local_queue;
};

/// The LocalQueue a workload object manages: status.managedLocalQueue, else (before its first status) the spec's
/// when spec.queue.clusterQueue is set; empty when none.
std::string managed_queue_of(const json::Value& workload);

/// True when `workload` (not being deleted: the caller decides) uses LocalQueue `name`: its spec.queue names it
/// (queue_name_of), it manages it (managed_queue_of), or its status records it as the queue in effect (status.queue:
/// the namespace's default LocalQueue, or the queue its child was submitted to).
bool uses_local_queue(const json::Value& workload, const std::string& name);

/// True when LocalQueue object `lq` may be its namespace's default LocalQueue (annotated
/// kueue.x-k8s.io/default-queue: "true", or named "default"): a workload that names no queue uses it, or will once
/// reconciled, and counts as its user before its status says so.
bool may_be_default_queue(const json::Value& lq);

/// uses_local_queue, or `workload` names no queue and `default_candidate` (may_be_default_queue of the LocalQueue).
bool may_use_local_queue(const json::Value& workload, const std::string& name, bool default_candidate);

/// The clean-up guarded by the finalizer, also run when a workload stops using a LocalQueue it managed: reads the
/// LocalQueue `local_queue` of namespace `ns` and deletes it unless another workload in `others` (the namespace's
/// workloads; `self` and those being deleted are skipped) may use it (may_use_local_queue), or it is not labelled as
/// managed by the operator. The DELETE carries the uid read (a queue made again since is left); gone (404) counts as
/// done, with `deleted` false: another deleted it. `local_queues` is the LocalQueue resource type.
Result<CleanupResult> clean_up_local_queue(const Api& api, const client::ResourceType& local_queues,
                                           const std::string& ns, const std::string& local_queue,
                                           const std::string& self,
                                           const std::vector<std::shared_ptr<const json::Document>>& others);

}  // namespace cfo::op
