#pragma once
// Reconcile as a pure function: from a CodeFlareWorkload, what is observed of its children and the cluster facts,
// to the desired child objects, the workload's status and the events to post. No I/O happens here.
#include <optional>
#include <string>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "validation/schema_set.hpp"
#include "workload/observed.hpp"
#include "workload/status.hpp"
#include "workload/strategic_merge.hpp"
#include "workload/validation_memo.hpp"

namespace cfo::workload {

/// An event to post about the workload. `type` is "Normal" or "Warning"; `reason` CamelCase.
struct EventSpec {
  std::string type;
  std::string reason;
  std::string message;
};

/// A LocalQueue to read live before a first submission: `name` must be a managed LocalQueue pointing at
/// `cluster_queue`. Empty name when none.
struct LocalQueueCheck {
  std::string name;
  std::string cluster_queue;
};

/// The outcome of one reconcile.
struct Outcome {
  bool valid = false;
  /// Objects to server-side apply, in order: the managed LocalQueue when there is one, then the top-level child
  /// (RayJob, AppWrapper or RayCluster). Empty when invalid or held.
  std::vector<json::Document> desired;
  /// Where the values of the top-level child's Pod templates came from (the last of `desired`): the workload fields
  /// that findings on it made after reconcile (validate's checks of a closed set) are told at (add_child_findings).
  PathOrigins origins;
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
  /// The managed LocalQueue the cache shows and the top-level child is submitted to now (created, or moved there from
  /// another queue): read live before anything is written, since the cache may be stale (the eighteenth user trial:
  /// replaced meanwhile by one for another ClusterQueue, and the first submission went there). Empty when the child
  /// is in that queue already, the LocalQueue is created now, none is managed, or nothing is applied.
  LocalQueueCheck confirm_local_queue;
  /// The full `status` object to write through the status subresource.
  json::Document status;
  /// Every finding: spec errors (paths under `spec.`) and checks of the generated objects (paths prefixed with the
  /// object, e.g. `RayCluster/demo: spec.workerGroupSpecs[0]...`).
  FieldErrors errors;
  std::vector<EventSpec> events;
  /// Seconds after which this reconcile would decide differently with nothing changing on the cluster (a child
  /// waiting for its controller's first status); 0 when nothing is pending. The controller looks again then.
  int64_t recheck_after_seconds = 0;
  /// What `status` was computed from (with the observed children), so that the controller can compute it again with
  /// a child it has just created (restatus), and the reconcile woken by that creation writes nothing.
  StatusInput status_input;
};

/// `outcome`'s status computed again, as if `observed` (e.g. with the child just applied) had been seen, from the
/// same previous status (the workload's `status`, may be null) and `now`: sets outcome.status and
/// outcome.recheck_after_seconds. The events are left as they are.
void restatus(Outcome& outcome, const Observed& observed, const json::Value* previous_status, const std::string& now);

/// `outcome`'s status computed again after a write that failed with the top-level child of `observed` in place, so
/// that nothing of the spec was applied: what the status says of the queue and the suspension is what the child
/// carries, and the LocalQueue managed is the one `previous_status` records (as while held). Without that, a move into
/// another queue stopped before its write was reported as done, and the queue the child was still in, recorded
/// nowhere, was deleted under it (the twentieth user trial). A phase event of the phase not taken is replaced by the
/// one of the phase taken, if any. A child being replaced (`outcome.recreate`) gives its queue, not its state. No-op
/// when the child is absent.
void restatus_unapplied(Outcome& outcome, const Observed& observed, const json::Value* previous_status,
                        const std::string& now);

/// Reconciles one workload (a CodeFlareWorkload object as JSON, with metadata.name, namespace, uid, generation).
/// The workload's own `status` (when present) is the previous status: its conditions keep their lastTransitionTime
/// unless their status changes, and a change of phase adds a Normal event named after the new phase.
/// Beyond parse_workload's checks, the ones that need cluster facts (Kueue webhook rules for the object that carries
/// the queue label, validation-rules §4.3 and the RayJob section):
///  - autoscaling while queued needs spec.autoscaling.elasticJob, which an AppWrapper cannot carry;
///  - a queued RayJob must shut its cluster down after it finishes; a RayJob on an existing cluster is not queued;
///  - the PodSet count (head + worker groups, + submitter for a RayJob) within Kueue's MaxPodSets.
/// `now` is RFC 3339 UTC. Deterministic for equal inputs. With `memo` (may be null), the verdicts on generated objects
/// are looked up there first and remembered there (the controller keeps one; the offline commands need none).
Outcome reconcile(const json::Value& workload, const Observed& observed, const ClusterFacts& facts,
                  const validation::SchemaSet& schemas, const std::string& now, ValidationMemo* memo = nullptr);

}  // namespace cfo::workload
