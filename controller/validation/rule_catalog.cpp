#include "validation/rule_catalog.hpp"

#include <algorithm>
#include <initializer_list>
#include <vector>

namespace cfo::validation {

namespace {

// Rules that share a source, written once. The unit test rule_catalog_test checks the list against the ids that
// rules/*.cpp report, both ways.
struct Group {
  std::string_view source;
  unsigned profiles;
  std::initializer_list<std::string_view> ids;
};

const std::vector<RuleInfo>& catalog() {
  static const std::vector<RuleInfo> all = [] {
    const std::initializer_list<Group> groups = {
        {"kubernetes pkg/apis/core/validation/validation.go @000f2605 (v1.33): the function of the same name, on the "
         "pod templates whose Pods a controller creates later",
         kAllProfiles,
         {"ValidatePodTemplateSpec",
          "ValidatePodCreate",
          "ValidateObjectMeta",
          "ValidateAnnotations",
          "ValidatePodSpecificAnnotations",
          "ValidateAppArmorPodAnnotations",
          "ValidateSeccompProfile",
          "ValidatePodSpec",
          "ValidateHostAliases",
          "ValidatePreemptionPolicy",
          "ValidateRuntimeClassName",
          "validateDNSPolicy",
          "validatePodDNSConfig",
          "validateReadinessGates",
          "validateRestartPolicy",
          "validateSchedulingGates",
          "ValidateVolumes",
          "validateVolumeSource",
          "validateHostPathVolumeSource",
          "validateGitRepoVolumeSource",
          "validateGCEPersistentDiskVolumeSource",
          "validateAWSElasticBlockStoreVolumeSource",
          "validateSecretVolumeSource",
          "validateConfigMapVolumeSource",
          "validateKeyToPath",
          "validateNFSVolumeSource",
          "validateISCSIVolumeSource",
          "validateGlusterfsVolumeSource",
          "validateFlockerVolumeSource",
          "validatePersistentClaimVolumeSource",
          "validateRBDVolumeSource",
          "validateCinderVolumeSource",
          "validateCephFSVolumeSource",
          "validateQuobyteVolumeSource",
          "validateDownwardAPIVolumeSource",
          "validateDownwardAPIVolumeFile",
          "validateFCVolumeSource",
          "validateFlexVolumeSource",
          "validateAzureFile",
          "validateVsphereVolumeSource",
          "validatePhotonPersistentDiskVolumeSource",
          "validatePortworxVolumeSource",
          "validateAzureDisk",
          "validateStorageOSVolumeSource",
          "validateScaleIOVolumeSource",
          "validateCSIVolumeSource",
          "validateProjectedVolumeSource",
          "validateProjectionSources",
          "validateEphemeralVolumeSource",
          "ValidatePersistentVolumeClaimTemplate",
          "validateDataSource",
          "validatePodResourceClaim",
          "validateContainers",
          "AccumulateUniqueHostPorts",
          "validateInitContainers",
          "validateInitContainerRestartPolicy",
          "validateEphemeralContainers",
          "validateContainerCommon",
          "validateContainerOnlyForPod",
          "validateContainerPorts",
          "validatePodHostNetworkDeps",
          "ValidateEnv",
          "validateEnvVarValueFrom",
          "validateObjectFieldSelector",
          "validateContainerResourceFieldSelector",
          "validateConfigMapKeySelector",
          "validateSecretKeySelector",
          "ValidateEnvFrom",
          "ValidateVolumeMounts",
          "validateMountPropagation",
          "validateMountRecursiveReadOnly",
          "ValidateVolumeDevices",
          "validatePullPolicy",
          "validateResourceRequirements",
          "validateContainerResourceName",
          "ValidateResourceQuantityValue",
          "validateResourceQuantityHugePageValue",
          "validateResourceClaimNames",
          "ParseQuantity",
          "validateResizePolicy",
          "validateProbe",
          "validateLivenessProbe",
          "validateReadinessProbe",
          "validateStartupProbe",
          "validateHandler",
          "validateExecAction",
          "validateHTTPGetAction",
          "ValidatePortNumOrName",
          "validateSleepAction",
          "validatePodResources",
          "validatePodResourceName",
          "validatePodResourceConsistency",
          "validatePodSpecSecurityContext",
          "validateSysctls",
          "ValidateHostSysctl",
          "validateFSGroupChangePolicy",
          "validateSeccompProfileField",
          "validateWindowsSecurityContextOptions",
          "ValidateAppArmorProfileField",
          "validateSupplementalGroupsPolicy",
          "validateSELinuxChangePolicy",
          "ValidateSecurityContext",
          "ValidateProcMountType",
          "validateHostUsers",
          "validateWindowsHostProcessPod",
          "validateOS",
          "validateLinux",
          "validateWindows",
          "validateSeccompAnnotationsAndFields",
          "validateAppArmorAnnotationsAndFieldsMatchOnCreate",
          "ValidateNodeSelector",
          "ValidateNodeSelectorRequirement",
          "ValidateNodeFieldSelectorRequirement",
          "ValidatePreferredSchedulingTerms",
          "validatePodAffinityTerm",
          "validateWeightedPodAffinityTerms",
          "validateMatchLabelKeysAndMismatchLabelKeys",
          "ValidateTolerations",
          "ValidateMaxSkew",
          "ValidateTopologyKey",
          "ValidateWhenUnsatisfiable",
          "ValidateSpreadConstraintNotRepeat",
          "validateMinDomains",
          "validateNodeInclusionPolicy",
          "validateMatchLabelKeysInTopologySpread"}},
        {"apimachinery pkg/api/validation/objectmeta.go ValidateObjectMeta and pkg/util/validation (the name, label "
         "and annotation grammars), pkg/apis/meta/v1/validation ValidateLabels / ValidateLabelSelector",
         kAllProfiles,
         {"NameRequired", "GenerateName", "DNS1123SubdomainName", "DNS1123LabelNamespace", "ClusterScopedNamespace",
          "LabelKey", "LabelValue", "AnnotationKey", "AnnotationsTotalSize", "Finalizers", "OwnerReferences",
          "LabelSelector"}},
        {"apiextensions-apiserver pkg/apiserver/schema/objectmeta: TypeMeta of an x-kubernetes-embedded-resource",
         kAllProfiles,
         {"EmbeddedAPIVersion", "EmbeddedKind"}},
        {"kubernetes pkg/kubelet/images image_manager.go applyDefaultImageTag -> distribution/reference v0.6.0 "
         "ParseNormalizedNamed: a container image the kubelet cannot parse (InvalidImageName; the Pod never starts)",
         kAllProfiles,
         {"ParseNormalizedNamed"}},
        {"ray python/ray/scripts/scripts.py: the click options of `ray start` (KubeRay passes rayStartParams as "
         "flags)",
         kAllProfiles,
         {"RayStart"}},
        {"kuberay v1.7.0 controllers/ray/utils/validation.go ValidateRayClusterMetadata / ValidateRayJobMetadata",
         kAllProfiles,
         {"DNS1035Name", "MaxNameLength"}},
        {"kuberay v1.7.0 pkg/webhooks/v1/raycluster_webhook.go validateWorkerGroups",
         kAllProfiles,
         {"UniqueGroupName"}},
        {"kuberay v1.7.0 controllers/ray/utils/validation.go ValidateRayClusterSpec (validateRayGroupResources, "
         "validateRayGroupLabels, validateWorkerGroupIdleTimeout, validateWorkerGroupPriority, "
         "validateGcsFaultToleranceBackend, validateNetworkPolicy, validateTLSOptions)",
         kAllProfiles,
         {"ContainersRequired",
          "NonNegativeReplicas",
          "MinWithinMaxReplicas",
          "RayStartParamsLabels",
          "GroupLabels",
          "GroupResourcesExclusive",
          "IdleTimeoutSeconds",
          "WorkerGroupPriority",
          "GcsFTAnnotationConflict",
          "RedisAddressNeedsGcsFT",
          "GcsFTForbiddenSetting",
          "RedisUsername",
          "GcsFTBackend",
          "WorkerGroupSuspend",
          "AutoscalerV2Env",
          "AutoscalerVersionConflict",
          "AutoscalerV2RestartPolicy",
          "AutoscalerEnvReserved",
          "AuthRayVersion",
          "K8sTokenAuth",
          "FeatureGate",
          "NetworkPolicyGroupName",
          "TLSEnv"}},
        {"kuberay v1.7.0 controllers/ray/utils/validation.go ValidateRayClusterUpgradeOptions",
         kAllProfiles,
         {"UpgradeStrategyOwner"}},
        {"kuberay v1.7.0 controllers/ray/utils/validation.go ValidateRayJobSpec (validateDeletionConfiguration, "
         "validateDeletionRules, validateLegacyDeletionPolicies)",
         kAllProfiles,
         {"SuspendNeedsShutdown", "TTLSecondsAfterFinished", "DeletionPolicies", "ClusterSource", "ClusterSelector",
          "InteractiveModeBackoff", "SidecarMode", "RuntimeEnvYAML", "JobDeadlines"}},
        {"kuberay v1.7.0 controllers/ray/common/pod.go labelPod and utils.PodName: the Pods' labels and generateName",
         kAllProfiles,
         {"GroupNameLabelValue", "PodName"}},
        {"codeflare-operator pkg/controllers/raycluster_webhook.go validateIngress (OpenDataHub / OpenShift AI)",
         kOdhProfile,
         {"EnableIngress"}},
        {"codeflare-operator pkg/controllers/raycluster_webhook.go Default (OpenDataHub / OpenShift AI): what its "
         "mutating webhook injects (the oauth-proxy service account, the create-cert volume mounts)",
         kOdhProfile,
         {"CodeFlareCertMounts", "CodeFlareOAuthServiceAccount"}},
        {"kuberay v1.7.0 controllers/ray/common/service.go BuildServiceForHeadPod, judged by kubernetes "
         "ValidateService when KubeRay creates the head Service",
         kAllProfiles,
         {"HeadServiceType"}},
        {"kueue v0.19.2 pkg/controller/jobframework/tas_validation.go ValidateTASPodSetRequest, "
         "ValidateSliceSizeAnnotationUpperBound, ValidatePodSetGroupingTopology",
         kAllProfiles,
         {"TASPodSetRequest"}},
        {"appwrapper v1.2.1 internal/webhook/appwrapper_webhook.go validateAppWrapperCreate and pkg/utils/utils.go "
         "(InferPodSets, ValidatePodSets, GetPodTemplateSpec)",
         kAllProfiles,
         {"TemplateObject", "NestedAppWrapper", "ComponentNamespace", "PodSetPath", "InferredReplicas",
          "PodSetsMatchInferred", "PodSetCount"}},
        {"appwrapper v1.2.1 internal/controller/appwrapper/resource_management.go createComponent and "
         "api/v1beta2/appwrapper_types.go (what the controller does with the components later)",
         kAllProfiles,
         {"AppWrapperName", "BehaviorAnnotations", "ComponentName", "AppWrapperLabelConflict"}},
        {"kueue v0.19.2 pkg/controller/jobframework/validation.go ValidateJobOnCreate (and "
         "pkg/util/webhook/validation_admissiongatedby.go)",
         kAllProfiles,
         {"QueueNameLabel", "MaxExecTimeSeconds", "PrebuiltWorkloadName", "ElasticJobKind", "AdmissionGatedBy"}},
        {"kueue v0.19.2 pkg/controller/jobs/raycluster/raycluster_webhook.go and rayjob/rayjob_webhook.go "
         "validateCreate",
         kAllProfiles,
         {"KueueAutoscaling", "ElasticMultiKueueAutoscaling", "MaxPodSets", "ReservedHeadGroupName",
          "KueueClusterSelector", "KueueShutdownAfterJobFinishes"}},
        {"kueue v0.19.2 apis/kueue/v1beta2/workload_types.go and pkg/webhooks/workload_webhook.go validatePodSet: the "
         "Workload Kueue creates for a job",
         kAllProfiles,
         {"PodSetNames", "PodsResourceReserved"}},
        {"kueue v0.19.2 pkg/webhooks/clusterqueue_webhook.go, cohort_webhook.go, common.go and the ClusterQueue CRD's "
         "x-kubernetes-validations",
         kAllProfiles,
         {"FlavorResourceCount", "FlavorResourceOrder", "CoveredResources", "UniqueFlavorNames", "NonNegativeQuota",
          "LimitsNeedCohort", "LendingLimitWithinNominal", "ResourceGroupLimits", "PreemptionPolicies",
          "FungibilityPreference", "NamespaceSelector", "FairSharingWeight", "AdmissionCheckFlavors"}},
        {"kueue v0.19.2 pkg/webhooks/resourceflavor_webhook.go ValidateResourceFlavor and the ResourceFlavor CRD's "
         "x-kubernetes-validations",
         kAllProfiles,
         {"NodeTaints", "Tolerations", "TolerationKey", "TopologyNeedsNodeLabels"}},
        {"kueue v0.19.2 pkg/controller/core (LocalQueue, ClusterQueue and job reconcilers): references that fail at "
         "run time",
         kAllProfiles,
         {"LocalQueueClusterQueueExists", "ClusterQueueFlavorExists", "QueueNameExists", "PriorityClassExists"}},
        {"argo-cd RepeatedResourceWarning (the same object more than once among an Application's resources; "
         "kubectl apply applies the later one over the earlier)",
         kAllProfiles,
         {"RepeatedResource"}},
        {"kueue v0.19.2 pkg/workload/resources.go ValidateAdmissibility: the ClusterQueue's namespaceSelector",
         kAllProfiles,
         {"ValidateAdmissibility"}},
        {"kueue v0.19.2 pkg/scheduler/flavorassigner/flavorassigner.go (findFlavorForPodSets, checkFlavorForPodSets, "
         "fitsResourceQuota) and pkg/cache/scheduler/resource_node.go potentialAvailable",
         kAllProfiles,
         {"FindFlavorForPodSets", "CheckFlavorForPodSets", "FitsResourceQuota"}},
        {"kubernetes pod-security-admission v0.36.2 (Kubernetes 1.36) policy/check_*.go: the check of the same name, "
         "on the Pods the object leads to, at the Pod Security level of their namespace (none at privileged)",
         kAllProfiles,
         {"CheckHostNamespaces", "CheckPrivileged", "CheckCapabilitiesBaseline", "CheckHostPathVolumes",
          "CheckHostPorts", "CheckAppArmorProfile", "CheckSELinuxOptions", "CheckProcMountBaseline",
          "CheckSeccompBaseline", "CheckSysctls", "CheckWindowsHostProcess", "CheckHostProbesAndHostLifecycle",
          "CheckRestrictedVolumes", "CheckAllowPrivilegeEscalation", "CheckRunAsNonRoot", "CheckRunAsUser",
          "CheckSeccompProfileRestricted", "CheckCapabilitiesRestricted", "CheckProcMountRestricted"}},
        {"cfo checklist (shared notes validation-rules.md): accepted upstream, but rarely what was meant",
         kAllProfiles,
         {"GroupNameDNS1123", "ReplicasWithinBounds", "AppWrapperRayReplicas", "LocalQueueClusterQueue",
          "ReferencedByLabelName"}},
    };
    std::vector<RuleInfo> out;
    for (const auto& g : groups)
      for (auto id : g.ids) out.push_back({id, g.source, g.profiles});
    std::sort(out.begin(), out.end(), [](const RuleInfo& a, const RuleInfo& b) { return a.id < b.id; });
    return out;
  }();
  return all;
}

}  // namespace

std::span<const RuleInfo> rule_catalog() { return catalog(); }

const RuleInfo* find_rule(std::string_view id) {
  const auto& all = catalog();
  auto it =
      std::lower_bound(all.begin(), all.end(), id, [](const RuleInfo& r, std::string_view v) { return r.id < v; });
  return it != all.end() && it->id == id ? &*it : nullptr;
}

bool rule_applies(std::string_view id, Profile profile) {
  const RuleInfo* r = find_rule(id);
  if (!r) return true;
  return (r->profiles & (profile == Profile::kOdh ? kOdhProfile : kVanillaProfile)) != 0;
}

std::string_view profiles_text(unsigned profiles) {
  if ((profiles & kAllProfiles) == kAllProfiles) return "vanilla,odh";
  if (profiles & kOdhProfile) return "odh";
  if (profiles & kVanillaProfile) return "vanilla";
  return "none";
}

}  // namespace cfo::validation
