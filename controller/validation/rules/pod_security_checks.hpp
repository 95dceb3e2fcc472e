#pragma once
// Internal to cfo_validation: the Pod Security Standards checks of kubernetes pod-security-admission
// (staging/src/k8s.io/pod-security-admission/policy/check_*.go, policy version 1.36: the newest in a released
// Kubernetes, what `enforce-version: latest` gets on a 1.36 cluster), one function per
// upstream check, named after the upstream function that registers it (CheckPrivileged, CheckRunAsNonRoot, ...); that
// name is the `rule` of its findings. Each check judges one Pod as its controller will create it (KubeRay's head and
// workers with the containers KubeRay adds, the RayJob submitter, the Pods of an AppWrapper's PodSets) and reports one
// Error per offending field, at the path of the field to change (for a field that must be set and is not: where it
// goes). validation/README.md has the table.
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "validation/pod_security.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules::pss {

/// The source every Pod Security finding names.
inline constexpr std::string_view kSource = "k8s:pod-security-admission/policy (v1.36)";

/// One container of a Pod: the object (null for a container a controller adds with nothing set) and the path of the
/// object that holds its fields (its `securityContext` is at path + ".securityContext").
struct ContainerView {
  const json::Value* container = nullptr;
  std::string path;
  std::string name;  ///< for messages
};

/// One Pod as it will be created. `spec`/`meta` may be null (a Pod built from nothing the user wrote, e.g. KubeRay's
/// default submitter); the paths still name where the fields would go.
struct PodView {
  const json::Value* spec = nullptr;
  const json::Value* meta = nullptr;
  std::string spec_path;  ///< e.g. "spec.headGroupSpec.template.spec"
  std::string meta_path;  ///< e.g. "spec.headGroupSpec.template.metadata"
  /// containers, initContainers and ephemeralContainers of `spec`, then the containers the controller adds.
  std::vector<ContainerView> containers;
};

/// A PodView of a PodTemplateSpec-like pair: every container, init container and ephemeral container of `spec`.
PodView pod_view(const json::Value* spec, const json::Value* meta, std::string spec_path, std::string meta_path);

// ---- baseline ----------------------------------------------------------------------------------------------------
void CheckHostNamespaces(const PodView& pod, const Sink& sink);        ///< hostNetwork, hostPID, hostIPC unset/false
void CheckPrivileged(const PodView& pod, const Sink& sink);            ///< securityContext.privileged unset/false
void CheckCapabilitiesBaseline(const PodView& pod, const Sink& sink);  ///< capabilities.add within the default set
void CheckHostPathVolumes(const PodView& pod, const Sink& sink);       ///< no hostPath volume
void CheckHostPorts(const PodView& pod, const Sink& sink);             ///< ports[].hostPort unset/0
void CheckAppArmorProfile(const PodView& pod, const Sink& sink);    ///< RuntimeDefault/Localhost (fields, annotations)
void CheckSELinuxOptions(const PodView& pod, const Sink& sink);     ///< allowed types; no user, no role
void CheckProcMountBaseline(const PodView& pod, const Sink& sink);  ///< procMount Default, unless hostUsers: false
void CheckSeccompBaseline(const PodView& pod,
                          const Sink& sink);              ///< seccompProfile.type, when set, RuntimeDefault/Localhost
void CheckSysctls(const PodView& pod, const Sink& sink);  ///< only the safe sysctls
void CheckWindowsHostProcess(const PodView& pod, const Sink& sink);          ///< windowsOptions.hostProcess unset/false
void CheckHostProbesAndHostLifecycle(const PodView& pod, const Sink& sink);  ///< no host in probes and handlers
// ---- restricted (each replaces the baseline check it overrides) --------------------------------------------------
void CheckRestrictedVolumes(const PodView& pod, const Sink& sink);         ///< only the volume types a PV can back
void CheckAllowPrivilegeEscalation(const PodView& pod, const Sink& sink);  ///< allowPrivilegeEscalation: false
void CheckRunAsNonRoot(const PodView& pod, const Sink& sink);              ///< runAsNonRoot: true (pod or container)
void CheckRunAsUser(const PodView& pod, const Sink& sink);                 ///< runAsUser not 0
void CheckSeccompProfileRestricted(const PodView& pod, const Sink& sink);  ///< RuntimeDefault or Localhost
void CheckCapabilitiesRestricted(const PodView& pod, const Sink& sink);    ///< drop ALL; add NET_BIND_SERVICE only
void CheckProcMountRestricted(const PodView& pod, const Sink& sink);       ///< procMount Default

/// Every check of `level` on one Pod (none for privileged; at restricted, the restricted checks replace the
/// baseline ones they override: capabilities, seccomp, volumes, procMount).
void check_pod(const PodView& pod, PodSecurityLevel level, const Sink& sink);

}  // namespace cfo::validation::rules::pss
