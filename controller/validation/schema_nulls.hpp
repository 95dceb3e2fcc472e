#pragma once
// Internal to cfo_validation. Null pruning, as kube-apiserver (1.20 and later) does it to a custom resource before it
// applies defaults and validates: an object member that is explicitly null, whose schema (the property's, or
// additionalProperties' for a map entry) is neither `nullable` nor has a `default`, is removed. Nulls of nullable
// members stay; nulls of defaulted properties are left to structural defaulting (schema_defaults.hpp), which
// replaces them by the default. List items are not pruned: a null item fails validation.
#include "core/json.hpp"

namespace cfo::validation::structural {

/// True when prune_nulls() would remove something from `obj` (read only; lets callers skip the copy).
/// `schema` is a structural schema (properties, additionalProperties, items; `nullable` and `default` as written).
bool has_prunable_nulls(const json::Value& schema, const json::Value& obj);

/// Removes, in place and at every depth, the null members of `obj` (properties and map entries) that `schema` neither
/// declares nullable nor gives a default.
void prune_nulls(const json::Value& schema, json::Value& obj);

}  // namespace cfo::validation::structural
