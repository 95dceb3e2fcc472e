#pragma once
// Reading spec.gcsFaultTolerance of a CodeFlareWorkload: GCS state in Redis (KubeRay gcsFaultToleranceOptions;
// codeflare-sdk ClusterConfiguration enable_gcs_ft, redis_address, redis_password_secret, external_storage_namespace).
#include <optional>
#include <string>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// Reads spec.gcsFaultTolerance (`v` at `path`): redisAddress (required, non-empty; host:port), redisPassword
/// {name, key} (optional; when given both are required and non-empty, as the SDK requires of
/// redis_password_secret), externalStorageNamespace (optional). Findings: `schema:type`, `schema:required`,
/// `schema:minLength`, `schema:unknownField` at the member. Returns std::nullopt when `v` is not an object or the
/// address is missing. The settings that KubeRay refuses next to these options (env vars, annotations,
/// rayStartParams) are checked by check_operator_owned.
std::optional<GcsFaultToleranceSpec> parse_gcs_fault_tolerance(const json::Value& v, const std::string& path,
                                                               FieldErrors& errs);

}  // namespace cfo::workload
