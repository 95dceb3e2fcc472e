#pragma once
// Admissibility: can a queued workload ever be admitted by the LocalQueue it names? Judged from the
// LocalQueue -> ClusterQueue -> ResourceFlavor (and cohort) chain as Kueue's scheduler and flavor assigner judge it,
// with the cluster's usage left out: a workload that only has to wait for quota is admissible.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"

namespace cfo::validation {

/// The Kueue objects (and Namespaces) a workload's queue chain is read from: every object of these kinds the judge
/// may know of. Objects of other kinds, or null pointers, are ignored.
/// add() is the only way in, so the LocalQueues' index by name always covers them all.
class QueueObjects {
 public:
  /// False when Cohort objects may exist that are not listed (the controller does not read them): the capacity a
  /// ClusterQueue may borrow from its cohort is then taken as unbounded unless its borrowingLimit bounds it.
  bool cohorts_known = true;

  /// Sorts an object of any kind into the lists below (the objects must outlive this); others are ignored.
  void add(const json::Value* obj);

  const std::vector<const json::Value*>& local_queues() const { return local_queues_; }          ///< LocalQueue
  const std::vector<const json::Value*>& cluster_queues() const { return cluster_queues_; }      ///< ClusterQueue
  const std::vector<const json::Value*>& resource_flavors() const { return resource_flavors_; }  ///< ResourceFlavor
  const std::vector<const json::Value*>& cohorts() const { return cohorts_; }        ///< Cohort (hierarchical cohorts)
  const std::vector<const json::Value*>& namespaces() const { return namespaces_; }  ///< v1 Namespace (their labels)
  /// The LocalQueues named `name`, in any namespace, from an index (a lookup per job instead of a scan: sets of
  /// thousands of LocalQueues and jobs stay linear).
  std::vector<const json::Value*> local_queues_named(const std::string& name) const;

 private:
  std::vector<const json::Value*> local_queues_, cluster_queues_, resource_flavors_, cohorts_, namespaces_;
  std::unordered_multimap<std::string, const json::Value*> local_queues_by_name_;
};

/// Why `job` (a RayCluster, RayJob or AppWrapper with the kueue.x-k8s.io/queue-name label) can never be admitted by
/// its LocalQueue, judged against `queues`; empty when it can be admitted, when it is not queued, or when the chain
/// is not all known (a LocalQueue, ClusterQueue or ResourceFlavor that is not among `queues` is the business of the
/// reference checks, and a verdict that would need more than a bounded search is not given). Never throws.
///
/// Kueue v0.19.2 is followed: the job's PodSets as its integrations build them (head with the autoscaler sidecar and
/// the Redis clean-up requests where they apply, worker groups of replicas x numOfHosts Pods, the K8sJobMode
/// submitter, an AppWrapper's declared or inferred PodSets), each Pod's requests as PodRequests computes them
/// (limits standing in for missing requests), then:
///  - ValidateAdmissibility (pkg/workload/resources.go): the ClusterQueue's namespaceSelector must select the job's
///    namespace (an absent selector selects none; labels of a Namespace among `queues` are known, otherwise only
///    kubernetes.io/metadata.name is); error at the queue-name label;
///  - FindFlavorForPodSets: every resource a PodSet requests (non-zero) is covered by a resource group of the
///    ClusterQueue ("pods" is requested when covered); error at the request;
///  - CheckFlavorForPodSets: some flavor of the group has no NoSchedule/NoExecute taint the PodSet (with the
///    flavor's own tolerations) does not tolerate, and node labels its nodeSelector and required node affinity (on
///    the flavor's label keys) accept; error at the tolerations / nodeSelector / affinity;
///  - FitsResourceQuota: some assignment of such flavors to the PodSets keeps every flavor's total within the
///    ClusterQueue's maximum capacity (nominalQuota, plus what its cohort can lend within borrowingLimit:
///    potentialAvailable); error at the request (one Pod too large) or the replica count.
/// Paths are relative to `job`.
FieldErrors judge_admissibility(const json::Value& job, const QueueObjects& queues);

/// True when judge_admissibility can give `job` a verdict: it is queued and its LocalQueue, ClusterQueue and
/// ResourceFlavors are all among `queues`. False otherwise (the Admissible condition is then left out, not True).
bool admissibility_known(const json::Value& job, const QueueObjects& queues);

/// A link of a queue chain that is not among the QueueObjects: `kind` LocalQueue, ClusterQueue or ResourceFlavor,
/// its `name`, and the name of the object that names it (`of`: the LocalQueue of a ClusterQueue, the ClusterQueue of a
/// ResourceFlavor; empty for the LocalQueue, named by the job's queue-name label).
struct MissingQueueLink {
  std::string kind, name, of;
};

/// Why admissibility_known is false for `job` when `queues` holds every such object of the cluster: the first link of
/// its chain that is missing (Kueue then admits nothing: a LocalQueue of a missing ClusterQueue, or a ClusterQueue of a
/// missing ResourceFlavor, is inactive). nullopt when the chain is whole, the job is not queued, its LocalQueue names
/// no ClusterQueue, or several LocalQueues could be its own (a job without a namespace). Never throws.
std::optional<MissingQueueLink> missing_queue_link(const json::Value& job, const QueueObjects& queues);

}  // namespace cfo::validation
