#include "runtime/predicates.hpp"

#include <initializer_list>
#include <string_view>

namespace cfo::runtime {

namespace {

/// Equal when both are absent, or both present and equal (RapidJSON compares objects member by member,
/// independent of member order).
bool same_member(const json::Value* a, const json::Value* b) {
  if (!a || !b) return a == b;
  return *a == *b;
}

}  // namespace

bool spec_or_metadata_changed(const json::Value& old_object, const json::Value& new_object) {
  const json::Value* old_meta = json::find(old_object, "metadata");
  const json::Value* new_meta = json::find(new_object, "metadata");
  if (!old_meta || !new_meta) return true;
  auto old_generation = json::get_int(*old_meta, "generation");
  auto new_generation = json::get_int(*new_meta, "generation");
  if (!old_generation || !new_generation || *old_generation != *new_generation) return true;
  for (std::string_view field : {"labels", "annotations", "finalizers", "ownerReferences", "deletionTimestamp"})
    if (!same_member(json::find(*old_meta, field), json::find(*new_meta, field))) return true;
  return false;
}

bool kept_fields_changed(const json::Value& old_object, const json::Value& new_object) {
  if (!old_object.IsObject() || !new_object.IsObject()) return !(old_object == new_object);
  // Compares `a`'s members with `b`'s, both ways, skipping `ignored` (a member absent on one side counts as a change).
  auto differ = [](const json::Value& a, const json::Value& b, std::initializer_list<std::string_view> ignored,
                   const auto& same) {
    auto skipped = [&](const json::Value& name) {
      for (std::string_view i : ignored)
        if (std::string_view(name.GetString(), name.GetStringLength()) == i) return true;
      return false;
    };
    for (const auto& m : a.GetObject())
      if (!skipped(m.name) && !same(m.name, m.value, b)) return true;
    for (const auto& m : b.GetObject())
      if (!skipped(m.name) && !a.HasMember(m.name)) return true;
    return false;
  };
  auto equal_in = [](const json::Value& name, const json::Value& value, const json::Value& other) {
    auto it = other.FindMember(name);
    return it != other.MemberEnd() && it->value == value;
  };
  auto metadata_equal_in = [&](const json::Value& name, const json::Value& value, const json::Value& other) {
    if (!(name == "metadata")) return equal_in(name, value, other);
    auto it = other.FindMember(name);
    if (it == other.MemberEnd()) return false;
    if (!value.IsObject() || !it->value.IsObject()) return value == it->value;
    return !differ(value, it->value, {"resourceVersion", "managedFields"}, equal_in);
  };
  return differ(old_object, new_object, {}, metadata_equal_in);
}

}  // namespace cfo::runtime
