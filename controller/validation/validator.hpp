#pragma once
// The verdict on one object: schema first, then every rule set that a real cluster would apply to it.
#include <string>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "validation/cluster_facts.hpp"
#include "validation/pod_security.hpp"
#include "validation/schema_set.hpp"

namespace cfo::validation {

/// Facts about the target cluster that change which rules apply.
struct ClusterProfile {
  /// MaxPodSets of the installed Kueue: 8 (<= v0.17), 10 (v0.18), 18 (>= v0.19); see kueue_max_pod_sets_of.
  int kueue_max_pod_sets = kDefaultKueueMaxPodSets;
  /// Which operators run on the cluster: a rule reports only under the profiles it is tagged with (rule_catalog()).
  Profile name = Profile::kVanilla;
  /// The Pod Security Standards level the object's namespace enforces (its pod-security.kubernetes.io/enforce
  /// label): the Pods the object leads to are judged at that level (rules/pod_security_*.cpp); privileged = no check.
  PodSecurityLevel pod_security = PodSecurityLevel::kPrivileged;
  /// The cluster's Kubernetes minor version (1.x: its /version "minor"), 0 when unknown (validate and render
  /// offline). Rules whose verdict changed with a release judge by it: env var names that only Kubernetes 1.32 and
  /// later accept are an Error below 1.32, a Warning when the version is unknown (rules/core_pod_containers.cpp).
  int kubernetes_minor = 0;
};

/// Validates one object of any kind we know (RayCluster, RayJob, AppWrapper, LocalQueue, WorkloadPriorityClass,
/// ClusterQueue, ResourceFlavor, ...): the CRD schema from `schemas` (after the schema's defaults, and with its CEL
/// `x-kubernetes-validations` rules; see SchemaSet::validate), the metadata grammars, and the rule sets
/// named after their upstream source (core/v1 Pod rules, KubeRay ValidateRayClusterSpec and webhook, AppWrapper
/// webhook, Kueue webhooks). An AppWrapper's components are validated as objects in their own right, with paths
/// under `spec.components[i].template`. Never throws; findings are in document order.
///
/// Severity: Error where a real cluster rejects the object or fails it later; Warning where only our stricter
/// checklist objects (validation-rules.md §11), e.g. unknown fields of a wrapped RayCluster outside its pod specs.
/// A component of a kind without a loaded schema (batch/v1 Job, PyTorchJob, ...) gets the AppWrapper checks, strict
/// PodSpec decoding of its PodSets (when SchemaSet::has_pod_spec()) and the late Pod rules.
FieldErrors validate_object(const SchemaSet& schemas, const json::Value& obj, const ClusterProfile& profile = {});

/// The apimachinery ObjectMeta rules alone (name, generateName, namespace, finalizers, owner references, label keys
/// and values, annotation keys and their 256 KiB total), for an object of a namespaced kind whose own schema is
/// checked elsewhere (a CodeFlareWorkload: the apiserver applies them before storing it). Never throws.
FieldErrors validate_object_meta(const json::Value& obj);

/// validate_object() for an update: `obj` is the object to be written, `old` the object as the cluster holds it now
/// (e.g. the live child the controller is about to update). The CRD schema step becomes
/// SchemaSet::validate_update: the CEL transition rules (oldSelf, e.g. "field is immutable" on a LocalQueue's
/// spec.clusterQueue or a RayCluster's spec.managedBy) run, and rules without oldSelf are ratcheted on unchanged
/// values. Every other rule set runs as in validate_object. Never throws.
FieldErrors validate_update(const SchemaSet& schemas, const json::Value& obj, const json::Value& old,
                            const ClusterProfile& profile = {});

/// One object of a closed set for validate_set.
struct SetEntry {
  const json::Value* object = nullptr;
  /// True when the object was judged already (validate_object ran on it, e.g. a child generated from a
  /// CodeFlareWorkload) or is there only as context (a v1 Namespace): then only the checks between the objects of
  /// the set run on it.
  bool judged = false;
};

/// Validates the objects of one closed set, e.g. every file of a GitOps folder as Argo CD applies them, and returns
/// one FieldErrors per entry, in the same order. Each entry not yet `judged` gets validate_object(). Then the
/// references between the objects are checked. The set is taken as closed for the kinds it holds: a reference to
/// an object of a kind of which the set holds none (a ClusterQueue the platform team manages elsewhere) is taken to
/// be on the cluster, while one to a missing object of a kind it does hold is an error (Kueue, late failures):
///   LocalQueue spec.clusterQueue -> a ClusterQueue of the set ("LocalQueueClusterQueueExists"),
///   ClusterQueue flavors[].name -> a ResourceFlavor of the set ("ClusterQueueFlavorExists"),
///   a job's kueue.x-k8s.io/queue-name -> a LocalQueue of the set in its namespace ("QueueNameExists"),
///   a job's kueue.x-k8s.io/priority-class -> a WorkloadPriorityClass of the set ("PriorityClassExists").
/// Then each queued job (RayCluster, RayJob, AppWrapper) whose LocalQueue -> ClusterQueue -> ResourceFlavor chain
/// is in the set is judged by judge_admissibility() (admissibility.hpp) against the set's Kueue objects and
/// Namespaces. The objects not yet `judged` that repeat an earlier one get a warning (repeated_objects). A null
/// object yields one error finding for that position. A set of 64 objects or more is judged on
/// up to 8 threads (one per core); the result does not depend on it.
std::vector<FieldErrors> validate_set(const SchemaSet& schemas, const std::vector<SetEntry>& entries,
                                      const ClusterProfile& profile = {});

/// Argo CD's RepeatedResourceWarning over `objects` (the same API group, kind, namespace and name as an earlier
/// object): one FieldErrors per object, a "RepeatedResource" warning at metadata.name on each repeat. validate_set
/// runs it on the entries not yet judged; `validate` runs it on the CodeFlareWorkloads of a set. Null objects are
/// skipped.
std::vector<FieldErrors> repeated_objects(const std::vector<const json::Value*>& objects);

/// validate_set() of objects none of which is judged yet.
std::vector<FieldErrors> validate_set(const SchemaSet& schemas, const std::vector<const json::Value*>& objects,
                                      const ClusterProfile& profile = {});

}  // namespace cfo::validation
