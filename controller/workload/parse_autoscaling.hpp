#pragma once
// Reading spec.autoscaling of a CodeFlareWorkload and deciding each worker group's replica bounds from it
// (codeflare-sdk ClusterConfiguration enable_autoscaling / min_workers / max_workers, _validate_autoscaling).
#include <cstdint>
#include <optional>
#include <string>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// Reads spec.autoscaling (`v` at `path`): enabled (default false), idleTimeoutSeconds (seconds, 0..2^31-1, default
/// 60), upscalingMode (Default | Aggressive | Conservative, default Default), resources of the autoscaler container
/// (cpu, memory, ephemeral-storage only; defaults are filled in later by apply_resource_defaults with
/// SdkDefaults::autoscaler) and elasticJob (default false). Findings:
///  - `schema:type`, `schema:minimum`, `schema:enum`, `schema:unknownField` at the member;
///  - Warning `ElasticJobWithoutAutoscaling` at `<path>.elasticJob` when elasticJob is true but enabled is not (the
///    annotation is then not set: an elastic job matters only to a cluster that scales);
///  - Warning `AutoscalingSettingsIgnored` at idleTimeoutSeconds / upscalingMode / resources / version / image when
///    given while enabled
///    is false (they are written to autoscalerOptions, where no autoscaler reads them).
AutoscalingSpec parse_autoscaling(const json::Value& v, const std::string& path, FieldErrors& errs);

/// The replica counts of one spec.workerGroups entry as written; absent members are std::nullopt.
struct ReplicaCounts {
  std::optional<int64_t> replicas;
  std::optional<int64_t> min_replicas;
  std::optional<int64_t> max_replicas;
};

/// Sets g.replicas, g.min_replicas and g.max_replicas of the group at `path` ("spec.workerGroups[i]") from `given`.
///  - Autoscaling on (codeflare-sdk: replicas = minReplicas = min_workers, maxReplicas = max_workers): minReplicas and
///    maxReplicas are required (Error `AutoscalingReplicaBounds` at `path`); replicas defaults to minReplicas; then
///    minReplicas <= maxReplicas and minReplicas <= replicas <= maxReplicas (Error `ReplicasWithinBounds` at the
///    bound that is broken; KubeRay clamps replicas into the bounds, Kueue counts replicas unclamped).
///  - Autoscaling off (codeflare-sdk: all three are num_workers): replicas defaults to 1 and both bounds equal
///    replicas; a minReplicas or maxReplicas other than replicas is a Warning `ReplicaBoundsIgnored` at that member
///    (the SDK warns that min/max workers are ignored without autoscaling).
void resolve_replicas(const ReplicaCounts& given, bool autoscaling, const std::string& path, WorkerGroup& g,
                      FieldErrors& errs);

}  // namespace cfo::workload
