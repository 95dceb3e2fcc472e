#include "workload/pod_types.hpp"

#include "core/field_error.hpp"
#include "workload/object_meta.hpp"

namespace cfo::workload {

namespace {
template <class T>
json::Value array_of(const std::vector<T>& items, json::Allocator& a) {
  json::Value arr(rapidjson::kArrayType);
  for (const auto& item : items) arr.PushBack(item.to_json(a), a);
  return arr;
}
}  // namespace

json::Value ContainerPort::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("name", json::str(name, a), a);
  o.AddMember("containerPort", container_port, a);
  o.AddMember("protocol", "TCP", a);
  return o;
}

json::Value ResourceRequirements::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  if (!requests.empty()) o.AddMember("requests", requests.to_json(a), a);
  if (!limits.empty()) o.AddMember("limits", limits.to_json(a), a);
  return o;
}

json::Value EnvVar::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("name", json::str(name, a), a);
  if (value) o.AddMember("value", json::str(*value, a), a);
  if (value_from) o.AddMember("valueFrom", value_from->to_json(a), a);
  return o;
}

json::Value Container::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("name", json::str(name, a), a);
  o.AddMember("image", json::str(image, a), a);
  if (!image_pull_policy.empty()) o.AddMember("imagePullPolicy", json::str(image_pull_policy, a), a);
  if (!ports.empty()) o.AddMember("ports", array_of(ports, a), a);
  if (!pre_stop_command.empty()) {
    json::Value cmd(rapidjson::kArrayType);
    for (const auto& c : pre_stop_command) cmd.PushBack(json::str(c, a), a);
    json::Value exec(rapidjson::kObjectType);
    exec.AddMember("command", std::move(cmd), a);
    json::Value pre_stop(rapidjson::kObjectType);
    pre_stop.AddMember("exec", std::move(exec), a);
    json::Value lifecycle(rapidjson::kObjectType);
    lifecycle.AddMember("preStop", std::move(pre_stop), a);
    o.AddMember("lifecycle", std::move(lifecycle), a);
  }
  o.AddMember("resources", resources.to_json(a), a);
  if (!env.empty()) o.AddMember("env", array_of(env, a), a);
  if (!volume_mounts.empty()) o.AddMember("volumeMounts", array_of(volume_mounts, a), a);
  return o;
}

json::Value PodSpec::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("containers", array_of(containers, a), a);
  if (!volumes.empty()) o.AddMember("volumes", array_of(volumes, a), a);
  if (!tolerations.empty()) o.AddMember("tolerations", array_of(tolerations, a), a);
  if (!restart_policy.empty()) o.AddMember("restartPolicy", json::str(restart_policy, a), a);
  if (!image_pull_secrets.empty()) {
    json::Value arr(rapidjson::kArrayType);
    for (const auto& n : image_pull_secrets) {
      json::Value ref(rapidjson::kObjectType);
      ref.AddMember("name", json::str(n, a), a);
      arr.PushBack(std::move(ref), a);
    }
    o.AddMember("imagePullSecrets", std::move(arr), a);
  }
  return o;
}

namespace {
json::Value generated_template(const PodTemplateSpec& t, json::Allocator& a) {
  json::Value o(rapidjson::kObjectType);
  if (!t.labels.empty() || !t.annotations.empty()) {
    json::Value meta(rapidjson::kObjectType);
    if (!t.labels.empty()) meta.AddMember("labels", string_map_to_json(t.labels, a), a);
    if (!t.annotations.empty()) meta.AddMember("annotations", string_map_to_json(t.annotations, a), a);
    o.AddMember("metadata", std::move(meta), a);
  }
  o.AddMember("spec", t.spec.to_json(a), a);
  return o;
}
}  // namespace

json::Value PodTemplateSpec::to_json(json::Allocator& a) const {
  json::Value o = generated_template(*this, a);
  for (const auto& overlay : overlays)
    merge_pod_template(o, overlay.patch.value(), a, MergeOptions{overlay.existing_only, nullptr});
  return o;
}

void PodTemplateSpec::collect_origins(const std::string& at, PathOrigins& out) const {
  for (const auto& o : origins) out.push_back(PathOrigin{join_path(at, o.child), o.source});
  if (overlays.empty()) return;
  json::Document d;
  json::Value o = generated_template(*this, d.GetAllocator());
  for (const auto& overlay : overlays) {
    MergeTrace trace{at, overlay.source, &out};
    merge_pod_template(o, overlay.patch.value(), d.GetAllocator(), MergeOptions{overlay.existing_only, &trace});
  }
}

}  // namespace cfo::workload
