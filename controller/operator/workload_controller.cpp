#include "cmd/workload_controller.hpp"

#include <spdlog/spdlog.h>

#include "cmd/finalizer.hpp"
#include "cmd/server_verdict.hpp"
#include "core/condition.hpp"
#include "workload/apply_plan.hpp"
#include "workload/local_queue.hpp"
#include "workload/reconcile.hpp"

namespace cfo::cmd {

namespace types {
const client::ResourceType kCodeFlareWorkload{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const client::ResourceType kRayCluster{"ray.io", "v1", "rayclusters", true};
const client::ResourceType kRayJob{"ray.io", "v1", "rayjobs", true};
const client::ResourceType kAppWrapper{"workload.codeflare.dev", "v1beta2", "appwrappers", true};
}  // namespace types

namespace {

std::pair<std::string, std::string> split_key(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

// The kinds of top-level child, with their types; at most one of them is desired at a time.
struct ChildKind {
  const char* kind;
  const client::ResourceType* type;
};
const ChildKind kChildKinds[] = {
    {"RayCluster", &types::kRayCluster}, {"AppWrapper", &types::kAppWrapper}, {"RayJob", &types::kRayJob}};

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

// True when the previous status already says Valid=False for this generation (its errors were counted then).
bool already_rejected(const json::Value* prev_status, int64_t generation) {
  const json::Value* conds = prev_status ? json::find(*prev_status, "conditions") : nullptr;
  if (!conds) return false;
  auto conditions = conditions_from_json(*conds);
  const Condition* valid = find_condition(conditions, "Valid");
  return valid && valid->status == "False" && valid->observed_generation == generation;
}

// True when the previous status already says Ready=False ServerRejected for this generation (reported then).
bool already_server_rejected(const json::Value* prev_status, int64_t generation) {
  const json::Value* conds = prev_status ? json::find(*prev_status, "conditions") : nullptr;
  if (!conds) return false;
  auto conditions = conditions_from_json(*conds);
  const Condition* ready = find_condition(conditions, "Ready");
  return ready && ready->status == "False" && ready->reason == "ServerRejected" &&
         ready->observed_generation == generation;
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

}  // namespace

WorkloadController::WorkloadController(client::RestClient& client, std::shared_ptr<const validation::SchemaSet> schemas,
                                       runtime::EventRecorder& events, WorkloadCaches caches,
                                       WorkloadControllerOptions opts, metrics::OperatorMetrics* metrics)
    : client_(client),
      schemas_(std::move(schemas)),
      events_(events),
      caches_(std::move(caches)),
      opts_(std::move(opts)),
      kueue_(client, opts_.kueue_version),
      metrics_(metrics) {}

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

runtime::ReconcileResult WorkloadController::finalize(const json::Value& wl, const std::string& ns,
                                                      const std::string& name) {
  if (!has_local_queue_finalizer(wl)) return runtime::ReconcileResult::ok();
  client::ResourceType lq_type{"kueue.x-k8s.io", opts_.kueue_version, "localqueues", true};
  std::string failure;
  if (!opts_.kueue_version.empty()) {
    const std::string managed = managed_queue_of(wl);
    auto others = caches_.workloads_in(ns);
    auto done = others ? clean_up_local_queue(client_, lq_type, ns, managed, name, *others)
                       : Result<CleanupResult>(std::unexpected(others.error()));
    if (!done) {
      failure = "deleting LocalQueue " + managed + ": " + done.error().message;
    } else if (done->deleted) {
      events_.record(wl, "Normal", "LocalQueueDeleted", "Delete",
                     "LocalQueue " + done->local_queue + " deleted with its last workload");
    } else if (done->other_users > 0) {
      events_.record(wl, "Normal", "LocalQueueKept", "Delete",
                     "LocalQueue " + done->local_queue + " kept: " + std::to_string(done->other_users) +
                         " other workload(s) use it");
    }
  }
  if (!failure.empty()) {
    int64_t waited = seconds_between(json::string_at(wl, "metadata.deletionTimestamp"), now_rfc3339());
    if (waited < kFinalizerGiveUpSeconds) return runtime::ReconcileResult::failed(failure);
    spdlog::warn("{}/{}: giving up the LocalQueue clean-up after {} s: {}", ns, name, waited, failure);
    events_.record(wl, "Warning", "LocalQueueLeft", "Delete", failure + " (given up; the LocalQueue is left)");
  }
  // With the uid as precondition: a stale cache must not re-create a workload that is already gone (409 then).
  auto removed = set_local_queue_finalizer(client_, types::kCodeFlareWorkload, ns, name, false,
                                           json::string_at(wl, "metadata.uid"));
  if (!removed && !removed.error().is_not_found() && !removed.error().is_conflict())
    return runtime::ReconcileResult::failed("removing the finalizer: " + removed.error().message);
  return runtime::ReconcileResult::ok();
}

runtime::ReconcileResult WorkloadController::reconcile(const std::string& key) {
  auto wl = caches_.workloads(key);
  if (!wl) return runtime::ReconcileResult::ok();  // deleted: owner references remove the children
  auto [ns, name] = split_key(key);
  if (json::find_path(*wl, "metadata.deletionTimestamp")) return finalize(*wl, ns, name);

  workload::ClusterFacts facts;
  facts.profile = opts_.profile;
  json::Document local_queue;
  if (auto r = kueue_.fill(*wl, facts, local_queue); !r) return runtime::ReconcileResult::failed(r.error().message);

  std::shared_ptr<const json::Document> cached[3];
  for (int i = 0; i < 3; ++i) {
    const CacheLookup& lookup = i == 0 ? caches_.ray_clusters : i == 1 ? caches_.app_wrappers : caches_.ray_jobs;
    cached[i] = lookup ? lookup(key) : nullptr;
  }
  workload::Observed observed;
  observed.ray_cluster = cached[0].get();
  observed.app_wrapper = cached[1].get();
  observed.ray_job = cached[2].get();
  // Kueue's Workload for the child that carries the queue label (only that one is queued).
  json::Document kueue_workload;
  for (const auto& c : cached) {
    const json::Value* labels = c ? json::find_path(*c, "metadata.labels") : nullptr;
    if (labels && labels->IsObject() && json::get_string(*labels, "kueue.x-k8s.io/queue-name")) {
      kueue_workload = kueue_.workload_of(ns, json::string_at(*c, "metadata.uid"));
      if (kueue_workload.IsObject()) observed.kueue_workload = &kueue_workload;
    }
  }

  const json::Value* prev_status = json::find(*wl, "status");
  auto outcome = workload::reconcile(*wl, observed, facts, *schemas_, now_rfc3339());
  const int64_t generation = json::get_int((*wl)["metadata"], "generation").value_or(0);

  // Count the rules an invalid workload breaks, once per generation (the Valid condition records the verdict).
  if (metrics_ && !outcome.valid && !already_rejected(prev_status, generation))
    for (const auto& e : outcome.errors)
      if (e.severity == Severity::Error) metrics_->validation_rejected(e.rule);

  // Plan the writes: each desired object with its resource type. A child held by someone else stops everything.
  std::string apply_error, conflict, rejected;
  const std::string uid = json::string_at(*wl, "metadata.uid");
  const client::ResourceType lq_type{"kueue.x-k8s.io", opts_.kueue_version, "localqueues", true};
  const char* top_kind = nullptr;
  struct Write {
    const json::Document* object;
    const client::ResourceType* type;
    std::string kind, name;
  };
  std::vector<Write> writes;
  for (const auto& obj : outcome.desired) {
    const std::string kind = json::get_string(obj, "kind").value_or("?");
    auto child_name = json::get_string(obj["metadata"], "name").value_or(name);
    const client::ResourceType* t = kind == workload::kLocalQueueKind ? &lq_type : nullptr;
    int index = -1;
    for (int i = 0; i < 3; ++i)
      if (kind == kChildKinds[i].kind) t = kChildKinds[i].type, index = i, top_kind = kChildKinds[i].kind;
    if (!t) {
      apply_error = "no resource type known for kind " + kind;
      break;
    }
    if (index >= 0) {
      // The cache answers the common case (the child is ours); only otherwise ask the apiserver, since the cache
      // holds labelled objects only and a foreign object of that name would not be in it.
      bool ours = cached[index] && child_name == name && controlled_by(*cached[index], uid);
      if (auto owner = ours ? std::string() : foreign_owner(*t, ns, child_name, uid); !owner.empty()) {
        conflict = kind + " " + child_name + " already exists and " + owner +
                   "; the workload does not take it over (delete it or rename the workload)";
        break;
      }
    }
    // Nothing to write when the live child already has all of it (the spec hash included): an apply of an unchanged
    // object would still bump its resourceVersion and wake this workload again through the child's watch.
    if (index >= 0 && !outcome.recreate && cached[index] && workload::is_applied(obj, *cached[index])) continue;
    writes.push_back(Write{&obj, t, kind, child_name});
  }
  client::WriteOptions wo;
  wo.field_manager = opts_.field_manager;

  // The server-side gate: the apiserver judges every object (dryRun=All, the same apply) before any is written.
  if (opts_.server_dry_run && apply_error.empty() && conflict.empty()) {
    client::WriteOptions dry = wo;
    dry.dry_run = true;
    for (const auto& w : writes) {
      auto judged = client_.apply(w.type->object_path(ns, w.name), *w.object, dry);
      if (judged) continue;
      if (is_server_rejection(judged.error())) {
        rejected = w.kind + " " + w.name + ": " + judged.error().message;
        // Reported (error log, metric) once per generation; the retries with backoff only log at debug level.
        const bool reported = already_server_rejected(prev_status, generation);
        if (metrics_ && !reported) metrics_->dry_run_disagreement(w.kind);
        spdlog::log(reported ? spdlog::level::debug : spdlog::level::err,
                    "{}: BUG: validation accepted {} {} but the apiserver's dry run rejects it (HTTP {} {}); nothing "
                    "was written. Please report this validation gap: {}",
                    key, w.kind, w.name, judged.error().http_status, judged.error().reason, judged.error().message);
      } else {
        apply_error = w.kind + " " + w.name + " (dry run): " + judged.error().message;
      }
      break;
    }
  }
  // A RayCluster held by the AppWrapper this workload controls (spec.appWrapper turned false) goes with that
  // AppWrapper: remove the AppWrapper and look again once it is gone.
  bool replacing = false;
  if (!conflict.empty() && cached[1] && controlled_by(*cached[1], uid) &&
      conflict.find("is controlled by AppWrapper " + name + ";") != std::string::npos) {
    if (auto r = client_.remove(types::kAppWrapper.object_path(ns, name)); !r && !r.error().is_not_found())
      apply_error = "removing the AppWrapper left from before: " + r.error().message;
    else
      events_.record(*wl, "Normal", "Replacing", "Delete",
                     "AppWrapper " + name + " removed: spec.appWrapper is false; its RayCluster goes with it");
    conflict.clear();
    replacing = true;
  }
  // A child that cannot be updated in place (changed AppWrapper components, a finished RayJob run again) is deleted
  // first; the new one is applied once the old one is gone.
  if (outcome.recreate && apply_error.empty() && conflict.empty() && rejected.empty() && top_kind) {
    for (int i = 0; i < 3; ++i) {
      if (std::string_view(kChildKinds[i].kind) != top_kind || !cached[i] || !controlled_by(*cached[i], uid)) continue;
      if (auto r = client_.remove(kChildKinds[i].type->object_path(ns, name)); !r && !r.error().is_not_found()) {
        apply_error = std::string("replacing ") + top_kind + " " + name + ": " + r.error().message;
      } else {
        events_.record(*wl, "Normal", "Replacing", "Delete",
                       std::string(top_kind) + " " + name + " is replaced: it cannot be updated in place");
        replacing = true;
      }
    }
  }
  const bool go = apply_error.empty() && conflict.empty() && rejected.empty() && !replacing;

  // The finalizer goes on before the LocalQueue it guards is created.
  if (go && outcome.valid && outcome.needs_finalizer && !has_local_queue_finalizer(*wl))
    if (auto r = set_local_queue_finalizer(client_, types::kCodeFlareWorkload, ns, name, true, uid); !r)
      apply_error = "adding finalizer " + std::string(workload::kLocalQueueFinalizer) + ": " + r.error().message;

  // Children next: the status then reports what was actually applied.
  if (go && apply_error.empty()) {
    for (const auto& w : writes) {
      auto applied = client_.apply(w.type->object_path(ns, w.name), *w.object, wo);
      if (!applied) {
        apply_error = w.kind + " " + w.name + ": " + applied.error().message;
        break;
      }
      if (metrics_) metrics_->object_applied(w.kind);
      spdlog::debug("{}: applied {} {}", key, w.kind, w.name);
    }
  }
  // A child of another kind left from before spec.appWrapper or spec.job changed is ours to remove.
  if (top_kind && apply_error.empty() && conflict.empty() && rejected.empty()) {
    for (int i = 0; i < 3; ++i) {
      if (std::string_view(kChildKinds[i].kind) == top_kind || !cached[i] || !controlled_by(*cached[i], uid)) continue;
      auto removed = client_.remove(kChildKinds[i].type->object_path(ns, name));
      if (!removed && !removed.error().is_not_found()) {
        apply_error =
            std::string("removing the ") + kChildKinds[i].kind + " left from before: " + removed.error().message;
        break;
      }
      events_.record(
          *wl, "Normal", "Replaced", "Delete",
          std::string(kChildKinds[i].kind) + " " + name + " removed: the workload now runs as " +
              (std::string_view(top_kind) == "AppWrapper" ? "an " : "a ") + top_kind);
    }
  }
  // A LocalQueue this workload managed and no longer uses is deleted unless another workload uses it.
  if (go && apply_error.empty() && !outcome.release_local_queue.empty() && !opts_.kueue_version.empty()) {
    auto others = caches_.workloads_in(ns);
    auto done = others ? clean_up_local_queue(client_, lq_type, ns, outcome.release_local_queue, name, *others)
                       : Result<CleanupResult>(std::unexpected(others.error()));
    if (!done)
      apply_error = "releasing LocalQueue " + outcome.release_local_queue + ": " + done.error().message;
    else if (done->deleted)
      events_.record(*wl, "Normal", "LocalQueueDeleted", "Delete",
                     "LocalQueue " + done->local_queue + " deleted: no workload uses it any more");
  }
  // A finalizer no longer needed (spec.queue.clusterQueue removed) goes, after the same clean-up as on deletion.
  if (outcome.valid && !outcome.needs_finalizer && apply_error.empty() && rejected.empty() &&
      has_local_queue_finalizer(*wl))
    if (auto r = finalize(*wl, ns, name); r.kind == runtime::ReconcileResult::Kind::Error) apply_error = r.error;

  if (!conflict.empty()) {
    spdlog::warn("{}: {}", key, conflict);
    events_.record(*wl, "Warning", "ChildConflict", "Apply", conflict);
    mark_not_ready(outcome.status, "ChildConflict", conflict, generation);
  }
  if (!rejected.empty()) {
    events_.record(*wl, "Warning", "ServerRejected", "Apply", "the apiserver rejects " + rejected);
    mark_not_ready(outcome.status, "ServerRejected", "the apiserver rejects " + rejected, generation);
  }
  if (!apply_error.empty()) {
    spdlog::warn("{}: apply failed: {}", key, apply_error);
    events_.record(*wl, "Warning", "ApplyFailed", "Apply", apply_error);
    mark_not_ready(outcome.status, "ApplyFailed", apply_error, generation);
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
    if (!uid.empty()) meta.AddMember("uid", json::str(uid, a), a);  // only onto the object reconciled here
    body.AddMember("metadata", meta, a);
    json::Value status;
    status.CopyFrom(outcome.status, a);
    body.AddMember("status", status, a);
    client::WriteOptions wo;
    wo.field_manager = opts_.field_manager;
    auto r = client_.apply(types::kCodeFlareWorkload.object_path(ns, name) + "/status", body, wo);
    if (!r) {
      // Deleted (404) or replaced by a new object of that name (409, uid mismatch) meanwhile: nothing to report.
      if (r.error().is_not_found() || r.error().is_conflict()) return runtime::ReconcileResult::ok();
      return runtime::ReconcileResult::failed("status update: " + r.error().message);
    }
  }
  if (!apply_error.empty()) return runtime::ReconcileResult::failed(apply_error);
  if (!rejected.empty()) return runtime::ReconcileResult::failed("the apiserver rejects " + rejected);
  if (replacing) return runtime::ReconcileResult::requeue_after(kReplaceRecheckMs);
  if (!conflict.empty() || outcome.held) return runtime::ReconcileResult::requeue_after(kRecheckMs);
  if (outcome.recheck_after_seconds > 0)
    return runtime::ReconcileResult::requeue_after(outcome.recheck_after_seconds * 1000);
  // Kueue's Workload is not watched: while queued, its verdict (e.g. why quota is not reserved) is polled.
  if (json::get_string(outcome.status, "phase") == std::string("Queued"))
    return runtime::ReconcileResult::requeue_after(kRecheckMs);
  return runtime::ReconcileResult::ok();
}

}  // namespace cfo::cmd
