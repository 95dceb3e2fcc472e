#include "workload/raycluster_types.hpp"

#include "core/field_error.hpp"

namespace cfo::workload {

json::Value AutoscalerOptions::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("upscalingMode", json::str(upscaling_mode, a), a);
  o.AddMember("idleTimeoutSeconds", idle_timeout_seconds, a);
  o.AddMember("resources", resources.to_json(a), a);
  if (!version.empty()) o.AddMember("version", json::str(version, a), a);
  if (!image.empty()) o.AddMember("image", json::str(image, a), a);
  return o;
}

json::Value HeadGroupSpec::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("serviceType", json::str(service_type, a), a);
  o.AddMember("enableIngress", enable_ingress, a);
  if (ingress_options) o.AddMember("ingressOptions", ingress_options->to_json(a), a);
  o.AddMember("rayStartParams", string_map_to_json(ray_start_params, a), a);
  o.AddMember("template", template_.to_json(a), a);
  return o;
}

json::Value WorkerGroupSpec::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("groupName", json::str(group_name, a), a);
  o.AddMember("replicas", replicas, a);
  o.AddMember("minReplicas", min_replicas, a);
  o.AddMember("maxReplicas", max_replicas, a);
  if (suspend) o.AddMember("suspend", true, a);
  if (idle_timeout_seconds) o.AddMember("idleTimeoutSeconds", *idle_timeout_seconds, a);
  o.AddMember("rayStartParams", string_map_to_json(ray_start_params, a), a);
  o.AddMember("template", template_.to_json(a), a);
  return o;
}

json::Value GcsFaultToleranceOptions::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("redisAddress", json::str(redis_address, a), a);
  if (redis_password) {
    json::Value ref(rapidjson::kObjectType);
    ref.AddMember("name", json::str(redis_password->name, a), a);
    ref.AddMember("key", json::str(redis_password->key, a), a);
    json::Value from(rapidjson::kObjectType);
    from.AddMember("secretKeyRef", std::move(ref), a);
    json::Value password(rapidjson::kObjectType);
    password.AddMember("valueFrom", std::move(from), a);
    o.AddMember("redisPassword", std::move(password), a);
  }
  if (!external_storage_namespace.empty())
    o.AddMember("externalStorageNamespace", json::str(external_storage_namespace, a), a);
  return o;
}

json::Value RayClusterSpec::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("rayVersion", json::str(ray_version, a), a);
  o.AddMember("enableInTreeAutoscaling", enable_in_tree_autoscaling, a);
  o.AddMember("autoscalerOptions", autoscaler_options.to_json(a), a);
  o.AddMember("headGroupSpec", head_group_spec.to_json(a), a);
  json::Value groups(rapidjson::kArrayType);
  for (const auto& g : worker_group_specs) groups.PushBack(g.to_json(a), a);
  o.AddMember("workerGroupSpecs", std::move(groups), a);
  if (gcs_fault_tolerance_options) o.AddMember("gcsFaultToleranceOptions", gcs_fault_tolerance_options->to_json(a), a);
  if (!managed_by.empty()) o.AddMember("managedBy", json::str(managed_by, a), a);
  if (auth_options) o.AddMember("authOptions", auth_options->to_json(a), a);
  if (!upgrade_strategy.empty()) {
    json::Value u(rapidjson::kObjectType);
    u.AddMember("type", json::str(upgrade_strategy, a), a);
    o.AddMember("upgradeStrategy", std::move(u), a);
  }
  if (suspend) o.AddMember("suspend", true, a);
  return o;
}

json::Value RayAuthOptions::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  if (!mode.empty()) o.AddMember("mode", json::str(mode, a), a);
  if (!secret_name.empty()) o.AddMember("secretName", json::str(secret_name, a), a);
  if (enable_k8s_token_auth) o.AddMember("enableK8sTokenAuth", *enable_k8s_token_auth, a);
  return o;
}

void RayClusterSpec::collect_origins(const std::string& at, PathOrigins& out) const {
  head_group_spec.template_.collect_origins(at + ".headGroupSpec.template", out);
  for (std::size_t i = 0; i < worker_group_specs.size(); ++i)
    worker_group_specs[i].template_.collect_origins(index_path(at + ".workerGroupSpecs", i) + ".template", out);
}

json::Value RayCluster::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("apiVersion", json::str(kRayClusterApiVersion, a), a);
  o.AddMember("kind", json::str(kRayClusterKind, a), a);
  o.AddMember("metadata", metadata.to_json(a), a);
  o.AddMember("spec", spec.to_json(a), a);
  return o;
}

json::Document RayCluster::to_json() const {
  json::Document d;
  json::Value v = to_json(d.GetAllocator());
  static_cast<json::Value&>(d).Swap(v);  // v lives in d's allocator
  return d;
}

}  // namespace cfo::workload
