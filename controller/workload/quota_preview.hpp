#pragma once
// The quota preview: what Kueue will charge for a workload, PodSet by PodSet, read from the top-level child the
// operator generates (the same object Kueue reads when it creates the Workload).
#include <cstdint>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/quantity.hpp"

namespace cfo::workload {

/// One PodSet as Kueue builds it: its name, its Pod count and the requests of one Pod.
struct PodSetQuota {
  std::string name;
  int32_t count = 0;
  /// Resource name -> quantity per Pod, in the order the resources first appear.
  std::vector<std::pair<std::string, Quantity>> requests;
};

/// Every PodSet and the total per resource (each PodSet's requests times its count).
struct QuotaPreview {
  std::vector<PodSetQuota> pod_sets;
  /// Resource name -> the sum over PodSets of requests x count, as quantity text: exact however large (beyond what a
  /// Quantity holds, a decimal quantity with the largest suffix up to E that its digits allow).
  std::vector<std::pair<std::string, std::string>> total;

  bool empty() const { return pod_sets.empty(); }
  /// status.podSets: [{name, count, requests: {resource: "quantity"}}].
  json::Value pod_sets_json(json::Allocator& a) const;
  /// status.totalRequests: {resource: "quantity"}.
  json::Value total_json(json::Allocator& a) const;
};

/// QuotaPreview::total of `pod_sets`, resources in first-seen order. A resource with a negative request is left out
/// when its total leaves a Quantity's range (the negative request is an error of its own).
std::vector<std::pair<std::string, std::string>> totals(const std::vector<PodSetQuota>& pod_sets);

/// The PodSets Kueue makes of `child` (a RayCluster, RayJob or AppWrapper as generated), following Kueue v0.19.2:
///  - RayCluster and a RayJob's rayClusterSpec (jobs/raycluster/common.go BuildPodSets): "head" (1 Pod; with
///    enableInTreeAutoscaling the autoscaler sidecar is added with autoscalerOptions.resources, else 500m / 512Mi;
///    with GCS fault tolerance the Ray container's requests are raised to at least 200m cpu and 256Mi memory for
///    KubeRay's Redis cleanup Job), then one PodSet per worker group named after it in lower case, replicas x
///    numOfHosts Pods;
///  - RayJob (jobs/rayjob/rayjob_controller.go): in K8sJobMode also "submitter" (1 Pod, submitterPodTemplate or
///    KubeRay's default container, 500m / 200Mi requested); in SidecarMode the head gets the submitter container
///    with those requests; none with clusterSelector (not queued);
///  - AppWrapper (jobs/appwrapper): "<name>-<i>" per component PodSet as the AppWrapper controller infers it for a
///    RayCluster: the head (1) and each worker group (replicas).
/// The requests of one Pod are those Kueue computes (workload.UseLimitsAsMissingRequestsInPod, then
/// k8s.io/component-helpers resource.PodRequests): a container's limit stands in for a missing request; the regular
/// containers and the sidecar init containers (restartPolicy Always) add up, and an init container counts with the
/// sidecars started before it where that is more; pod-level requests (spec.resources) replace cpu and memory.
/// LimitRange defaults and RuntimeClass overhead, which Kueue also applies, need the cluster and are not included.
/// Quantities that do not parse are skipped (the validation of the child reports them). Never throws.
QuotaPreview quota_preview(const json::Value& child);

/// A quantity as text, exactly: a whole value as its digits, or with the shortest decimal (k ... E) or binary
/// (Ki ... Ei) suffix that leaves a mantissa below 10000 ("8G", "512Mi", "5209715200"); a fraction in milli (m) or
/// nano (n) units.
std::string quantity_text(const Quantity& q);

}  // namespace cfo::workload
