#pragma once
// Internal to cfo_validation. What a structural schema asks of an object beyond draft-04, prepared once per loaded
// CRD version: the `default`s to apply (kube-apiserver's structural defaulting) and the compiled
// `x-kubernetes-validations` rules. The plan is a tree that mirrors the schema, pruned to the branches that hold a
// default or a rule, so that the walks over an object (schema_defaults.hpp, schema_cel.hpp) never look at the rest
// of the schema (the pod templates of a RayCluster hold neither rules nor, mostly, defaults).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "validation/cel/cel.hpp"
#include "validation/schema_set.hpp"

namespace cfo::validation::structural {

/// A compiled `x-kubernetes-validations` entry.
struct CelRule {
  cel::Program program;
  std::string name;    ///< FieldError rule: "cel:<message, or messageExpression literal, or rule>"
  std::string reason;  ///< the reason when the rule fails: message, else the rule text
  std::optional<cel::Program> message_expression;  ///< a messageExpression that is not a literal and compiles
  std::vector<std::string> field_path;             ///< `fieldPath` as keys below the location ("" segments never occur)
};

/// A property whose schema has a `default`.
struct Default {
  std::string name;
  const json::Value* value = nullptr;  ///< the default, in the prepared schema
  bool nullable = false;               ///< the property is nullable: an explicit null is kept, not defaulted
};

/// One schema node that holds, or lies above, a default or a rule.
struct PlanNode {
  const json::Value* schema = nullptr;  ///< the prepared schema node (outlives the plan)
  std::vector<CelRule> rules;
  std::vector<Default> defaults;
  std::vector<std::pair<std::string, std::unique_ptr<PlanNode>>> properties;  ///< relevant properties, by name
  std::unique_ptr<PlanNode> additional;                                       ///< additionalProperties, if relevant
  bool declares_properties = false;  ///< the schema has `properties` (a member named there never uses `additional`)
  std::unique_ptr<PlanNode> items;   ///< items, if relevant
  std::vector<std::string> list_map_keys;  ///< x-kubernetes-list-map-keys when x-kubernetes-list-type is map
  bool rules_below = false;                ///< a rule here or in a descendant
  bool defaults_below = false;             ///< a default here or in a descendant

  /// The plan of property `name` (binary search in `properties`), or nullptr when it holds nothing.
  const PlanNode* property(std::string_view name) const;
  /// The plan for the value of member `name` of an object: its property's, else additionalProperties' (when the
  /// schema does not declare `name`), else nullptr.
  const PlanNode* member(std::string_view name) const;
};

/// Builds the plan of a prepared schema (schema_set.cpp keeps `nullable` and `x-kubernetes-validations` in it).
/// Every rule found is appended to `rules` (with `api_version` and `kind`), unsupported ones with the reason:
/// a rule that does not compile in the CEL subset, uses `optionalOldSelf`, has no rule text, or sits inside
/// allOf/anyOf/oneOf/not (where Kubernetes does not allow rules). Returns nullptr when the schema has neither
/// defaults nor rules.
std::unique_ptr<PlanNode> build_plan(const json::Value& schema, const std::string& api_version, const std::string& kind,
                                     std::vector<CelRuleInfo>& rules);

}  // namespace cfo::validation::structural
