#include "operator/watch_mappings.hpp"

#include "operator/finalizer.hpp"
#include "operator/resources.hpp"

namespace cfo::op {

runtime::KeyMapper child_to_workload() {
  return [](const json::Value& obj) -> std::optional<std::string> {
    const json::Value* labels = json::find_path(obj, "metadata.labels");
    if (!labels) return std::nullopt;
    auto name = json::get_string(*labels, kWorkloadLabel);
    auto ns = json::get_string(obj["metadata"], "namespace");
    if (!name || !ns) return std::nullopt;
    return *ns + "/" + *name;
  };
}

runtime::KeysMapper local_queue_to_workloads(const runtime::InformerGroup& workloads) {
  return [&workloads](const json::Value& lq) {
    std::vector<std::string> keys;
    const std::string ns = json::string_at(lq, "metadata.namespace");
    const std::string name = json::string_at(lq, "metadata.name");
    for (const auto& wl : workloads.list(ns))
      if (queue_name_of(*wl) == name) keys.push_back(ns + "/" + json::string_at(*wl, "metadata.name"));
    return keys;
  };
}

runtime::KeysMapper priority_class_to_workloads(const runtime::InformerGroup& workloads) {
  return [&workloads](const json::Value& pc) {
    std::vector<std::string> keys;
    const std::string name = json::string_at(pc, "metadata.name");
    for (const auto& wl : workloads.list_all())
      if (json::string_at(*wl, "spec.queue.priorityClass") == name)
        keys.push_back(json::string_at(*wl, "metadata.namespace") + "/" + json::string_at(*wl, "metadata.name"));
    return keys;
  };
}

runtime::KeysMapper every_workload(const runtime::InformerGroup& workloads) {
  return [&workloads](const json::Value&) {
    std::vector<std::string> keys;
    for (const auto& wl : workloads.list_all())
      keys.push_back(json::string_at(*wl, "metadata.namespace") + "/" + json::string_at(*wl, "metadata.name"));
    return keys;
  };
}

runtime::KeyMapper kueue_workload_to_workload(const runtime::InformerGroup& workloads) {
  return [&workloads](const json::Value& wl) -> std::optional<std::string> {
    const json::Value* refs = json::find_path(wl, "metadata.ownerReferences");
    if (!refs || !refs->IsArray()) return std::nullopt;
    for (const auto& r : refs->GetArray()) {
      if (!json::get_bool(r, "controller").value_or(false)) continue;
      if (!child_kind_named(json::get_string(r, "kind").value_or(""))) return std::nullopt;
      const std::string key =
          json::string_at(wl, "metadata.namespace") + "/" + json::get_string(r, "name").value_or("");
      return workloads.get(key) ? std::optional<std::string>(key) : std::nullopt;
    }
    return std::nullopt;
  };
}

}  // namespace cfo::op
