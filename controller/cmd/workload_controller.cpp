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

// Re-check a child held by someone else this often (it may be deleted or handed over).
constexpr int64_t kConflictRecheckMs = 30000;

// True when `obj` has a controller owner reference to the CodeFlareWorkload with this uid.
bool controlled_by(const json::Value& obj, const std::string& uid) {
  const json::Value* refs = json::find_path(obj, "metadata.ownerReferences");
  if (!refs || !refs->IsArray() || uid.empty()) return false;
  for (const auto& r : refs->GetArray())
    if (json::get_bool(r, "controller").value_or(false) && json::get_string(r, "kind") == "CodeFlareWorkload" &&
        json::get_string(r, "uid") == uid)
      return true;
  return false;
}

// Sets Ready=False with `reason` in a status object (the condition keeps its transition time when already False).
void mark_not_ready(json::Document& status, const std::string& reason, const std::string& message, int64_t generation) {
  auto& a = status.GetAllocator();
  if (!status.IsObject()) status.SetObject();
  const json::Value* current = json::find(status, "conditions");
  auto conditions = current ? conditions_from_json(*current) : std::vector<Condition>{};
  set_condition(conditions, Condition{"Ready", "False", generation, "", reason, message}, now_rfc3339());
  json::set(status, "conditions", conditions_to_json(conditions, a), a);
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
// Who holds the child, when it exists and is not controlled by this workload: "is controlled by <Kind> <name>" or
// "has no controller"; empty when it is absent or ours. Errors other than 404 count as absent (apply reports them).
std::string WorkloadController::foreign_owner(const client::ResourceType& type, const std::string& ns,
                                              const std::string& name, const std::string& uid) {
  auto current = client_.get_json(type.object_path(ns, name));
  if (!current || controlled_by(*current, uid)) return {};
  const json::Value* refs = json::find_path(*current, "metadata.ownerReferences");
  if (refs && refs->IsArray())
    for (const auto& r : refs->GetArray())
      if (json::get_bool(r, "controller").value_or(false))
        return "is controlled by " + json::get_string(r, "kind").value_or("?") + " " +
               json::get_string(r, "name").value_or("?");
  return "has no controller";
}

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
  const std::string uid = json::get_string((*wl)["metadata"], "uid").value_or("");
  std::string apply_error, conflict;
  if (outcome.valid) {
    for (const auto& obj : outcome.desired) {
      const client::ResourceType* t = type_of(obj);
      const std::string kind = json::get_string(obj, "kind").value_or("?");
      auto child_name = json::get_string(obj["metadata"], "name").value_or(name);
      if (!t) {
        apply_error = "no resource type known for kind " + kind;
        break;
      }
      // The cache answers the common case (the child is ours); only otherwise ask the apiserver, since the cache
      // holds labelled objects only and a foreign object of that name would not be in it.
      auto cached = t == &types::kRayCluster ? rc : aw;
      bool ours = cached && child_name == name && controlled_by(*cached, uid);
      if (auto owner = ours ? std::string() : foreign_owner(*t, ns, child_name, uid); !owner.empty()) {
        conflict = kind + " " + child_name + " already exists and " + owner +
                   "; the workload does not take it over (delete it or rename the workload)";
        break;
      }
      client::WriteOptions wo;
      wo.field_manager = opts_.field_manager;
      auto applied = client_.apply(t->object_path(ns, child_name), obj, wo);
      if (!applied) {
        apply_error = kind + " " + child_name + ": " + applied.error().message;
        break;
      }
      spdlog::debug("{}: applied {} {}", key, kind, child_name);
    }
    // A child of the other kind left from before spec.appWrapper changed is ours to remove.
    if (apply_error.empty() && conflict.empty()) {
      bool wrapped = !outcome.desired.empty() && type_of(outcome.desired.front()) == &types::kAppWrapper;
      const auto& stale_type = wrapped ? types::kRayCluster : types::kAppWrapper;
      auto stale = wrapped ? rc : aw;
      if (stale && controlled_by(*stale, uid)) {
        auto removed = client_.remove(stale_type.object_path(ns, name));
        if (!removed)
          apply_error = "removing the " + std::string(wrapped ? "RayCluster" : "AppWrapper") +
                        " left from before: " + removed.error().message;
        else
          events_.record(*wl, "Normal", "Replaced", "Delete",
                         std::string(wrapped ? "RayCluster " : "AppWrapper ") + name + " removed: spec.appWrapper is " +
                             (wrapped ? "true" : "false"));
      }
    }
  }
  if (!conflict.empty()) {
    spdlog::warn("{}: {}", key, conflict);
    events_.record(*wl, "Warning", "ChildConflict", "Apply", conflict);
    mark_not_ready(outcome.status, "ChildConflict", conflict,
                   json::get_int((*wl)["metadata"], "generation").value_or(0));
  }
  if (!apply_error.empty()) {
    spdlog::warn("{}: apply failed: {}", key, apply_error);
    events_.record(*wl, "Warning", "ApplyFailed", "Apply", apply_error);
    mark_not_ready(outcome.status, "ApplyFailed", apply_error,
                   json::get_int((*wl)["metadata"], "generation").value_or(0));
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
  if (!conflict.empty()) return runtime::ReconcileResult::requeue_after(kConflictRecheckMs);
  return runtime::ReconcileResult::ok();
}

}  // namespace cfo::cmd
