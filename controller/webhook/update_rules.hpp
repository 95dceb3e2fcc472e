#pragma once
// What an UPDATE may skip or must refuse beyond the checks of a create.
#include <optional>

#include "core/field_error.hpp"
#include "core/json.hpp"

namespace cfo::webhook {

/// True when an update leaves alone everything a verdict reads: every top-level field but `metadata` and `status`
/// (spec, and e.g. a WorkloadPriorityClass's `value`), and metadata.labels and metadata.annotations; or when the
/// stored object is being deleted (its deletionTimestamp is set). Such updates are admitted without a verdict, as
/// the KubeRay and Kueue webhooks let status and finalizer writes through: a controller removing its finalizer
/// from an object that breaks a rule (e.g. one created before the webhook existed) must never be blocked.
bool verdict_inputs_unchanged(const json::Value& object, const json::Value& old_object);

/// The QueueChangeWhileRunning finding of workload::reconcile, decided from the stored status instead of the live
/// child: the webhook sees the workload, not its children. `stored_status` is the CodeFlareWorkload's status as the
/// cluster holds it (null when none); `spec` the new spec. A change of spec.queue.localQueue is refused when the
/// status names a child submitted to another LocalQueue (status.queue) and that child runs, i.e. is not suspended:
/// phase Admitted, Running, Succeeded or Failed, or phase Invalid while the Admitted condition is True (an invalid
/// spec leaves the queue conditions of what runs as they were). Kueue's job webhook (ValidateUpdate) refuses a
/// queue-name change on a job that is not suspended, and reconcile refuses the workload change for that reason;
/// a workload still Pending, Queued or Suspended may move. A queue given to a workload whose child was submitted
/// without one (status.queue empty) is refused unless the workload is Suspended: Kueue never suspended that child.
/// Returns std::nullopt when the change is allowed.
std::optional<FieldError> queue_change_while_running(const json::Value* stored_status, const json::Value& spec);

}  // namespace cfo::webhook
