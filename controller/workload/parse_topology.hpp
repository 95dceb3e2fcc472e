#pragma once
// Reading a `topology` field (spec.head.topology, spec.workerGroups[i].topology, spec.job.submitter.topology): Kueue's
// topology-aware scheduling request for one PodSet, written as the kueue.x-k8s.io/podset-* annotations of its template.
#include <cstdint>
#include <string>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// Reads `v` at `path`: required, preferred, sliceRequired (node label names), unconstrained (bool), sliceSize
/// (int32), podSetGroup (string). Kueue's rules for the annotations (v0.19.2 jobframework/tas_validation.go
/// ValidateTASPodSetRequest), each an Error at the member:
///  - at most one of required, preferred and unconstrained (`TopologyRequestOne`);
///  - required, preferred and sliceRequired are label names, i.e. qualified names (`TopologyLevel`);
///  - sliceRequired needs sliceSize and sliceSize needs sliceRequired (`TopologySlice`); sliceSize >= 1
///    (`schema:minimum`);
///  - podSetGroup is not a number, needs required or preferred, and excludes sliceRequired and sliceSize
///    (`TopologyPodSetGroup`);
///  - unknown members (`schema:unknownField`).
TopologyRequest parse_topology(const json::Value& v, const std::string& path, FieldErrors& errs);

/// Kueue ValidateSliceSizeAnnotationUpperBound: a sliceSize above the PodSet's Pod count `pods` is an Error
/// `TopologySlice` at `path`.sliceSize.
void check_topology_pod_count(const TopologyRequest& t, int64_t pods, const std::string& path, FieldErrors& errs);

}  // namespace cfo::workload
