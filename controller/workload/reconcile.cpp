#include "workload/reconcile.hpp"

#include <algorithm>

#include "workload/build_appwrapper.hpp"
#include "workload/build_raycluster.hpp"
#include "workload/build_rayjob.hpp"
#include "workload/field_reader.hpp"
#include "workload/kueue_labels.hpp"
#include "workload/local_queue.hpp"
#include "workload/parse_workload.hpp"
#include "workload/rayjob_types.hpp"
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

// Kueue turns the head and each worker group into one PodSet, plus a `submitter` PodSet for a RayJob in its default
// K8sJobMode; an object with more than MaxPodSets is rejected by Kueue's webhook (or, for the submitter, fails
// late) when it carries a queue label (validation-rules §4.3, Kueue RayJob section).
void check_kueue_pod_sets(const Workload& w, const ClusterFacts& facts, FieldErrors& errs) {
  if (w.spec.app_wrapper) return;  // the AppWrapper limit (7 groups) is checked when parsing
  std::size_t pod_sets = 1 + w.spec.worker_groups.size() + (w.spec.job ? 1 : 0);
  if (pod_sets > static_cast<std::size_t>(facts.profile.kueue_max_pod_sets))
    add_error(errs, "spec.workerGroups", "KueueMaxPodSets",
              "Kueue admits at most " + std::to_string(facts.profile.kueue_max_pod_sets) +
                  " PodSets (the head, one per worker group" + (w.spec.job ? ", and the job submitter" : "") +
                  "), not " + std::to_string(pod_sets),
              "kueue:ValidateJobOnCreate MaxPodSets");
  if (w.spec.job)
    for (std::size_t i = 0; i < w.spec.worker_groups.size(); ++i)
      if (w.spec.worker_groups[i].name == "submitter")
        add_error(errs, "spec.workerGroups[" + std::to_string(i) + "].name", "ReservedGroupName",
                  "\"submitter\" is the name of the job submitter's PodSet in Kueue", "kueue:RayJob podSets");
}

// The Kueue webhook rules for the object that carries the queue label, which the spec alone cannot decide.
void check_queued(const Workload& w, const ClusterFacts& facts, FieldErrors& errs) {
  const WorkloadSpec& s = w.spec;
  check_kueue_pod_sets(w, facts, errs);
  if (s.autoscaling.enabled && !s.autoscaling.elastic_job)
    add_error(errs, "spec.autoscaling.enabled", "KueueAutoscaling",
              "Kueue admits an autoscaling Ray cluster only as an elastic job: set spec.autoscaling.elasticJob, or "
              "leave the queue (the cluster would otherwise stay suspended)",
              "kueue:RayCluster webhook ValidateCreate");
  if (s.autoscaling.enabled && s.app_wrapper)
    add_error(errs, "spec.autoscaling.enabled", "KueueAutoscaling",
              "an AppWrapper admitted by Kueue cannot autoscale (Kueue rejects the elastic-job annotation on it)",
              "kueue:elastic jobs");
  if (s.job && !s.job->shutdown_after_job_finishes)
    add_error(errs, "spec.job.shutdownAfterJobFinishes", "KueueJobShutdown",
              "a RayJob queued by Kueue must delete its cluster when the job finishes", "kueue:RayJob webhook");
}

void validate_child(const json::Document& obj, const std::string& label, const validation::SchemaSet& schemas,
                    const ClusterFacts& facts, FieldErrors& errs) {
  for (auto& e : validation::validate_object(schemas, obj, facts.profile)) {
    e.path = label + ": " + e.path;
    errs.push_back(std::move(e));
  }
}
}  // namespace

namespace {
// The children held back until what the spec names exists: a reason for the Queued condition, or empty.
std::pair<std::string, std::string> hold(const Workload& w, const std::optional<std::string>& queue,
                                         const ClusterFacts& facts) {
  const QueueSpec& q = w.spec.queue;
  bool managed = !q.cluster_queue.empty();
  if (managed && facts.kueue_version.empty())
    return {"KueueNotInstalled",
            "spec.queue.clusterQueue asks for a managed LocalQueue, but the cluster does not serve kueue.x-k8s.io"};
  if (!q.local_queue.empty() && !managed && facts.local_queue_presence == Presence::kAbsent)
    return {"LocalQueueNotFound", "LocalQueue " + q.local_queue + " does not exist in namespace " + w.namespace_ +
                                      " (create it, or set spec.queue.clusterQueue to have the operator create it)"};
  if (queue && !q.priority_class.empty() && facts.priority_class_presence == Presence::kAbsent)
    return {"PriorityClassNotFound", "WorkloadPriorityClass " + q.priority_class + " does not exist"};
  return {};
}

// The managed LocalQueue to apply, when spec.queue.clusterQueue is set and the LocalQueue is missing or ours.
std::optional<json::Document> managed_local_queue(const Workload& w, const ClusterFacts& facts, FieldErrors& errs) {
  const QueueSpec& q = w.spec.queue;
  if (q.cluster_queue.empty() || facts.kueue_version.empty()) return std::nullopt;
  if (facts.local_queue_presence == Presence::kPresent && facts.local_queue &&
      !is_managed_local_queue(*facts.local_queue)) {
    const json::Value* cq = json::find_path(*facts.local_queue, "spec.clusterQueue");
    if (cq && cq->IsString() && q.cluster_queue != cq->GetString())
      add_warning(errs, "spec.queue.clusterQueue", "LocalQueueNotManaged",
                  "LocalQueue " + q.local_queue + " exists and points at ClusterQueue " + cq->GetString() +
                      "; it is not managed by the operator, so it is used as it is");
    return std::nullopt;
  }
  if (facts.local_queue_presence == Presence::kUnknown) return std::nullopt;
  return build_managed_local_queue(facts.kueue_version, q.local_queue, w.namespace_, q.cluster_queue).to_json();
}

std::string phase_of(const json::Value* status) {
  if (!status) return "";
  return json::get_string(*status, "phase").value_or("");
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
  in.namespace_ = w.namespace_;
  std::vector<json::Document> children;
  if (!has_errors(out.errors)) {
    const WorkloadSpec& s = w.spec;
    bool existing_cluster = s.job && !s.job->cluster_selector.empty();
    std::optional<std::string> queue;
    if (existing_cluster) {
      // Kueue does not manage a RayJob that runs on an existing cluster: the namespace default does not apply.
      if (!s.queue.local_queue.empty())
        add_error(out.errors, "spec.queue.localQueue", "QueueWithExistingCluster",
                  "a RayJob on an existing cluster (spec.job.clusterSelector) is not queued by Kueue",
                  "kueue:RayJob webhook");
    } else {
      queue = select_local_queue(s.queue, facts.default_local_queue);
    }
    if (queue) check_queued(w, facts, out.errors);
    if (!queue && !s.queue.priority_class.empty())
      add_warning(out.errors, "spec.queue.priorityClass", "PriorityClassWithoutQueue",
                  "has no effect: no LocalQueue is set and the namespace has no default LocalQueue");
    if (s.autoscaling.elastic_job && !queue)
      add_warning(out.errors, "spec.autoscaling.elasticJob", "ElasticJobWithoutQueue",
                  "has no effect: the workload is not queued by Kueue");

    auto [held_reason, held_message] = hold(w, queue, facts);
    in.held_reason = held_reason;
    in.held_message = held_message;
    if (auto lq = managed_local_queue(w, facts, out.errors)) {
      validate_child(*lq, std::string(kLocalQueueKind) + "/" + s.queue.local_queue, schemas, facts, out.errors);
      children.push_back(std::move(*lq));
      out.needs_finalizer = true;
    }
    auto labels = kueue_labels(queue, s.queue);
    if (s.job) {
      children.push_back(build_ray_job(w, labels).to_json());
      validate_child(children.back(), std::string(kRayJobKind) + "/" + w.name, schemas, facts, out.errors);
    } else if (s.app_wrapper) {
      RayCluster inner = build_ray_cluster(w, RayClusterPlacement{false, {}});
      children.push_back(build_app_wrapper(w, inner, labels).to_json());
      validate_child(children.back(), std::string(kAppWrapperKind) + "/" + w.name, schemas, facts, out.errors);
    } else {
      children.push_back(build_ray_cluster(w, RayClusterPlacement{true, labels}).to_json());
      validate_child(children.back(), std::string(kRayClusterKind) + "/" + w.name, schemas, facts, out.errors);
    }
    in.wrapped = s.app_wrapper && !s.job;
    in.job = s.job.has_value();
    in.suspended = s.suspend;
    in.queue = queue;
    int64_t desired = 0;
    if (!existing_cluster)
      for (const auto& g : s.worker_groups) desired += g.replicas;
    in.desired_workers = static_cast<int32_t>(std::min<int64_t>(desired, INT32_MAX));
    in.ray_cluster_name = s.job ? "" : w.name;
    in.app_wrapper_name = in.wrapped ? w.name : "";
    in.ray_job_name = s.job ? w.name : "";
  }

  out.valid = !has_errors(out.errors);
  in.valid = out.valid;
  out.held = out.valid && !in.held_reason.empty();
  if (out.valid && !out.held) {
    out.desired = std::move(children);
  } else if (!out.valid) {
    out.needs_finalizer = false;
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
  WorkloadStatus status = compute_status(in, observed, previous, now);
  // One event per transition: a held workload says why once; every other phase change is announced.
  std::string before = phase_of(previous);
  const Condition* queued_before = nullptr;
  std::vector<Condition> previous_conditions;
  if (previous)
    if (const json::Value* c = json::find(*previous, "conditions")) previous_conditions = conditions_from_json(*c);
  queued_before = find_condition(previous_conditions, kConditionQueued);
  if (out.held && (!queued_before || queued_before->reason != in.held_reason))
    out.events.push_back(EventSpec{"Warning", in.held_reason, truncate(in.held_message, kMaxEventMessage)});
  if (status.phase != before && status.phase != phase::kInvalid && !(out.held && status.phase == phase::kPending)) {
    const Condition* ready = find_condition(status.conditions, kConditionReady);
    bool bad = status.phase == phase::kFailed;
    out.events.push_back(EventSpec{bad ? "Warning" : "Normal", status.phase,
                                   truncate((before.empty() ? std::string("phase ") : "phase " + before + " -> ") +
                                                status.phase + (ready ? ": " + ready->message : ""),
                                            kMaxEventMessage)});
  }
  out.status = status.to_json();
  return out;
}

}  // namespace cfo::workload
