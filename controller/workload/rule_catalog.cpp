#include "workload/rule_catalog.hpp"

#include <algorithm>
#include <iterator>

namespace cfo::workload {

namespace {

// Sources several rules share, written once.
constexpr std::string_view kCoreResources = "core/v1:ValidateResourceRequirements";
constexpr std::string_view kCoreEnv = "core/v1:validateEnvVarValueFrom";
constexpr std::string_view kCoreTolerations = "core/v1:validateTolerations";
constexpr std::string_view kCoreMounts = "core/v1:validateVolumeMounts";
constexpr std::string_view kCorePodTemplate = "core/v1:ValidatePodTemplateSpec";
constexpr std::string_view kObjectMeta = "apimachinery:ValidateObjectMeta";
constexpr std::string_view kKubeRayCluster = "kuberay:ValidateRayClusterSpec";
constexpr std::string_view kKubeRayJob = "kuberay:ValidateRayJobSpec";
constexpr std::string_view kKubeRayMeta = "kuberay:ValidateRayClusterMetadata";
constexpr std::string_view kSdkAutoscaling = "codeflare-sdk:ClusterConfiguration._validate_autoscaling";
constexpr std::string_view kKueueTas = "kueue:ValidateTASPodSetRequest (v0.19.2)";
constexpr std::string_view kKueueQueueUpdate = "kueue:job webhook ValidateUpdate";
constexpr std::string_view kKueuePriorityUpdate = "kueue:job webhook ValidateUpdateForWorkloadPriorityClassName";
constexpr std::string_view kAppWrapperImmutable = "appwrapper: webhook ValidateUpdate (components are immutable)";

// One entry per id, sorted by id (checked below). The unit test workload rule_catalog_test checks the list against
// the ids that controller/workload/*.cpp reports, both ways, and the severities against add_error / add_warning.
constexpr WorkloadRuleInfo kCatalog[] = {
    {"AnnotationKey", "error", kObjectMeta},
    {"AnnotationsSize", "error", kObjectMeta},
    {"AppWrapperChangeWhileRunning", "error", kAppWrapperImmutable},
    {"AppWrapperMaxPodSets", "error", "appwrapper:validateAppWrapperCreate"},
    {"AppWrapperRerun", "warning", kAppWrapperImmutable},
    {"AutoscalingReplicaBounds", "error", kSdkAutoscaling},
    {"AutoscalingSettingsIgnored", "warning",
     "codeflare-operator: autoscaler settings that do nothing while autoscaling is off"},
    {"ChildKindChangeWhileRunning", "error",
     "codeflare-operator: the top-level child's kind follows spec.job and spec.appWrapper"},
    {"ClusterSelector", "error", kKubeRayJob},
    {"ClusterSelectorShutdown", "error",
     "codeflare-operator: an existing cluster (clusterSelector) is not the job's to shut down"},
    {"ClusterSelectorSuspend", "error", kKubeRayJob},
    {"ConfigMapKey", "error", kCoreEnv},
    {"ContainerImage", "error", "core/v1:validateContainers"},
    {"DNS1035Label", "error", kKubeRayMeta},
    {"DNS1123Label", "error",
     "core/v1:ValidatePodSpec; kueue:Workload podSets[].name (from groupName); kuberay ray.io/group pod label"},
    {"DNS1123Subdomain", "error",
     "core/v1:validateEnvVarValueFrom; kueue:LocalQueue name, queue-name label value; kueue:ClusterQueue name "
     "(LocalQueue spec.clusterQueue); kueue:WorkloadPriorityClass name, priority-class label value; core/v1:Secret "
     "name"},
    {"DefaultLocalQueueAmbiguous", "warning",
     "codeflare-sdk: the namespace's default LocalQueue (get_default_kueue_name)"},
    {"DeletionCondition", "error", "kuberay:validateDeletionCondition"},
    {"DeletionRulesShutdown", "error", "kuberay:validateDeletionConfiguration"},
    {"Duplicate", "error",
     "crd:ray.io/v1/RayCluster (list-map key); crd:codeflare.dev/v1alpha1/CodeFlareWorkload (list-map key)"},
    {"ElasticJobImmutable", "error", "kueue:validatedUpdateForEnabledWorkloadSlice (v0.19.2)"},
    {"ElasticJobInAppWrapper", "error", "kueue:ValidateJobOnCreate (elastic-job annotation)"},
    {"ElasticJobWithoutAutoscaling", "warning",
     "codeflare-operator: elasticJob, which only a cluster that scales uses"},
    {"ElasticJobWithoutQueue", "warning", "codeflare-operator: elasticJob, which only a workload Kueue queues uses"},
    {"EnvFieldPath", "error", kCoreEnv},
    {"EnvResourceFieldRef", "error", kCoreEnv},
    {"EnvValueFromOneSource", "error", kCoreEnv},
    {"EnvValueOrValueFrom", "error", "core/v1:validateEnv"},
    {"EphemeralContainers", "error", kCorePodTemplate},
    {"ExistingClusterFields", "error",
     "codeflare-operator: no new-cluster fields on a job that runs on an existing cluster"},
    {"ExtendedResourceInteger", "error", kCoreResources},
    {"ExtendedResourceMapping", "error", "codeflare-sdk:ClusterConfiguration extended resource validation"},
    {"ExtendedResourceName", "error", "core/v1:IsExtendedResourceName"},
    {"ExtendedResourceRequestsEqualLimits", "error", kCoreResources},
    {"FinishedAppWrapperUnchanged", "warning", kAppWrapperImmutable},
    {"GcsFTAnnotationConflict", "error", kKubeRayCluster},
    {"GcsFTForbiddenSetting", "error", kKubeRayCluster},
    {"IgnoreChecks", "error",
     "codeflare-operator: the codeflare.dev/ignore-checks annotation names only ignorable checks"},
    {"IngressOptionsIgnored", "warning", "codeflare-operator: ingressOptions, which do nothing without enableIngress"},
    {"JobInAppWrapper", "error", "codeflare-operator: a RayJob is queued with Kueue directly, never wrapped"},
    {"JobRerun", "warning", "codeflare-operator: a finished RayJob is not run again in place (kuberay#1776)"},
    {"KueueAutoscaling", "error", "kueue:RayCluster webhook ValidateCreate; kueue:elastic jobs"},
    {"KueueJobShutdown", "error", "kueue:RayJob webhook (v0.19.2 validateCreate)"},
    {"KueueMaxPodSets", "error", "kueue:ValidateJobOnCreate MaxPodSets"},
    {"LabelKey", "error", kObjectMeta},
    {"LabelValue", "error",
     "apimachinery:ValidateObjectMeta; kueue:LocalQueue name, queue-name label value; kueue:WorkloadPriorityClass "
     "name, priority-class label value"},
    {"LocalDescendingPath", "error", kCoreMounts},
    {"ManagedByImmutable", "error", "crd:ray.io/v1 managedBy (self == oldSelf)"},
    {"MaxRayClusterNameLength", "error", kKubeRayMeta},
    {"MaxRayJobNameLength", "error", "kuberay:ValidateRayJobMetadata"},
    {"MemoryUnits", "error", "codeflare-operator: memory written in bytes or millibytes by mistake"},
    {"MultiKueueNeedsQueue", "error", "kueue:MultiKueue"},
    {"NonNegativeQuantity", "error", kCoreResources},
    {"ObjectTooLarge", "error", "apiserver:etcd request size limit"},
    {"OverwriteDefaultResourceMapping", "error,warning",
     "codeflare-sdk:ClusterConfiguration._combine_extended_resource_mapping"},
    {"PriorityClassAddedWhileRunning", "error", kKueuePriorityUpdate},
    {"PriorityClassKept", "warning", kKueuePriorityUpdate},
    {"PriorityClassWithoutQueue", "warning",
     "codeflare-operator: a priority class, which does nothing without a queue"},
    {"Quantity", "error", "apimachinery:resource.ParseQuantity"},
    {"QueueChangeWhileRunning", "error", kKueueQueueUpdate},
    {"QueueKept", "warning", kKueueQueueUpdate},
    {"QueueWithExistingCluster", "error", "kueue:RayJob webhook"},
    {"RayContainerCommand", "error", "codeflare-operator: the Ray container's command, built from rayStartParams"},
    {"RayContainerImage", "error",
     "codeflare-operator: the Ray container's image, set from spec.image or the group's image"},
    {"RayContainerResources", "error",
     "codeflare-operator: the Ray container's resources, set from the group's resources"},
    {"RayResourceName", "error", "codeflare-operator: Ray resource names of printable ASCII, without spaces or quotes"},
    {"RayResourceNameReserved", "warning", "codeflare-sdk:FORBIDDEN_CUSTOM_RESOURCE_TYPES"},
    {"RayStartParamKey", "error", "codeflare-operator: rayStartParams keys that are `ray start` option names"},
    {"RayStartParamReserved", "error", "codeflare-sdk:build_ray_cluster rayStartParams"},
    {"RayStartParamsLabels", "error", "kuberay:validateRayGroupLabels"},
    {"RayVersion", "error", "codeflare-operator: spec.rayVersion as a Ray release version (X.Y.Z)"},
    {"RayVersionMatchesImage", "warning", "codeflare-sdk:validate_ray_version_compatibility"},
    {"RedisAddressNeedsGcsFT", "error", kKubeRayCluster},
    {"RedisUsername", "error", kKubeRayCluster},
    {"ReplicaBoundsIgnored", "warning", kSdkAutoscaling},
    {"ReplicasWithinBounds", "error",
     "kuberay:ValidateRayClusterSpec; codeflare-operator: replicas between minReplicas and maxReplicas"},
    {"RequestsWithinLimits", "error", kCoreResources},
    {"ReservedAnnotation", "error",
     "codeflare-operator: the annotations the operator sets (elastic job, Kueue topology)"},
    {"ReservedEnvVar", "error", "codeflare-operator: RAY_USAGE_STATS_ENABLED, set from spec.usageStats"},
    {"ReservedGroupName", "error", "kueue:RayCluster podSets; kueue:RayJob podSets"},
    {"ReservedLabel", "error", "codeflare-operator: the labels the operator, KubeRay and Kueue set"},
    {"ReservedMountPath", "error",
     "codeflare-operator: the mount path of the OpenDataHub CA bundle (spec.odhTrustedCABundle)"},
    {"ReservedVolumeName", "error",
     "codeflare-operator: the volumes of the OpenDataHub CA bundle (spec.odhTrustedCABundle)"},
    {"ResizeRequeues", "warning", "kueue: KEP-77 dynamically sized jobs (a resized job is suspended and requeued)"},
    {"RuntimeEnvYAML", "error", kKubeRayJob},
    {"StartedJobUnchanged", "warning", "kuberay: RayJob controller (kuberay#1776)"},
    {"SubPathExclusive", "error", kCoreMounts},
    {"SubmitterImage", "error",
     "codeflare-operator: the submitter's image when no cluster spec gives one (clusterSelector)"},
    {"SubmitterMode", "error", kKubeRayJob},
    {"SubmitterRestartPolicy", "error", "batch/v1:ValidateJobSpec (KubeRay's submitter Job)"},
    {"SuspendNeedsShutdown", "error", kKubeRayJob},
    {"TTLSecondsAfterFinished", "error", kKubeRayJob},
    {"TemplateObjectMeta", "error", kCorePodTemplate},
    {"TemplateTolerations", "error",
     "codeflare-operator: tolerations given in one place, not replaced by a template's"},
    {"TolerationEmptyKey", "error", kCoreTolerations},
    {"TolerationKey", "error", kCoreTolerations},
    {"TolerationSeconds", "error", kCoreTolerations},
    {"TolerationValue", "error", kCoreTolerations},
    {"TopologyConflict", "error",
     "codeflare-operator: topology fields next to the same Kueue annotations in spec.annotations"},
    {"TopologyLevel", "error", kKueueTas},
    {"TopologyPodSetGroup", "error", kKueueTas},
    {"TopologyRequestOne", "error", kKueueTas},
    {"TopologySlice", "error",
     "kueue:ValidateTASPodSetRequest (v0.19.2); kueue:ValidateSliceSizeAnnotationUpperBound (v0.19.2)"},
    {"TopologyWithoutQueue", "warning", "codeflare-operator: topology requests, which only Kueue reads"},
    {"UniqueGroupName", "error", "kuberay:validateRayCluster webhook"},
    {"VolumeMountRefersToVolume", "error", kCoreMounts},
    {"VolumeSource", "error", "core/v1:validateVolumeSource"},
    {"WrappedLabelsUnchanged", "warning", kAppWrapperImmutable},
};

static_assert(std::is_sorted(std::begin(kCatalog), std::end(kCatalog),
                             [](const WorkloadRuleInfo& a, const WorkloadRuleInfo& b) { return a.id < b.id; }),
              "kCatalog must be sorted by id");

}  // namespace

std::span<const WorkloadRuleInfo> workload_rule_catalog() { return kCatalog; }

const WorkloadRuleInfo* find_workload_rule(std::string_view id) {
  const auto* it = std::lower_bound(std::begin(kCatalog), std::end(kCatalog), id,
                                    [](const WorkloadRuleInfo& r, std::string_view v) { return r.id < v; });
  return it != std::end(kCatalog) && it->id == id ? it : nullptr;
}

}  // namespace cfo::workload
