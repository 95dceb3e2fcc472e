#pragma once
// Reading a `template` field of a CodeFlareWorkload (spec.template, spec.head.template, spec.workerGroups[i].template,
// spec.job.submitter.template): a core/v1 PodTemplateSpec fragment, merged over the Pod template the operator
// generates (strategic_merge.hpp). Here only what the merge would hide is checked: the keys the operator owns and
// repeated merge keys. Everything else is judged after the merge, on the generated object, like any Pod template
// (validation's core/v1 Pod rules and the upstream schemas), and reported back at the template's field.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "workload/fragment.hpp"

namespace cfo::workload {

/// The Pods a template is merged into, for the keys it may not set.
struct TemplateScope {
  /// The Ray container of those Pods by name, with the workload field that owns it: {"ray-head", "spec.head"},
  /// {"machine-learning", "spec.workerGroups[1]"}. Empty for the submitter's template.
  std::vector<std::pair<std::string, std::string>> ray_containers;
  /// The tolerations fields that feed those Pods and are set ("spec.head.tolerations"); a template's tolerations
  /// would replace them (the list has no merge key).
  std::vector<std::string> tolerations_given;
  /// spec.odhTrustedCABundle: the CA-bundle volume names and mount paths are taken.
  bool odh_trusted_ca_bundle = false;
};

/// Reads the template at `path` (an object with `metadata` and `spec`; other members are `schema:unknownField`).
/// Refused, each an Error at the member, naming the field that owns the value:
///  - metadata.name, metadata.namespace (`TemplateObjectMeta`: KubeRay names the Pods, in the workload's namespace);
///  - metadata.labels of is_reserved_pod_label (`ReservedLabel`); metadata.annotations kueue.x-k8s.io/elastic-job
///    and the topology annotations (`ReservedAnnotation`: spec.autoscaling.elasticJob, the `topology` fields);
///  - in a Ray container (named as in `scope`): command or args (`RayContainerCommand`: KubeRay runs `ray start`
///    from <owner>.rayStartParams), resources.requests or resources.limits (`RayContainerResources`:
///    <owner>.resources), image (`RayContainerImage`: <owner>.image), an env var RAY_USAGE_STATS_ENABLED
///    (`ReservedEnvVar`: spec.usageStats);
///  - spec.tolerations while a field of `scope.tolerations_given` is set (`TemplateTolerations`);
///  - spec.ephemeralContainers (`EphemeralContainers`: core/v1 ValidatePodTemplateSpec);
///  - with odh_trusted_ca_bundle, a volume named like a CA-bundle volume (`ReservedVolumeName`) or a mount at a
///    CA-bundle path (`ReservedMountPath`);
///  - two items with the same merge key in one list (`Duplicate`: the CRD's list-map keys refuse them).
/// Returns the fragment as written (nullopt when it is not an object).
std::optional<Fragment> parse_pod_template(const json::Value& v, const std::string& path, const TemplateScope& scope,
                                           FieldErrors& errs);

}  // namespace cfo::workload
