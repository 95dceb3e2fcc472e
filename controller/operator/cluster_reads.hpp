#pragma once
// What the CodeFlareWorkload controller asks the apiserver before a reconcile: the Kueue objects a workload names
// (LocalQueue, default LocalQueue, WorkloadPriorityClass) and Kueue's Workload for a queued child. Everything here
// only reads; an object Kueue does not serve, or that the operator may not read (404 of the API, 403), reads as
// unknown rather than as an error, as the CodeFlare SDK's checks do.
#include <atomic>
#include <optional>
#include <string>

#include "client/rest_client.hpp"
#include "core/error.hpp"
#include "workload/reconcile.hpp"

namespace cfo::cmd {

/// Reads Kueue objects for reconciles. `kueue_version` is the served Kueue API version ("v1beta2", "v1beta1"), or
/// empty when Kueue is not installed (then every read answers "unknown" without a request).
class KueueReader {
 public:
  KueueReader(client::RestClient& client, std::string kueue_version);

  /// Fills facts.default_local_queue (when the spec names no LocalQueue), facts.local_queue(_presence) and
  /// facts.priority_class_presence for a workload object, and facts.kueue_version. `local_queue` receives the
  /// LocalQueue object read (facts.local_queue points into it). Errors other than 403/404 are returned (the
  /// reconcile is retried).
  Result<void> fill(const json::Value& workload, workload::ClusterFacts& facts, json::Document& local_queue);

  /// The Kueue Workload that Kueue created for the child with this uid (label kueue.x-k8s.io/job-uid), or an empty
  /// document (null) when there is none or it cannot be read.
  json::Document workload_of(const std::string& ns, const std::string& child_uid);

  const std::string& version() const { return version_; }

 private:
  client::ResourceType type(const char* plural, bool namespaced) const;
  /// Logs, once per resource for the life of the reader, that a 403 made a check best-effort (a missing RBAC rule).
  void warn_forbidden(std::atomic<bool>& warned, const std::string& what);

  client::RestClient& client_;
  std::string version_;
  std::atomic<bool> warned_local_queues_{false}, warned_priority_classes_{false}, warned_workloads_{false};
};

}  // namespace cfo::cmd
