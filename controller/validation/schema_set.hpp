#pragma once
// The openAPIV3Schema of each served CRD version, compiled for RapidJSON's JSON Schema validator.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/field_error.hpp"
#include "core/json.hpp"

namespace cfo::validation {

/// One `x-kubernetes-validations` rule found in a loaded CRD schema, and whether this client evaluates it.
struct CelRuleInfo {
  std::string api_version;  ///< "kueue.x-k8s.io/v1beta2"
  std::string kind;         ///< "ClusterQueue"
  std::string path;         ///< the rule's schema location, "[*]" for list items and map values:
                            ///< "spec.resourceGroups[*]"; "" for the root
  std::string rule;         ///< the CEL text
  std::string message;      ///< `message`, or "" when the rule has none
  bool supported = true;    ///< compiled with the CEL subset (validation/cel/cel.hpp) and evaluated
  bool transition = false;  ///< mentions oldSelf: evaluated only by validate_update
  std::string why;          ///< for an unsupported rule: what is outside the subset
};

/// The schemas of a set of CustomResourceDefinitions, keyed by apiVersion ("ray.io/v1") and kind ("RayCluster").
/// Built once and shared read-only between threads.
class SchemaSet {
 public:
  SchemaSet();
  ~SchemaSet();
  SchemaSet(SchemaSet&&) noexcept;
  SchemaSet& operator=(SchemaSet&&) noexcept;

  /// Adds every served version of one apiextensions.k8s.io/v1 CustomResourceDefinition object.
  /// Errors (naming the CRD and the schema location): the object is not a CRD, a version has no openAPIV3Schema, a
  /// `pattern` is not a valid RE2 (Go regexp) regular expression, the schema uses a keyword kube-apiserver refuses in
  /// a CRD (`$ref`, `definitions`, `$schema`, `id`, `patternProperties`, `dependencies`, `additionalItems`), holds a
  /// "$ref" key anywhere (defaults and enum values included), or nests deeper than 300 levels.
  /// Cost: the schema is checked and preprocessed here; its compilation for RapidJSON's validator and its plan of
  /// defaults and CEL rules (most of the CPU and memory of a schema: about 80 ms and several MiB for KubeRay's
  /// RayCluster) wait for the first object of that kind to be judged (once, thread-safe).
  Result<void> add_crd(const json::Value& crd);

  /// Loads every CRD found in the *.yaml / *.yml / *.json files directly inside `dir` (other kinds are skipped).
  /// Errors: unreadable directory or file, YAML syntax errors (with the file name).
  static Result<SchemaSet> load_dir(const std::string& dir);

  /// True when a schema is known for this apiVersion and kind.
  bool has(const std::string& api_version, const std::string& kind) const;

  /// Checks `obj` against the schema of its apiVersion/kind, with the structural-schema semantics of the
  /// kube-apiserver that matter for our objects: unknown fields are errors (what fieldValidation=Strict reports),
  /// `x-kubernetes-preserve-unknown-fields` and `x-kubernetes-int-or-string` are honoured, `nullable` allows null.
  /// Findings use rule "schema:<keyword>" (e.g. "schema:required", "schema:type", "schema:unknownField") and
  /// source "crd:<group>/<version>/<Kind>", with the field path of the offending value.
  /// An object of an unknown kind yields one finding with rule "schema:unknownKind".
  ///
  /// Besides RapidJSON's first error, every unknown field, every duplicate entry of an
  /// `x-kubernetes-list-type: map|set` list ("schema:duplicate"), every value that breaks its `format` (date-time;
  /// int32/int64 ranges, which the apiserver does not check but the kind's controller cannot decode:
  /// "schema:format") and, for a deprecated version, one "schema:deprecatedVersion" warning are reported.
  ///
  /// The object is first prepared as kube-apiserver prepares a custom resource, on a copy: `status` is ignored when
  /// the version has the status subresource (a create drops it); a null property that is neither `nullable` nor
  /// defaulted is removed (null pruning, Kubernetes 1.20+); then the schema's `default`s are applied (structural
  /// defaulting, a null of a defaulted non-nullable property included); a
  /// finding inside a value that only a default supplied is a Warning that says so (the CRD is at fault, not the
  /// object). Then every supported `x-kubernetes-validations` rule runs at each location of the object its schema
  /// node describes (rules with oldSelf only in validate_update): a failing rule gives the location's path (plus the
  /// rule's `fieldPath`), rule "cel:<message, or the rule text>", and as reason the message (a messageExpression
  /// when it evaluates to a string); a rule that cannot be evaluated (e.g. "no such key") is an error as well.
  /// As in kube-apiserver, no rule runs on an object with a wrong type, a value outside an enum, a missing required
  /// field or too long/many values: a "cel:notEvaluated" Warning says so instead.
  FieldErrors validate(const json::Value& obj) const;

  /// validate() for an update of `old` to `obj`, as kube-apiserver judges an update: the transition rules (those
  /// that mention oldSelf) run too, at every location that exists in both objects (object fields by name, map
  /// values by key, items of `x-kubernetes-list-type: map` lists by their keys; not items of other lists), and a
  /// failing rule without oldSelf is ignored where the value is unchanged from `old` (validation ratcheting,
  /// Kubernetes 1.30+). `old` is defaulted like `obj`. When `old` has another apiVersion or kind, this is
  /// validate(obj): no conversion is attempted.
  FieldErrors validate_update(const json::Value& obj, const json::Value& old) const;

  /// The object as kube-apiserver hands a custom resource of a loaded kind to admission webhooks and controllers, in
  /// `out`: `status` dropped under the status subresource, the nulls validate() prunes removed, and null values of
  /// metadata.labels / metadata.annotations read as "" (how Go decodes ObjectMeta). Defaults are not applied.
  /// Returns false, leaving `out` alone, when nothing changes (or the kind is not loaded): then use `obj` itself.
  bool prepare(const json::Value& obj, json::Document& out) const;

  /// Which kinds cel_rules() looks at: all loaded (compiling those not compiled yet), or only the kinds validated so
  /// far (schemas are compiled on first use; see add_crd).
  enum class RulesOf { kAllKinds, kUsedKinds };

  /// Every `x-kubernetes-validations` rule of the loaded CRDs (served versions), in load order.
  std::vector<CelRuleInfo> cel_rules(RulesOf which = RulesOf::kAllKinds) const;

  /// The rules outside the CEL subset: they are not evaluated. Also lists rules Kubernetes would not accept
  /// where they are (inside allOf/anyOf/oneOf/not) and rules with `optionalOldSelf`.
  std::vector<CelRuleInfo> unsupported_cel_rules(RulesOf which = RulesOf::kAllKinds) const;

  /// Compiles now the schema of `api_version` and `kind` ("ray.io/v1", "RayCluster"), which validate() would
  /// otherwise compile on first use of the kind (the offline commands compile the RayCluster schema while they read
  /// their inputs). Returns false when that kind is not loaded. Safe to call more than once, and from any thread.
  bool build(const std::string& api_version, const std::string& kind) const;

  /// The list of "<apiVersion>/<Kind>" held, for messages.
  std::vector<std::string> kinds() const;

  // ---- additions (beyond the lead's contract) ----

  /// True when the kind is namespaced (CRD `spec.scope: Namespaced`), and also when the kind is unknown.
  bool namespaced(const std::string& api_version, const std::string& kind) const;

  /// True when a core/v1 PodSpec schema is known. It is taken from the ray.io/v1 RayCluster CRD
  /// (`spec.headGroupSpec.template.spec`), which embeds the upstream core/v1 PodSpec.
  bool has_pod_spec() const;

  /// Strict decoding of a core/v1 PodSpec (what the AppWrapper webhook does for each PodSet): the schema's first
  /// error plus every unknown field, with paths relative to `pod_spec` and source "core/v1:PodSpec".
  /// Empty when no PodSpec schema is known.
  FieldErrors validate_pod_spec(const json::Value& pod_spec) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfo::validation
