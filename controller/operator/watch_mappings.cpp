#include "operator/watch_mappings.hpp"

#include "operator/finalizer.hpp"
#include "operator/resources.hpp"

namespace cfo::op {

runtime::KeyMapper child_to_workload(const runtime::InformerGroup& workloads,
                                     std::shared_ptr<OwnChildWrites> own_writes) {
  return [&workloads, own_writes = std::move(own_writes)](const json::Value& obj) -> std::optional<std::string> {
    const std::string ns = json::string_at(obj, "metadata.namespace");
    if (ns.empty()) return std::nullopt;
    const json::Value* labels = json::find_path(obj, "metadata.labels");
    if (auto name = labels && labels->IsObject() ? json::get_string(*labels, kWorkloadLabel) : std::nullopt) {
      std::string key = ns + "/" + *name;
      if (own_writes && own_writes->is_echo(key, obj)) return std::nullopt;
      return key;
    }
    // Someone else's object under a workload's name: the workload it blocks (ChildConflict) goes on when it goes.
    const std::string key = ns + "/" + json::string_at(obj, "metadata.name");
    return workloads.get(key) ? std::optional<std::string>(key) : std::nullopt;
  };
}

runtime::KeysMapper local_queue_to_workloads(const runtime::InformerGroup& workloads) {
  return [&workloads](const json::Value& lq) {
    std::vector<std::string> keys;
    const std::string ns = json::string_at(lq, "metadata.namespace");
    const std::string name = json::string_at(lq, "metadata.name");
    // Those that use it (the spec names it, it manages it, or runs in it: status.queue), and those that name no
    // queue: their queue is the namespace's default, which any LocalQueue's coming, going or annotation may change.
    for (const auto& wl : workloads.list(ns))
      if (uses_local_queue(*wl, name) || queue_name_of(*wl).empty())
        keys.push_back(ns + "/" + json::string_at(*wl, "metadata.name"));
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
  return [&workloads](const json::Value&) { return workloads.keys(""); };
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
