#pragma once
// Label and annotation keys the operator sets on generated objects, or that upstream reserves for settings the
// operator derives from the spec. Users may not set the reserved ones through spec.labels or spec.annotations.
#include <string_view>

namespace cfo::workload {

/// codeflare-sdk build_ray_cluster.py base labels of every RayCluster.
inline constexpr std::string_view kControllerToolsLabel = "controller-tools.k8s.io";
inline constexpr std::string_view kControllerToolsValue = "1.0";
inline constexpr std::string_view kRayClusterLabel = "ray.io/cluster";
/// Ours: names the CodeFlareWorkload a child belongs to, so that watches on children map back to it.
inline constexpr std::string_view kWorkloadLabel = "codeflare.dev/workload";
/// Kueue job-integration labels (kueue constants.QueueLabel and constants.WorkloadPriorityClassLabel).
inline constexpr std::string_view kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr std::string_view kPriorityClassLabel = "kueue.x-k8s.io/priority-class";

/// Kueue constants.ElasticJobAnnotation: "true" asks Kueue to admit the job as an elastic job (workload slices).
/// Set from spec.autoscaling.elasticJob.
inline constexpr std::string_view kElasticJobAnnotation = "kueue.x-k8s.io/elastic-job";
/// KubeRay annotations of the older, annotation-driven GCS fault tolerance (utils.RayFTEnabledAnnotationKey and
/// utils.RayExternalStorageNSAnnotationKey); KubeRay refuses them next to gcsFaultToleranceOptions.
inline constexpr std::string_view kFtEnabledAnnotation = "ray.io/ft-enabled";
inline constexpr std::string_view kExternalStorageNamespaceAnnotation = "ray.io/external-storage-namespace";

/// KubeRay's Pod labels that a Pod template cannot override (common/pod.go labelPod skips them silently).
inline constexpr std::string_view kRayGroupLabel = "ray.io/group";
inline constexpr std::string_view kRayNodeTypeLabel = "ray.io/node-type";

/// Kueue's topology annotations of a PodSet's template (v0.19.2 apis/kueue/v1beta2/topology_types.go), set from a
/// `topology` field.
inline constexpr std::string_view kTopologyRequiredAnnotation = "kueue.x-k8s.io/podset-required-topology";
inline constexpr std::string_view kTopologyPreferredAnnotation = "kueue.x-k8s.io/podset-preferred-topology";
inline constexpr std::string_view kTopologyUnconstrainedAnnotation = "kueue.x-k8s.io/podset-unconstrained-topology";
inline constexpr std::string_view kTopologySliceRequiredAnnotation = "kueue.x-k8s.io/podset-slice-required-topology";
inline constexpr std::string_view kTopologySliceSizeAnnotation = "kueue.x-k8s.io/podset-slice-size";
inline constexpr std::string_view kTopologyGroupAnnotation = "kueue.x-k8s.io/podset-group-name";

/// True for a label key the operator owns (the five labels above); a user label with such a key is rejected.
bool is_reserved_label(std::string_view key);

/// True for an annotation key the operator owns (kElasticJobAnnotation); a user annotation with such a key is
/// rejected. The KubeRay fault-tolerance annotations are refused only with spec.gcsFaultTolerance.
bool is_reserved_annotation(std::string_view key);

/// True for a Pod template label the operator or KubeRay owns: is_reserved_label, ray.io/group, ray.io/node-type.
bool is_reserved_pod_label(std::string_view key);

/// True for one of the six topology annotations above (set through a `topology` field, not written by hand).
bool is_topology_annotation(std::string_view key);

}  // namespace cfo::workload
