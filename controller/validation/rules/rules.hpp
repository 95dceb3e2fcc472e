#pragma once
// Internal to cfo_validation: the rule sets, one file per upstream source, and what they share.
//
// Every upstream rule is one function named after its rule id (the `rule` of the FieldErrors it reports), with a
// comment naming the upstream source. The entry points below run the rules of one source on one object.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::validation::rules {

/// Collects findings for one object, prefixing every path with the object's position in the document that is
/// judged ("" for a top-level object, "spec.components[0].template" for an AppWrapper component).
class Sink {
 public:
  explicit Sink(FieldErrors& out, std::string prefix = {}) : out_(&out), prefix_(std::move(prefix)) {}

  void add(const std::string& path, std::string_view rule, std::string_view source, std::string reason,
           Severity severity = Severity::Error) const;
  void error(const std::string& path, std::string_view rule, std::string_view source, std::string reason) const {
    add(path, rule, source, std::move(reason), Severity::Error);
  }
  void warn(const std::string& path, std::string_view rule, std::string_view source, std::string reason) const {
    add(path, rule, source, std::move(reason), Severity::Warning);
  }
  /// Appends findings whose paths are relative to this sink's object (e.g. SchemaSet::validate's output).
  void append(FieldErrors found) const;
  /// The full path of `path` (prefix applied).
  std::string full(const std::string& path) const;
  const std::string& prefix() const { return prefix_; }
  FieldErrors& out() const { return *out_; }

 private:
  FieldErrors* out_;
  std::string prefix_;
};

/// What is known about the object being judged besides its own content.
struct Scope {
  const SchemaSet& schemas;
  const ClusterProfile& profile;
  /// The AppWrapper whose `spec.components[i].template` this object is, or nullptr for a top-level object.
  const json::Value* wrapper = nullptr;
  /// The object as it is stored now when an update is judged (validate_update), else nullptr. Only the schema
  /// step uses it (CEL transition rules and ratcheting); AppWrapper components are judged as created.
  const json::Value* old = nullptr;
  bool in_appwrapper() const { return wrapper != nullptr; }
  /// True when that AppWrapper carries the kueue.x-k8s.io/queue-name label.
  bool wrapper_queued() const;
};

/// Validates an AppWrapper component (its template) as an object in its own right; supplied by validator.cpp.
/// `pod_spec_paths` are the PodSpecs of the component's PodSets, relative to the template
/// (e.g. "spec.headGroupSpec.template.spec"): the AppWrapper decodes those strictly.
using ComponentCheck =
    std::function<void(const json::Value& tmpl, const Sink& sink, const std::vector<std::string>& pod_spec_paths)>;

// ---- apimachinery / apiextensions (metadata_rules.cpp) ---------------------------------------------------
/// ObjectMeta of a top-level object or of an AppWrapper component.
void validate_object_meta(const Scope& scope, const json::Value& obj, const Sink& sink);
/// TypeMeta of an embedded resource (x-kubernetes-embedded-resource): apiVersion and kind.
void validate_embedded_type_meta(const json::Value& obj, const Sink& sink);
/// Label maps outside ObjectMeta (e.g. ResourceFlavor nodeLabels): qualified-name keys, label values.
void validate_label_map(const json::Value& labels, const std::string& path, std::string_view source, const Sink& sink);
/// A metav1.LabelSelector (matchLabels, matchExpressions).
void validate_label_selector(const json::Value& selector, const std::string& path, std::string_view source,
                             const Sink& sink);

// ---- core/v1 Pod validation, applied when the Pods are created (core_pod_*.cpp) ---------------------------
/// A PodTemplateSpec (metadata and spec) at `path` whose Pods some controller creates later (RayCluster groups,
/// AppWrapper PodSets, RayJob submitter): every rule of kubernetes ValidatePodTemplateSpec / ValidatePodSpec and of a
/// Pod create that the template decides (validation/README.md has the table). `kubernetes_minor` is
/// ClusterProfile::kubernetes_minor. Findings are Errors, except env var names only clusters before Kubernetes 1.32
/// refuse, which are Warnings when `kubernetes_minor` is 0 (unknown).
void validate_pod_template(const json::Value& pod_template, const std::string& path, const Sink& sink,
                           int kubernetes_minor);
/// The same for a bare PodSpec at `path` (no template metadata known).
void validate_pod_spec_late(const json::Value& pod_spec, const std::string& path, const Sink& sink,
                            int kubernetes_minor);
/// kubelet images.applyDefaultImageTag -> distribution/reference ParseNormalizedNamed (kubelet_image_rules.cpp): an
/// Error at `path` when `image` (surrounding whitespace aside, which core/v1 reports) is not a reference the kubelet
/// can pull, so that its container would wait with InvalidImageName.
void ParseNormalizedNamed(std::string_view image, const std::string& path, const Sink& sink);
/// ParseNormalizedNamed on the image of every container, init container and ephemeral container of `pod_spec` (at
/// `spec_path`).
void validate_container_images(const json::Value& pod_spec, const std::string& spec_path, const Sink& sink);
/// A ResourceRequirements block of a container the operator creates (e.g. the autoscaler sidecar).
void validate_resources_late(const json::Value& resources, const std::string& path, const Sink& sink);

// ---- Pod Security Standards (pod_security_rules.cpp, pod_security_checks.cpp) -------------------------------
/// The Pods a RayCluster or RayJob leads to (head and workers with KubeRay's autoscaler sidecar, the RayJob's
/// submitter), judged at scope.profile.pod_security: one Error per field the level forbids (nothing at privileged).
void validate_pod_security(const Scope& scope, const json::Value& obj, const Sink& sink);
/// The same for one Pod of another kind (a PodSet of an AppWrapper component): `pod_spec` at `spec_path`, its
/// template metadata (nullptr when none) at `meta_path`.
void validate_pod_security_of(const Scope& scope, const json::Value& pod_spec, const json::Value* metadata,
                              const std::string& spec_path, const std::string& meta_path, const Sink& sink);

// ---- Ray (ray_start_rules.cpp) ---------------------------------------------------------------------------
/// The rayStartParams map at `path` of a head or worker group, as `ray start` (Ray scripts.py, click) will parse
/// the flags KubeRay builds from it: unknown options and values of the wrong type (a fraction or a word where an
/// integer is needed, a value on a flag) are Errors at `path`.<key>.
void RayStart(const json::Value& params, const std::string& path, const Sink& sink);

// ---- KubeRay (kuberay_rules.cpp) -------------------------------------------------------------------------
void validate_raycluster(const Scope& scope, const json::Value& obj, const Sink& sink);
void validate_rayjob(const Scope& scope, const json::Value& obj, const Sink& sink);

// ---- CodeFlare operator (codeflare_operator_rules.cpp) ---------------------------------------------------
/// The CodeFlare operator's RayCluster webhook, on a RayClusterSpec at `spec_path`.
void validate_codeflare_raycluster_spec(const json::Value& spec, const std::string& spec_path, const Sink& sink);

// ---- AppWrapper (appwrapper_rules.cpp) -------------------------------------------------------------------
void validate_appwrapper(const Scope& scope, const json::Value& obj, const Sink& sink, const ComponentCheck& check);

// ---- Kueue (kueue_rules.cpp) -----------------------------------------------------------------------------
/// jobframework labels and annotations on a job object (RayCluster, RayJob, AppWrapper).
void validate_kueue_job(const Scope& scope, const json::Value& obj, const Sink& sink);
void validate_kueue_raycluster(const Scope& scope, const json::Value& obj, const Sink& sink);
void validate_kueue_rayjob(const Scope& scope, const json::Value& obj, const Sink& sink);
void validate_clusterqueue(const Scope& scope, const json::Value& obj, const Sink& sink);
void validate_cohort(const Scope& scope, const json::Value& obj, const Sink& sink);
/// The PodSets of the Workload Kueue builds for a job (kueue_workload_rules.cpp): reserved resource names of a
/// queued job, topology-aware scheduling annotations of RayCluster and RayJob templates.
void validate_kueue_pod_sets(const Scope& scope, const json::Value& obj, const Sink& sink);
void validate_resourceflavor(const Scope& scope, const json::Value& obj, const Sink& sink);
void validate_localqueue(const Scope& scope, const json::Value& obj, const Sink& sink);
void validate_workloadpriorityclass(const Scope& scope, const json::Value& obj, const Sink& sink);
/// References between the objects of a closed set (a multi-document file); one sink per object.
void validate_kueue_references(const std::vector<const json::Value*>& objects, const std::vector<Sink>& sinks);

// ---- closed sets (repeated_resources.cpp) --------------------------------------------------------------------
/// Argo CD's RepeatedResourceWarning: a warning ("RepeatedResource", at metadata.name) on each object whose API
/// group, kind, namespace and name an earlier object of the set has. Null objects are skipped.
void argocd_repeated_resource_warning(const std::vector<const json::Value*>& objects, const std::vector<Sink>& sinks);

}  // namespace cfo::validation::rules
