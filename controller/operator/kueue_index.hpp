#pragma once
// Kueue's Workloads by the uid of the job they stand for (label kueue.x-k8s.io/job-uid), kept from an informer's
// events, so that a reconcile finds its child's admission without a request or a scan.
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/informer.hpp"

namespace cfo::op {

/// Label Kueue puts on a Workload: the uid of the job (RayCluster, RayJob, AppWrapper) it admits.
inline constexpr const char* kKueueJobUidLabel = "kueue.x-k8s.io/job-uid";

/// An index of Kueue Workloads by job uid. Thread-safe.
class KueueWorkloadIndex {
 public:
  /// Keeps the index current from `informer`'s events (register before it starts).
  void follow(runtime::Informer& informer);
  /// The Workload for the job with this uid, or nullptr.
  runtime::ObjectPtr get(const std::string& job_uid) const;
  std::size_t size() const;

 private:
  void put(const runtime::ObjectPtr& wl);
  void drop(const runtime::ObjectPtr& wl);

  mutable std::mutex mu_;
  std::unordered_map<std::string, runtime::ObjectPtr> by_job_uid_;
};

/// What a cached Kueue Workload keeps: its name, namespace, uid, the job-uid label and owner references (to find
/// the job), and of its status the admitting ClusterQueue and the conditions' type, status, reason and message. The
/// PodSets and their templates, most of the object, are dropped.
void kueue_workload_transform(json::Document& wl);

/// What a cached LocalQueue keeps: metadata (name, namespace, uid, resourceVersion, the label
/// app.kubernetes.io/managed-by and the annotation kueue.x-k8s.io/default-queue, the only ones read) and
/// spec.clusterQueue.
void local_queue_transform(json::Document& lq);

/// What a cached ClusterQueue keeps for the admissibility judgement: its name and generation, and of its spec the
/// namespaceSelector, resourceGroups and cohort (cohortName, or v1beta1 cohort).
void cluster_queue_transform(json::Document& cq);

/// What a cached ResourceFlavor keeps for the admissibility judgement: its name, generation, nodeLabels, nodeTaints,
/// tolerations and topologyName.
void resource_flavor_transform(json::Document& rf);

/// What a cached WorkloadPriorityClass keeps: its name and value.
void priority_class_transform(json::Document& pc);

/// What a cached child (RayCluster, AppWrapper, RayJob) keeps: the whole object less metadata.managedFields when it
/// carries the codeflare.dev/workload label; otherwise (someone else's object) only the name, namespace, uid and
/// owner references, which is all the conflict check reads.
void child_transform(json::Document& child);

}  // namespace cfo::op
