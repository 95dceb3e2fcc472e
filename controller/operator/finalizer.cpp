#include "operator/finalizer.hpp"

#include <algorithm>
#include <cctype>

#include "operator/resources.hpp"
#include "workload/local_queue.hpp"

namespace cfo::op {

bool has_local_queue_finalizer(const json::Value& workload) {
  const json::Value* f = json::find_path(workload, "metadata.finalizers");
  if (!f || !f->IsArray()) return false;
  for (const auto& v : f->GetArray())
    if (v.IsString() && std::string_view(v.GetString()) == workload::kLocalQueueFinalizer) return true;
  return false;
}

namespace {
json::Value patch_op(const char* op, const std::string& path, json::Value value, json::Allocator& a) {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("op", rapidjson::StringRef(op), a);
  o.AddMember("path", json::str(path, a), a);
  if (!value.IsNull() || std::string_view(op) == "test") o.AddMember("value", value, a);
  return o;
}

// The object path of `workload` (a CodeFlareWorkload object).
std::string workload_path(const json::Value& workload) {
  return resources::kCodeFlareWorkloads.object_path(json::string_at(workload, "metadata.namespace"),
                                                    json::string_at(workload, "metadata.name"));
}

// One JSON patch of the finalizer entry from `workload` as given (the cache's view, or the object read again).
Result<void> patch_finalizer(const Api& api, const json::Value& workload, bool present) {
  const json::Value* list = json::find_path(workload, "metadata.finalizers");
  std::optional<std::size_t> at;
  if (list && list->IsArray())
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i)
      if ((*list)[i].IsString() && std::string_view((*list)[i].GetString()) == workload::kLocalQueueFinalizer) {
        at = i;
        break;
      }
  if (present == at.has_value()) return {};
  json::Document ops(rapidjson::kArrayType);
  auto& a = ops.GetAllocator();
  const std::string uid = json::string_at(workload, "metadata.uid");
  if (!uid.empty()) ops.PushBack(patch_op("test", "/metadata/uid", json::str(uid, a), a), a);
  if (present) {
    ops.PushBack(patch_op("test", "/metadata/resourceVersion",
                          json::str(json::string_at(workload, "metadata.resourceVersion"), a), a),
                 a);
    if (list && list->IsArray() && !list->Empty()) {
      ops.PushBack(patch_op("add", "/metadata/finalizers/-", json::Value(workload::kLocalQueueFinalizer, a), a), a);
    } else {
      json::Value one(rapidjson::kArrayType);
      one.PushBack(json::Value(workload::kLocalQueueFinalizer, a), a);
      ops.PushBack(patch_op("add", "/metadata/finalizers", std::move(one), a), a);
    }
  } else {
    const std::string entry = "/metadata/finalizers/" + std::to_string(*at);
    ops.PushBack(patch_op("test", entry, json::Value(workload::kLocalQueueFinalizer, a), a), a);
    ops.PushBack(patch_op("remove", entry, json::Value(), a), a);
  }
  client::WriteOptions wo;
  wo.field_manager = kFinalizerFieldManager;
  auto r = api.json_patch(workload_path(workload), ops, wo);
  if (!r) return std::unexpected(r.error());
  return {};
}
}  // namespace

Result<void> set_local_queue_finalizer(const Api& api, const json::Value& workload, bool present) {
  auto r = patch_finalizer(api, workload, present);
  if (r || r.error().http_status != 422) return r;
  // A test failed: the list changed since the cache saw it (another controller's finalizer came or went). Once more
  // from the object as it is now, unless it is another object of that name (the twenty-third user trial: such a race
  // was reported as a failed apply).
  auto live = api.get(workload_path(workload));
  if (!live) return std::unexpected(live.error());
  if (json::string_at(*live, "metadata.uid") != json::string_at(workload, "metadata.uid")) return r;
  return patch_finalizer(api, *live, present);
}

std::string queue_name_of(const json::Value& workload) {
  std::string lq = json::string_at(workload, "spec.queue.localQueue");
  return lq.empty() ? json::string_at(workload, "spec.queue.clusterQueue") : lq;
}

std::string managed_queue_of(const json::Value& workload) {
  std::string recorded = json::string_at(workload, "status.managedLocalQueue");
  if (!recorded.empty()) return recorded;
  return json::string_at(workload, "spec.queue.clusterQueue").empty() ? "" : queue_name_of(workload);
}

bool uses_local_queue(const json::Value& workload, const std::string& name) {
  return !name.empty() && (queue_name_of(workload) == name || managed_queue_of(workload) == name ||
                           json::string_at(workload, "status.queue") == name);
}

bool may_be_default_queue(const json::Value& lq) {
  if (json::string_at(lq, "metadata.name") == "default") return true;
  const json::Value* annotations = json::find_path(lq, "metadata.annotations");
  const std::string v = annotations ? json::get_string(*annotations, "kueue.x-k8s.io/default-queue").value_or("") : "";
  return v.size() == 4 && std::equal(v.begin(), v.end(), "true", [](char a, char b) { return std::tolower(a) == b; });
}

bool may_use_local_queue(const json::Value& workload, const std::string& name, bool default_candidate) {
  return uses_local_queue(workload, name) || (default_candidate && queue_name_of(workload).empty());
}

Result<CleanupResult> clean_up_local_queue(const Api& api, const client::ResourceType& local_queues,
                                           const std::string& ns, const std::string& local_queue,
                                           const std::string& self,
                                           const std::vector<std::shared_ptr<const json::Document>>& others) {
  CleanupResult out;
  out.local_queue = local_queue;
  if (local_queue.empty()) return out;
  auto current = api.get(local_queues.object_path(ns, local_queue));
  if (!current) {
    if (current.error().is_not_found()) return out;
    return std::unexpected(current.error());
  }
  // One that is not (or no longer) the operator's is left alone, and nothing is told of its users (the nineteenth user
  // trial: "kept: 1 other workload(s) use it" of a queue replaced by hand).
  if (!workload::is_managed_local_queue(*current)) return out;
  const bool default_candidate = may_be_default_queue(*current);
  for (const auto& o : others) {
    if (!o || json::string_at(*o, "metadata.namespace") != ns || json::string_at(*o, "metadata.name") == self) continue;
    if (json::find_path(*o, "metadata.deletionTimestamp")) continue;
    if (may_use_local_queue(*o, local_queue, default_candidate)) ++out.other_users;
  }
  if (out.other_users > 0) return out;
  // Only the queue read above: one made again under the same name since is not this clean-up's, and one gone
  // meanwhile was deleted by another (the eighteenth user trial: one deletion told by two workloads).
  auto removed =
      api.remove_exactly(local_queues.object_path(ns, local_queue), json::string_at(*current, "metadata.uid"));
  if (!removed) return std::unexpected(removed.error());
  out.deleted = *removed;
  return out;
}

}  // namespace cfo::op
