#pragma once
// CodeFlareWorkload -> RayCluster, field by field as codeflare-sdk build_ray_cluster.py builds it (HEAD d5acd62),
// without the notebook-only NB_PREFIX annotation, and with the OpenDataHub CA-bundle volumes and mounts only when
// spec.odhTrustedCABundle asks for them.
#include <map>
#include <string>

#include "workload/raycluster_types.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// spec.managedBy of a top-level child that MultiKueue dispatches (RayCluster, RayJob and AppWrapper alike).
inline constexpr const char* kMultiKueueManager = "kueue.x-k8s.io/multikueue";

/// Where the RayCluster goes: as the top-level child (it then carries the Kueue labels, the elastic-job annotation,
/// spec.suspend and the owner reference to the workload), or as the template inside an AppWrapper (none of them:
/// the AppWrapper carries the labels, the suspension and the owner reference).
struct RayClusterPlacement {
  bool top_level = true;
  /// Kueue labels (kueue_labels()); only used when top_level.
  std::map<std::string, std::string> kueue_labels;
};

/// The owner reference every top-level child gets: {codeflare.dev/v1alpha1, CodeFlareWorkload, name, uid,
/// controller: true, blockOwnerDeletion: true}.
OwnerReference workload_owner_reference(const Workload& w);

/// Adds workload_owner_reference(w) to `meta` when the workload has a uid. An offline render has none (the object
/// was never stored), and the apiserver refuses owner references with an empty uid, so it gets no owner reference.
void set_workload_owner(ObjectMeta& meta, const Workload& w);

/// Labels of every child: codeflare.dev/workload=<name> (ours, so that children map back to their workload).
std::map<std::string, std::string> child_labels(const Workload& w);

/// Annotations of the object Kueue admits (the top-level RayCluster, or the RayJob): spec.annotations plus
/// kueue.x-k8s.io/elastic-job: "true" when spec.autoscaling has enabled and elasticJob (Kueue's elastic jobs, the
/// only way Kueue admits a cluster that scales). Never for an AppWrapper, which Kueue refuses as an elastic job.
std::map<std::string, std::string> admitted_object_annotations(const WorkloadSpec& s);

/// Builds the RayCluster of a parsed, valid workload. Metadata: name and namespace of the workload; labels
/// controller-tools.k8s.io "1.0", ray.io/cluster <name>, codeflare.dev/workload <name> and the user labels; when
/// top-level also the Kueue labels, the owner reference and the elastic-job annotation (admitted_object_annotations),
/// else the user annotations only. Spec: build_ray_cluster_spec, plus `suspend: true` when top-level and
/// spec.suspend is true (never written as false: Kueue owns the field).
RayCluster build_ray_cluster(const Workload& w, const RayClusterPlacement& placement);

/// The RayCluster spec of a parsed, valid workload (what build_ray_cluster puts under `spec`, without suspend; a
/// RayJob with a new cluster embeds it as spec.rayClusterSpec):
///  - rayVersion; enableInTreeAutoscaling = spec.autoscaling.enabled; autoscalerOptions always (upscalingMode,
///    idleTimeoutSeconds and resources from spec.autoscaling, whose defaults are the SDK's fixed values);
///  - headGroupSpec: serviceType (ClusterIP unless spec.head.serviceType), enableIngress (false unless
///    spec.head.enableIngress) and ingressOptions, rayStartParams = the user's extras + dashboard-host
///    0.0.0.0, block "true", num-cpus (from the cpu limit), num-gpus and resources (from the extended resources
///    through spec's resource mapping); one ray-head container with ports gcs 6379, dashboard 8265, client 10001
///    and metrics 8080;
///  - one workerGroupSpec per spec.workerGroups entry (replicas and bounds as parsed, suspend and idleTimeoutSeconds
///    when set; rayStartParams as the head's without dashboard-host; one machine-learning container without ports);
///  - every Ray container: image (the group's `image`, else spec.image), imagePullPolicy Always, preStop `ray stop`,
///    the resources, env = spec.env with the group's env merged by name, then RAY_USAGE_STATS_ENABLED ("1" or "0"
///    from spec.usageStats), mounts = spec.volumeMounts then the four ODH CA mounts with spec.odhTrustedCABundle;
///    every pod: spec.volumes then the two ODH CA volumes (same condition), tolerations, imagePullSecrets, the
///    group's labels, and spec.annotations, the group's annotations and its topology annotations on the template;
///    then spec.template and the group's template merged over it (add_template_overlays);
///  - autoscalerOptions.version and .image, authOptions and upgradeStrategy when set;
///  - gcsFaultToleranceOptions from spec.gcsFaultTolerance (redisAddress; redisPassword as valueFrom.secretKeyRef;
///    externalStorageNamespace when set).
RayClusterSpec build_ray_cluster_spec(const Workload& w);

/// Adds to `t` the templates merged over a generated Pod template, in order: spec.template (for every Pod; it changes
/// the operator's containers ray-head, machine-learning and ray-job-submitter only where the Pod has them), then
/// `own` (the group's or the submitter's template, at `own_path` in the workload).
void add_template_overlays(const WorkloadSpec& s, const std::optional<Fragment>& own, const std::string& own_path,
                           PodTemplateSpec& t);

}  // namespace cfo::workload
