#pragma once
// Reading spec.extendedResourceMapping and spec.overwriteDefaultResourceMapping of a CodeFlareWorkload: the
// extended-resource mapping a workload uses, codeflare-sdk ClusterConfiguration._combine_extended_resource_mapping.
#include <string>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/resource_mapping.hpp"

namespace cfo::workload {

/// The mapping in force for a workload: default_resource_mapping() in its order (an overwritten default keeps its
/// place and takes the user's Ray name), then the user's new keys in the order written. `v` is the value of
/// spec.extendedResourceMapping at `path` (normally "spec.extendedResourceMapping"); `overwrite_defaults` is
/// spec.overwriteDefaultResourceMapping. Findings, each at `<path>[<key>]`:
///  - `schema:type` when `v` is not an object or a value is not a string, `schema:minLength` for an empty value;
///  - `ExtendedResourceName`: the key is not an extended resource name as core/v1 IsExtendedResourceName defines it
///    (a qualified name with a domain prefix, outside kubernetes.io, not starting with "requests.");
///  - `RayResourceName`: the Ray name has a space, a quote, a backslash or a character outside printable ASCII (it
///    is written unescaped into the rayStartParams `resources` JSON string);
///  - `OverwriteDefaultResourceMapping`: the key is a default mapped to another Ray name. An Error unless
///    `overwrite_defaults`, then a Warning (the SDK raises ValueError, or warns when overwriting is allowed);
///  - `RayResourceNameReserved` (Warning): the Ray name is CPU or memory, which Ray never receives as a custom
///    resource (codeflare-sdk FORBIDDEN_CUSTOM_RESOURCE_TYPES), so the resource reaches the pod but not Ray. (GPU is
///    in that list too, but a resource mapped to GPU is counted in num-gpus, as the defaults are.)
/// Entries with an Error are left out of the result. Never throws.
std::vector<ResourceMapping> parse_resource_mapping(const json::Value& v, const std::string& path,
                                                    bool overwrite_defaults, FieldErrors& errs);

}  // namespace cfo::workload
