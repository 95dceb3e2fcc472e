#include "operator/plan_executor.hpp"

#include <spdlog/spdlog.h>

#include "core/timestamp.hpp"
#include "operator/finalizer.hpp"
#include "operator/resources.hpp"
#include "operator/server_verdict.hpp"
#include "workload/local_queue.hpp"

namespace cfo::op {

namespace {
std::string with_article(std::string_view kind) { return (kind == "AppWrapper" ? "an " : "a ") + std::string(kind); }

// DELETE of the workload's child `r`; an accepted one (or a 404) is told to ctx.on_removed.
Result<void> remove_child(const Api& api, const ExecutionContext& ctx, const Removal& r) {
  auto done = api.remove(info(r.kind).type->object_path(ctx.ns, r.name));
  if ((done || done.error().is_not_found()) && ctx.on_removed) ctx.on_removed(r.kind);
  return done;
}

// A write as the plan says: created (POST to the collection) when not cached, else applied (server-side apply).
Result<json::Document> write(const Api& api, const Write& w, const std::string& ns, const client::WriteOptions& wo) {
  if (!w.exists) return api.create(w.type.collection_path(ns), *w.object, wo);
  return api.apply(w.type.object_path(ns, w.name), *w.object, wo);
}

// The managedFields entry our POST left (manager ours, operation Update) becomes an Apply entry, as if the object had
// been created by our apply: the fields it lists are then ours to remove by leaving them out of an apply. Field
// ownership is keyed by manager and operation (Kubernetes docs, "Server-Side Apply": field management, and the
// upgrade from client-side apply that client-go's csaupgrade does by rewriting managedFields the same way). The
// `test`s make a stale index (the cache behind) fail with 422 and write nothing. One PATCH, once per child.
Result<json::Document> take_over_created_fields(const Api& api, const Write& w, const std::string& ns,
                                                const client::WriteOptions& wo) {
  json::Document ops(rapidjson::kArrayType);
  auto& a = ops.GetAllocator();
  const std::string at = "/metadata/managedFields/" + std::to_string(w.upgrade_entry);
  auto op = [&](const char* name, const std::string& path, const std::string& value) {
    json::Value o(rapidjson::kObjectType);
    o.AddMember("op", json::str(name, a), a);
    o.AddMember("path", json::str(path, a), a);
    o.AddMember("value", json::str(value, a), a);
    ops.PushBack(o, a);
  };
  op("test", at + "/manager", wo.field_manager);
  op("test", at + "/operation", "Update");
  op("replace", at + "/operation", "Apply");
  return api.json_patch(w.type.object_path(ns, w.name), ops, wo);
}

// A create-only write answered 409 whose object is one the operator would have made itself: a managed LocalQueue for
// the same ClusterQueue, made by another workload's reconcile a moment before (their caches not updated yet). Then
// the write is as good as done; any other object that exists is not taken over.
bool made_as_wanted(const Api& api, const Write& w, const std::string& ns) {
  auto live = api.get(w.type.object_path(ns, w.name));
  return live && workload::is_managed_local_queue(*live) &&
         json::string_at(*live, "spec.clusterQueue") == json::string_at(*w.object, "spec.clusterQueue");
}

// The managed LocalQueue a first submission goes to, as the server has it: nullopt when it is a managed LocalQueue
// pointing at `check.cluster_queue`, else why nothing is submitted (gone, replaced or re-pointed since the cache last
// saw it, or unreadable). One GET.
std::optional<std::string> confirm_local_queue(const Api& api, const workload::LocalQueueCheck& check,
                                               const ExecutionContext& ctx) {
  auto live = api.get(resources::local_queues(ctx.kueue_version).object_path(ctx.ns, check.name));
  const std::string stale =
      "; the operator's cache does not show it yet: nothing is submitted to it, and the "
      "workload is judged again once the cache has it";
  if (!live && live.error().is_not_found()) return "LocalQueue " + check.name + " is gone" + stale;
  if (!live) return "reading LocalQueue " + check.name + " before submitting to it: " + live.error().message;
  const std::string cq = json::string_at(*live, "spec.clusterQueue");
  if (!workload::is_managed_local_queue(*live))
    return "LocalQueue " + check.name + " was replaced by one the operator does not manage (ClusterQueue " + cq + ")" +
           stale;
  if (cq != check.cluster_queue)
    return "LocalQueue " + check.name + " now points at ClusterQueue " + cq + ", not " + check.cluster_queue + stale;
  return std::nullopt;
}

// Why a write failed: a 409 to a creation means the object exists although the cache did not show it.
std::string create_failure(const Write& w, const Error& e) {
  if (!w.exists && e.is_conflict())
    return w.kind + " " + w.name +
           " already exists, though the operator's cache does not show it yet (created meanwhile, or the cache is "
           "listing again): it is not taken over; the workload is judged again once the cache has it";
  return w.kind + " " + w.name + ": " + e.message;
}

// What the operator did to something other than the workload's children it applies: an event, and its log line
// (runtime::log_event), both once.
void tell(runtime::EventRecorder& events, const json::Value& workload, const char* type, const char* reason,
          const char* action, const std::string& message) {
  runtime::log_event(type, reason, message);
  events.record(workload, type, reason, action, message);
}
}  // namespace

std::optional<std::string> finalize(const ExecutionContext& ctx, const Api& api, runtime::EventRecorder& events) {
  if (!has_local_queue_finalizer(ctx.workload)) return std::nullopt;
  std::string failure;
  if (!ctx.kueue_version.empty()) {
    const std::string managed = managed_queue_of(ctx.workload);
    auto others = ctx.workloads_in(ctx.ns);
    auto done = others ? clean_up_local_queue(api, resources::local_queues(ctx.kueue_version), ctx.ns, managed,
                                              ctx.name, *others)
                       : Result<CleanupResult>(std::unexpected(others.error()));
    if (!done) {
      failure = "deleting LocalQueue " + managed + ": " + done.error().message;
    } else if (done->deleted) {
      tell(events, ctx.workload, "Normal", "LocalQueueDeleted", "Delete",
           "LocalQueue " + done->local_queue + " deleted with its last workload");
    } else if (done->other_users > 0) {
      tell(events, ctx.workload, "Normal", "LocalQueueKept", "Delete",
           "LocalQueue " + done->local_queue + " kept: " + std::to_string(done->other_users) +
               " other workload(s) use it");
    }
  }
  if (!failure.empty()) {
    int64_t waited = seconds_between(json::string_at(ctx.workload, "metadata.deletionTimestamp"), now_rfc3339());
    if (waited < kFinalizerGiveUpSeconds) return failure;
    tell(events, ctx.workload, "Warning", "LocalQueueLeft", "Delete",
         failure + " (given up after " + std::to_string(waited) + " s; the LocalQueue is left)");
  }
  auto removed = set_local_queue_finalizer(api, ctx.workload, false);
  if (!removed && !removed.error().is_not_found() && !removed.error().is_conflict())
    return "removing the finalizer: " + removed.error().message;
  return std::nullopt;
}

WriteOutcome execute(const Plan& plan, const ExecutionContext& ctx, const Api& api, runtime::EventRecorder& events) {
  if (!plan.unknown_kind.empty()) return RequestFailed{"no resource type known for kind " + plan.unknown_kind};
  std::optional<std::string> failed;
  std::optional<ServerRejected> rejected;
  client::WriteOptions wo;
  wo.field_manager = ctx.field_manager;

  // 0. A first submission to a managed LocalQueue the cache shows: the live one is checked, as the cache may be stale.
  if (!plan.confirm_local_queue.name.empty()) failed = confirm_local_queue(api, plan.confirm_local_queue, ctx);

  // 1. The server-side gate: the apiserver judges every object (dryRun=All, the same apply) before any is written.
  if (plan.dry_run && !failed) {
    client::WriteOptions dry = wo;
    dry.dry_run = true;
    for (const auto& w : plan.writes) {
      auto judged = write(api, w, ctx.ns, dry);
      if (judged || (w.create_only && judged.error().is_conflict() && made_as_wanted(api, w, ctx.ns))) continue;
      if (is_server_rejection(judged.error()))
        rejected = ServerRejected{w.kind, w.name, judged.error()};
      else if (!w.exists && judged.error().is_conflict())
        failed = create_failure(w, judged.error());
      else
        failed = w.kind + " " + w.name + " (dry run): " + judged.error().message;
      break;
    }
  }

  // 2. Removals that the new state waits for.
  const bool conflict = plan.blocker && std::holds_alternative<ChildConflict>(*plan.blocker);
  bool waiting = conflict;
  if (plan.blocker && !failed && !rejected) {
    const auto* h = std::get_if<HandOver>(&*plan.blocker);
    const auto* rep = std::get_if<Replacement>(&*plan.blocker);
    if ((h && h->already_going) || (rep && rep->already_going)) {
      waiting = true;  // its removal started before, and was told then: a second DELETE would change nothing
    } else if (h) {
      const ChildKindInfo& old = info(h->old_child.kind);
      const std::string now_as = with_article(plan.top ? info(*plan.top).name : "another kind");
      if (auto r = remove_child(api, ctx, h->old_child); !r && !r.error().is_not_found())
        failed = "removing the " + std::string(old.name) + " left from before: " + r.error().message;
      else
        tell(events, ctx.workload, "Normal", "Replacing", "Delete",
             std::string(old.name) + " " + h->old_child.name + " removed: the workload now runs as " + now_as +
                 (h->old_child.kind == ChildKind::kAppWrapper ? " (the AppWrapper's RayCluster goes with it)" : "") +
                 ", created once it is gone");
      waiting = true;
    } else if (rep) {
      const ChildKindInfo& k = info(rep->child.kind);
      if (auto r = remove_child(api, ctx, rep->child); !r && !r.error().is_not_found()) {
        failed = "replacing " + std::string(k.name) + " " + rep->child.name + ": " + r.error().message;
      } else {
        tell(events, ctx.workload, "Normal", "Replacing", "Delete",
             std::string(k.name) + " " + rep->child.name + " is replaced: it cannot be updated in place");
        waiting = true;
      }
    }
  }
  const bool go = !failed && !rejected && !waiting;

  // 3. The finalizer goes on before the LocalQueue it guards is created.
  if (go && plan.add_finalizer)
    if (auto r = set_local_queue_finalizer(api, ctx.workload, true); !r)
      failed = "adding finalizer " + std::string(workload::kLocalQueueFinalizer) + ": " + r.error().message;

  // 4. The objects; the status then reports what was actually applied.
  std::optional<json::Document> created_top;
  if (go && !failed)
    for (std::size_t i = 0; i < plan.writes.size(); ++i) {
      const Write& w = plan.writes[i];
      if (w.upgrade_entry >= 0)
        if (auto up = take_over_created_fields(api, w, ctx.ns, wo); !up) {
          failed = w.kind + " " + w.name +
                   ": taking over as applied the fields its creation wrote: " + up.error().message +
                   " (retried once the cache has the child as it is now)";
          break;
        }
      auto applied = write(api, w, ctx.ns, wo);
      if (!applied && w.create_only && applied.error().is_conflict() && made_as_wanted(api, w, ctx.ns)) {
        spdlog::info("{} {} exists already, labelled as the operator's and for the same ClusterQueue: used as it is",
                     w.kind, w.name);
        continue;
      }
      if (!applied) {
        // A refusal of the first write (nothing written before it, the dry run skipped) is the gate's verdict.
        if (plan.gated && i == 0 && !plan.dry_run && !plan.add_finalizer && is_server_rejection(applied.error()))
          rejected = ServerRejected{w.kind, w.name, applied.error()};
        else
          failed = create_failure(w, applied.error());
        break;
      }
      if (ctx.on_applied) ctx.on_applied(w.kind);
      if (!w.exists && plan.top && w.kind == info(*plan.top).name) created_top = std::move(*applied);
      spdlog::info("{} {} {}", w.exists ? "updated" : "created", w.kind, w.name);
    }

  // 5. A child of another kind left from before spec.appWrapper or spec.job changed is ours to remove: only when the
  // writes went ahead (the twenty-fifth user trial: during a HandOver's wait it was deleted and told "Replaced" again
  // on every recheck).
  if (go && !failed)
    for (const auto& s : plan.stale) {
      const ChildKindInfo& k = info(s.kind);
      auto removed = remove_child(api, ctx, s);
      if (!removed && !removed.error().is_not_found()) {
        failed = "removing the " + std::string(k.name) + " left from before: " + removed.error().message;
        break;
      }
      tell(events, ctx.workload, "Normal", "Replaced", "Delete",
           std::string(k.name) + " " + s.name + " removed: the workload now runs as " +
               with_article(plan.top ? info(*plan.top).name : "another kind"));
    }

  // 6. A LocalQueue this workload managed and no longer uses is deleted unless another workload uses it.
  if (go && !failed && !rejected && !plan.release_local_queue.empty()) {
    auto others = ctx.workloads_in(ctx.ns);
    auto done = others ? clean_up_local_queue(api, resources::local_queues(ctx.kueue_version), ctx.ns,
                                              plan.release_local_queue, ctx.name, *others)
                       : Result<CleanupResult>(std::unexpected(others.error()));
    if (!done)
      failed = "releasing LocalQueue " + plan.release_local_queue + ": " + done.error().message;
    else if (done->deleted)
      tell(events, ctx.workload, "Normal", "LocalQueueDeleted", "Delete",
           "LocalQueue " + done->local_queue + " deleted: no workload uses it any more");
  }

  // 7. A finalizer no longer needed (spec.queue.clusterQueue removed) goes, after the same clean-up as on deletion.
  if (plan.drop_finalizer && !failed && !rejected)
    if (auto f = finalize(ctx, api, events)) failed = *f;

  if (failed) return RequestFailed{*failed};
  if (rejected) return *rejected;
  if (plan.blocker && waiting) return Blocked{*plan.blocker};
  return Applied{std::move(created_top)};
}

}  // namespace cfo::op
