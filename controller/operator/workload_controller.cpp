#include "operator/workload_controller.hpp"

#include <spdlog/spdlog.h>

#include "core/condition.hpp"
#include "operator/finalizer.hpp"
#include "operator/namespace_cache.hpp"
#include "operator/write_plan.hpp"
#include "runtime/object_key.hpp"
#include "workload/child_views.hpp"
#include "workload/reconcile.hpp"

namespace cfo::op {

namespace {
// The index of `manager`'s managedFields entry with operation Update in `child` (the POST that created it), or -1.
int update_entry_of(const json::Value& child, const std::string& manager) {
  const json::Value* mf = json::find_path(child, "metadata.managedFields");
  if (!mf || !mf->IsArray()) return -1;
  int i = 0;
  for (const auto& e : mf->GetArray()) {
    if (json::get_string(e, "manager").value_or("") == manager &&
        json::get_string(e, "operation").value_or("") == "Update" &&
        json::get_string(e, "subresource").value_or("").empty())
      return i;
    ++i;
  }
  return -1;
}

// The condition of `type` in the previous status, or nullptr.
std::optional<Condition> previous_condition(const json::Value* prev_status, const char* type) {
  const json::Value* conds = prev_status ? json::find(*prev_status, "conditions") : nullptr;
  if (!conds) return std::nullopt;
  auto conditions = conditions_from_json(*conds);
  const Condition* c = find_condition(conditions, type);
  return c ? std::optional<Condition>(*c) : std::nullopt;
}

// True when the previous status already says Valid=False for this generation (its errors were counted then).
bool already_rejected(const json::Value* prev_status, int64_t generation) {
  auto valid = previous_condition(prev_status, "Valid");
  return valid && valid->status == "False" && valid->observed_generation == generation;
}

// True when the previous status already says Ready=False ServerRejected for this generation (reported then).
bool already_server_rejected(const json::Value* prev_status, int64_t generation) {
  auto ready = previous_condition(prev_status, "Ready");
  return ready && ready->status == "False" && ready->reason == "ServerRejected" &&
         ready->observed_generation == generation;
}

// Sets Ready=False with `reason` in a status object (the condition keeps its transition time when already False).
void mark_not_ready(json::Document& status, const std::string& reason, const std::string& message, int64_t generation,
                    bool not_submitted = false) {
  auto& a = status.GetAllocator();
  if (!status.IsObject()) status.SetObject();
  const json::Value* current = json::find(status, "conditions");
  auto conditions = current ? conditions_from_json(*current) : std::vector<Condition>{};
  set_condition(conditions, Condition{"Ready", "False", generation, "", reason, message}, now_rfc3339());
  // With a queue, Queued says whether the child was submitted: not when another object holds its name, nor when the
  // write that would have submitted it failed (the eighteenth user trial: Queued=True Submitted and Admitted "waiting
  // for Kueue" while nothing was created). Admitted then says the same.
  if (not_submitted)
    for (const char* type : {"Queued", "Admitted"})
      if (find_condition(conditions, type))
        set_condition(conditions, Condition{type, "False", generation, "", reason, message}, now_rfc3339());
  json::set(status, "conditions", conditions_to_json(conditions, a), a);
}

// String field `field` of `status` set back to its value in the previous status (removed when it had none), for what
// a write that did not happen leaves as it was:
// - status.jobSpecHash names the RayJob spec the operator last applied (workload::reconcile sets it for the RayJob it
//   means to apply): when the write did not happen (blocked, rejected, failed), the previous value stands;
// - status.managedLocalQueue: a first submission that failed before anything of it was written (the live read of the
//   LocalQueue, its create refused) made no queue the workload's (the twenty-second user trial: the queue of someone
//   else was recorded, then claimed with the finalizer once the workload was held).
void keep_previous(json::Document& status, const json::Value* prev_status, const char* field) {
  if (!status.IsObject()) return;
  status.RemoveMember(field);
  if (auto before = prev_status ? json::get_string(*prev_status, field) : std::nullopt; before && !before->empty())
    json::set(status, field, json::str(*before, status.GetAllocator()), status.GetAllocator());
}

// The body of a status apply: the workload's identity (the uid, so that it never lands on another object of that
// name) and the status.
json::Document status_body(const std::string& ns, const std::string& name, const std::string& uid,
                           const json::Value& status) {
  json::Document body(rapidjson::kObjectType);
  auto& a = body.GetAllocator();
  body.AddMember("apiVersion", "codeflare.dev/v1alpha1", a);
  body.AddMember("kind", "CodeFlareWorkload", a);
  json::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", json::str(name, a), a);
  meta.AddMember("namespace", json::str(ns, a), a);
  if (!uid.empty()) meta.AddMember("uid", json::str(uid, a), a);
  body.AddMember("metadata", meta, a);
  json::Value copy;
  copy.CopyFrom(status, a);
  body.AddMember("status", copy, a);
  return body;
}

}  // namespace

WorkloadController::WorkloadController(Api api, const ServedApiState& apis, runtime::EventRecorder& events,
                                       WorkloadCaches caches, WorkloadControllerOptions opts,
                                       metrics::OperatorMetrics* metrics)
    : api_(std::move(api)),
      apis_(apis),
      events_(events),
      caches_(std::move(caches)),
      opts_(std::move(opts)),
      metrics_(metrics) {}

Observation WorkloadController::observe(const workload::Outcome& outcome,
                                        const std::array<const json::Value*, kChildKindCount>& cached,
                                        const json::Value& wl, const std::string& name, const std::string& uid,
                                        const std::string& kueue_version,
                                        const std::array<bool, kChildKindCount>& deletion_sent) const {
  Observation seen;
  seen.cached = cached;
  seen.deletion_sent = deletion_sent;
  for (std::size_t i = 0; i < kChildKindCount; ++i) {
    seen.controlled[i] = cached[i] && workload::controlled_by(*cached[i], uid);
    if (seen.controlled[i]) seen.update_entry[i] = update_entry_of(*cached[i], opts_.field_manager);
  }
  seen.has_finalizer = has_local_queue_finalizer(wl);
  seen.kueue_version = kueue_version;
  // Who holds the desired top-level child's name: the children caches hold every object of their kinds.
  for (const auto& obj : outcome.desired)
    if (const ChildKindInfo* child = child_kind_named(json::get_string(obj, "kind").value_or(""))) {
      if (json::get_string(obj["metadata"], "name").value_or(name) == name)
        seen.holder = holder_of(cached[static_cast<std::size_t>(child->kind)], uid);
      break;
    }
  return seen;
}

namespace {
// A cached child counts as the workload's (for the status, the job's record, the kind and queue checks) only when
// its controller is this workload, by uid: an object of the same name made by hand, or left by an earlier workload of
// that name (its children carry the same labels), is someone else's (ChildConflict), whatever its status says.
const json::Value* controlled_child(const json::Value* child, const std::string& uid) {
  return child && workload::controlled_by(*child, uid) ? child : nullptr;
}

// The creation of a workload's top-level child, told to OwnChildWrites: started when the plan creates it, and always
// ended (created, or not) once the writes are done, also when the reconcile leaves early.
class TopChildCreation {
 public:
  TopChildCreation(OwnChildWrites* own, const std::string& key, const Plan& plan) : own_(own), key_(key) {
    const bool creates = plan.top && std::any_of(plan.writes.begin(), plan.writes.end(), [&](const Write& w) {
                           return !w.exists && w.kind == info(*plan.top).name;
                         });
    if (!own_ || !creates)
      own_ = nullptr;
    else
      own_->creating(key_);
  }
  ~TopChildCreation() { end(nullptr); }
  TopChildCreation(const TopChildCreation&) = delete;
  TopChildCreation& operator=(const TopChildCreation&) = delete;
  /// The writes are done: `created` is the top-level child as its creation returned it, or null.
  void end(const json::Value* created) {
    if (!own_) return;
    if (created)
      own_->created(key_, *created);
    else
      own_->not_created(key_);
    own_ = nullptr;
  }

 private:
  OwnChildWrites* own_;
  const std::string& key_;
};
}  // namespace

workload::ClusterFacts WorkloadController::facts_of(const json::Value& wl, const ServedApis& apis,
                                                    runtime::ObjectPtr& local_queue) const {
  workload::ClusterFacts facts;
  facts.profile.kueue_max_pod_sets = opts_.kueue_max_pod_sets > 0  ? opts_.kueue_max_pod_sets
                                     : apis.kueue_max_pod_sets > 0 ? apis.kueue_max_pod_sets
                                                                   : 8;
  if (caches_.namespace_of) {
    auto ns = caches_.namespace_of(json::string_at(wl, "metadata.namespace"));
    facts.profile.pod_security = pod_security_level_of(ns.get());
  }
  facts.profile.name = opts_.profile.value_or(apis.profile);
  facts.profile.kubernetes_minor = opts_.kubernetes_minor;
  facts.ray_cluster_served = apis.ray_cluster;
  facts.app_wrapper_served = apis.app_wrapper;
  facts.ray_job_served = apis.ray_job;
  facts.kueue_served = !apis.kueue_version.empty();
  fill_kueue_facts(wl, apis.kueue_version, caches_.kueue, facts, local_queue);
  // A managed LocalQueue found absent: who re-creates it (rare: a first workload, or a queue deleted by hand).
  if (facts.local_queue_presence == workload::Presence::kAbsent && caches_.workloads_in &&
      !json::string_at(wl, "spec.queue.clusterQueue").empty())
    if (auto others = caches_.workloads_in(json::string_at(wl, "metadata.namespace")))
      facts.local_queue_managers = local_queue_managers(wl, *others);
  return facts;
}

Result<workload::ClusterFacts> WorkloadController::facts_for(const json::Value& workload,
                                                             json::Document& storage) const {
  runtime::ObjectPtr local_queue;
  workload::ClusterFacts facts = facts_of(workload, *apis_.get(), local_queue);
  if (local_queue) {
    storage.CopyFrom(*local_queue, storage.GetAllocator());
    facts.local_queue = &storage;
  }
  return facts;
}

void WorkloadController::workload_cached(const json::Value& workload) {
  written_.cache_moved(runtime::key_of(workload), workload);
}

runtime::ReconcileResult WorkloadController::reconcile(const std::string& key) {
  auto wl = caches_.workloads(key);
  if (!wl) {  // deleted: owner references remove the children
    pacer_.forget(key);
    written_.forget(key);
    deletions_.forget(key);
    if (caches_.own_child_writes) caches_.own_child_writes->forget(key);
    return runtime::ReconcileResult::ok();
  }
  wl = written_.newest(key, wl);  // our last status write, when the cache does not show it yet
  auto [ns, name] = runtime::split_key(key);
  const std::string uid = json::string_at(*wl, "metadata.uid");
  const std::shared_ptr<const ServedApis> apis = apis_.get();
  ExecutionContext ctx{*wl, ns, name, uid, opts_.field_manager, apis->kueue_version, caches_.workloads_in, {}};
  // Which kinds this reconcile wrote: a failure after the top-level child was written leaves the status as computed.
  std::vector<std::string> applied_kinds;
  ctx.on_applied = [this, &applied_kinds](const std::string& kind) {
    applied_kinds.push_back(kind);
    if (metrics_) metrics_->object_applied(kind);
  };
  if (json::find_path(*wl, "metadata.deletionTimestamp")) {
    if (auto failed = finalize(ctx, api_, events_)) return runtime::ReconcileResult::failed(*failed);
    return runtime::ReconcileResult::ok();
  }

  // Kueue served and its LocalQueue cache still on its first list (the thirteenth user trial: an operator restarted
  // beside many LocalQueues submitted queue-less workloads without the namespace's default queue, released managed
  // queues in use and went past LocalQueueMismatch holds): nothing is decided on an empty cache.
  if (!apis->kueue_version.empty() && caches_.kueue.local_queues_pending && caches_.kueue.local_queues_pending())
    return runtime::ReconcileResult::requeue_after(kKueueCacheRecheckMs);

  runtime::ObjectPtr local_queue;
  workload::ClusterFacts facts = facts_of(*wl, *apis, local_queue);
  std::vector<runtime::ObjectPtr> queue_objects;  // what facts.queue_objects points into
  fill_queue_objects(*wl, caches_.kueue,
                     caches_.namespace_of ? caches_.namespace_of(json::string_at(*wl, "metadata.namespace")) : nullptr,
                     facts, queue_objects);

  std::array<std::shared_ptr<const json::Document>, kChildKindCount> held;
  std::array<const json::Value*, kChildKindCount> cached{};
  // A kind whose CRD is gone has no objects, whatever its cache last saw: the CRD's deletion removed them, and the
  // cache, its watch answered 404, cannot hear of it (the nineteenth user trial). While the deletion runs, objects held
  // by finalizers still exist and are seen (the twenty-first: taken as gone, their LocalQueue was released under them).
  const std::array<bool, kChildKindCount> served_kind = [&] {
    std::array<bool, kChildKindCount> out{};
    out[static_cast<std::size_t>(ChildKind::kRayCluster)] = apis->ray_cluster;
    out[static_cast<std::size_t>(ChildKind::kAppWrapper)] = apis->app_wrapper;
    out[static_cast<std::size_t>(ChildKind::kRayJob)] = apis->ray_job;
    for (const auto& row : child_kinds())
      if (apis->terminating.contains(std::string(row.crd))) out[static_cast<std::size_t>(row.kind)] = true;
    return out;
  }();
  for (std::size_t i = 0; i < kChildKindCount; ++i) {
    held[i] = caches_.children[i] && served_kind[i] ? caches_.children[i](key) : nullptr;
    cached[i] = held[i].get();
    if (caches_.own_child_writes) caches_.own_child_writes->cache_holds(key, cached[i]);
  }
  const std::array<bool, kChildKindCount> deletion_sent = deletions_.pending(key, cached);
  ctx.on_removed = [&](ChildKind kind) {
    if (const json::Value* child = cached[static_cast<std::size_t>(kind)]) deletions_.deleted(key, *child);
  };
  workload::Observed observed;
  observed.ray_cluster = controlled_child(cached[static_cast<std::size_t>(ChildKind::kRayCluster)], uid);
  observed.app_wrapper = controlled_child(cached[static_cast<std::size_t>(ChildKind::kAppWrapper)], uid);
  observed.ray_job = controlled_child(cached[static_cast<std::size_t>(ChildKind::kRayJob)], uid);
  // Kueue's Workload for the child that carries the queue label (only that one is queued).
  runtime::ObjectPtr kueue_workload;
  for (const json::Value* c : {observed.ray_cluster, observed.app_wrapper, observed.ray_job}) {
    const json::Value* labels = c ? json::find_path(*c, "metadata.labels") : nullptr;
    if (labels && labels->IsObject() && json::get_string(*labels, "kueue.x-k8s.io/queue-name") &&
        caches_.kueue.workload_of) {
      kueue_workload = caches_.kueue.workload_of(json::string_at(*c, "metadata.uid"));
      if (kueue_workload) observed.kueue_workload = kueue_workload.get();
    }
  }

  const json::Value* prev_status = json::find(*wl, "status");
  {
    // A change of the served APIs (a CRD upgraded) may change the verdicts.
    std::lock_guard lock(memo_mu_);
    if (memo_apis_ != apis) {
      memo_.clear();
      memo_apis_ = apis;
    }
  }
  const std::string now = now_rfc3339();
  auto outcome = workload::reconcile(*wl, observed, facts, *apis->schemas, now, &memo_);
  const int64_t generation = json::get_int((*wl)["metadata"], "generation").value_or(0);

  // Count the rules an invalid workload breaks, once per generation (the Valid condition records the verdict).
  if (metrics_ && !outcome.valid && !already_rejected(prev_status, generation))
    for (const auto& e : outcome.errors)
      if (e.severity == Severity::Error) metrics_->validation_rejected(e.rule);

  // A child of ours that another field manager changed: its fields are set back, with a Warning event naming who
  // changed them, and no sooner than the pacer allows (two writers fighting over a field make no hot loop).
  for (const auto& obj : outcome.desired) {
    const ChildKindInfo* child = child_kind_named(json::get_string(obj, "kind").value_or(""));
    const json::Value* live = child ? cached[static_cast<std::size_t>(child->kind)] : nullptr;
    if (!live || !workload::controlled_by(*live, uid)) continue;
    auto drift = detect_drift(obj, *live, opts_.field_manager);
    if (!drift) continue;
    const std::string msg = describe_drift(*drift, std::string(child->name), json::string_at(obj, "metadata.name"));
    if (const int64_t wait = pacer_.admit(key); wait > 0) {
      spdlog::debug("{}; restoring in {} ms", msg, wait);
      return runtime::ReconcileResult::requeue_after(wait);
    }
    spdlog::warn("{}", msg);
    events_.record(*wl, "Warning", "ChildModified", "Apply", msg);
    break;
  }

  // Decide, then do.
  const Plan plan = decide(outcome, observe(outcome, cached, *wl, name, uid, apis->kueue_version, deletion_sent), name,
                           opts_.server_dry_run);
  // Whether the top-level child this plan writes was there before (submitted): a failed write leaves it as it was.
  const bool submitted_before =
      plan.top && controlled_child(cached[static_cast<std::size_t>(*plan.top)], uid) != nullptr;
  TopChildCreation creation(caches_.own_child_writes.get(), key, plan);
  const WriteOutcome written = execute(plan, ctx, api_, events_);
  {
    const auto* applied = std::get_if<Applied>(&written);
    creation.end(applied && applied->top ? &*applied->top : nullptr);
  }
  // A failed write that left the submitted child as it was: the status tells what the child carries, not the spec.
  auto unapplied = [&] {
    const bool top_written =
        plan.top && std::find(applied_kinds.begin(), applied_kinds.end(), info(*plan.top).name) != applied_kinds.end();
    if (submitted_before && !top_written) workload::restatus_unapplied(outcome, observed, prev_status, now);
    const bool queue_made = std::find(applied_kinds.begin(), applied_kinds.end(), "LocalQueue") != applied_kinds.end();
    if (!submitted_before && !top_written && !queue_made)
      keep_previous(outcome.status, prev_status, "managedLocalQueue");
  };

  // Conditions and events from what happened. A child created now is reported at once, as its creation's own
  // watch event would find it; that event then wakes nothing (OwnChildWrites).
  if (const auto* applied = std::get_if<Applied>(&written); applied && applied->top) {
    workload::Observed now_seen = observed;
    const json::Value* created = &*applied->top;
    const std::string kind = json::string_at(*created, "kind");
    (kind == "RayJob"       ? now_seen.ray_job
     : kind == "AppWrapper" ? now_seen.app_wrapper
                            : now_seen.ray_cluster) = created;
    workload::restatus(outcome, now_seen, prev_status, now);
  }
  if (const auto* blocked = std::get_if<Blocked>(&written)) {
    // A child being replaced still runs where it ran until it is gone: the status says so, and keeps the LocalQueue
    // it managed, released once the new child is in (the twenty-second user trial: a move that replaced the
    // AppWrapper recorded the new queue at once, and the old one, recorded nowhere, was never deleted).
    if (std::holds_alternative<Replacement>(blocked->blocker)) unapplied();
    // A kind change waiting for the old child: the status says so, not "<new kind> is not created yet" (the
    // twenty-fifth user trial).
    if (const auto* h = std::get_if<HandOver>(&blocked->blocker); h && plan.top) {
      const std::string old_kind(info(h->old_child.kind).name), new_kind(info(*plan.top).name);
      mark_not_ready(outcome.status, "Replacing",
                     old_kind + " " + h->old_child.name +
                         " is being deleted (its finalizers may hold it a while); the " + new_kind +
                         " that replaces it is created once it is gone",
                     generation, /*not_submitted=*/true);
      // No RayJob run is on record while a kind change waits: not the new child's, not made yet (the twenty-sixth
      // user trial: its hash was recorded, and the next reconcile took it for a RayJob gone before its end), nor the
      // old one's, which this change deletes (the twenty-seventh: going back to the same job while the old RayJob
      // was still held then read as that RayJob lost, and none was made). Without a finalizer the new child is made
      // at once and clears the record the same way.
      outcome.status.RemoveMember("jobSpecHash");
    }
    if (const auto* c = std::get_if<ChildConflict>(&blocked->blocker)) {
      const std::string msg = c->kind + " " + c->name + " already exists and " + describe(c->holder) +
                              (c->holder.kind == ChildHolder::Kind::kEarlierWorkload
                                   ? " (or delete it now)"
                                   : "; the workload does not take it over (delete it or rename the workload)");
      // Said again on each recheck: logged when its event is posted, not when the recorder drops it as a repeat.
      if (events_.record(*wl, "Warning", "ChildConflict", "Apply", msg) !=
          runtime::EventRecorder::Outcome::Deduplicated)
        spdlog::warn("{}", msg);
      mark_not_ready(outcome.status, "ChildConflict", msg, generation, /*not_submitted=*/true);
      keep_previous(outcome.status, prev_status, "jobSpecHash");
    }
  } else if (const auto* r = std::get_if<ServerRejected>(&written)) {
    // Reported (error log, metric) once per generation; the retries with backoff only log at debug level.
    const bool reported = already_server_rejected(prev_status, generation);
    if (metrics_ && !reported) metrics_->dry_run_disagreement(r->kind);
    spdlog::log(reported ? spdlog::level::debug : spdlog::level::err,
                "BUG: validation accepted {} {} but the apiserver rejects it (HTTP {} {}); nothing was written. "
                "Please report this validation gap: {}",
                r->kind, r->name, r->error.http_status, r->error.reason, r->error.message);
    const std::string msg = "the apiserver rejects " + r->kind + " " + r->name + ": " + r->error.message;
    events_.record(*wl, "Warning", "ServerRejected", "Apply", msg);
    unapplied();
    mark_not_ready(outcome.status, "ServerRejected", msg, generation, /*not_submitted=*/!submitted_before);
    keep_previous(outcome.status, prev_status, "jobSpecHash");
  } else if (const auto* f = std::get_if<RequestFailed>(&written)) {
    spdlog::warn("apply failed: {}", f->message);
    events_.record(*wl, "Warning", "ApplyFailed", "Apply", f->message);
    unapplied();
    mark_not_ready(outcome.status, "ApplyFailed", f->message, generation, /*not_submitted=*/!submitted_before);
    keep_previous(outcome.status, prev_status, "jobSpecHash");
  }
  // Each event is also a log line (holds, their release, phase changes, warnings about the spec), at warn for a
  // Warning event and info otherwise: events are posted once per transition, so are these lines (none for an event
  // the recorder drops as a repeat).
  for (const auto& ev : outcome.events)
    if (events_.record(*wl, ev.type, ev.reason, "Reconcile", ev.message) !=
        runtime::EventRecorder::Outcome::Deduplicated)
      runtime::log_event(ev.type, ev.reason, ev.message);

  // Status through the status subresource, only when it changed (so our own write does not wake us again).
  if (!prev_status || !(*prev_status == static_cast<const json::Value&>(outcome.status))) {
    client::WriteOptions wo;
    wo.field_manager = opts_.field_manager;
    auto r = api_.apply(resources::kCodeFlareWorkloads.object_path(ns, name) + "/status",
                        status_body(ns, name, uid, outcome.status), wo);
    if (!r) {
      // Deleted (404) or replaced by a new object of that name (409, uid mismatch) meanwhile: nothing to report.
      if (r.error().is_not_found() || r.error().is_conflict()) return runtime::ReconcileResult::ok();
      return runtime::ReconcileResult::failed("status update: " + r.error().message);
    }
    written_.wrote_status(key, *wl, outcome.status);
    if (auto now = caches_.workloads(key)) written_.cache_moved(key, *now);  // its watch event came first
  }

  if (const auto* f = std::get_if<RequestFailed>(&written)) return runtime::ReconcileResult::failed(f->message);
  if (const auto* r = std::get_if<ServerRejected>(&written))
    return runtime::ReconcileResult::failed("the apiserver rejects " + r->kind + " " + r->name + ": " +
                                            r->error.message);
  if (const auto* blocked = std::get_if<Blocked>(&written))
    return runtime::ReconcileResult::requeue_after(
        std::holds_alternative<ChildConflict>(blocked->blocker) ? kRecheckMs : kReplaceRecheckMs);
  if (outcome.held) return runtime::ReconcileResult::requeue_after(kRecheckMs);
  if (outcome.recheck_after_seconds > 0)
    return runtime::ReconcileResult::requeue_after(outcome.recheck_after_seconds * 1000);
  // Kueue's Workloads are watched: a change of admission wakes the workload (operator.cpp), no polling.
  return runtime::ReconcileResult::ok();
}

}  // namespace cfo::op
