#include "validation/schema_nulls.hpp"

#include <type_traits>

namespace cfo::validation::structural {

namespace {

bool is_true(const json::Value& schema, std::string_view key) {
  const json::Value* v = json::find(schema, key);
  return v && v->IsBool() && v->GetBool();
}

/// The schema of a property that a null may not hold: declared, not nullable and without a default.
bool prunable(const json::Value& property_schema) {
  return property_schema.IsObject() && !is_true(property_schema, "nullable") && !json::find(property_schema, "default");
}

const json::Value* property_schema(const json::Value* props, const json::Value& name) {
  if (!props) return nullptr;
  auto it = props->FindMember(name);
  return it == props->MemberEnd() ? nullptr : &it->value;
}

/// Walks `obj` alongside `schema`. A mutable `obj` has what it finds deleted; a const one is only searched, and the
/// walk stops at the first find.
template <class V>
bool visit(const json::Value& schema, V& obj) {
  constexpr bool remove = !std::is_const_v<V>;
  if (!schema.IsObject()) return false;
  bool found = false;
  if (obj.IsObject()) {
    const json::Value* props = json::find(schema, "properties");
    if (props && !props->IsObject()) props = nullptr;
    const json::Value* additional = json::find(schema, "additionalProperties");
    if (additional && !additional->IsObject()) additional = nullptr;
    for (auto it = obj.MemberBegin(); it != obj.MemberEnd();) {
      const json::Value* sub = property_schema(props, it->name);
      if (!sub) sub = additional;
      if (it->value.IsNull() && sub && prunable(*sub)) {
        if constexpr (!remove) {
          return true;
        } else {
          found = true;
          it = obj.EraseMember(it);
          continue;
        }
      }
      if (sub && visit(*sub, it->value)) {
        if (!remove) return true;
        found = true;
      }
      ++it;
    }
  } else if (obj.IsArray()) {
    const json::Value* items = json::find(schema, "items");
    if (!items || !items->IsObject()) return false;
    for (auto it = obj.Begin(); it != obj.End(); ++it)
      if (visit(*items, *it)) {
        if (!remove) return true;
        found = true;
      }
  }
  return found;
}

bool contains_null(const json::Value& v) {
  if (v.IsNull()) return true;
  if (v.IsObject()) {
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it)
      if (contains_null(it->value)) return true;
  } else if (v.IsArray()) {
    for (auto it = v.Begin(); it != v.End(); ++it)
      if (contains_null(*it)) return true;
  }
  return false;
}

}  // namespace

bool has_prunable_nulls(const json::Value& schema, const json::Value& obj) {
  // Most objects hold no null at all, which a walk without schema lookups finds out fastest.
  return contains_null(obj) && visit(schema, obj);
}

void prune_nulls(const json::Value& schema, json::Value& obj) { visit(schema, obj); }

}  // namespace cfo::validation::structural
