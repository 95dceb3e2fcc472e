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

/// Equal objects when the members named in `ignored` are left out of both (member order does not matter).
bool same_members_except(const json::Value& a, const json::Value& b, std::initializer_list<std::string_view> ignored) {
  auto counted = [&](const json::Value& name) {
    const std::string_view n(name.GetString(), name.GetStringLength());
    for (std::string_view i : ignored)
      if (n == i) return false;
    return true;
  };
  std::size_t in_a = 0;
  for (const auto& m : a.GetObject()) {
    if (!counted(m.name)) continue;
    ++in_a;
    auto it = b.FindMember(m.name);
    if (it == b.MemberEnd() || !(it->value == m.value)) return false;
  }
  std::size_t in_b = 0;
  for (const auto& m : b.GetObject()) in_b += counted(m.name) ? 1 : 0;
  return in_a == in_b;
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
  const json::Value* old_meta = json::find(old_object, "metadata");
  const json::Value* new_meta = json::find(new_object, "metadata");
  const bool both_maps = old_meta && new_meta && old_meta->IsObject() && new_meta->IsObject();
  if (both_maps ? !same_members_except(*old_meta, *new_meta, {"resourceVersion", "managedFields"})
                : !same_member(old_meta, new_meta))
    return true;
  return !same_members_except(old_object, new_object, {"metadata"});
}

}  // namespace cfo::runtime
