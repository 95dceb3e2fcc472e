#include "operator/namespace_cache.hpp"

#include "operator/resources.hpp"

namespace cfo::op {

runtime::InformerOptions namespace_informer(const std::string& name) {
  runtime::InformerOptions p;
  p.resource = resources::kNamespaces;
  p.transform = namespace_transform;
  if (!name.empty()) p.field_selector = "metadata.name=" + name;
  return p;
}

void namespace_transform(json::Document& ns) {
  json::Document keep(rapidjson::kObjectType);
  auto& a = keep.GetAllocator();
  for (const char* field : {"apiVersion", "kind"})
    if (const json::Value* v = json::find(ns, field)) {
      json::Value copy;
      copy.CopyFrom(*v, a);
      keep.AddMember(json::str(field, a), copy, a);
    }
  json::Value meta(rapidjson::kObjectType);
  for (const char* field : {"name", "uid", "resourceVersion", "labels"})
    if (const json::Value* v = json::find_path(ns, std::string("metadata.") + field)) {
      json::Value copy;
      copy.CopyFrom(*v, a);
      meta.AddMember(json::str(field, a), copy, a);
    }
  keep.AddMember("metadata", meta, a);
  ns.Swap(keep);
}

validation::PodSecurityLevel pod_security_level_of(const json::Value* ns) {
  if (!ns) return validation::PodSecurityLevel::kPrivileged;
  const json::Value* labels = json::find_path(*ns, "metadata.labels");
  const json::Value* v =
      labels && labels->IsObject() ? json::find(*labels, std::string(validation::kPodSecurityEnforceLabel)) : nullptr;
  if (!v) return validation::PodSecurityLevel::kPrivileged;
  const std::string_view value = v->IsString() ? std::string_view(v->GetString(), v->GetStringLength()) : "";
  return validation::pod_security_level_of_label(&value);
}

runtime::KeysMapper namespace_to_workloads(const runtime::InformerGroup& workloads) {
  return [&workloads](const json::Value& ns) { return workloads.keys(json::string_at(ns, "metadata.name")); };
}

}  // namespace cfo::op
