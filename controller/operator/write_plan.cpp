#include "operator/write_plan.hpp"

#include "workload/apply_plan.hpp"
#include "workload/child_views.hpp"
#include "workload/local_queue.hpp"

namespace cfo::op {

ChildHolder holder_of(const json::Value* obj, const std::string& uid) {
  if (!obj || workload::controlled_by(*obj, uid)) return {};
  const json::Value* refs = json::find_path(*obj, "metadata.ownerReferences");
  if (refs && refs->IsArray())
    for (const auto& r : refs->GetArray())
      if (json::get_bool(r, "controller").value_or(false)) {
        ChildHolder h{ChildHolder::Kind::kOtherController, json::get_string(r, "kind").value_or("?"),
                      json::get_string(r, "name").value_or("?")};
        if (h.controller_kind == "CodeFlareWorkload" && h.controller_name == json::string_at(*obj, "metadata.name"))
          h.kind = ChildHolder::Kind::kEarlierWorkload;
        return h;
      }
  return {ChildHolder::Kind::kNoController, "", ""};
}

std::string describe(const ChildHolder& holder) {
  switch (holder.kind) {
    case ChildHolder::Kind::kOtherController:
      return "is controlled by " + holder.controller_kind + " " + holder.controller_name;
    case ChildHolder::Kind::kNoController:
      return "has no controller";
    case ChildHolder::Kind::kEarlierWorkload:
      return "belongs to an earlier CodeFlareWorkload " + holder.controller_name +
             " (deleted; this one has another uid): the cluster's garbage collector (kube-controller-manager) "
             "deletes it, and the workload goes on then";
    case ChildHolder::Kind::kNone:
      break;
  }
  return "";
}

Plan decide(const workload::Outcome& outcome, const Observation& seen, const std::string& name, bool server_dry_run) {
  Plan plan;
  // A cached child on its way out: its deletionTimestamp seen, or our DELETE sent before the cache shows it.
  auto going = [&seen](std::size_t i) {
    return seen.deletion_sent[i] || (seen.cached[i] && json::find_path(*seen.cached[i], "metadata.deletionTimestamp"));
  };
  const ChildKindInfo* top = nullptr;
  for (const auto& obj : outcome.desired) {
    const std::string kind = json::get_string(obj, "kind").value_or("?");
    const std::string child_name = json::get_string(obj["metadata"], "name").value_or(name);
    const ChildKindInfo* child = child_kind_named(kind);
    std::optional<client::ResourceType> type;
    if (child) {
      type = *child->type;
      top = child;
    } else if (kind == workload::kLocalQueueKind) {
      type = resources::local_queues(seen.kueue_version);
    } else {
      plan.unknown_kind = kind;
      break;
    }
    if (child) {
      const std::size_t i = static_cast<std::size_t>(child->kind);
      const bool ours = seen.cached[i] && child_name == name && seen.controlled[i];
      if (!ours && seen.holder.kind != ChildHolder::Kind::kNone) {
        ChildConflict conflict{kind, child_name, seen.holder};
        const std::size_t aw = static_cast<std::size_t>(ChildKind::kAppWrapper);
        // A RayCluster held by the AppWrapper this workload controls (spec.appWrapper turned false).
        if (seen.holder.kind == ChildHolder::Kind::kOtherController && seen.holder.controller_kind == "AppWrapper" &&
            seen.holder.controller_name == name && seen.cached[aw] && seen.controlled[aw])
          plan.blocker = HandOver{Removal{ChildKind::kAppWrapper, name}, going(aw)};
        else
          plan.blocker = std::move(conflict);
        break;
      }
      // Nothing to write when the live child already has all of it (the spec hash included).
      if (!outcome.recreate && seen.cached[i] && workload::is_applied(obj, *seen.cached[i])) continue;
    }
    const bool exists = child && seen.cached[static_cast<std::size_t>(child->kind)];
    Write w{&obj, *type, kind, child_name, exists};
    if (exists) w.upgrade_entry = seen.update_entry[static_cast<std::size_t>(child->kind)];
    w.create_only = !child;
    plan.writes.push_back(std::move(w));
  }
  if (!plan.unknown_kind.empty()) {
    plan.writes.clear();
    return plan;
  }
  if (top) plan.top = top->kind;
  // Read live only when the top-level child is written (created, or moved to that queue).
  if (top && !seen.kueue_version.empty())
    for (const auto& w : plan.writes)
      if (w.kind == top->name) plan.confirm_local_queue = outcome.confirm_local_queue;
  const bool conflict = plan.blocker && std::holds_alternative<ChildConflict>(*plan.blocker);
  if (!plan.blocker && outcome.recreate && top) {
    const std::size_t i = static_cast<std::size_t>(top->kind);
    if (seen.cached[i] && seen.controlled[i]) plan.blocker = Replacement{Removal{top->kind, name}, going(i)};
  }
  // A child of the new kind, not made yet, takes over from our child of another kind still there: created once that
  // one is gone, not beside it (the twenty-fourth user trial: a RayCluster created in the same queue while the
  // AppWrapper, held by a finalizer, still ran; the twenty-fifth: the same for every other kind change).
  if (!plan.blocker && top && !seen.cached[static_cast<std::size_t>(top->kind)])
    for (const auto& row : child_kinds()) {
      const std::size_t i = static_cast<std::size_t>(row.kind);
      if (row.kind == top->kind || !seen.cached[i] || !seen.controlled[i]) continue;
      plan.blocker = HandOver{Removal{row.kind, name}, going(i)};
      break;
    }
  plan.add_finalizer = outcome.valid && outcome.needs_finalizer && !seen.has_finalizer;
  // The gate costs a request only where it can change the outcome: when something would be written before an object
  // the apiserver may still refuse (a second object, the finalizer) or removed for it (a replacement). A single
  // apply needs none: a refused apply writes nothing either, and is reported the same way.
  // A child already on its way out is only waited for: nothing is removed or written this time, so nothing is judged
  // (the twenty-third user trial: two dry runs every recheck while an AppWrapper's finalizers ran).
  const auto* replacement = plan.blocker ? std::get_if<Replacement>(&*plan.blocker) : nullptr;
  const bool replacing = replacement && !replacement->already_going;
  plan.gated = server_dry_run;
  plan.dry_run = server_dry_run && (!plan.blocker || replacing) && !plan.writes.empty() &&
                 (plan.writes.size() > 1 || plan.add_finalizer || replacing);
  if (top && !conflict)
    for (const auto& row : child_kinds()) {
      const std::size_t i = static_cast<std::size_t>(row.kind);
      if (row.kind != top->kind && seen.cached[i] && seen.controlled[i] && !going(i))
        plan.stale.push_back(Removal{row.kind, name});
    }
  if (!seen.kueue_version.empty()) plan.release_local_queue = outcome.release_local_queue;
  plan.drop_finalizer = outcome.valid && !outcome.needs_finalizer && seen.has_finalizer;
  return plan;
}

}  // namespace cfo::op
