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

/// Whether an object the workload names exists on the cluster. Unknown when it could not be asked (Kueue not
/// served, or the operator may not read it); the workload then goes ahead, as the CodeFlare SDK does.
enum class Presence { kUnknown, kPresent, kAbsent };

/// What the controller read from the cluster before calling reconcile.
struct ClusterFacts {
  /// Name of the LocalQueue annotated `kueue.x-k8s.io/default-queue: "true"` in the workload's namespace, if any.
  std::optional<std::string> default_local_queue;
  /// The LocalQueue named by spec.queue (localQueue, or clusterQueue's name) as it is on the cluster: null when
  /// absent or not asked. Only read when the spec names one.
  const json::Value* local_queue = nullptr;
  Presence local_queue_presence = Presence::kUnknown;
  /// Whether the WorkloadPriorityClass of spec.queue.priorityClass exists (only asked when the spec names one).
  Presence priority_class_presence = Presence::kUnknown;
  /// The Kueue API version served ("v1beta2", "v1beta1"), empty when Kueue is not installed.
  std::string kueue_version;
  /// Kueue limits and other cluster properties used by validation.
  validation::ClusterProfile profile;
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

/// An event to post about the workload. `type` is "Normal" or "Warning"; `reason` CamelCase.
struct EventSpec {
  std::string type;
  std::string reason;
  std::string message;
};

/// The outcome of one reconcile.
struct Outcome {
  bool valid = false;
  /// Objects to server-side apply, in order: the managed LocalQueue when there is one, then the top-level child
  /// (RayJob, AppWrapper or RayCluster). Empty when invalid or held.
  std::vector<json::Document> desired;
  /// The workload must carry kLocalQueueFinalizer: it uses a LocalQueue the operator manages.
  bool needs_finalizer = false;
  /// Valid, but the children are not applied yet because something the spec names is missing (LocalQueue,
  /// WorkloadPriorityClass, Kueue itself); the reason is in the Queued condition. Re-check later.
  bool held = false;
  /// The existing top-level child must be deleted before the desired one is applied: an AppWrapper whose components
  /// changed (the AppWrapper webhook makes them immutable), or a finished RayJob whose spec changed (KubeRay never
  /// runs a finished RayJob again).
  bool recreate = false;
  /// A LocalQueue this workload managed before (status.managedLocalQueue) and no longer uses: to be deleted when no
  /// other workload uses it. Empty when none.
  std::string release_local_queue;
  /// The full `status` object to write through the status subresource.
  json::Document status;
  /// Every finding: spec errors (paths under `spec.`) and checks of the generated objects (paths prefixed with the
  /// object, e.g. `RayCluster/demo: spec.workerGroupSpecs[0]...`).
  FieldErrors errors;
  std::vector<EventSpec> events;
  /// Seconds after which this reconcile would decide differently with nothing changing on the cluster (a child
  /// waiting for its controller's first status); 0 when nothing is pending. The controller looks again then.
  int64_t recheck_after_seconds = 0;
};

/// Reconciles one workload (a CodeFlareWorkload object as JSON, with metadata.name, namespace, uid, generation).
/// The workload's own `status` (when present) is the previous status: its conditions keep their lastTransitionTime
/// unless their status changes, and a change of phase adds a Normal event named after the new phase.
/// Beyond parse_workload's checks, the ones that need cluster facts (Kueue webhook rules for the object that carries
/// the queue label, validation-rules §4.3 and the RayJob section):
///  - autoscaling while queued needs spec.autoscaling.elasticJob, which an AppWrapper cannot carry;
///  - a queued RayJob must shut its cluster down after it finishes; a RayJob on an existing cluster is not queued;
///  - the PodSet count (head + worker groups, + submitter for a RayJob) within Kueue's MaxPodSets.
/// `now` is RFC 3339 UTC. Deterministic for equal inputs.
Outcome reconcile(const json::Value& workload, const Observed& observed, const ClusterFacts& facts,
                  const validation::SchemaSet& schemas, const std::string& now);

}  // namespace cfo::workload
