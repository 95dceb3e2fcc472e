#pragma once
// The CodeFlareWorkload controller: the I/O around workload::reconcile. It reads the workload and its children from
// the informer caches, asks the cluster for the Kueue facts reconcile needs, applies the desired objects by
// server-side apply, keeps the managed-LocalQueue finalizer, writes the status through the status subresource and
// posts events.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/rest_client.hpp"
#include "cmd/cluster_facts.hpp"
#include "metrics/operator_metrics.hpp"
#include "runtime/controller.hpp"
#include "runtime/event_recorder.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::cmd {

/// The resource types the controller reads and writes.
namespace types {
extern const client::ResourceType kCodeFlareWorkload;  ///< codeflare.dev/v1alpha1 codeflareworkloads
extern const client::ResourceType kRayCluster;         ///< ray.io/v1 rayclusters
extern const client::ResourceType kRayJob;             ///< ray.io/v1 rayjobs
extern const client::ResourceType kAppWrapper;         ///< workload.codeflare.dev/v1beta2 appwrappers
}  // namespace types

/// Label put on every child so that events on children map back to their workload (value: the workload's name).
inline constexpr const char* kWorkloadLabel = "codeflare.dev/workload";
/// The field manager of every write, as server-side apply records it.
inline constexpr const char* kFieldManager = "codeflare-operator";
/// How often a workload waiting for something outside it (a LocalQueue, a priority class, a child held by someone
/// else) is looked at again.
inline constexpr int64_t kRecheckMs = 30000;
/// How soon a workload whose child is being replaced (deleted, to be created anew) is looked at again.
inline constexpr int64_t kReplaceRecheckMs = 2000;

/// Lookup of a cached object by key ("namespace/name"); nullptr when absent.
using CacheLookup = std::function<std::shared_ptr<const json::Document>(const std::string& key)>;
/// The cached objects of one namespace.
using CacheList = std::function<std::vector<std::shared_ptr<const json::Document>>(const std::string& ns)>;
/// Every CodeFlareWorkload of one namespace, or the error that kept them from being read.
using WorkloadLister = std::function<Result<std::vector<std::shared_ptr<const json::Document>>>(const std::string& ns)>;

/// The informer caches the controller reads. A lookup may answer nullptr for kinds not installed.
struct WorkloadCaches {
  CacheLookup workloads, ray_clusters, app_wrappers, ray_jobs;
  /// All the workloads of a namespace, to tell whether a managed LocalQueue is still used: the cache when it holds
  /// every workload, a live list when --label-selector narrows the cache to a shard.
  WorkloadLister workloads_in;
};

/// Settings of the controller, filled in once from flags.
struct WorkloadControllerOptions {
  std::string field_manager = kFieldManager;
  /// Kueue API version served by the cluster ("v1beta2" or "v1beta1"); empty when Kueue is absent.
  std::string kueue_version;
  validation::ClusterProfile profile;
  /// Send every child with dryRun=All before writing any of them (--server-dry-run): a refusal of an object that
  /// our validation accepted is logged as a validation gap, counted, and nothing is written.
  bool server_dry_run = true;
};

/// Reconciles one CodeFlareWorkload key. Thread-safe: the work queue never hands the same key to two workers.
class WorkloadController {
 public:
  /// `metrics` may be null (no counting); it must outlive the controller otherwise.
  WorkloadController(client::RestClient& client, std::shared_ptr<const validation::SchemaSet> schemas,
                     runtime::EventRecorder& events, WorkloadCaches caches, WorkloadControllerOptions opts,
                     metrics::OperatorMetrics* metrics = nullptr);

  /// One reconcile of "namespace/name":
  ///  - a missing workload is done (its children go with it through owner references); one being deleted runs the
  ///    managed-LocalQueue clean-up when it carries the finalizer, then drops the finalizer;
  ///  - an invalid one gets Valid=False and a Warning event, and nothing is written to its children; each of its
  ///    errors is counted by rule (codeflare_validation_rejections_total) once per generation;
  ///  - one held by a missing LocalQueue or priority class gets Queued=False and is looked at again every 30 s;
  ///  - otherwise, with server_dry_run, every desired object is first sent with dryRun=All: when the apiserver
  ///    refuses one (is_server_rejection), nothing is written, the refusal is reported as Ready=False
  ///    ServerRejected and the key is retried with backoff; the first refusal of a generation is also logged at
  ///    error level as a validation gap and counted (codeflare_dryrun_disagreements_total). Other dry-run failures
  ///    are reported as ApplyFailed;
  ///  - then the finalizer is added first when a managed LocalQueue is applied, then the desired objects are
  ///    applied (codeflare_objects_applied_total). A child that exists under the same name but is not controlled
  ///    by this workload is never taken over (Ready=False ChildConflict, Warning event, re-check every 30 s); this
  ///    is checked before the dry run. A child of another kind that this workload controls (left from before
  ///    spec.appWrapper or spec.job changed) is deleted;
  ///  - a queued workload is looked at again every 30 s, since Kueue's Workload is read, not watched.
  runtime::ReconcileResult reconcile(const std::string& key);

 private:
  runtime::ReconcileResult finalize(const json::Value& wl, const std::string& ns, const std::string& name);
  std::string foreign_owner(const client::ResourceType& type, const std::string& ns, const std::string& name,
                            const std::string& uid);

  client::RestClient& client_;
  std::shared_ptr<const validation::SchemaSet> schemas_;
  runtime::EventRecorder& events_;
  WorkloadCaches caches_;
  WorkloadControllerOptions opts_;
  KueueReader kueue_;
  metrics::OperatorMetrics* metrics_;
};

}  // namespace cfo::cmd
