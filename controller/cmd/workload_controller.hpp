#pragma once
// The CodeFlareWorkload controller: the I/O around workload::reconcile. It reads the workload and its children from
// the informer caches, asks the cluster for the facts reconcile needs (the namespace's default LocalQueue), applies
// the desired children by server-side apply, writes the status through the status subresource and posts events.
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "client/rest_client.hpp"
#include "runtime/controller.hpp"
#include "runtime/event_recorder.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::cmd {

/// The resource types the controller reads and writes.
namespace types {
extern const client::ResourceType kCodeFlareWorkload;  ///< codeflare.dev/v1alpha1 codeflareworkloads
extern const client::ResourceType kRayCluster;         ///< ray.io/v1 rayclusters
extern const client::ResourceType kAppWrapper;         ///< workload.codeflare.dev/v1beta2 appwrappers
}  // namespace types

/// Label put on every child so that events on children map back to their workload (value: the workload's name).
inline constexpr const char* kWorkloadLabel = "codeflare.dev/workload";
/// The field manager of every write, as server-side apply records it.
inline constexpr const char* kFieldManager = "codeflare-operator";

/// Lookup of a cached object by key ("namespace/name"); nullptr when absent.
using CacheLookup = std::function<std::shared_ptr<const json::Document>(const std::string& key)>;

/// Settings of the controller, filled in once from flags.
struct WorkloadControllerOptions {
  std::string field_manager = kFieldManager;
  /// Kueue LocalQueue API version served by the cluster ("v1beta2" or "v1beta1"); empty when Kueue is absent.
  std::string kueue_version;
  validation::ClusterProfile profile;
};

/// Reconciles one CodeFlareWorkload key. Thread-safe: the work queue never hands the same key to two workers.
class WorkloadController {
 public:
  WorkloadController(client::RestClient& client, std::shared_ptr<const validation::SchemaSet> schemas,
                     runtime::EventRecorder& events, CacheLookup workloads, CacheLookup ray_clusters,
                     CacheLookup app_wrappers, WorkloadControllerOptions opts);

  /// One reconcile of "namespace/name": a missing workload is done (its children go with it through owner
  /// references); an invalid one gets Valid=False and a Warning event and nothing is written to its children.
  /// A child that exists under the same name but is not controlled by this workload is never taken over: Ready=False
  /// with reason ChildConflict, a Warning event, and a re-check every 30 s. When spec.appWrapper changes, the child of
  /// the other kind (RayCluster or AppWrapper) that this workload controls is deleted.
  runtime::ReconcileResult reconcile(const std::string& key);

 private:
  std::optional<std::string> default_local_queue(const std::string& ns, std::string& error);
  std::string foreign_owner(const client::ResourceType& type, const std::string& ns, const std::string& name,
                            const std::string& uid);

  client::RestClient& client_;
  std::shared_ptr<const validation::SchemaSet> schemas_;
  runtime::EventRecorder& events_;
  CacheLookup workloads_, ray_clusters_, app_wrappers_;
  WorkloadControllerOptions opts_;
};

}  // namespace cfo::cmd
