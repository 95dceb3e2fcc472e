#pragma once
// Cross-field rules of a CodeFlareWorkload spec: what a user passes through (env, annotations, volumes,
// volumeMounts, rayStartParams) must not collide with what the operator generates from the typed fields, nor with
// what KubeRay refuses next to them. Findings name the offending entry of the spec as written.
#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// Runs after every field of the spec is read. `spec` is the raw spec object (for exact list indices: the parsed
/// lists skip malformed entries); `s` is the parsed spec before defaults. Errors:
///  - `spec.env[i].name` (and the same in spec.head.env and spec.workerGroups[i].env):
///    - RAY_USAGE_STATS_ENABLED (`ReservedEnvVar`; the operator sets it from spec.usageStats);
///    - with spec.gcsFaultTolerance: RAY_REDIS_ADDRESS, REDIS_PASSWORD (`GcsFTForbiddenSetting`);
///    - without it (and without annotation ray.io/ft-enabled: "true"): RAY_REDIS_ADDRESS (`RedisAddressNeedsGcsFT`);
///    - REDIS_USERNAME (`RedisUsername`: KubeRay takes the user name only from gcsFaultToleranceOptions);
///  - `spec.annotations[<key>]` with spec.gcsFaultTolerance: ray.io/ft-enabled (`GcsFTAnnotationConflict`) and
///    ray.io/external-storage-namespace (`GcsFTForbiddenSetting`);
///  - `spec.head.rayStartParams[redis-username]` (`RedisUsername`) and, with spec.gcsFaultTolerance,
///    `spec.head.rayStartParams[redis-password]` (`GcsFTForbiddenSetting`);
///  - with spec.odhTrustedCABundle: a volume named odh-trusted-ca-cert or odh-ca-cert at `spec.volumes[i].name`
///    (`ReservedVolumeName`) and a mount at one of the four bundle paths at `spec.volumeMounts[i].mountPath`
///    (`ReservedMountPath`);
///  - `spec.autoscaling.elasticJob` true with autoscaling on and spec.appWrapper (`ElasticJobInAppWrapper`: Kueue
///    accepts the annotation only on RayCluster, RayJob and Job, and the AppWrapper is the object Kueue admits);
///  - `spec.workerGroups` absent or empty with autoscaling on (`AutoscalingReplicaBounds`: the generated default
///    group has no bounds to scale between).
/// The KubeRay rules are those of ValidateRayClusterSpec (validation-rules.md §1.3), checked here so that the
/// finding points at the spec rather than at the generated RayCluster.
void check_spec_conflicts(const json::Value& spec, const WorkloadSpec& s, FieldErrors& errs);

}  // namespace cfo::workload
