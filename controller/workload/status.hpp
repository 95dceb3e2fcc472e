#pragma once
// The CodeFlareWorkload status: phase, queue, worker counts, what the children report, Kueue admission and the
// conditions, derived from the reconcile verdict and what is observed of the children.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/condition.hpp"
#include "core/json.hpp"
#include "workload/observed.hpp"
#include "workload/quota_preview.hpp"

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

/// Condition types. Queued and Admitted are present only while a LocalQueue is in effect; Succeeded only for jobs.
inline constexpr const char* kConditionValid = "Valid";
inline constexpr const char* kConditionQueued = "Queued";
inline constexpr const char* kConditionAdmitted = "Admitted";
inline constexpr const char* kConditionReady = "Ready";
inline constexpr const char* kConditionSucceeded = "Succeeded";
/// Whether the LocalQueue in effect can ever admit the workload (validation::judge_admissibility), present while a
/// queue is in effect and its ClusterQueues and ResourceFlavors are known.
inline constexpr const char* kConditionAdmissible = "Admissible";

/// The verdict on the admissibility of the queued child.
struct Admissibility {
  bool admissible = true;
  /// False: CamelCase reason after the rule that blocks it (NamespaceNotSelected, ResourceNotCovered,
  /// NoMatchingFlavor, ExceedsMaxQuota) and the findings, at the workload's own fields.
  std::string reason;
  std::string message;
  /// False for a queue chain with a link missing (reason ClusterQueueNotFound, ResourceFlavorNotFound): Kueue admits
  /// nothing from the LocalQueue until that object is created, then judges the workload afresh.
  bool ever = true;
  /// False (with `admissible` true): no verdict is given, because it depends on what the operator does not read (a
  /// cohort's capacity beyond its known ClusterQueues: reason CohortCapacityUnknown); the condition is Unknown.
  bool known = true;
  /// How the Ready condition and the event begin the message: "LocalQueue <q> can never admit it" or, when not
  /// `ever`, "LocalQueue <q> cannot admit it yet" (`it` is the word for the workload).
  std::string lead(const std::string& queue, const std::string& it) const {
    return "LocalQueue " + queue + (ever ? " can never admit " : " cannot admit ") + it + (ever ? "" : " yet");
  }
};

/// The status subresource of a CodeFlareWorkload (string fields are omitted from JSON when empty; the counts and
/// observedGeneration are always written).
struct WorkloadStatus {
  int64_t observed_generation = 0;
  std::string phase;
  std::string queue;
  int32_t desired_workers = 0;
  int32_t ready_workers = 0;
  std::string ray_cluster_name;
  std::string app_wrapper_name;
  std::string ray_job_name;
  std::string ray_cluster_state;
  std::string app_wrapper_phase;
  std::string job_status;
  std::string job_deployment_status;
  std::string head_service;
  std::string dashboard_url;
  /// status.admission: the Kueue Workload and the ClusterQueue that admitted it (both empty: no Workload seen).
  std::string admission_workload;
  std::string admission_cluster_queue;
  /// The LocalQueue the operator created for this workload (spec.queue.clusterQueue), remembered so that it is cleaned
  /// up even after the spec stops naming it.
  std::string managed_local_queue;
  /// status.jobSpecHash: the hash of the spec of the RayJob the operator last applied, without spec.suspend (16 hex
  /// digits); a finished job whose RayJob is gone runs again only for a spec whose hash differs.
  std::string job_spec_hash;
  /// status.heldFor: the reason of the hold in effect (StatusInput::held_reason of a valid spec: LocalQueueNotFound,
  /// LocalQueueMismatch, LocalQueueUnknown, PriorityClassNotFound, KueueNotInstalled, RayClusterNotInstalled,
  /// AppWrapperNotInstalled, RayJobNotInstalled), empty when nothing is held; the next reconcile reads it to say a
  /// hold, and its release, once.
  std::string held_for;
  /// status.podSets and status.totalRequests: what Kueue charges (quota_preview); not written when empty.
  QuotaPreview quota;
  std::vector<Condition> conditions;
  /// Not written: seconds after which the status may change with nothing else changing (a child still waiting for
  /// its controller's first status, see kSilentChildSeconds); 0 when nothing is pending.
  int64_t recheck_after_seconds = 0;

  json::Document to_json() const;
};

/// How long a child may go without any status from its controller (KubeRay, the AppWrapper controller) before the
/// workload says that controller is probably not running (Ready=False, reason NoStatusFromKubeRay or
/// NoStatusFromAppWrapperController).
inline constexpr int64_t kSilentChildSeconds = 60;

/// What reconcile decided, as input to the status.
struct StatusInput {
  int64_t generation = 0;
  std::string namespace_;
  bool valid = false;
  /// Message of the Valid=False condition (the first findings), when !valid.
  std::string invalid_message;
  /// The first warnings ("path: reason; ..."), empty when there are none; when valid, Valid=True says them with
  /// reason ValidWithWarnings, so that they stay visible after their events expire.
  std::string warnings_message;
  /// The top-level child: an AppWrapper holding the RayCluster (wrapped), a RayJob (job), else the RayCluster.
  bool wrapped = false;
  bool job = false;
  /// The workload is stopped: spec.suspend, or, while changes are held back or a write failed, the suspension of the
  /// child that runs (keep_what_runs).
  bool suspended = false;
  /// spec.suspend as written now (differs from `suspended` while the change that resumes or suspends is held back).
  bool suspend_requested = false;
  /// The LocalQueue in effect (spec or namespace default), if any.
  std::optional<std::string> queue;
  /// Set when the children are held back: CamelCase reason (LocalQueueNotFound, PriorityClassNotFound,
  /// KueueNotInstalled) and message, shown in the Queued and Ready conditions.
  std::string held_reason;
  std::string held_message;
  /// The top-level child exists already (it was submitted): a hold then holds back a change of it, not the workload,
  /// so Ready and Queued follow the child and name the held change in their messages.
  bool child_exists = false;
  /// The LocalQueue in effect is known not to exist (and is not created by this reconcile): a child submitted to it
  /// is not Queued (reason LocalQueueNotFound) until it is back, unless it was admitted already.
  bool queue_missing = false;
  /// Sum of the worker groups' replicas.
  int32_t desired_workers = 0;
  std::string ray_cluster_name;
  std::string app_wrapper_name;
  std::string ray_job_name;
  std::string managed_local_queue;
  /// The admissibility of the queued child, when it was judged.
  std::optional<Admissibility> admissibility;
  /// The quota preview of the top-level child (of what runs, while the spec is invalid).
  QuotaPreview quota;
  /// A finished job that is not run again (its spec did not change since it finished): when its RayJob is gone, the
  /// phase and job fields of `previous_status` stand.
  bool finished_job = false;
  /// The RayJob or AppWrapper ended running an earlier spec (a change held while it ran: StartedJobUnchanged,
  /// FinishedAppWrapperUnchanged): Ready's reason is then EarlierSpecSucceeded / EarlierSpecFailed, and so is a job's
  /// Succeeded condition (False), since the current spec has not run.
  bool ran_earlier_spec = false;
  /// The RayJob made for this spec is gone before it was seen to end (and not while it only waited in a queue): the
  /// job is taken as ended, outcome unknown (phase Failed, reason RayJobGone), and `finished_job` is set too.
  bool job_lost = false;
  /// The AppWrapper ended (status.appWrapperPhase recorded Succeeded or Failed) and is gone since (deleted by someone)
  /// while the spec did not change: it is not created again; the phase and appWrapperPhase of `previous_status` stand.
  bool finished_app_wrapper_gone = false;
  /// status.jobSpecHash to write: the hash of the spec of the RayJob last applied (16 hex digits, empty for none).
  std::string job_spec_hash;
};

/// Derives the status from the verdict and the observed children.
/// Phase: Invalid when !valid (the Ready condition, the worker counts and a job's end still follow the children that
/// exist: a job that ends while the spec is invalid makes Succeeded False with reason EarlierSpecSucceeded or
/// EarlierSpecFailed, or RayJobGone, since the invalid spec has not run); Pending
/// while held or while the top-level child is absent; Suspended when the user suspended it; then by kind of child:
///  - RayJob: Succeeded / Failed by jobStatus and jobDeploymentStatus, Running while jobDeploymentStatus is
///    Running, Queued (with a queue) or Suspended while suspended, Admitted once Kueue admitted it, else Pending;
///  - AppWrapper: Succeeded / Failed by its phase, Queued / Suspended while Suspended or Suspending, then as the
///    RayCluster, Admitted once past Suspended;
///  - RayCluster: Queued / Suspended while spec.suspend or state "suspended", Running when state is "ready", Failed
///    when "failed", Admitted when Kueue admitted it, else Pending.
/// Conditions, each with observedGeneration = `in.generation`, merged into `previous_status`'s (may be null) with
/// set_condition, so lastTransitionTime changes only when a condition's status changes:
///  - Valid (True with reason Valid, or ValidWithWarnings naming the warnings; False with reason InvalidSpec);
///    Ready (True while Running);
///  - with a queue: Queued (True once submitted to an existing LocalQueue, False with the held reason) and Admitted
///    (from the Kueue Workload's Admitted condition, or implied by a running child); removed without a queue;
///    Admissible (True, or False with the reason that Kueue can never admit it, which then is also Ready's reason
///    while the workload waits) when in.admissibility is set, removed otherwise;
///  - for jobs: Succeeded (Unknown until the job ends, then True or False).
/// The quota preview a status holds (status.podSets and status.totalRequests as to_json writes them; empty when
/// `status` is null or has none).
QuotaPreview quota_from_status(const json::Value* status);

WorkloadStatus compute_status(const StatusInput& in, const Observed& observed, const json::Value* previous_status,
                              const std::string& now);

}  // namespace cfo::workload
