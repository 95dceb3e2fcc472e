#pragma once
// The verdict on one object: schema first, then every rule set that a real cluster would apply to it.
#include <string>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "validation/schema_set.hpp"

namespace cfo::validation {

/// Facts about the target cluster that change which rules apply.
struct ClusterProfile {
  int kueue_max_pod_sets = 8;  ///< MaxPodSets of the installed Kueue: 8 (<= v0.17), 10 (v0.18), 18 (>= v0.19)
};

/// Validates one object of any kind we know (RayCluster, RayJob, AppWrapper, LocalQueue, WorkloadPriorityClass,
/// ClusterQueue, ResourceFlavor, ...): the CRD schema from `schemas`, the metadata grammars, and the rule sets
/// named after their upstream source (core/v1 Pod rules, KubeRay ValidateRayClusterSpec and webhook, AppWrapper
/// webhook, Kueue webhooks). An AppWrapper's components are validated as objects in their own right, with paths
/// under `spec.components[i].template`. Never throws; findings are in document order.
FieldErrors validate_object(const SchemaSet& schemas, const json::Value& obj, const ClusterProfile& profile = {});

}  // namespace cfo::validation
