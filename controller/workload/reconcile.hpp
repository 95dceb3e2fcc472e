#pragma once
// Reconcile as a pure function: from a CodeFlareWorkload, what is observed of its children and the cluster facts,
// to the desired child objects, the workload's status and the events to post. No I/O happens here.
#include <optional>
#include <string>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::workload {

/// What the controller read from the cluster before calling reconcile.
struct ClusterFacts {
  /// Name of the LocalQueue annotated `kueue.x-k8s.io/default-queue: "true"` in the workload's namespace, if any.
  std::optional<std::string> default_local_queue;
  /// Kueue limits and other cluster properties used by validation.
  validation::ClusterProfile profile;
};

/// The children as they are now on the cluster (null when absent). Used for status only: desired objects never
/// copy fields from what is observed.
struct Observed {
  const json::Value* ray_cluster = nullptr;
  const json::Value* app_wrapper = nullptr;
};

/// An event to post about the workload. `type` is "Normal" or "Warning"; `reason` CamelCase.
struct EventSpec {
  std::string type;
  std::string reason;
  std::string message;
};

/// The outcome of one reconcile.
struct Outcome {
  bool valid = false;
  /// Objects to server-side apply, in order (AppWrapper, or RayCluster). Empty when invalid.
  std::vector<json::Document> desired;
  /// The full `status` object to write through the status subresource.
  json::Document status;
  /// Every finding: spec errors (paths under `spec.`) and checks of the generated objects (paths prefixed with the
  /// object, e.g. `RayCluster/demo: spec.workerGroupSpecs[0]...`).
  FieldErrors errors;
  std::vector<EventSpec> events;
};

/// Reconciles one workload (a CodeFlareWorkload object as JSON, with metadata.name, namespace, uid, generation).
/// The workload's own `status` (when present) is the previous status: its conditions keep their lastTransitionTime
/// unless their status changes.
/// `now` is RFC 3339 UTC. Deterministic for equal inputs.
Outcome reconcile(const json::Value& workload, const Observed& observed, const ClusterFacts& facts,
                  const validation::SchemaSet& schemas, const std::string& now);

}  // namespace cfo::workload
