#pragma once
// Checks of a parsed CodeFlareWorkload that look at the objects it will become rather than at one field: the
// RayCluster's name rules, AppWrapper PodSet limits, and warnings about likely mistakes.
#include "core/field_error.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// KubeRay MaxRayClusterNameLength (ray-operator utils/constant.go): 63 - len("-serve-svc").
inline constexpr std::size_t kMaxRayClusterNameLength = 53;
/// KubeRay MaxRayJobNameLength (ray-operator utils/constant.go): a RayJob name leaves room for the suffixes of the
/// cluster and submitter names derived from it.
inline constexpr std::size_t kMaxRayJobNameLength = 47;
/// AppWrapper webhook: at most 8 pod specs over all components, so 1 head + 7 worker groups.
inline constexpr std::size_t kAppWrapperMaxWorkerGroups = 7;

/// Runs on a workload with defaults applied. Errors:
///  - `metadata.name` not a DNS-1035 label (`DNS1035Label`) or longer than 53 (`MaxRayClusterNameLength`), both
///    KubeRay ValidateRayClusterMetadata, since the RayCluster takes the workload's name; with spec.job, longer than
///    47 (`MaxRayJobNameLength`, KubeRay ValidateRayJobMetadata);
///  - `spec.workerGroups` with more than 7 groups when spec.appWrapper is true (`AppWrapperMaxPodSets`, AppWrapper
///    webhook validateAppWrapperCreate);
/// Warnings:
///  - `spec.image` whose tag names another Ray version than spec.rayVersion (`RayVersionMatchesImage`,
///    codeflare-sdk validation.py ray version check), unless the codeflare.dev/ignore-checks annotation names it.
FieldErrors check_workload(const Workload& w);

/// The checks of the resources as the user wrote them, before the SDK's defaults fill the rest (a request that only
/// copies a limit is not the user's and is not reported again). Errors:
///  - a memory quantity under 1Mi written as a bare number, or any memory in milli-units ("4096m"), almost surely a
///    unit mistake (`MemoryUnits`; the SDK reads a bare number as gigabytes, Kubernetes as bytes), unless the
///    workload's codeflare.dev/ignore-checks annotation names MemoryUnits.
FieldErrors check_written_resources(const Workload& w);

}  // namespace cfo::workload
