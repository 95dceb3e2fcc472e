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
/// false with clusterSelector or deletionRules), or std::nullopt when `job` is not an object (reported as
/// `schema:type`). Also read: submissionMode, backoffLimit, submitter (template, topology, backoffLimit),
/// deletionRules, preRunningDeadlineSeconds, entrypointNumCpus / NumGpus / Resources, metadata and jobId (KubeRay
/// v1.7.0 rayjob_types.go); the rules KubeRay applies to them on the RayJob (validateDeletionRules' order and
/// duplicates, InteractiveMode without retries, SidecarMode's head restartPolicy, clusterSelector without retries)
/// are judged on the generated RayJob and reported at these fields.
///
/// Every problem is an Error finding with its own path and rule id:
///   entrypoint empty                                    spec.job.entrypoint              schema:minLength
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
///   submitter with submissionMode other than K8sJobMode spec.job.submitter               SubmitterMode
///   submitter.template without the submitter's image    spec.job.submitter.template      SubmitterImage
///     (with clusterSelector)
///   submitter restartPolicy Always (its own template or spec.template.spec.restartPolicy / SubmitterRestartPolicy
///     spec.template's; the submitter is a Job)           spec.job.submitter.template.spec.restartPolicy
///   shutdownAfterJobFinishes: true with deletionRules   spec.job.shutdownAfterJobFinishes DeletionRulesShutdown
///   a deletion rule's condition without exactly one of  spec.job.deletionRules[i].condition DeletionCondition
///     jobStatus and jobDeploymentStatus
///   entrypoint missing outside InteractiveMode          spec.job.entrypoint              schema:required
///   unknown fields                                      spec.job.<field>                 schema:unknownField
/// The rules that depend on the queue in effect (Kueue's RayJob webhook: shutdownAfterJobFinishes, MaxPodSets with
/// the submitter, the "submitter" group name, a queue with clusterSelector) are reconcile's, not checked here.
std::optional<JobSpec> parse_job(const json::Value& job, const json::Value& spec, const std::string& path,
                                 FieldErrors& errs);

}  // namespace cfo::workload
