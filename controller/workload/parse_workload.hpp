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
/// reported at `metadata.name` (see check_workload). Then applies the defaults of sdk_defaults.hpp. Never throws
/// on bad input.
ParsedWorkload parse_workload(const json::Value& obj);

}  // namespace cfo::workload
