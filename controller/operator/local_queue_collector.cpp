#include "operator/local_queue_collector.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "operator/finalizer.hpp"
#include "operator/resources.hpp"
#include "runtime/predicates.hpp"
#include "workload/local_queue.hpp"

namespace cfo::op {

namespace {
// True when a live (not deleting) workload of `workloads` may use LocalQueue `name` (may_use_local_queue).
bool used_by_any(const std::vector<runtime::ObjectPtr>& workloads, const std::string& name, bool default_candidate) {
  for (const auto& wl : workloads) {
    if (!wl || json::find_path(*wl, "metadata.deletionTimestamp")) continue;
    if (may_use_local_queue(*wl, name, default_candidate)) return true;
  }
  return false;
}

// True when a workload of `workloads` being deleted still holds the finalizer for LocalQueue `name` it manages: its
// own clean-up deletes the queue or keeps it, and the collector leaves the queue to that (the twenty-first user trial:
// both sent a DELETE for one queue). Once the finalizer is gone, the workload's change wakes the collector again.
bool left_to_a_finalizer(const std::vector<runtime::ObjectPtr>& workloads, const std::string& name) {
  return std::any_of(workloads.begin(), workloads.end(), [&](const runtime::ObjectPtr& wl) {
    return wl && json::find_path(*wl, "metadata.deletionTimestamp") && has_local_queue_finalizer(*wl) &&
           managed_queue_of(*wl) == name;
  });
}
}  // namespace

runtime::ReconcileResult collect_local_queue(const std::string& key, const Api& api,
                                             const LocalQueueCollectorReads& reads) {
  const std::string kueue_version = reads.kueue_version ? reads.kueue_version() : "";
  if (kueue_version.empty() || !reads.local_queue) return runtime::ReconcileResult::ok();
  runtime::ObjectPtr cached = reads.local_queue(key);
  if (!cached || !workload::is_managed_local_queue(*cached)) return runtime::ReconcileResult::ok();
  auto [ns, name] = runtime::split_key(key);
  const bool default_candidate = may_be_default_queue(*cached);
  if (reads.cached_workloads_in) {
    const auto cached_workloads = reads.cached_workloads_in(ns);
    if (used_by_any(cached_workloads, name, default_candidate) || left_to_a_finalizer(cached_workloads, name))
      return runtime::ReconcileResult::ok();
  }
  if (!reads.workloads_in) return runtime::ReconcileResult::ok();
  auto all = reads.workloads_in(ns);
  if (!all) return runtime::ReconcileResult::failed("listing the workloads of " + ns + ": " + all.error().message);
  // Used only by workloads this instance does not cache (another shard's, with --label-selector): their deletion
  // wakes nothing here, so the queue is looked at again later.
  if (used_by_any(*all, name, default_candidate)) return runtime::ReconcileResult::requeue_after(kOtherShardRecheckMs);
  auto done = clean_up_local_queue(api, resources::local_queues(kueue_version), ns, name, "", *all);
  if (!done) return runtime::ReconcileResult::failed("deleting LocalQueue " + key + ": " + done.error().message);
  if (done->deleted) spdlog::info("LocalQueueDeleted: LocalQueue {} deleted: no workload uses it any more", key);
  return runtime::ReconcileResult::ok();
}

bool local_queues_may_have_changed(const json::Value& old_workload, const json::Value& new_workload) {
  return runtime::spec_or_metadata_changed(old_workload, new_workload) ||
         json::string_at(old_workload, "status.queue") != json::string_at(new_workload, "status.queue") ||
         managed_queue_of(old_workload) != managed_queue_of(new_workload);
}

runtime::KeysMapper workload_to_local_queues(LocalQueueLister local_queues) {
  return [local_queues = std::move(local_queues)](const json::Value& wl) {
    std::vector<std::string> keys;
    const std::string ns = json::string_at(wl, "metadata.namespace");
    auto add = [&](const std::string& lq) {
      if (!lq.empty() && std::find(keys.begin(), keys.end(), ns + "/" + lq) == keys.end())
        keys.push_back(ns + "/" + lq);
    };
    for (const std::string& lq : {queue_name_of(wl), managed_queue_of(wl), json::string_at(wl, "status.queue")})
      add(lq);
    if (local_queues && queue_name_of(wl).empty())
      for (const auto& lq : local_queues(ns))
        if (lq && workload::is_managed_local_queue(*lq) && may_be_default_queue(*lq))
          add(json::string_at(*lq, "metadata.name"));
    return keys;
  };
}

runtime::KeyMapper managed_local_queue_key() {
  return [](const json::Value& lq) -> std::optional<std::string> {
    if (!workload::is_managed_local_queue(lq)) return std::nullopt;
    return json::string_at(lq, "metadata.namespace") + "/" + json::string_at(lq, "metadata.name");
  };
}

}  // namespace cfo::op
