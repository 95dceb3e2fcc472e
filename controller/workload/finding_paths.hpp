#pragma once
// Findings on the generated objects, told in the user's terms: a rule broken by a field the user wrote in the
// CodeFlareWorkload names that field (spec.env[0].name), once, not the place in each generated container it was
// copied to (RayCluster/demo: spec.workerGroupSpecs[1].template.spec.containers[0].env[0].name).
#include <optional>
#include <string>
#include <string_view>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/strategic_merge.hpp"

namespace cfo::workload {

/// The field of `workload` (the CodeFlareWorkload as written) that the field `child_path` of a generated object of
/// `kind` (RayCluster, AppWrapper, RayJob) was copied from, or std::nullopt when that field is the operator's own
/// (derived, defaulted, or not written by the user). `child_path` is relative to the generated object
/// ("spec.headGroupSpec.template.spec.containers[0].env[2].value"). Mapped: a group's Ray container env, volumeMounts,
/// resources and image, the Pod's volumes, tolerations and imagePullSecrets, a group's rayStartParams, name, replica
/// counts, serviceType, enableIngress, ingressOptions, suspend and idleTimeoutSeconds, labels and annotations, the
/// Kueue queue-name and priority-class labels (spec.queue.localQueue, or clusterQueue for a managed LocalQueue named
/// after it, and spec.queue.priorityClass), the cluster's rayVersion, autoscaler settings, authOptions, upgradeStrategy
/// and managedBy (spec.queue.multiKueue), the worker group list itself (spec.workerGroups), and a RayJob's own fields
/// (spec.job.*). A candidate counts when that field exists in `workload`, or when it is a field of a group that the
/// user did not write but should: a resource missing from the `resources` the user wrote
/// (`resources.limits[nvidia.com/gpu]`), the `tolerations` a flavor's taint needs, a `replicas` (or min/max) left to
/// its default; the worker group itself must be written. Values copied from a group's plain Pod fields or a template
/// are mapped through their recorded origins (origin_path_of).
std::optional<std::string> spec_path_of(std::string_view kind, std::string_view child_path,
                                        const json::Value& workload);

/// The workload field a finding at `child_path` comes from according to `origins` (what the builder and the template
/// merges recorded): the origin with the longest `child` that is `child_path` or one of its parents, its `child`
/// replaced by its `source` ("...containers[1].image" under origin {"...containers[1]", "spec.head.template.spec.
/// containers[0]"} -> "spec.head.template.spec.containers[0].image"); std::nullopt when none covers it.
std::optional<std::string> origin_path_of(const PathOrigins& origins, std::string_view child_path);

/// Adds the findings on one generated object (`found`, paths relative to it) to `errs`: each one that origin_path_of
/// (with `origins`, the object's recorded origins) or else spec_path_of maps is reported at the user's field, once (a
/// finding with the same path, rule and severity already in `errs` is not repeated, e.g. an env var copied into
/// every container, nor one whose rule reports a fault a workload rule at that path already reported: MaxPodSets
/// after KueueMaxPodSets); the others keep the object's path, prefixed with `label` ("RayCluster/demo: ...").
void add_child_findings(FieldErrors found, std::string_view kind, const std::string& label, const json::Value& workload,
                        FieldErrors& errs, const PathOrigins& origins = {});

}  // namespace cfo::workload
