#include "workload/appwrapper_types.hpp"

namespace cfo::workload {

json::Value AppWrapperComponent::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("template", template_.to_json(a), a);
  return o;
}

json::Document AppWrapper::to_json() const {
  json::Document d;
  d.SetObject();
  auto& a = d.GetAllocator();
  d.AddMember("apiVersion", json::str(kAppWrapperApiVersion, a), a);
  d.AddMember("kind", json::str(kAppWrapperKind, a), a);
  d.AddMember("metadata", metadata.to_json(a), a);
  json::Value comps(rapidjson::kArrayType);
  for (const auto& c : components) comps.PushBack(c.to_json(a), a);
  json::Value spec(rapidjson::kObjectType);
  spec.AddMember("components", std::move(comps), a);
  if (suspend) spec.AddMember("suspend", true, a);
  if (!managed_by.empty()) spec.AddMember("managedBy", json::str(managed_by, a), a);
  d.AddMember("spec", std::move(spec), a);
  return d;
}

}  // namespace cfo::workload
