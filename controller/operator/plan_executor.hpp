#pragma once
// Carrying out a write plan (write_plan.hpp) through the Api seam, in its order, stopping where it says.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "operator/api.hpp"
#include "operator/write_plan.hpp"
#include "runtime/event_recorder.hpp"

namespace cfo::op {

/// Every CodeFlareWorkload of one namespace, or the error that kept them from being read.
using WorkloadLister = std::function<Result<std::vector<std::shared_ptr<const json::Document>>>(const std::string& ns)>;

// ---- what carrying out a plan came to ------------------------------------------------------------------------
/// Everything in the plan was done. `top`: the apiserver's answer to the apply of the top-level child, when it was
/// created now (it is not in the cache yet), so that the status can already report it.
struct Applied {
  std::optional<json::Document> top;
};
/// Nothing was applied because of the plan's blocker: a conflict (nothing written), or a removal to wait for.
struct Blocked {
  Blocker blocker;
};
/// The dry-run gate: the apiserver refused an object that our validation accepted; nothing was written.
struct ServerRejected {
  std::string kind, name;
  Error error;
};
/// A request failed (what was being done, and why).
struct RequestFailed {
  std::string message;
};
/// The first of these that happened decides the workload's conditions, events and the reconcile's result; a
/// failure wins over a rejection, which wins over a blocker.
using WriteOutcome = std::variant<Applied, Blocked, ServerRejected, RequestFailed>;

/// What the executor needs to know of the workload and the cluster.
struct ExecutionContext {
  const json::Value& workload;  ///< the CodeFlareWorkload as cached (for events and the finalizer's clean-up)
  std::string ns, name, uid;
  std::string field_manager;
  std::string kueue_version;    ///< "" when Kueue is not served
  WorkloadLister workloads_in;  ///< the namespace's workloads, to tell whether a managed LocalQueue is still used
  /// Called after each object applied (its kind), e.g. to count it; may be empty.
  std::function<void(const std::string& kind)> on_applied;
  /// Called after each DELETE of a child that the apiserver accepted or answered 404 (the child's kind); may be empty.
  std::function<void(ChildKind kind)> on_removed;
};

/// Carries out `plan` (see Plan for the order). Events: Replacing (a HandOver or Replacement removal), Replaced (a
/// stale child removed), LocalQueueDeleted (a released LocalQueue). Applies use `ctx.field_manager`, force on.
WriteOutcome execute(const Plan& plan, const ExecutionContext& ctx, const Api& api, runtime::EventRecorder& events);

/// The clean-up guarded by the managed-LocalQueue finalizer, then the finalizer's removal (with the uid as
/// precondition, so a stale cache never re-creates a workload that is gone). A clean-up that keeps failing is given up
/// after kFinalizerGiveUpSeconds in deletion, with a LocalQueueLeft event. Events: LocalQueueDeleted,
/// LocalQueueKept. Returns the failure that should make the reconcile retry, if any.
std::optional<std::string> finalize(const ExecutionContext& ctx, const Api& api, runtime::EventRecorder& events);

}  // namespace cfo::op
