#pragma once
// The Kueue LocalQueue the operator creates when spec.queue.clusterQueue is given and the LocalQueue is missing
// (kueue.x-k8s.io LocalQueue: spec.clusterQueue is its only required field).
#include <string>

#include "core/json.hpp"
#include "workload/object_meta.hpp"

namespace cfo::workload {

inline constexpr const char* kLocalQueueKind = "LocalQueue";
/// Label that marks a LocalQueue as created by the operator; only such a LocalQueue is ever deleted by it.
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "codeflare-operator";
/// Finalizer a workload carries while it uses a LocalQueue the operator manages: on deletion, the operator deletes
/// the LocalQueue when no other workload of the namespace uses it, then removes the finalizer.
inline constexpr const char* kLocalQueueFinalizer = "codeflare.dev/managed-local-queue";

/// A LocalQueue object. `api_version` is "kueue.x-k8s.io/v1beta2" or "kueue.x-k8s.io/v1beta1" (what the cluster
/// serves; the spec is the same in both).
struct LocalQueue {
  std::string api_version;
  ObjectMeta metadata;
  std::string cluster_queue;

  json::Document to_json() const;
};

/// The managed LocalQueue `name` in `namespace_` pointing at `cluster_queue`, labelled kManagedByLabel. It has no
/// owner reference: it may serve several workloads, and the finalizer decides when it goes.
LocalQueue build_managed_local_queue(const std::string& kueue_version, const std::string& name,
                                     const std::string& namespace_, const std::string& cluster_queue);

/// True when a LocalQueue object (JSON) carries the kManagedByLabel=kManagedByValue label.
bool is_managed_local_queue(const json::Value& local_queue);

}  // namespace cfo::workload
