#pragma once
// Reading and checking one `resources` block ({requests, limits}) of a CodeFlareWorkload.
#include <optional>
#include <string>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "core/quantity.hpp"
#include "workload/pod_types.hpp"
#include "workload/resource_mapping.hpp"

namespace cfo::workload {

/// A quantity from JSON as the CRD's int-or-string allows: an integer (text = its decimal form) or a string in the
/// Kubernetes quantity grammar. Errors at `path`: `schema:type` (other JSON types), `Quantity` (text that does not
/// parse), `NonNegativeQuantity` (below zero).
std::optional<Quantity> parse_quantity_value(const json::Value& v, const std::string& path, FieldErrors& errs);

/// Reads `resources` at `path` (e.g. "spec.workerGroups[0].resources") into requirements as the user wrote them
/// (defaults are applied later, see apply_resource_defaults). `mapping` is the workload's extended-resource mapping
/// (WorkloadSpec::resource_mapping, read from spec.extendedResourceMapping before any resources); an empty mapping
/// admits no extended resource at all (the autoscaler container). Checks, each with its finding at the offending key
/// (`spec.head.resources.limits[nvidia.com/gpu]`):
///  - unknown members besides requests/limits (`schema:unknownField`), bad or negative quantities;
///  - resource names other than cpu, memory, ephemeral-storage must be in `mapping` (`ExtendedResourceMapping`,
///    codeflare-sdk ClusterConfiguration extended-resource key validation against the combined mapping);
///  - extended resources must be whole numbers (`ExtendedResourceInteger`) and, when both are given, requests must
///    equal limits (`ExtendedResourceRequestsEqualLimits`), as core/v1 ValidateResourceRequirements requires;
///  - for a name given on both sides, requests <= limits (`RequestsWithinLimits`, core/v1).
ResourceRequirements parse_resources(const json::Value& v, const std::string& path,
                                     const std::vector<ResourceMapping>& mapping, FieldErrors& errs);

}  // namespace cfo::workload
