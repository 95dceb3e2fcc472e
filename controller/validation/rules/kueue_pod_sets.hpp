#pragma once
// Internal to cfo_validation: the PodSets Kueue v0.19.2 builds for a queued job, with each Pod's requests in Kueue's
// units, for the admissibility judgement (kueue_admission_rules.cpp). Sources:
//   pkg/controller/jobs/raycluster/common.go  BuildPodSets (head + autoscaler sidecar + Redis clean-up, workers)
//   pkg/controller/jobs/rayjob/rayjob_controller.go  addSubmitterPodSet / getSubmitterTemplate (K8sJobMode),
//                                                     addSidecarSubmitterToHeadPodSet (SidecarMode)
//   pkg/controller/jobs/appwrapper + appwrapper pkg/utils GetComponentPodSpecs (declared or inferred PodSets)
//   pkg/workload/resources.go UseLimitsAsMissingRequestsInPod, pkg/workload/workload.go totalRequestsFromPodSets
//   (k8s component-helpers resource.PodRequests: containers, sidecar and regular init containers, pod-level
//   resources, overhead)
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/quantity.hpp"

namespace cfo::validation::rules {

/// What one Pod of a PodSet requests of one resource, and the field that asks for most of it.
struct PodSetRequest {
  int64_t amount = 0;  ///< Kueue units: milli-cores for cpu, whole units (bytes, devices) otherwise
  std::string path;    ///< e.g. "spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu"
};

/// One PodSet of a job's Kueue Workload.
struct KueuePodSet {
  std::string name;                   ///< "head", a worker group's name, "submitter", "<appwrapper>-<i>"
  std::string template_path;          ///< the PodTemplateSpec in the job; for the default submitter, the field
                                      ///< that brings it ("spec.submissionMode")
  const json::Value* spec = nullptr;  ///< that template's PodSpec (nullptr for the default submitter)
  int64_t count = 0;                  ///< Pods
  std::string count_path;             ///< the field that sets `count` ("spec.workerGroupSpecs[0].replicas"), or ""
  std::map<std::string, PodSetRequest> requests;  ///< per Pod, only resources with a non-zero amount
  /// The template's metadata (its annotations carry a topology request: kueue.x-k8s.io/podset-required-topology,
  /// -preferred-topology, -unconstrained-topology); nullptr when none.
  const json::Value* metadata = nullptr;
};

/// Kueue's value of a quantity of `resource` (resources.ResourceValue): milli for cpu, whole units rounded up else.
int64_t kueue_value(std::string_view resource, const Quantity& q);

/// The PodSets Kueue builds for `job` (a RayCluster, a RayJob, or an AppWrapper), in Kueue's order; empty for other
/// kinds or a job without the parts Kueue needs (the schema and webhook rules report those). Counts follow the
/// objects as the apiserver stores them (CRD defaults: a worker group without replicas has 0).
std::vector<KueuePodSet> kueue_pod_sets(const json::Value& job);

}  // namespace cfo::validation::rules
