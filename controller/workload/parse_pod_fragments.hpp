#pragma once
// Reading the core/v1 pieces a CodeFlareWorkload passes through to its pods: env, volumes, volumeMounts,
// tolerations and imagePullSecrets. Each reader checks shapes and the rules whose failure would otherwise only show
// up in the generated object (list-map key uniqueness) or late, when KubeRay creates the pods.
#include <string>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/fragment.hpp"
#include "workload/pod_types.hpp"

namespace cfo::workload {

/// spec.env: a list of {name, value | valueFrom}. Names must be non-empty and unique (RayCluster list-map key);
/// `value` and `valueFrom` are exclusive (core/v1 validateEnv).
std::vector<EnvVar> parse_env(const json::Value& v, const std::string& path, FieldErrors& errs);

/// spec.volumes: a list of core/v1 Volumes, kept as given. Each needs a `name` that is a DNS-1123 label and unique.
std::vector<Fragment> parse_volumes(const json::Value& v, const std::string& path, FieldErrors& errs);

/// spec.volumeMounts: a list of core/v1 VolumeMounts (name, mountPath, readOnly, subPath, subPathExpr,
/// mountPropagation, recursiveReadOnly). `mountPath` must be unique (RayCluster list-map key) and `name` must be
/// one of `volume_names` (core/v1 validateVolumeMounts; the pods would fail late otherwise).
std::vector<Fragment> parse_volume_mounts(const json::Value& v, const std::string& path,
                                          const std::vector<std::string>& volume_names, FieldErrors& errs);

/// A tolerations list of core/v1 Tolerations (key, operator, value, effect, tolerationSeconds); operator and effect
/// must be among their core/v1 values.
std::vector<Fragment> parse_tolerations(const json::Value& v, const std::string& path, FieldErrors& errs);

/// spec.imagePullSecrets: a list of {name}; returns the names. Names must be non-empty.
std::vector<std::string> parse_image_pull_secrets(const json::Value& v, const std::string& path, FieldErrors& errs);

/// The `name` member of each volume fragment.
std::vector<std::string> volume_names(const std::vector<Fragment>& volumes);

}  // namespace cfo::workload
