#include "cmd/workload_controller.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "core/condition.hpp"
#include "workload/reconcile.hpp"

namespace cfo::cmd {

namespace types {
const client::ResourceType kCodeFlareWorkload{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const client::ResourceType kRayCluster{"ray.io", "v1", "rayclusters", true};
const client::ResourceType kAppWrapper{"workload.codeflare.dev", "v1beta2", "appwrappers", true};
}  // namespace types

namespace {

std::pair<std::string, std::string> split_key(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

const client::ResourceType* type_of(const json::Value& obj) {
  auto kind = json::get_string(obj, "kind").value_or("");
  if (kind == "RayCluster") return &types::kRayCluster;
  if (kind == "AppWrapper") return &types::kAppWrapper;
  return nullptr;
}

bool iequals(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

WorkloadController::WorkloadController(client::RestClient& client, std::shared_ptr<const validation::SchemaSet> schemas,
                                       runtime::EventRecorder& events, CacheLookup workloads, CacheLookup ray_clusters,
                                       CacheLookup app_wrappers, WorkloadControllerOptions opts)
    : client_(client),
      schemas_(std::move(schemas)),
      events_(events),
      workloads_(std::move(workloads)),
      ray_clusters_(std::move(ray_clusters)),
      app_wrappers_(std::move(app_wrappers)),
      opts_(std::move(opts)) {}

// The LocalQueue annotated kueue.x-k8s.io/default-queue: "true" (compared without case, as the CodeFlare SDK does).
// 403/404 (Kueue absent or not allowed) mean "no default queue", as in the SDK's get_default_kueue_name.
std::optional<std::string> WorkloadController::default_local_queue(const std::string& ns, std::string& error) {
  if (opts_.kueue_version.empty()) return std::nullopt;
  client::ResourceType lq{"kueue.x-k8s.io", opts_.kueue_version, "localqueues", true};
  auto list = client_.get_json(lq.collection_path(ns));
  if (!list) {
    if (list.error().http_status == 404 || list.error().http_status == 403) return std::nullopt;
    error = "listing LocalQueues in " + ns + ": " + list.error().message;
    return std::nullopt;
  }
  const json::Value* items = json::find(*list, "items");
  if (!items || !items->IsArray()) return std::nullopt;
  for (const auto& item : items->GetArray()) {
    const json::Value* annotations = json::find_path(item, "metadata.annotations");
    if (!annotations) continue;
    auto v = json::get_string(*annotations, "kueue.x-k8s.io/default-queue");
    if (v && iequals(*v, "true")) {
      if (auto name = json::get_string(item["metadata"], "name")) return name;
    }
  }
  return std::nullopt;
}

runtime::ReconcileResult WorkloadController::reconcile(const std::string& key) {
  auto wl = workloads_(key);
  if (!wl) return runtime::ReconcileResult::ok();  // deleted: owner references remove the children
  if (json::find_path(*wl, "metadata.deletionTimestamp")) return runtime::ReconcileResult::ok();
  auto [ns, name] = split_key(key);

  workload::ClusterFacts facts;
  facts.profile = opts_.profile;
  const json::Value* explicit_queue = json::find_path(*wl, "spec.queue.localQueue");
  if (!explicit_queue || !explicit_queue->IsString() || explicit_queue->GetStringLength() == 0) {
    std::string err;
    facts.default_local_queue = default_local_queue(ns, err);
    if (!err.empty()) return runtime::ReconcileResult::failed(err);
  }

  auto rc = ray_clusters_(key);
  auto aw = app_wrappers_(key);
  workload::Observed observed;
  observed.ray_cluster = rc.get();
  observed.app_wrapper = aw.get();

  const json::Value* prev_status = json::find(*wl, "status");
  auto outcome = workload::reconcile(*wl, observed, facts, *schemas_, now_rfc3339());

  // Children first: the status then reports what was actually applied.
  std::string apply_error;
  if (outcome.valid) {
    for (const auto& obj : outcome.desired) {
      const client::ResourceType* t = type_of(obj);
      auto child_name = json::get_string(obj["metadata"], "name").value_or(name);
      if (!t) {
        apply_error = "no resource type known for kind " + json::get_string(obj, "kind").value_or("?");
        break;
      }
      client::WriteOptions wo;
      wo.field_manager = opts_.field_manager;
      auto applied = client_.apply(t->object_path(ns, child_name), obj, wo);
      if (!applied) {
        apply_error = json::get_string(obj, "kind").value_or("") + " " + child_name + ": " + applied.error().message;
        break;
      }
      spdlog::debug("{}: applied {} {}", key, json::get_string(obj, "kind").value_or(""), child_name);
    }
  }
  if (!apply_error.empty()) {
    spdlog::warn("{}: apply failed: {}", key, apply_error);
    events_.record(*wl, "Warning", "ApplyFailed", "Apply", apply_error);
  }

  for (const auto& ev : outcome.events) events_.record(*wl, ev.type, ev.reason, "Reconcile", ev.message);

  // Status through the status subresource, only when it changed (so our own write does not wake us again).
  bool status_changed = !prev_status || !(*prev_status == static_cast<const json::Value&>(outcome.status));
  if (status_changed) {
    json::Document body(rapidjson::kObjectType);
    auto& a = body.GetAllocator();
    body.AddMember("apiVersion", "codeflare.dev/v1alpha1", a);
    body.AddMember("kind", "CodeFlareWorkload", a);
    json::Value meta(rapidjson::kObjectType);
    meta.AddMember("name", json::str(name, a), a);
    meta.AddMember("namespace", json::str(ns, a), a);
    body.AddMember("metadata", meta, a);
    json::Value status;
    status.CopyFrom(outcome.status, a);
    body.AddMember("status", status, a);
    client::WriteOptions wo;
    wo.field_manager = opts_.field_manager;
    auto r = client_.apply(types::kCodeFlareWorkload.object_path(ns, name) + "/status", body, wo);
    if (!r) {
      if (r.error().is_not_found()) return runtime::ReconcileResult::ok();  // deleted meanwhile
      return runtime::ReconcileResult::failed("status update: " + r.error().message);
    }
  }
  if (!apply_error.empty()) return runtime::ReconcileResult::failed(apply_error);
  return runtime::ReconcileResult::ok();
}

}  // namespace cfo::cmd
