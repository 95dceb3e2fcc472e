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

/// spec.image, after defaulting: the image of every Ray container. It must not be empty and must not begin or end
/// with whitespace (core/v1 validateContainers); rule `ContainerImage` at `path`.
void check_image(const std::string& image, const std::string& path, FieldErrors& errs);

/// spec.env: a list of {name, value | valueFrom}. Names must be non-empty and unique (RayCluster list-map key);
/// `value` and `valueFrom` are exclusive (core/v1 validateEnv). `valueFrom` names exactly one source among fieldRef,
/// resourceFieldRef, configMapKeyRef, secretKeyRef and fileKeyRef (`EnvValueFromOneSource`), and the source has
/// its required members (core/v1 validateEnvVarValueFrom): fieldRef.fieldPath among the downward API paths allowed
/// in env (`EnvFieldPath`), resourceFieldRef.resource among limits/requests of cpu, memory, ephemeral-storage and
/// hugepages (`EnvResourceFieldRef`), a key and a DNS-1123 subdomain name for configMapKeyRef and secretKeyRef,
/// key, path and volumeName for fileKeyRef.
std::vector<EnvVar> parse_env(const json::Value& v, const std::string& path, FieldErrors& errs);

/// spec.volumes: a list of core/v1 Volumes, kept as given. Each needs a `name` that is a DNS-1123 label and unique,
/// and exactly one volume source such as emptyDir or persistentVolumeClaim (`VolumeSource` at the volume's path;
/// core/v1 validateVolumeSource). Members that are neither `name` nor a core/v1 volume source are unknown fields.
std::vector<Fragment> parse_volumes(const json::Value& v, const std::string& path, FieldErrors& errs);

/// spec.volumeMounts: a list of core/v1 VolumeMounts (name, mountPath, readOnly, subPath, subPathExpr,
/// mountPropagation, recursiveReadOnly). `mountPath` must be unique (RayCluster list-map key) and `name` must be
/// one of `volume_names` (core/v1 validateVolumeMounts; the pods would fail late otherwise). `subPath` and
/// `subPathExpr` are relative paths without '..' elements (`LocalDescendingPath`, core/v1
/// validateLocalDescendingPath) and exclude each other (`SubPathExclusive` at subPathExpr).
std::vector<Fragment> parse_volume_mounts(const json::Value& v, const std::string& path,
                                          const std::vector<std::string>& volume_names, FieldErrors& errs);

/// A tolerations list of core/v1 Tolerations (key, operator, value, effect, tolerationSeconds), checked as core/v1
/// validateTolerations does: operator and effect among their core/v1 values; a non-empty `key` is a qualified name
/// (`TolerationKey`); an empty key needs operator Exists (`TolerationEmptyKey` at operator); with operator Exists
/// the value is empty, else it is a label value (`TolerationValue` at value); `tolerationSeconds` needs effect
/// NoExecute (`TolerationSeconds` at effect). NoExecute without tolerationSeconds is fine (tolerated forever).
std::vector<Fragment> parse_tolerations(const json::Value& v, const std::string& path, FieldErrors& errs);

/// spec.imagePullSecrets: a list of {name}; returns the names. Names must be non-empty.
std::vector<std::string> parse_image_pull_secrets(const json::Value& v, const std::string& path, FieldErrors& errs);

/// The `name` member of each volume fragment.
std::vector<std::string> volume_names(const std::vector<Fragment>& volumes);

}  // namespace cfo::workload
