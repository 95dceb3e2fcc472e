#pragma once
// CodeFlareWorkload with spec.job -> KubeRay RayJob (codeflare-sdk ray/rayjobs/rayjob.py), on a new cluster built like
// build_ray_cluster_spec or on an existing one.
#include <map>
#include <string>

#include "workload/rayjob_types.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// Builds the RayJob of a parsed, valid workload whose spec.job is set (a workload without spec.job gets a job with
/// an empty entrypoint on a new cluster, which the RayJob validation then refuses). The RayJob is always the
/// top-level child: Kueue queues it directly, never inside an AppWrapper.
///
/// Metadata: name and namespace of the workload; labels = child_labels(w), then spec.labels, then `kueue_labels`
/// (kueue_labels(): queue-name and priority-class); annotations = spec.annotations, plus
/// kueue.x-k8s.io/elastic-job: "true" when spec.autoscaling.elasticJob; the controller owner reference to the
/// workload (set_workload_owner: none for an offline render without uid).
///
/// Spec: entrypoint, runtimeEnvYAML, shutdownAfterJobFinishes, ttlSecondsAfterFinished and activeDeadlineSeconds from
/// spec.job (parse_job has applied the defaults); spec.rayClusterSpec = build_ray_cluster_spec(w) when
/// spec.job.clusterSelector is empty, else spec.clusterSelector; spec.suspend = spec.suspend (only written when true,
/// see RayJob::to_json). Written only when set: backoffLimit, submissionMode, preRunningDeadlineSeconds,
/// entrypointNumCpus / NumGpus, entrypointResources (as JSON text), metadata, jobId, deletionStrategy.deletionRules,
/// submitterConfig.backoffLimit, managedBy (kueue.x-k8s.io/multikueue with spec.queue.multiKueue), and
/// submitterPodTemplate: KubeRay's default submitter Pod (container ray-job-submitter with the head's image,
/// 500m / 200Mi requested, 1 / 1Gi limits; restartPolicy Never) with the submitter's topology annotations and
/// spec.template and spec.job.submitter.template merged over it, in K8sJobMode only and only when one of those is
/// given.
RayJob build_ray_job(const Workload& w, const std::map<std::string, std::string>& kueue_labels);

}  // namespace cfo::workload
