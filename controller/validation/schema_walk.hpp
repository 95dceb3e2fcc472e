#pragma once
// Internal to cfo_validation. The checks of a structural schema that RapidJSON's draft-04 validator cannot express,
// made by walking an object alongside its schema: every unknown field (what kube-apiserver would prune silently),
// every duplicate entry of an `x-kubernetes-list-type: map` or `set` list, and every value that breaks its `format`.
// The schema is read once into a WalkPlan (each node's properties indexed by name), which every walk then follows:
// a walk costs a binary search per member instead of a linear search of the schema's properties.
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"

namespace cfo::validation::structural {

/// One schema node as the walk reads it (pointers into the schema and into the plan that holds it).
struct WalkNode {
  const json::Value* schema = nullptr;  ///< the schema node itself (format, list-map keys and their defaults)
  bool object = false;                  ///< the schema is a JSON object (anything else is walked no further)
  bool has_properties = false;          ///< `properties` is given (as an object)
  /// The properties' schemas by name, sorted by name (names are views of the schema's own member names).
  std::vector<std::pair<std::string_view, const WalkNode*>> properties;
  const WalkNode* additional = nullptr;  ///< `additionalProperties` when it is a schema (an object)
  bool additional_given = false;         ///< `additionalProperties` is given at all (a schema, true or false)
  const json::Value* items = nullptr;    ///< `items`, as written
  const WalkNode* item = nullptr;        ///< `items` when it is a schema (an object)
  bool preserve = false;                 ///< x-kubernetes-preserve-unknown-fields: true
  bool embedded = false;                 ///< x-kubernetes-embedded-resource: true
  enum class ListType { kAtomic, kMap, kSet } list_type = ListType::kAtomic;
  bool has_format = false;  ///< `format` is given (checked on scalars)

  /// The schema of property `name`, or nullptr when the node does not declare it.
  const WalkNode* property(std::string_view name) const;
};

/// The walk plan of one prepared structural schema. `schema` must outlive the plan and stay unchanged: the plan
/// points into it. Built once; read-only after, safe to share between threads. Size: one WalkNode per schema node
/// reached through properties, additionalProperties and items (about 4,000 for KubeRay's RayCluster).
class WalkPlan {
 public:
  explicit WalkPlan(const json::Value& schema);
  WalkPlan(const WalkPlan&) = delete;
  WalkPlan& operator=(const WalkPlan&) = delete;

  /// Appends to `out` the findings of `doc` judged by the plan's schema, with `path` as the doc's own path and
  /// `source` as the findings' source: "schema:unknownField" (a member the schema does not declare, where it
  /// declares properties and neither preserves unknown fields nor gives additionalProperties; an embedded
  /// resource's apiVersion, kind and metadata are always admitted), "schema:duplicate" (an entry of a list-map whose
  /// key fields, defaults included, repeat an earlier entry's; a value of a set that repeats) and "schema:format"
  /// (structural::format_violation).
  void walk(const json::Value& doc, const std::string& path, const std::string& source, FieldErrors& out) const;

 private:
  const WalkNode* add(const json::Value& schema, int depth);

  std::deque<WalkNode> nodes_;  // stable addresses
  const WalkNode* root_ = nullptr;
};

/// A short rendering of a JSON value for messages: its JSON text, cut to 60 bytes (at a UTF-8 boundary, "..." added).
std::string preview(const json::Value& v);

}  // namespace cfo::validation::structural
