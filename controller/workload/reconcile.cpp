#include "workload/reconcile.hpp"

#include <algorithm>

#include "workload/build_appwrapper.hpp"
#include "workload/build_raycluster.hpp"
#include "workload/field_reader.hpp"
#include "workload/kueue_labels.hpp"
#include "workload/parse_workload.hpp"
#include "workload/status.hpp"

namespace cfo::workload {

namespace {
// How many findings the Valid condition's message names, and the length limits of the condition message and of
// the event message (findings quote user input, which may be long; metav1.Condition allows 32768 characters).
constexpr std::size_t kFindingsInMessage = 3;
constexpr std::size_t kMaxConditionMessage = 4096;
constexpr std::size_t kMaxEventMessage = 1024;

std::string truncate(std::string s, std::size_t max) {
  if (s.size() <= max) return s;
  s.resize(max - 3);
  return s + "...";
}

std::string describe(const FieldError& e) { return e.path + ": " + e.reason; }

std::string invalid_message(const FieldErrors& errs) {
  std::string msg;
  std::size_t shown = 0, total = 0;
  for (const auto& e : errs) {
    if (e.severity != Severity::Error) continue;
    ++total;
    if (shown == kFindingsInMessage) continue;
    msg += (shown ? "; " : "") + describe(e);
    ++shown;
  }
  if (total > shown) msg += "; and " + std::to_string(total - shown) + " more";
  return truncate(std::move(msg), kMaxConditionMessage);
}

// Kueue turns the head and each worker group into one PodSet; a RayCluster with more than MaxPodSets is rejected
// by Kueue's webhook when it carries a queue label (validation-rules §4.3).
void check_kueue_pod_sets(const Workload& w, bool queued, const ClusterFacts& facts, FieldErrors& errs) {
  if (!queued || w.spec.app_wrapper) return;  // the AppWrapper limit (7 groups) is checked when parsing
  std::size_t pod_sets = 1 + w.spec.worker_groups.size();
  if (pod_sets > static_cast<std::size_t>(facts.profile.kueue_max_pod_sets))
    add_error(errs, "spec.workerGroups", "KueueMaxPodSets",
              "Kueue admits at most " + std::to_string(facts.profile.kueue_max_pod_sets) +
                  " PodSets (the head and one per worker group), not " + std::to_string(pod_sets),
              "kueue:ValidateJobOnCreate MaxPodSets");
}

void validate_child(const json::Document& obj, const std::string& label, const validation::SchemaSet& schemas,
                    const ClusterFacts& facts, FieldErrors& errs) {
  for (auto& e : validation::validate_object(schemas, obj, facts.profile)) {
    e.path = label + ": " + e.path;
    errs.push_back(std::move(e));
  }
}
}  // namespace

Outcome reconcile(const json::Value& workload, const Observed& observed, const ClusterFacts& facts,
                  const validation::SchemaSet& schemas, const std::string& now) {
  Outcome out;
  ParsedWorkload parsed = parse_workload(workload);
  out.errors = std::move(parsed.errors);
  const Workload& w = parsed.workload;

  StatusInput in;
  in.generation = w.generation;
  std::vector<json::Document> children;
  if (!has_errors(out.errors)) {
    std::optional<std::string> queue = select_local_queue(w.spec.queue, facts.default_local_queue);
    check_kueue_pod_sets(w, queue.has_value(), facts, out.errors);
    if (!queue && !w.spec.queue.priority_class.empty())
      add_warning(out.errors, "spec.queue.priorityClass", "PriorityClassWithoutQueue",
                  "has no effect: no LocalQueue is set and the namespace has no default LocalQueue");
    auto labels = kueue_labels(queue, w.spec.queue);
    if (w.spec.app_wrapper) {
      RayCluster inner = build_ray_cluster(w, RayClusterPlacement{false, {}});
      children.push_back(build_app_wrapper(w, inner, labels).to_json());
      validate_child(children.back(), std::string(kAppWrapperKind) + "/" + w.name, schemas, facts, out.errors);
    } else {
      children.push_back(build_ray_cluster(w, RayClusterPlacement{true, labels}).to_json());
      validate_child(children.back(), std::string(kRayClusterKind) + "/" + w.name, schemas, facts, out.errors);
    }
    in.wrapped = w.spec.app_wrapper;
    in.queue = queue;
    int64_t desired = 0;
    for (const auto& g : w.spec.worker_groups) desired += g.replicas;
    in.desired_workers = static_cast<int32_t>(std::min<int64_t>(desired, INT32_MAX));
    in.ray_cluster_name = w.name;
    in.app_wrapper_name = w.spec.app_wrapper ? w.name : "";
  }

  out.valid = !has_errors(out.errors);
  in.valid = out.valid;
  if (out.valid) {
    out.desired = std::move(children);
  } else {
    in.invalid_message = invalid_message(out.errors);
    auto is_error = [](const FieldError& e) { return e.severity == Severity::Error; };
    auto first = std::find_if(out.errors.begin(), out.errors.end(), is_error);
    auto count = std::count_if(out.errors.begin(), out.errors.end(), is_error);
    if (first != out.errors.end())
      out.events.push_back(EventSpec{
          "Warning", "InvalidSpec",
          truncate("invalid spec: " + describe(*first) +
                       (count > 1 ? " (and " + std::to_string(count - 1) + " more; see the Valid condition)" : ""),
                   kMaxEventMessage)});
  }

  const json::Value* previous = nullptr;
  if (const json::Value* st = json::find(workload, "status"); st && st->IsObject()) previous = st;
  out.status = compute_status(in, observed, previous, now).to_json();
  return out;
}

}  // namespace cfo::workload
