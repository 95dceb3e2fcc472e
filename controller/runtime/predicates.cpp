#include "runtime/predicates.hpp"

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

}  // namespace cfo::runtime
