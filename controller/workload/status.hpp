#pragma once
// The CodeFlareWorkload status: phase, queue, worker counts, child names and the Valid and Ready conditions,
// derived from the reconcile verdict and what is observed of the children.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/condition.hpp"
#include "core/json.hpp"
#include "workload/reconcile.hpp"

namespace cfo::workload {

/// status.phase values.
namespace phase {
inline constexpr const char* kInvalid = "Invalid";
inline constexpr const char* kPending = "Pending";
inline constexpr const char* kQueued = "Queued";
inline constexpr const char* kAdmitted = "Admitted";
inline constexpr const char* kRunning = "Running";
inline constexpr const char* kSucceeded = "Succeeded";
inline constexpr const char* kFailed = "Failed";
inline constexpr const char* kSuspended = "Suspended";
}  // namespace phase

/// Condition types.
inline constexpr const char* kConditionValid = "Valid";
inline constexpr const char* kConditionReady = "Ready";

/// The status subresource of a CodeFlareWorkload (fields are omitted from JSON when empty, except the counts and
/// observedGeneration).
struct WorkloadStatus {
  int64_t observed_generation = 0;
  std::string phase;
  std::string queue;
  int32_t desired_workers = 0;
  int32_t ready_workers = 0;
  std::string ray_cluster_name;
  std::string app_wrapper_name;
  std::vector<Condition> conditions;

  json::Document to_json() const;
};

/// What reconcile decided, as input to the status.
struct StatusInput {
  int64_t generation = 0;
  bool valid = false;
  /// Message of the Valid=False condition (the first findings), when !valid.
  std::string invalid_message;
  bool wrapped = false;
  /// The LocalQueue in effect (spec or namespace default), if any.
  std::optional<std::string> queue;
  /// Sum of the worker groups' replicas.
  int32_t desired_workers = 0;
  std::string ray_cluster_name;
  std::string app_wrapper_name;
};

/// Derives the status. Phase: Invalid when !valid; Pending while the top-level child is absent; Succeeded/Failed
/// from the AppWrapper phase; Queued (with a queue) or Suspended (without) when the AppWrapper is
/// Suspended/Suspending or the RayCluster is suspended; Running when the RayCluster's status.state is "ready";
/// Failed when it is "failed"; Admitted when the AppWrapper is past admission but its RayCluster is not yet
/// observed; else Pending. Conditions Valid and Ready carry observedGeneration = `in.generation`; they are merged
/// into the conditions of `previous_status` (may be null) with set_condition, so lastTransitionTime changes only
/// when a condition's status changes. readyWorkers is the RayCluster's status.readyWorkerReplicas (0 when absent).
WorkloadStatus compute_status(const StatusInput& in, const Observed& observed, const json::Value* previous_status,
                              const std::string& now);

}  // namespace cfo::workload
