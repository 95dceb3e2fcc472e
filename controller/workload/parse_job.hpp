#pragma once
// Reading spec.job of a CodeFlareWorkload: the RayJob to run instead of a bare RayCluster.
#include <optional>
#include <string>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// Reads spec.job (`job`, at `path`, normally "spec.job") of the raw spec object `spec` (at the parent of `path`,
/// normally "spec"). Returns the job with its defaults applied (shutdownAfterJobFinishes: true on a new cluster,
/// false with clusterSelector), or std::nullopt when `job` is not an object (reported as `schema:type`).
///
/// Every problem is an Error finding with its own path and rule id:
///   entrypoint missing or empty                         spec.job.entrypoint              schema:required / minLength
///   runtimeEnvYAML not one YAML mapping                 spec.job.runtimeEnvYAML          RuntimeEnvYAML
///   ttlSecondsAfterFinished < 0                         spec.job.ttlSecondsAfterFinished schema:minimum
///   ttlSecondsAfterFinished > 0 without shutdown        spec.job.ttlSecondsAfterFinished TTLSecondsAfterFinished
///   activeDeadlineSeconds < 1                           spec.job.activeDeadlineSeconds   schema:minimum
///   clusterSelector without a RayCluster name under     spec.job.clusterSelector[ray.io/cluster]
///     ray.io/cluster                                                                     ClusterSelector
///   clusterSelector with a cluster-shaping spec field   spec.<field>                     ExistingClusterFields
///   clusterSelector with spec.suspend: true             spec.suspend                     ClusterSelectorSuspend
///   clusterSelector with shutdownAfterJobFinishes: true spec.job.shutdownAfterJobFinishes ClusterSelectorShutdown
///   spec.suspend: true without shutdown (new cluster)   spec.job.shutdownAfterJobFinishes SuspendNeedsShutdown
///   spec.appWrapper: true                               spec.appWrapper                  JobInAppWrapper
///   unknown fields                                      spec.job.<field>                 schema:unknownField
/// The rules that depend on the queue in effect (Kueue's RayJob webhook: shutdownAfterJobFinishes, MaxPodSets with
/// the submitter, the "submitter" group name, a queue with clusterSelector) are reconcile's, not checked here.
std::optional<JobSpec> parse_job(const json::Value& job, const json::Value& spec, const std::string& path,
                                 FieldErrors& errs);

}  // namespace cfo::workload
