#pragma once
// JSON CodeFlareWorkload -> typed Workload, with strict checks. Nothing is generated from a workload whose parse
// reports an Error.
#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// The parsed workload and every finding about it. `workload` is complete (defaults applied) only when
/// `errors` holds no Error; otherwise it holds whatever could be read.
struct ParsedWorkload {
  Workload workload;
  FieldErrors errors;

  bool ok() const { return !has_errors(errors); }
};

/// Reads a CodeFlareWorkload object (metadata.name, namespace, uid, generation; spec). Unknown spec fields, wrong
/// types, bad quantities, duplicate or malformed names, replica bounds and resource rules are reported with paths
/// under `spec.` (`spec.workerGroups[0].resources.limits.memory`); name rules of the generated RayCluster are
/// reported at `metadata.name` (see check_workload). spec.extendedResourceMapping and spec.autoscaling are read
/// before the head and worker groups, whose resources and replica bounds depend on them. The rules of each part
/// live with its reader: parse_resource_mapping.hpp, parse_resources.hpp, parse_autoscaling.hpp,
/// parse_ray_start_params.hpp, parse_gcs_fault_tolerance.hpp, parse_pod_fragments.hpp, parse_label_maps.hpp, the Pod
/// fields of the head and each group (image, env, labels, annotations, template, topology) in parse_pod_fields.hpp,
/// parse_pod_template.hpp and parse_topology.hpp, the job in parse_job.hpp; here: the head's serviceType,
/// enableIngress and ingressOptions, a group's suspend and idleTimeoutSeconds, spec.template (every Pod; its Ray
/// containers are the head's and every group's), authOptions, upgradeStrategy and queue.multiKueue, and a topology
/// field next to a topology annotation of spec.annotations (`TopologyConflict`); cross-field rules in
/// check_spec_conflicts.hpp. User labels may not use the operator's keys (`ReservedLabel`, labels.hpp), nor user
/// annotations kueue.x-k8s.io/elastic-job (`ReservedAnnotation`; spec.autoscaling.elasticJob sets it). Then applies
/// the defaults of sdk_defaults.hpp (head, worker and autoscaler resources). Never throws on bad input.
ParsedWorkload parse_workload(const json::Value& obj);

}  // namespace cfo::workload
