#pragma once
// Reading the extra `ray start` parameters of spec.head.rayStartParams and spec.workerGroups[i].rayStartParams.
#include <map>
#include <string>
#include <string_view>

#include "core/field_error.hpp"
#include "core/json.hpp"

namespace cfo::workload {

/// Which Ray node a rayStartParams map is for: the head gets dashboard-host on top of the workers' derived keys.
enum class RayNodeKind { Head, Worker };

/// True for a rayStartParams key the operator derives for `kind` (codeflare-sdk build_ray_cluster.py): head block,
/// dashboard-host, num-cpus, num-gpus, resources; workers block, num-cpus, num-gpus, resources.
bool is_derived_ray_start_param(std::string_view key, RayNodeKind kind);

/// The field path of one rayStartParams key: always `<params_path>[<key>]` (e.g. spec.head.rayStartParams[num-cpus]),
/// since the keys are option names rather than fields.
std::string ray_start_param_path(const std::string& params_path, std::string_view key);

/// Reads a rayStartParams map (`v` at `path`, e.g. "spec.head.rayStartParams"), to be merged with the derived keys.
/// Values must be strings (KubeRay map[string]string; `schema:type`). Findings at ray_start_param_path(path, key):
///  - `RayStartParamReserved`: a key the operator derives (is_derived_ray_start_param);
///  - `RayStartParamsLabels`: the key `labels`, which KubeRay refuses (validateRayGroupLabels);
///  - `RayStartParamKey`: a key that is not a `ray start` option name (letters, digits, '-' and '_', starting with a
///    letter or digit), since KubeRay writes each key into the start command as --<key>=<value>.
/// Entries with an Error are left out of the result.
std::map<std::string, std::string> parse_ray_start_params(const json::Value& v, const std::string& path,
                                                          RayNodeKind kind, FieldErrors& errs);

}  // namespace cfo::workload
