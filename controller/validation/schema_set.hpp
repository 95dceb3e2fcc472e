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

/// The schemas of a set of CustomResourceDefinitions, keyed by apiVersion ("ray.io/v1") and kind ("RayCluster").
/// Built once and shared read-only between threads.
class SchemaSet {
 public:
  SchemaSet();
  ~SchemaSet();
  SchemaSet(SchemaSet&&) noexcept;
  SchemaSet& operator=(SchemaSet&&) noexcept;

  /// Adds every served version of one apiextensions.k8s.io/v1 CustomResourceDefinition object.
  /// Errors: the object is not a CRD, or a version has no openAPIV3Schema.
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
  /// `x-kubernetes-list-type: map|set` list ("schema:duplicate") and, for a deprecated version, one
  /// "schema:deprecatedVersion" warning are reported.
  FieldErrors validate(const json::Value& obj) const;

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

  /// Remarks gathered while loading, e.g. a CRD pattern that std::regex cannot compile (that pattern is then not
  /// checked). One line each, naming the CRD and field.
  const std::vector<std::string>& load_notes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cfo::validation
