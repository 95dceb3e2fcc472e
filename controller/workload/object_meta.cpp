#include "workload/object_meta.hpp"

namespace cfo::workload {

json::Value string_map_to_json(const std::map<std::string, std::string>& m, json::Allocator& a) {
  json::Value o(rapidjson::kObjectType);
  for (const auto& [k, v] : m) o.AddMember(json::str(k, a), json::str(v, a), a);
  return o;
}

json::Value OwnerReference::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("apiVersion", json::str(api_version, a), a);
  o.AddMember("kind", json::str(kind, a), a);
  o.AddMember("name", json::str(name, a), a);
  o.AddMember("uid", json::str(uid, a), a);
  if (controller) o.AddMember("controller", true, a);
  if (block_owner_deletion) o.AddMember("blockOwnerDeletion", true, a);
  return o;
}

json::Value ObjectMeta::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  if (!name.empty()) o.AddMember("name", json::str(name, a), a);
  if (!namespace_.empty()) o.AddMember("namespace", json::str(namespace_, a), a);
  if (!labels.empty()) o.AddMember("labels", string_map_to_json(labels, a), a);
  if (!annotations.empty()) o.AddMember("annotations", string_map_to_json(annotations, a), a);
  if (!owner_references.empty()) {
    json::Value refs(rapidjson::kArrayType);
    for (const auto& r : owner_references) refs.PushBack(r.to_json(a), a);
    o.AddMember("ownerReferences", std::move(refs), a);
  }
  return o;
}

}  // namespace cfo::workload
