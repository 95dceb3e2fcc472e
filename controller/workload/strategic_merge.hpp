#pragma once
// Kubernetes strategic merge of a user's Pod template fragment over a Pod template the operator generated, with a
// record of where each merged value came from (so that a finding on the generated object names the user's field).
#include <string>
#include <vector>

#include "core/json.hpp"

namespace cfo::workload {

/// A value of a generated object copied from a field of the workload: `child` is its path in the generated object
/// ("spec.headGroupSpec.template.spec.containers[1]"), `source` the workload field it came from
/// ("spec.head.template.spec.containers[0]"). Everything below `child` comes from below `source`.
struct PathOrigin {
  std::string child;
  std::string source;
};
using PathOrigins = std::vector<PathOrigin>;

/// Where merge_pod_template records origins: the path of `base` in the generated object, the path of `patch` in the
/// workload, and the list to append to.
struct MergeTrace {
  std::string base_path;
  std::string patch_path;
  PathOrigins* out = nullptr;
};

/// How merge_pod_template treats containers and where it records origins.
struct MergeOptions {
  /// Names of containers (in spec.containers) that a patch item changes where the base has them and never adds:
  /// a template for every Pod of a workload addresses the head's Ray container by its name without adding a
  /// container of that name to the workers' Pods.
  std::vector<std::string> existing_only;
  /// When set, every value taken from the patch is recorded.
  const MergeTrace* trace = nullptr;
};

/// Merges `patch` (a core/v1 PodTemplateSpec fragment) into `base` (a PodTemplateSpec) as a strategic-merge patch of
/// a PodTemplateSpec does (the patchStrategy / patchMergeKey facts of k8s.io/api core/v1 types.go and metav1
/// ObjectMeta):
///  - objects merge member by member; scalars and lists without a merge key are replaced;
///  - lists merged by key: containers, initContainers, ephemeralContainers, imagePullSecrets, schedulingGates
///    (name), volumes and resourceClaims (name; a merged item keeps only the members the patch item has,
///    `retainKeys`), hostAliases (ip), topologySpreadConstraints (topologyKey), and in a container ports
///    (containerPort), env (name), volumeMounts (mountPath), volumeDevices (devicePath): a patch item whose key
///    matches a base item is merged into it, the others are appended in the patch's order;
///  - metadata.finalizers is a set: missing strings are appended.
/// A patch value of another JSON type than the base value replaces it (the generated object's schema check then
/// reports it). Patch directives ($patch, $retainKeys, ...) are not supported: the CodeFlareWorkload schema has no
/// such fields. A spec.containers item named in `options.existing_only` that matches no base container is skipped.
/// With `options.trace`, every value taken from the patch is recorded as a PathOrigin (at the deepest level at which
/// it was copied). All allocations are in `a`, the allocator of `base`'s document. Never throws.
void merge_pod_template(json::Value& base, const json::Value& patch, json::Allocator& a,
                        const MergeOptions& options = {});

/// The merge key of the list `field` of a PodSpec ("containers" -> "name"), or "" when that list is replaced whole.
std::string pod_spec_merge_key(const std::string& field);

/// The merge key of the list `field` of a Container ("env" -> "name", "ports" -> "containerPort"), or "".
std::string container_merge_key(const std::string& field);

}  // namespace cfo::workload
