#pragma once
// The CodeFlareWorkload controller: reads the workload and its children from the informer caches, asks the cluster
// for the Kueue facts, runs workload::reconcile, decides the writes (write_plan.hpp), carries them out
// (plan_executor.hpp), and reports the result in the workload's status and events.
#include <array>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "metrics/operator_metrics.hpp"
#include "operator/api.hpp"
#include "operator/cluster_reads.hpp"
#include "operator/drift.hpp"
#include "operator/plan_executor.hpp"
#include "operator/resources.hpp"
#include "operator/served_apis.hpp"
#include "operator/deletions_sent.hpp"
#include "operator/own_child_writes.hpp"
#include "operator/written_objects.hpp"
#include "runtime/controller.hpp"
#include "runtime/event_recorder.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::op {

/// How often a workload waiting for something outside it (a LocalQueue, a priority class, a child held by someone
/// else) is looked at again.
inline constexpr int64_t kRecheckMs = 30000;
/// How soon a workload whose child is being replaced (deleted, to be created anew) is looked at again.
inline constexpr int64_t kReplaceRecheckMs = 2000;
/// Reconciles wait for the first list of Kueue's LocalQueue cache (an operator starting, Kueue just installed),
/// looking again every kKueueCacheRecheckMs: as long as it takes while the list is arriving; when its list fails,
/// up to kKueueCacheWaitMs from its first failure with no page received since (InformerGroup::list_failing_since;
/// a request in flight counts as arriving), after which (forbidden, say) it reads as unknown and workloads go
/// ahead as the CodeFlare SDK does without Kueue's objects.
inline constexpr int64_t kKueueCacheWaitMs = 30000;
inline constexpr int64_t kKueueCacheRecheckMs = 250;

/// Lookup of a cached object by key ("namespace/name"); nullptr when absent.
using CacheLookup = std::function<std::shared_ptr<const json::Document>(const std::string& key)>;

/// The informer caches the controller reads. A lookup may be empty for kinds not installed.
struct WorkloadCaches {
  CacheLookup workloads;
  /// The children by ChildKind (RayCluster, AppWrapper, RayJob).
  std::array<CacheLookup, kChildKindCount> children;
  /// All the workloads of a namespace, to tell whether a managed LocalQueue is still used: the cache when it holds
  /// every workload, a live list when --label-selector narrows the cache to a shard.
  WorkloadLister workloads_in;
  /// Kueue's objects (empty members when Kueue is not served).
  KueueCaches kueue;
  /// The cached Namespace by name (namespace_cache.hpp): its pod-security.kubernetes.io/enforce label is the level the
  /// generated Pod templates are judged at. Empty, or nullptr: privileged (no Pod Security check).
  CacheLookup namespace_of;
  /// Where the reconcile records the child it created (own_child_writes.hpp), so that the child informer's event of
  /// that creation wakes nothing; null: nothing recorded (every event wakes the workload).
  std::shared_ptr<OwnChildWrites> own_child_writes;
};

/// Settings of the controller, filled in once from flags.
struct WorkloadControllerOptions {
  std::string field_manager = kFieldManager;
  /// Kueue's MaxPodSets from --kueue-max-podsets; 0: the served Workload CRD's, else 8.
  int kueue_max_pod_sets = 0;
  /// The cluster profile from --profile; unset: the one the served CRDs tell (ServedApis::profile).
  std::optional<validation::Profile> profile;
  /// The server-side gate (--server-dry-run): where a write could be followed by a refusal (write_plan.hpp), every
  /// object is first sent with dryRun=All; a refusal of an object that our validation accepted is logged as a
  /// validation gap, counted, and nothing is written.
  bool server_dry_run = true;
  /// The apiserver's Kubernetes minor version (kubernetes_minor_of its /version), 0 when unknown: the
  /// ClusterProfile::kubernetes_minor that version-dependent rules judge by.
  int kubernetes_minor = 0;
};

/// Reconciles one CodeFlareWorkload key. Thread-safe: the work queue never hands the same key to two workers.
class WorkloadController {
 public:
  /// `metrics` may be null (no counting); it must outlive the controller otherwise.
  /// `apis` (the served APIs and their schemas, read at every reconcile) must outlive the controller.
  WorkloadController(Api api, const ServedApiState& apis, runtime::EventRecorder& events, WorkloadCaches caches,
                     WorkloadControllerOptions opts, metrics::OperatorMetrics* metrics = nullptr);

  /// One reconcile of "namespace/name":
  ///  - a missing workload is done (its children go with it through owner references); one being deleted runs the
  ///    managed-LocalQueue clean-up when it carries the finalizer, then drops the finalizer;
  ///  - an invalid one gets Valid=False and a Warning event, and nothing is written to its children; each of its
  ///    errors is counted by rule (codeflare_validation_rejections_total) once per generation;
  ///  - one held by a missing LocalQueue or priority class gets Queued=False and is looked at again every 30 s;
  ///  - otherwise the plan of write_plan.hpp is carried out: a child held by someone else is never taken over
  ///    (Ready=False ChildConflict, Warning event, re-check every 30 s); with server_dry_run every object is first
  ///    sent with dryRun=All, and a refusal (is_server_rejection) writes nothing, is reported as Ready=False
  ///    ServerRejected and retried with backoff (the first refusal of a generation is also logged at error level as
  ///    a validation gap and counted in codeflare_dryrun_disagreements_total); other failures are ApplyFailed;
  ///  - a child whose fields another field manager changed (drift.hpp) gets them back, with a Warning event
  ///    ChildModified naming that manager; repeated restores of one workload's child are spaced out (RestorePacer:
  ///    1 s doubling to 60 s), so two writers fighting over a field never make a hot loop;
  ///  - the status is written through the status subresource when it changed;
  /// Every read comes from the caches: the children caches hold every object of their kinds (someone else's reduced
  /// to its owner references, child_transform), so a name already taken is seen without a request.
  runtime::ReconcileResult reconcile(const std::string& key);

  /// Tells the controller the workload cache now holds `workload` (its update events): what is kept of our own
  /// status writes until the cache shows them is dropped once it does (WrittenObjects::cache_moved).
  void workload_cached(const json::Value& workload);

  /// The cluster facts a reconcile of `workload` would use (the served APIs, Kueue's objects from the caches): for
  /// the admission webhook, so that its verdict is the controller's. `storage` keeps the LocalQueue that
  /// facts.local_queue points into. Never fails (a cache that has not listed reads as unknown).
  Result<workload::ClusterFacts> facts_for(const json::Value& workload, json::Document& storage) const;

 private:
  workload::ClusterFacts facts_of(const json::Value& wl, const ServedApis& apis, runtime::ObjectPtr& local_queue) const;
  Observation observe(const workload::Outcome& outcome, const std::array<const json::Value*, kChildKindCount>& cached,
                      const json::Value& wl, const std::string& name, const std::string& uid,
                      const std::string& kueue_version, const std::array<bool, kChildKindCount>& deletion_sent) const;

  Api api_;
  const ServedApiState& apis_;
  runtime::EventRecorder& events_;
  WorkloadCaches caches_;
  WorkloadControllerOptions opts_;
  metrics::OperatorMetrics* metrics_;
  /// Verdicts on generated objects, valid for the served APIs they were reached with (`memo_apis_`).
  workload::ValidationMemo memo_;
  std::mutex memo_mu_;
  std::shared_ptr<const ServedApis> memo_apis_;
  /// Spaces out the restores of children another field manager keeps changing (drift.hpp).
  RestorePacer pacer_;
  /// The workloads as our status writes left them, until the cache shows those writes (written_objects.hpp).
  WrittenObjects written_;
  /// The children whose DELETE we sent, until the cache shows them going (deletions_sent.hpp).
  DeletionsSent deletions_;
};

}  // namespace cfo::op
