#include "workload/reconcile.hpp"

#include "workload/finding_paths.hpp"
#include "workload/validation_memo.hpp"

#include <algorithm>
#include <tuple>

#include "workload/apply_plan.hpp"
#include "workload/build_appwrapper.hpp"
#include "workload/build_raycluster.hpp"
#include "workload/build_rayjob.hpp"
#include "workload/child_views.hpp"
#include "workload/field_reader.hpp"
#include "workload/kueue_labels.hpp"
#include "workload/labels.hpp"
#include "workload/local_queue.hpp"
#include "workload/parse_workload.hpp"
#include "workload/quota_preview.hpp"
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

// A warning's event: its reason is the rule, so the note is "path: reason".
std::string warning_note(const FieldError& e) { return e.path + ": " + e.reason; }

// The first findings of one severity, "path: reason; path: reason; and N more", within kMaxConditionMessage.
std::string findings_message(const FieldErrors& errs, Severity severity) {
  std::string msg;
  std::size_t shown = 0, total = 0;
  for (const auto& e : errs) {
    if (e.severity != severity) continue;
    ++total;
    if (shown == kFindingsInMessage) continue;
    msg += (shown ? "; " : "") + describe_finding(e);  // "path: reason [Rule]", as the webhooks say it
    ++shown;
  }
  if (total > shown) msg += "; and " + std::to_string(total - shown) + " more";
  return truncate(std::move(msg), kMaxConditionMessage);
}

std::string invalid_message(const FieldErrors& errs) { return findings_message(errs, Severity::Error); }

// Kueue turns the head and each worker group into one PodSet, plus a `submitter` PodSet for a RayJob in its default
// K8sJobMode; an object with more than MaxPodSets is rejected by Kueue's webhook (or, for the submitter, fails
// late) when it carries a queue label (validation-rules §4.3, Kueue RayJob section).
void check_kueue_pod_sets(const Workload& w, const ClusterFacts& facts, FieldErrors& errs) {
  if (w.spec.app_wrapper) return;  // the AppWrapper limit (7 groups) is checked when parsing
  // Kueue v0.19.2 rayjob_controller.go: the submitter is a PodSet in K8sJobMode only.
  const bool submitter = w.spec.job && w.spec.job->mode() == "K8sJobMode";
  std::size_t pod_sets = 1 + w.spec.worker_groups.size() + (submitter ? 1 : 0);
  if (pod_sets > static_cast<std::size_t>(facts.profile.kueue_max_pod_sets))
    add_error(errs, "spec.workerGroups", "KueueMaxPodSets",
              "Kueue admits at most " + std::to_string(facts.profile.kueue_max_pod_sets) +
                  " PodSets (the head, one per worker group" + (submitter ? ", and the job submitter" : "") +
                  "), not " + std::to_string(pod_sets),
              "kueue:ValidateJobOnCreate MaxPodSets");
  if (submitter)
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
    add_error(errs, s.job->deletion_rules.empty() ? "spec.job.shutdownAfterJobFinishes" : "spec.job.deletionRules",
              "KueueJobShutdown",
              s.job->deletion_rules.empty()
                  ? "a RayJob queued by Kueue must delete its cluster when the job finishes"
                  : "a RayJob queued by Kueue must set shutdownAfterJobFinishes, which KubeRay refuses next to "
                    "deletionRules: drop the deletion rules (shutdownAfterJobFinishes and ttlSecondsAfterFinished "
                    "then decide) or run the job without a queue",
              "kueue:RayJob webhook (v0.19.2 validateCreate)");
}

std::optional<std::string> queue_label_of(const json::Value* obj);
bool suspended(const json::Value* obj);

// The live top-level child's value of a field the apiserver or Kueue will not let change on it.
std::string managed_by_of(const json::Value* live) { return live ? json::string_at(*live, "spec.managedBy") : ""; }

bool elastic_of(const json::Value* obj) {
  const json::Value* ann = obj ? json::find_path(*obj, "metadata.annotations") : nullptr;
  return ann && json::get_string(*ann, kElasticJobAnnotation) == "true";
}

// MultiKueue: spec.managedBy of the top-level child (CEL `self == oldSelf` on RayCluster and RayJob; Kueue dispatches
// by it at creation) cannot be set on a child that exists; and a workload MultiKueue dispatches must be queued.
// Kueue's elastic-job annotation cannot be added or removed on a queued child (v0.19.2 jobframework
// validatedUpdateForEnabledWorkloadSlice).
void check_immutable_on_live(const WorkloadSpec& s, const std::optional<std::string>& queue, const json::Value* live,
                             const json::Value& desired, FieldErrors& errs) {
  if (s.queue.multi_kueue && !queue)
    add_error(errs, "spec.queue.multiKueue", "MultiKueueNeedsQueue",
              "MultiKueue dispatches a queued workload: name a LocalQueue (spec.queue) whose ClusterQueue uses the "
              "MultiKueue admission check",
              "kueue:MultiKueue");
  if (!live) return;
  const std::string want = json::string_at(desired, "spec.managedBy");
  if (!want.empty() && managed_by_of(live) != want)
    add_error(errs, "spec.queue.multiKueue", "ManagedByImmutable",
              "the running " + json::string_at(desired, "kind") + " is managed by " +
                  (managed_by_of(live).empty() ? std::string("its own controller") : managed_by_of(live)) +
                  " and spec.managedBy cannot change on it; delete the workload and create it again",
              "crd:ray.io/v1 managedBy (self == oldSelf)");
  if (queue_label_of(live) && elastic_of(live) != elastic_of(&desired))
    add_error(errs, "spec.autoscaling.elasticJob", "ElasticJobImmutable",
              std::string("Kueue does not let a queued workload ") + (elastic_of(&desired) ? "become" : "stop being") +
                  " an elastic job; delete the workload and create it again",
              "kueue:validatedUpdateForEnabledWorkloadSlice (v0.19.2)");
}

// Topology requests do something only when Kueue admits the workload.
// The Ray autoscaler scales a worker group by writing its replicas on the RayCluster. With autoscaling on, the
// operator applies the live count of each group (clamped to the group's bounds, as KubeRay clamps it) instead of its
// own, so that it neither reverts a scale nor reports it as a drift. Called after the spec hash is stamped: a scale
// does not change the hash, so it causes no write.
void keep_autoscaled_replicas(json::Document& desired, const json::Value& live) {
  json::Value* spec = json::find(desired, "spec");
  json::Value* groups = spec ? json::find(*spec, "workerGroupSpecs") : nullptr;
  const json::Value* live_groups = json::find_path(live, "spec.workerGroupSpecs");
  if (!groups || !groups->IsArray() || !live_groups || !live_groups->IsArray()) return;
  for (auto& g : groups->GetArray()) {
    const std::string name = json::string_at(g, "groupName");
    for (const auto& l : live_groups->GetArray()) {
      if (json::string_at(l, "groupName") != name) continue;
      const json::Value* count = json::find(l, "replicas");
      json::Value* ours = json::find(g, "replicas");
      if (!count || !count->IsInt64() || !ours) break;
      int64_t n = count->GetInt64();
      if (auto lo = json::get_int(g, "minReplicas")) n = std::max(n, *lo);
      if (auto hi = json::get_int(g, "maxReplicas")) n = std::min(n, *hi);
      ours->SetInt64(n);
      break;
    }
  }
}

// The sum of a RayCluster's worker groups' replicas.
int64_t worker_count(const json::Value& ray_cluster) {
  int64_t n = 0;
  if (const json::Value* groups = json::find_path(ray_cluster, "spec.workerGroupSpecs"); groups && groups->IsArray())
    for (const auto& g : groups->GetArray()) n += json::get_int(g, "replicas").value_or(0);
  return n;
}

// A queued child that is suspended is Kueue's to start: Kueue unsuspends it when it admits the workload (and sets its
// PodSets' node selectors in the same write). So while it is suspended the operator applies spec.suspend: true too,
// also after the user resumes the workload (spec.suspend true -> false): dropping the field would make the apiserver
// remove a suspend the operator owns (server-side apply) and start the Pods without admission. Once Kueue has
// unsuspended it, the operator leaves the field to Kueue. Called after the spec hash is stamped: an admission does
// not change the hash, so it causes no write.
void keep_queued_child_suspended(json::Document& desired, const json::Value& live) {
  if (!suspended(&live)) return;
  json::Value* spec = json::find(desired, "spec");
  if (spec && spec->IsObject()) json::set(*spec, "suspend", json::Value(true), desired.GetAllocator());
}

// A child that is not queued (no queue-name label on the desired or the live child), of a workload that is not
// suspended, found suspended: the operator writes spec.suspend: false and so owns it. Leaving the field out would
// never resume it when someone else also owns it (a `kubectl patch` suspended it, or co-owns the operator's earlier
// true): server-side apply keeps a field another manager owns (the thirty-eighth user trial: resumed, the RayCluster
// stayed suspended and the workload read Pending for ever). The write is a drift repair (ChildModified names who
// suspended it). Called after the spec hash is stamped, like keep_queued_child_suspended.
void resume_unqueued_child(json::Document& desired, const json::Value& live) {
  if (!suspended(&live) || queue_label_of(&live)) return;
  json::Value* spec = json::find(desired, "spec");
  if (spec && spec->IsObject()) json::set(*spec, "suspend", json::Value(false), desired.GetAllocator());
}

// Where StartedJobUnchanged comes from.
constexpr std::string_view kStartedJobSource = "kuberay: RayJob controller (kuberay#1776)";

// The hash of what a RayJob runs (content_hash of its spec without spec.suspend: suspending or resuming it is not a
// change of what runs), kept in status.jobSpecHash so that a finished job's spec can be compared after its RayJob is
// gone (deletionPolicy DeleteSelf, shutdownAfterJobFinishes with a TTL). Empty when `ray_job` has no spec object.
std::string job_spec_hash(const json::Value& ray_job) {
  const json::Value* spec = json::find(ray_job, "spec");
  if (!spec || !spec->IsObject()) return "";
  json::Document copy;
  copy.CopyFrom(*spec, copy.GetAllocator());
  copy.RemoveMember("suspend");
  return content_hash(json::dump(copy));
}

// Whether `desired` (a RayJob) asks KubeRay to run something else than what the RayJob was given, spec.suspend
// aside. With `ran_hash` (status.jobSpecHash, the spec the operator last applied) any difference counts, a removed
// field too, whether or not the RayJob still exists; without it (a status written by an operator before the field
// existed) a field of the desired spec missing or different in `live`'s spec counts, and with no `live` nothing does.
bool job_spec_changed(const json::Value& desired, const json::Value* live, const std::string& ran_hash) {
  if (!ran_hash.empty()) return job_spec_hash(desired) != ran_hash;
  const json::Value* want = json::find(desired, "spec");
  const json::Value* have = live ? json::find(*live, "spec") : nullptr;
  if (!want || !want->IsObject() || !have || !have->IsObject()) return false;
  for (const auto& m : want->GetObject()) {
    if (m.name == "suspend") continue;
    auto it = have->FindMember(m.name);
    if (it == have->MemberEnd() || !is_applied(m.value, it->value)) return true;
  }
  return false;
}

// KubeRay reads a RayJob's spec when it starts the job (creates its cluster, submits the entrypoint) and does not
// pass later spec changes on to a job that has started (kuberay#1776). A spec change of a started RayJob is
// therefore not applied, so that the RayJob keeps showing what runs, and a Warning says what to do; it stays while
// the job runs. True when that is the case. Metadata changes (a priority class) and spec.suspend still go through.
bool hold_started_job_change(const json::Value& desired, const json::Value& live, const std::string& ran_hash,
                             FieldErrors& errs) {
  const std::string started = json::string_at(live, "status.jobDeploymentStatus");
  const bool ended = started == "Complete" || started == "Failed";
  if (!ended && started != "Initializing" && started != "Running" && started != "Waiting" && started != "Retrying")
    return false;
  if (!job_spec_changed(desired, &live, ran_hash)) return false;
  // A change held while the job ran stays held once it ends: written into the finished RayJob, it would read as the
  // spec that ran (and succeeded).
  add_warning(errs, "spec.job", "StartedJobUnchanged",
              "the change is not applied: the RayJob " +
                  std::string(ended ? "ran with an earlier spec" : "has started") + " (jobDeploymentStatus " + started +
                  ") and KubeRay does not pass spec changes on to a started job; to run the new spec, " +
                  (ended ? "change the workload's spec again (the job then runs again, with them) or delete and "
                           "re-create the workload"
                         : "suspend the workload and resume it, or delete and re-create the workload"),
              std::string(kStartedJobSource));
  return true;
}

// A finished job whose spec was changed while it ran (the change was held: StartedJobUnchanged) ran the earlier spec:
// said on every reconcile, so that Succeeded is not read as the outcome of the spec as it is now.
void warn_finished_job_ran_earlier_spec(const json::Value& desired, const json::Value* live,
                                        const std::string& ran_hash, FieldErrors& errs) {
  if (!job_spec_changed(desired, live, ran_hash)) return;
  add_warning(errs, "spec.job", "StartedJobUnchanged",
              "the job finished running an earlier spec: the changes made while it ran have not run; to run them, "
              "change the workload's spec again (the job then runs again, with them) or delete and re-create the "
              "workload",
              std::string(kStartedJobSource));
}

void warn_topology_without_queue(const WorkloadSpec& s, FieldErrors& errs) {
  auto warn = [&](const TopologyRequest& t, const std::string& path) {
    if (!t.empty())
      add_warning(errs, path, "TopologyWithoutQueue",
                  "has no effect: the workload is not queued by Kueue, whose topology-aware scheduling reads it");
  };
  warn(s.head.pod.topology, "spec.head.topology");
  for (std::size_t i = 0; i < s.worker_groups.size(); ++i)
    warn(s.worker_groups[i].pod.topology, index_path("spec.workerGroups", i) + ".topology");
  if (s.job) warn(s.job->submitter.topology, "spec.job.submitter.topology");
}

// The verdict on one child, with paths prefixed by `label` ("RayCluster/name"). With `live`, the child as the cluster
// holds it, the child is judged as an update of it (CEL transition rules, ratcheting), as the apiserver will.
// Validates a generated object; its findings go to `errs` at the user's field when they come from one
// (add_child_findings), else prefixed with `label` ("RayCluster/demo: spec...").
// With `memo`, a verdict already reached on the same object (same spec hash, same live object) is reused.
void validate_child(const json::Document& obj, const std::string& label, const json::Value& workload,
                    const validation::SchemaSet& schemas, const ClusterFacts& facts, FieldErrors& errs,
                    const json::Value* live, ValidationMemo* memo, const PathOrigins& origins = {}) {
  const std::string key = memo ? ValidationMemo::key_of(obj, live, facts.profile) : "";
  std::optional<FieldErrors> found = key.empty() ? std::nullopt : memo->find(key);
  if (!found) {
    found = live ? validation::validate_update(schemas, obj, *live, facts.profile)
                 : validation::validate_object(schemas, obj, facts.profile);
    if (!key.empty()) memo->put(key, *found);
  }
  add_child_findings(std::move(*found), json::get_string(obj, "kind").value_or(""), label, workload, errs, origins);
}
}  // namespace

namespace {
// The reasons hold() gives (the Ready condition carries them while the workload is held).
bool is_hold_reason(std::string_view reason) {
  return reason == "LocalQueueNotFound" || reason == "PriorityClassNotFound" || reason == "LocalQueueMismatch" ||
         reason == "KueueNotInstalled" || reason == "AppWrapperNotInstalled" || reason == "RayJobNotInstalled" ||
         reason == "RayClusterNotInstalled" || reason == "LocalQueueUnknown";
}

// The reason of the Normal event when a hold ends: LocalQueueNotFound -> LocalQueueFound, KueueNotInstalled ->
// KueueInstalled, LocalQueueMismatch -> LocalQueueMatches.
std::string released_reason(std::string_view held) {
  if (held == "LocalQueueUnknown") return "LocalQueueRead";
  for (std::string_view suffix : {"NotFound", "NotInstalled"})
    if (held.ends_with(suffix)) {
      std::string base(held.substr(0, held.size() - suffix.size()));
      return base + (suffix == "NotFound" ? "Found" : "Installed");
    }
  return "LocalQueueMatches";
}

// The children held back until what the spec names exists: a reason for the Queued condition, or empty.
std::pair<std::string, std::string> hold(const Workload& w, const std::optional<std::string>& queue,
                                         const ClusterFacts& facts, bool child_exists) {
  const QueueSpec& q = w.spec.queue;
  bool managed = !q.cluster_queue.empty();
  // Every workload runs a RayCluster, whatever makes it (the operator, KubeRay for a RayJob, the AppWrapper
  // controller). A CRD being deleted is not served either: a write would only re-create what its deletion removes (the
  // nineteenth user trial: the deletion of the AppWrapper CRD never ended while the operator ran).
  if (!facts.ray_cluster_served)
    return {"RayClusterNotInstalled",
            "the RayCluster CRD (rayclusters.ray.io) is not served (not installed, or being deleted): install "
            "KubeRay's CRDs"};
  if (w.spec.job && !facts.ray_job_served)
    return {"RayJobNotInstalled",
            "the RayJob CRD (rayjobs.ray.io) is not served (not installed, or being deleted): "
            "install KubeRay's RayJob CRD, or remove spec.job"};
  if (!w.spec.job && w.spec.app_wrapper && !facts.app_wrapper_served)
    return {"AppWrapperNotInstalled",
            "the AppWrapper CRD (appwrappers.workload.codeflare.dev) is not served (not installed, or being "
            "deleted): install AppWrapper, or set spec.appWrapper: false"};
  if (managed && facts.kueue_version.empty())
    return {"KueueNotInstalled",
            "spec.queue.clusterQueue asks for a managed LocalQueue, but the cluster does not serve kueue.x-k8s.io: "
            "install Kueue, or remove spec.queue"};
  if (!q.local_queue.empty() && !facts.kueue_served)
    return {"KueueNotInstalled",
            "spec.queue.localQueue names a Kueue LocalQueue, but the cluster does not serve kueue.x-k8s.io: install "
            "Kueue, or remove spec.queue"};
  // A submitted child that the spec suspends may move to a LocalQueue that is not there yet: the suspension is not
  // held back for it (its Queued condition says the queue is missing).
  if (!q.local_queue.empty() && !managed && facts.local_queue_presence == Presence::kAbsent &&
      !(child_exists && w.spec.suspend))
    return {"LocalQueueNotFound", "LocalQueue " + q.local_queue + " does not exist in namespace " + w.namespace_ +
                                      " (create it, or set spec.queue.clusterQueue to have the operator create it)"};
  // Whether the managed LocalQueue exists, and for which ClusterQueue, is unknown: a first submission waits rather than
  // join a LocalQueue of another ClusterQueue for good (the sixteenth user trial).
  if (managed && facts.local_queues_unreadable && !child_exists)
    return {"LocalQueueUnknown", "LocalQueue " + q.local_queue +
                                     " cannot be read (the operator's LocalQueue cache has no list): a workload whose "
                                     "LocalQueue the operator manages waits until it can be, so as not to join a "
                                     "LocalQueue of another ClusterQueue"};
  // Nor can the namespace's default LocalQueue be told: a workload that names none waits rather than run outside
  // Kueue for good where the namespace has a default queue (the seventeenth user trial).
  if (q.local_queue.empty() && !facts.kueue_version.empty() && facts.local_queues_unreadable && !child_exists)
    return {"LocalQueueUnknown",
            "the LocalQueues of namespace " + w.namespace_ +
                " cannot be read (the operator's LocalQueue cache has no list): a workload that names no LocalQueue "
                "waits until its default LocalQueue can be told, so as not to run outside Kueue"};
  // Deleted under the workloads submitted to it: it is theirs to create again, with their ClusterQueue (the fifteenth
  // user trial: a workload held for pointing elsewhere re-created it first, with its own, and took it over).
  if (managed && facts.local_queue_presence == Presence::kAbsent)
    for (const auto& [other, cq] : facts.local_queue_managers)
      if (cq != q.cluster_queue)
        return {"LocalQueueMismatch", "LocalQueue " + q.local_queue + " is gone; workload " + other +
                                          ", submitted to it for ClusterQueue " + cq +
                                          ", creates it again; a LocalQueue's clusterQueue cannot change (use another "
                                          "localQueue name)"};
  if (managed && facts.local_queue) {
    const json::Value* cq = json::find_path(*facts.local_queue, "spec.clusterQueue");
    // One the operator does not manage is used as it is only when it points where the spec asks (the seventeenth
    // user trial: submitted to another ClusterQueue's quota, said by a warning only).
    if (cq && cq->IsString() && q.cluster_queue != cq->GetString())
      return {"LocalQueueMismatch",
              "LocalQueue " + q.local_queue + " points at ClusterQueue " + cq->GetString() + ", not " +
                  q.cluster_queue +
                  (is_managed_local_queue(*facts.local_queue)
                       ? "; a LocalQueue's clusterQueue cannot change (use another localQueue name)"
                       : "; it is not managed by the operator, which does not change it (use another localQueue "
                         "name, or remove spec.queue.clusterQueue to use it as it is)")};
  }
  if (queue && !q.priority_class.empty() && facts.priority_class_presence == Presence::kAbsent)
    return {"PriorityClassNotFound", "WorkloadPriorityClass " + q.priority_class + " does not exist"};
  return {};
}

// A hold for the LocalQueue (status.heldFor LocalQueueMismatch or LocalQueueNotFound, for the queue the spec still
// names) stands while the LocalQueue cannot be read (its cache has given up on a failing first list): it is not let
// go into a ClusterQueue the spec did not ask for (the fifteenth user trial). Empty when none stands.
std::pair<std::string, std::string> queue_hold_standing(const Workload& w, const json::Value* previous,
                                                        const ClusterFacts& facts) {
  const std::string& lq = w.spec.queue.local_queue;
  if (!previous || lq.empty() || !facts.local_queues_unreadable) return {};
  const std::string held = json::get_string(*previous, "heldFor").value_or("");
  if ((held != "LocalQueueMismatch" && held != "LocalQueueNotFound") ||
      json::get_string(*previous, "queue").value_or("") != lq)
    return {};
  return {held, "LocalQueue " + lq + " cannot be read (the operator's LocalQueue cache has no list of it): the hold (" +
                    held + ") stands until it can be"};
}

// What the status says of a child that stays as it is (held, or a write that failed): the queue it carries and its
// suspension, and the LocalQueue managed before (`previous`: the workload's status, may be null).
void keep_what_runs(StatusInput& in, const json::Value* top, const json::Value* previous) {
  in.queue = queue_label_of(top);
  in.suspended = suspended(top);
  in.managed_local_queue = previous ? json::get_string(*previous, "managedLocalQueue").value_or("") : "";
  in.admissibility.reset();  // judged for the queue the spec asks for, not this one
  in.queue_missing = false;
}

// The managed LocalQueue: the object to create when spec.queue.clusterQueue is set and the LocalQueue is missing,
// and whether the workload uses a LocalQueue the operator manages (then it needs the finalizer). A LocalQueue that
// exists is never written again: its clusterQueue is immutable (Kueue's CRD rule).
struct ManagedQueue {
  std::optional<json::Document> create;
  bool in_use = false;
};

ManagedQueue managed_local_queue(const Workload& w, const ClusterFacts& facts) {
  const QueueSpec& q = w.spec.queue;
  ManagedQueue out;
  if (q.cluster_queue.empty() || facts.kueue_version.empty()) return out;
  if (facts.local_queue_presence == Presence::kAbsent) {
    out.create = build_managed_local_queue(facts.kueue_version, q.local_queue, w.namespace_, q.cluster_queue).to_json();
    out.in_use = true;
  } else if (facts.local_queue && is_managed_local_queue(*facts.local_queue)) {
    out.in_use = true;
  }
  // One the operator does not manage is used as it is when it points at the ClusterQueue asked for; else the workload
  // is held (hold(): LocalQueueMismatch).
  return out;
}

// The object of the top-level child kind the spec asks for, as observed (null when absent).
const json::Value* observed_top(const WorkloadSpec& s, const Observed& observed) {
  if (s.job) return observed.ray_job;
  return s.app_wrapper ? observed.app_wrapper : observed.ray_cluster;
}

// The value of label `key` on `obj` (null: no object, no such label).
std::optional<std::string> label_of(const json::Value* obj, std::string_view key) {
  const json::Value* labels = obj ? json::find_path(*obj, "metadata.labels") : nullptr;
  if (!labels || !labels->IsObject()) return std::nullopt;
  return json::get_string(*labels, key);
}

std::optional<std::string> queue_label_of(const json::Value* obj) { return label_of(obj, kQueueNameLabel); }

bool suspended(const json::Value* obj) {
  const json::Value* v = obj ? json::find_path(*obj, "spec.suspend") : nullptr;
  return v && v->IsBool() && v->GetBool();
}

// Whether Kueue's job webhook judges the child `live` as running when the spec is applied: it judges the job as
// updated, so a child that is suspended, or that this very apply suspends (spec.suspend), is not. Kueue keeps the
// queue-name and priority-class labels of a running job fixed (queue_label_of, kPriorityClassLabel).
bool runs_after_apply(const WorkloadSpec& s, const json::Value* live) { return live && !suspended(live) && !s.suspend; }

// Whether a RayJob or an AppWrapper has run to its end (jobDeploymentStatus Complete or Failed; phase Succeeded or
// Failed). A RayCluster never ends.
bool child_ended(const json::Value* live) {
  if (!live) return false;
  const std::string job = json::string_at(*live, "status.jobDeploymentStatus");
  const std::string phase = json::string_at(*live, "status.phase");
  return job == "Complete" || job == "Failed" || phase == "Succeeded" || phase == "Failed";
}

// Kueue admits a job with the PodSets it has then; a running (admitted, unsuspended) RayCluster whose PodSets change
// (replicas, requests) no longer matches its Workload, so Kueue suspends it and queues it again with the new size
// (kueue KEP-77: a resize means a suspend and a requeue), stopping its Pods. Allowed, as Kueue allows it, and said.
// Not with autoscaling: the autoscaler owns the size, and an elastic job (workload slices) is resized in place. Only
// once its Kueue Workload says it is admitted (a cluster that runs where Kueue's CRDs are served but no Kueue
// controller ran was never admitted, and nothing will requeue it).
void warn_resize_requeues(const WorkloadSpec& s, const json::Value& desired, const json::Value* live,
                          const json::Value* kueue_workload, FieldErrors& errs) {
  if (!live || suspended(live) || s.suspend || s.autoscaling.enabled || !view_admission(kueue_workload).admitted)
    return;
  json::Document scratch;
  auto& a = scratch.GetAllocator();
  if (quota_preview(desired).pod_sets_json(a) == quota_preview(*live).pod_sets_json(a)) return;
  add_warning(errs, "spec", "ResizeRequeues",
              "the RayCluster runs, admitted by Kueue at its current size; Kueue suspends a job whose PodSets no "
              "longer match its admitted Workload and queues it again with the new size, so this change stops its "
              "Pods until Kueue admits it again",
              "kueue: KEP-77 dynamically sized jobs (a resized job is suspended and requeued)");
}

// Turning spec.job or spec.appWrapper on or off changes the kind of the top-level child: the child of the old kind is
// deleted before the new one is made, which stops what it runs. Refused while that child runs, as a running
// AppWrapper's change is, unless the same change suspends the workload; a child that is suspended, has ended or is
// being deleted already goes (the twenty-fifth user trial: refused on unsuspending while the old child's deletion,
// started by the suspended change, waited for a finalizer).
void check_kind_change_while_running(const Workload& w, const Observed& observed, FieldErrors& errs) {
  const WorkloadSpec& s = w.spec;
  if (s.suspend) return;
  const char* wanted = s.job ? kRayJobKind : s.app_wrapper ? kAppWrapperKind : kRayClusterKind;
  const std::pair<const char*, const json::Value*> live[] = {{kRayJobKind, observed.ray_job},
                                                             {kAppWrapperKind, observed.app_wrapper},
                                                             {kRayClusterKind, observed.ray_cluster}};
  for (const auto& [kind, obj] : live) {
    if (std::string_view(kind) == wanted || !obj || !controlled_by(*obj, w.uid) || suspended(obj) || child_ended(obj) ||
        json::find_path(*obj, "metadata.deletionTimestamp"))
      continue;
    add_error(errs, s.job || std::string_view(kind) == kRayJobKind ? "spec.job" : "spec.appWrapper",
              "ChildKindChangeWhileRunning",
              "the workload runs as " + std::string(kind) + " " + w.name + "; this change makes it " +
                  (std::string_view(wanted) == kAppWrapperKind ? "an " : "a ") + wanted +
                  ", and deleting the running " + kind +
                  " stops what it runs: set spec.suspend: true with the change, or delete and re-create the "
                  "workload",
              "codeflare-operator: the top-level child's kind follows spec.job and spec.appWrapper");
    return;
  }
}

// The queue is chosen when the child is submitted and then kept: a namespace default that appears, changes or goes
// later does not move a submitted workload (Kueue refuses a queue-name change on a running object, and dropping the
// label would take it out of Kueue's accounting). An explicit spec.queue.localQueue always wins, but changing it
// while the child runs is refused, as Kueue's webhook refuses it.
std::optional<std::string> resolve_queue(const WorkloadSpec& s, const Observed& observed, const ClusterFacts& facts,
                                         FieldErrors& errs) {
  const json::Value* live = observed_top(s, observed);
  if (!s.queue.local_queue.empty()) {
    auto current = queue_label_of(live);
    // Kueue refuses any change of the queue-name label of a running job, adding one included. The queue in effect
    // (status.queue) stays the child's.
    if (current != s.queue.local_queue && runs_after_apply(s, live)) {
      // The field that names the queue: clusterQueue when localQueue defaults to it (the twenty-third user trial).
      const bool by_cluster_queue = s.queue.local_queue == s.queue.cluster_queue;
      add_error(errs, by_cluster_queue ? "spec.queue.clusterQueue" : "spec.queue.localQueue", "QueueChangeWhileRunning",
                current ? "the workload runs in LocalQueue " + *current +
                              "; Kueue does not let the queue of a running workload change (set spec.suspend: true "
                              "with the change)"
                        : "the workload runs without a LocalQueue; Kueue does not let a running workload join one "
                          "(set spec.suspend: true with the change, or delete and re-create the workload)",
                "kueue:job webhook ValidateUpdate");
      return current;
    }
    return s.queue.local_queue;
  }
  if (live) {
    // The queue of a submitted child is kept. Said when the spec no longer names it (not when it came from the
    // namespace's default LocalQueue, which the spec never named).
    // A queue that is gone is told by the Queued condition (LocalQueueNotFound), not as a change of the spec: the
    // namespace's default LocalQueue deleted under a workload that never named one changed nothing the user wrote.
    auto current = queue_label_of(live);
    const bool gone = current && facts.local_queue_names && !facts.local_queue_names->contains(*current);
    // Nor is anything said while the namespace's queues are unknown (their cache has no list): the default is unknown,
    // not changed (the fifteenth user trial).
    const bool queues_unknown = !facts.kueue_version.empty() && !facts.local_queue_names;
    if (current && !queues_unknown && facts.default_local_queue != current && !gone)
      add_warning(errs, "spec.queue", "QueueKept",
                  "the workload stays in LocalQueue " + *current +
                      ", where it was submitted: a submitted workload keeps its queue" +
                      (facts.default_local_queue
                           ? " (the namespace's default LocalQueue is now " + *facts.default_local_queue + ")"
                           : "") +
                      "; to leave it, delete and re-create the workload",
                  "kueue:job webhook ValidateUpdate");
    return current;
  }
  std::optional<std::string> queue = select_local_queue(s.queue, facts.default_local_queue);
  if (queue && s.queue.local_queue.empty() && !facts.other_default_local_queues.empty()) {
    std::string others;
    for (const auto& name : facts.other_default_local_queues) others += (others.empty() ? "" : ", ") + name;
    add_warning(errs, "spec.queue.localQueue", "DefaultLocalQueueAmbiguous",
                "LocalQueues " + *queue + " and " + others +
                    " are all annotated kueue.x-k8s.io/default-queue: \"true\"; the workload goes to " + *queue +
                    " (the first by name): name its queue in spec.queue.localQueue, or keep the annotation on one",
                "codeflare-sdk: the namespace's default LocalQueue (get_default_kueue_name)");
  }
  return queue;
}

// Kueue's job webhook (ValidateUpdateForWorkloadPriorityClassName): a WorkloadPriorityClass may change but not be
// added to a job that is not suspended (the job as updated), and never removed. An added one is an error; a removed
// one is kept on the child (in `labels`) with a warning.
void check_priority_class_change(const WorkloadSpec& s, const json::Value* live,
                                 std::map<std::string, std::string>& labels, FieldErrors& errs) {
  if (!live) return;
  const auto current = label_of(live, kPriorityClassLabel);
  const std::string& wanted = s.queue.priority_class;
  if (current && wanted.empty()) {
    labels[std::string(kPriorityClassLabel)] = *current;
    add_warning(errs, "spec.queue.priorityClass", "PriorityClassKept",
                "the workload keeps WorkloadPriorityClass " + *current +
                    ": Kueue does not let a priority class be removed from a job; delete and re-create the workload "
                    "to run it without one",
                "kueue:job webhook ValidateUpdateForWorkloadPriorityClassName");
  } else if (!current && !wanted.empty() && runs_after_apply(s, live)) {
    add_error(errs, "spec.queue.priorityClass", "PriorityClassAddedWhileRunning",
              "the workload runs without a WorkloadPriorityClass; Kueue does not let one be added to a running job "
              "(set spec.suspend: true with the change, or delete and re-create the workload)",
              "kueue:job webhook ValidateUpdateForWorkloadPriorityClassName");
  }
}

// A finished RayJob whose spec has not changed since it finished is left alone (and not re-created when deleted).
// A spec change after the end runs the new spec: the old RayJob is replaced.
struct JobRun {
  bool finished = false;  ///< the previous status says the job ended
  bool lost = false;      ///< ... or rather that its RayJob went before it was seen to end (RayJobGone)
  bool rerun = false;     ///< ... and the spec changed since
};

// Whether the previous status names the RayJob `name` as the workload's.
bool names_ray_job(const json::Value* previous, const std::string& name) {
  return previous && json::get_string(*previous, "rayJobName").value_or("") == name;
}

// Whether the previous status records the end of RayJob `name`: phase Succeeded or Failed, or, whatever the phase
// (Invalid: the spec was rejected while the job ran), KubeRay's jobDeploymentStatus Complete or Failed as last seen.
bool job_end_recorded(const json::Value* previous, const std::string& name) {
  if (!names_ray_job(previous, name)) return false;
  const std::string before = json::string_at(*previous, "phase");
  const std::string deployment = json::string_at(*previous, "jobDeploymentStatus");
  return before == phase::kSucceeded || before == phase::kFailed || deployment == "Complete" || deployment == "Failed";
}

JobRun job_run(const Workload& w, const json::Value* previous) {
  JobRun r;
  if (!w.spec.job || !previous) return r;
  r.finished = job_end_recorded(previous, w.name);
  if (const json::Value* conds = r.finished ? json::find(*previous, "conditions") : nullptr) {
    const std::vector<Condition> before = conditions_from_json(*conds);
    const Condition* c = find_condition(before, kConditionSucceeded);
    r.lost = c && c->reason == "RayJobGone";
  }
  r.rerun = r.finished && json::get_int(*previous, "observedGeneration").value_or(0) != w.generation;
  return r;
}

// A RayJob the operator made (`ran_hash`, status.jobSpecHash, is set and the previous status names it) that is gone
// before it was seen to end (deleted by hand, or by KubeRay's deletionPolicy while the operator was not running or
// before it saw the end; queued or not, since Kueue may have admitted it meanwhile): its outcome is unknown, and
// creating it again would run work that may have been done (a job runs at most once per spec). `finished`: the
// previous status records its end (job_end_recorded); a loss already said (Succeeded reason RayJobGone) stays one.
bool job_gone_unseen(const json::Value* previous, const std::vector<Condition>& previous_conditions,
                     const json::Value* ray_job, const std::string& ran_hash, const std::string& name, bool finished) {
  if (ray_job || ran_hash.empty() || !names_ray_job(previous, name)) return false;
  const Condition* before = find_condition(previous_conditions, kConditionSucceeded);
  return !finished || (before && before->reason == "RayJobGone");
}

// Whether the previous status saw AppWrapper `name` (status.appWrapperPhase recorded) and, if so, whether it had ended
// then (phase Succeeded or Failed).
struct AppWrapperRecord {
  bool seen = false;
  bool ended = false;
};

AppWrapperRecord app_wrapper_record(const json::Value* previous, const std::string& name) {
  if (!previous || json::string_at(*previous, "appWrapperName") != name) return {};
  const std::string p = json::string_at(*previous, "appWrapperPhase");
  return {!p.empty(), p == "Succeeded" || p == "Failed"};
}

// The metadata of a component's template (the wrapped object's), when it is an object.
json::Value* wrapped_metadata(json::Value& component) {
  json::Value* t = component.IsObject() ? json::find(component, "template") : nullptr;
  json::Value* meta = t && t->IsObject() ? json::find(*t, "metadata") : nullptr;
  return meta && meta->IsObject() ? meta : nullptr;
}

// Whether two objects have the same members, `skip` left out of both (anything else: plain equality).
bool equal_except(const json::Value& a, const json::Value& b, std::string_view skip) {
  if (!a.IsObject() || !b.IsObject()) return a == b;
  rapidjson::SizeType counted = 0;
  for (const auto& m : a.GetObject()) {
    const std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if (name == skip) continue;
    ++counted;
    const json::Value* other = json::find(b, name);
    if (!other || !(m.value == *other)) return false;
  }
  return counted + (json::find(b, skip) ? 1 : 0) == b.MemberCount();
}

// Whether two components are the same but for the wrapped object's labels (template.metadata.labels, where
// spec.labels go). Compared in place: no copy of either.
bool same_component_but_labels(const json::Value& a, const json::Value& b) {
  if (!equal_except(a, b, "template")) return false;
  const json::Value* ta = a.IsObject() ? json::find(a, "template") : nullptr;
  const json::Value* tb = b.IsObject() ? json::find(b, "template") : nullptr;
  if (!ta || !tb) return ta == tb;
  if (!equal_except(*ta, *tb, "metadata")) return false;
  const json::Value* ma = ta->IsObject() ? json::find(*ta, "metadata") : nullptr;
  const json::Value* mb = tb->IsObject() ? json::find(*tb, "metadata") : nullptr;
  if (!ma || !mb) return ma == mb;
  return equal_except(*ma, *mb, "labels");
}

// An AppWrapper's components cannot change (AppWrapper webhook ValidateUpdate): a changed template means replacing it.
// The wrapped objects' labels alone do not count (keep_wrapped_labels): a label is not worth stopping a Ray cluster.
bool app_wrapper_template_changed(const json::Value& desired, const json::Value* live) {
  const json::Value* want = json::find_path(desired, "spec.components");
  const json::Value* have = live ? json::find_path(*live, "spec.components") : nullptr;
  if (!want || !have) return false;
  if (!want->IsArray() || !have->IsArray() || want->Size() != have->Size()) return !(*want == *have);
  for (rapidjson::SizeType i = 0; i < want->Size(); ++i)
    if (!same_component_but_labels((*want)[i], (*have)[i])) return true;
  return false;
}

// An AppWrapper kept (not replaced) keeps the labels its wrapped objects were created with: its components cannot
// change (AppWrapper webhook ValidateUpdate), so `desired` takes the live AppWrapper's labels of each component.
// True when the spec asks for other labels (they are on the AppWrapper's own metadata only).
bool keep_wrapped_labels(json::Document& desired, const json::Value& live) {
  json::Value* spec = json::find(desired, "spec");
  json::Value* want = spec ? json::find(*spec, "components") : nullptr;
  const json::Value* have = json::find_path(live, "spec.components");
  if (!want || !have || !want->IsArray() || !have->IsArray() || want->Size() != have->Size()) return false;
  auto& a = desired.GetAllocator();
  bool differed = false;
  for (rapidjson::SizeType i = 0; i < want->Size(); ++i) {
    json::Value* meta = wrapped_metadata((*want)[i]);
    const json::Value* live_meta = (*have)[i].IsObject() ? json::find_path((*have)[i], "template.metadata") : nullptr;
    if (!meta) continue;
    const json::Value* live_labels = live_meta && live_meta->IsObject() ? json::find(*live_meta, "labels") : nullptr;
    const json::Value* labels = json::find(*meta, "labels");
    if ((labels == nullptr) == (live_labels == nullptr) && (!labels || *labels == *live_labels)) continue;
    differed = true;
    meta->RemoveMember("labels");
    if (live_labels) {
      json::Value copy;
      copy.CopyFrom(*live_labels, a);
      meta->AddMember("labels", copy, a);
    }
  }
  return differed;
}

// The apiserver stores objects up to etcd's request limit (1.5 MiB by default), managedFields included, which
// roughly repeat the field structure; 1 MiB of JSON leaves room for them.
constexpr std::size_t kMaxObjectBytes = std::size_t{1024} * 1024;

// `bytes`: the size of the child's JSON (from stamp_spec_hash).
void check_size(std::size_t bytes, const std::string& label, const WorkloadSpec& s, FieldErrors& errs) {
  if (bytes <= kMaxObjectBytes) return;
  std::size_t annotations = 0;
  for (const auto& [k, v] : s.annotations) annotations += k.size() + v.size();
  // The annotations are copied onto the object, the head and every worker group's pod template.
  std::size_t copies = 2 + s.worker_groups.size();
  bool blame_annotations = annotations * copies * 2 > bytes;
  add_error(errs, blame_annotations ? "spec.annotations" : "spec", "ObjectTooLarge",
            label + " would be " + std::to_string(bytes) + " bytes of JSON, more than the " +
                std::to_string(kMaxObjectBytes) + " the apiserver can store with its metadata" +
                (blame_annotations ? " (the annotations are copied onto the head and every worker group)" : ""),
            "apiserver:etcd request size limit");
}

// The CamelCase reason of the Admissible condition after the rule that blocks the workload.
std::string inadmissible_reason(const std::string& rule) {
  if (rule == "ValidateAdmissibility") return "NamespaceNotSelected";
  if (rule == "FindFlavorForPodSets") return "ResourceNotCovered";
  if (rule == "CheckFlavorForPodSets") return "NoMatchingFlavor";
  if (rule == "FitsResourceQuota") return "ExceedsMaxQuota";
  return "Inadmissible";
}

// Why Kueue admits nothing from the child's LocalQueue: a ClusterQueue or ResourceFlavor of its chain that does not
// exist (Kueue marks the LocalQueue or ClusterQueue inactive). nullopt for a missing LocalQueue: the hold
// (LocalQueueNotFound) or the Queued condition (queue_missing) tells it.
std::optional<Admissibility> missing_link(const validation::MissingQueueLink& m) {
  if (m.kind == "LocalQueue") return std::nullopt;
  Admissibility a;
  a.admissible = false;
  a.ever = false;
  a.reason = m.kind + "NotFound";
  a.message = m.kind == "ClusterQueue"
                  ? "ClusterQueue " + m.name + ", which LocalQueue " + m.of +
                        " points at, does not exist: Kueue admits nothing from the LocalQueue until it is created"
                  : "ResourceFlavor " + m.name + ", a flavor of ClusterQueue " + m.of +
                        ", does not exist: the ClusterQueue admits nothing until it is created";
  return a;
}

// Kueue's verdict-to-be on the queued child (validation::judge_admissibility), told at the workload's fields.
// `queues` holds every LocalQueue of the namespace and every ClusterQueue and ResourceFlavor of the cluster (the
// operator's synced caches), so a link missing from them is missing from the cluster (missing_link); `creating` is the
// managed LocalQueue this reconcile creates (not cached yet), or null; `origins`: the workload fields the child's
// Pod-template values came from (a topology annotation is told at spec...topology). nullopt: no verdict (the
// LocalQueue is missing, or several could be the child's).
std::optional<Admissibility> judge_child(const json::Value& child, const std::string& label,
                                         const json::Value& workload, const validation::QueueObjects& cached,
                                         const json::Value* creating, const PathOrigins& origins) {
  std::optional<validation::QueueObjects> with_created;
  if (creating) {
    with_created = cached;
    with_created->add(creating);
  }
  const validation::QueueObjects& queues = with_created ? *with_created : cached;
  if (auto missing = validation::missing_queue_link(child, queues)) return missing_link(*missing);
  if (!validation::admissibility_known(child, queues)) return std::nullopt;
  auto told_of = [&](FieldErrors found) {
    FieldErrors told;
    add_child_findings(std::move(found), json::get_string(child, "kind").value_or(""), label, workload, told, origins);
    return told;
  };
  FieldErrors told = told_of(validation::judge_admissibility(child, queues));
  Admissibility a;
  // Without a ClusterQueue in a cohort (spec.cohortName, v1beta1 spec.cohort), nothing is borrowed and a second
  // judgement would repeat the first.
  auto in_cohort = [](const json::Value* cq) {
    return !json::string_at(*cq, "spec.cohortName").empty() || !json::string_at(*cq, "spec.cohort").empty();
  };
  if (told.empty() && !queues.cohorts_known && std::ranges::any_of(queues.cluster_queues(), in_cohort)) {
    // Admissible only if the cohort can lend more than its known ClusterQueues do (a Cohort object's own quota, which
    // the operator does not read): no verdict either way (the thirty-sixth user trial: "can admit it" for a workload
    // 25 times its ClusterQueue's quota, in a cohort of no other member).
    validation::QueueObjects known_only = queues;
    known_only.cohorts_known = true;
    FieldErrors short_of = told_of(validation::judge_admissibility(child, known_only));
    if (!short_of.empty()) {
      a.known = false;
      a.reason = "CohortCapacityUnknown";
      a.message =
          "admitted only if its cohort lends more than its known ClusterQueues can (the operator does not "
          "read Cohort objects): " +
          findings_message(short_of, Severity::Error);
    }
  }
  if (told.empty()) return a;
  a.admissible = false;
  a.reason = inadmissible_reason(told.front().rule);
  a.message = findings_message(told, Severity::Error);
  return a;
}

std::string phase_of(const json::Value* status) {
  if (!status) return "";
  return json::get_string(*status, "phase").value_or("");
}

// The event announcing the change from phase `before` (the previous status's; empty for a new workload) to
// `status`'s, or none: an invalid spec is told by its own event, a held workload waiting (Pending) by its hold's, and a
// new workload starting out Pending is not news (an event per created workload would cost a request each).
std::optional<EventSpec> phase_event(const std::string& before, const WorkloadStatus& status, bool held) {
  if (status.phase == before || status.phase == phase::kInvalid) return std::nullopt;
  if (status.phase == phase::kPending && (held || before.empty())) return std::nullopt;
  const Condition* ready = find_condition(status.conditions, kConditionReady);
  return EventSpec{status.phase == phase::kFailed ? "Warning" : "Normal", status.phase,
                   truncate((before.empty() ? std::string("phase ") : "phase " + before + " -> ") + status.phase +
                                (ready ? ": " + ready->message : ""),
                            kMaxEventMessage)};
}

// Whether `e` is the event phase_event() made for a change to `phase`.
bool is_phase_event(const EventSpec& e, const std::string& phase) {
  return e.reason == phase && e.message.starts_with("phase ");
}
}  // namespace

Outcome reconcile(const json::Value& workload, const Observed& observed, const ClusterFacts& facts,
                  const validation::SchemaSet& schemas, const std::string& now, ValidationMemo* memo) {
  Outcome out;
  ParsedWorkload parsed = parse_workload(workload);
  out.errors = std::move(parsed.errors);
  // The workload's own labels and annotations, as the apiserver checks them (parse_workload reads the rest of its
  // metadata); offline, nothing else would.
  for (auto& e : validation::validate_object_meta(workload))
    if (e.path.starts_with("metadata.labels") || e.path.starts_with("metadata.annotations"))
      out.errors.push_back(std::move(e));
  const Workload& w = parsed.workload;

  const json::Value* previous = nullptr;
  if (const json::Value* st = json::find(workload, "status"); st && st->IsObject()) previous = st;
  std::vector<Condition> previous_conditions;
  if (previous)
    if (const json::Value* c = json::find(*previous, "conditions")) previous_conditions = conditions_from_json(*c);
  const bool new_generation = !previous || json::get_int(*previous, "observedGeneration") != w.generation;

  // The spec of the RayJob the operator last applied (job_spec_hash): carried over unless a RayJob is applied now.
  const std::string ran_hash = previous ? json::get_string(*previous, "jobSpecHash").value_or("") : "";
  StatusInput in;
  in.generation = w.generation;
  in.job_spec_hash = ran_hash;
  in.namespace_ = w.namespace_;
  std::vector<json::Document> children;
  json::Document creating_local_queue;  // the managed LocalQueue created now (not cached yet), judged in the chain
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
      queue = resolve_queue(s, observed, facts, out.errors);
    }
    if (queue) check_queued(w, facts, out.errors);
    if (!queue && !s.queue.priority_class.empty() && !facts.default_local_queue_unknown)
      add_warning(out.errors, "spec.queue.priorityClass", "PriorityClassWithoutQueue",
                  "has no effect: no LocalQueue is set and the namespace has no default LocalQueue");
    if (s.autoscaling.elastic_job && !queue && !facts.default_local_queue_unknown)
      add_warning(out.errors, "spec.autoscaling.elasticJob", "ElasticJobWithoutQueue",
                  "has no effect: the workload is not queued by Kueue");

    in.child_exists = observed_top(s, observed) != nullptr;
    auto [held_reason, held_message] = hold(w, queue, facts, in.child_exists);
    // A queue hold in effect that stands is told as it was (not as a new LocalQueueUnknown).
    if (held_reason.empty() || held_reason == "LocalQueueUnknown")
      if (auto standing = queue_hold_standing(w, previous, facts); !standing.first.empty())
        std::tie(held_reason, held_message) = std::move(standing);
    in.held_reason = held_reason;
    in.held_message = held_message;
    ManagedQueue managed = managed_local_queue(w, facts);
    // The child (created, or moved to this queue) is submitted to a managed LocalQueue the cache shows: read live
    // first.
    const json::Value* top = observed_top(s, observed);
    if (managed.in_use && !managed.create && (!top || queue_label_of(top) != s.queue.local_queue))
      out.confirm_local_queue = {s.queue.local_queue, s.queue.cluster_queue};
    if (managed.create) {
      creating_local_queue.CopyFrom(*managed.create, creating_local_queue.GetAllocator());
      stamp_spec_hash(*managed.create);
      validate_child(*managed.create, std::string(kLocalQueueKind) + "/" + s.queue.local_queue, workload, schemas,
                     facts, out.errors, nullptr, memo);
      children.push_back(std::move(*managed.create));
    }
    out.needs_finalizer = managed.in_use;
    if (managed.in_use) in.managed_local_queue = s.queue.local_queue;
    in.queue_missing = queue && facts.local_queue_names && !facts.local_queue_names->contains(*queue) &&
                       !(managed.in_use && *queue == s.queue.local_queue);
    std::string before_lq = previous ? json::get_string(*previous, "managedLocalQueue").value_or("") : "";
    // Held, nothing is applied: the workload keeps managing the LocalQueue it managed before (its child's, or its own
    // to use again once the hold ends), never one the held spec names (the nineteenth user trial: a queue change held
    // for LocalQueueMismatch released the managed queue the child ran in; the eighteenth: a queue held for pointing
    // elsewhere got the finalizer and was deleted with a workload that never used it; the twenty-first: a workload
    // held while its child's CRD went released its queue).
    if (!in.held_reason.empty()) {
      in.managed_local_queue = before_lq;  // kept while held, never newly claimed
      out.needs_finalizer = !in.managed_local_queue.empty();
    }
    // The namespace's LocalQueues not known (their cache has not listed, or may not): the queue the workload managed
    // stays managed, with its finalizer, rather than be released on an absence nobody saw.
    const bool queues_known = facts.local_queue_names.has_value();
    if (!queues_known && !before_lq.empty() && in.managed_local_queue.empty()) {
      in.managed_local_queue = before_lq;
      out.needs_finalizer = true;
    }
    if (queues_known && !before_lq.empty() && before_lq != in.managed_local_queue) out.release_local_queue = before_lq;
    auto labels = kueue_labels(queue, s.queue);
    JobRun run = job_run(w, previous);
    // A finished job runs again for a change of what it runs, not for one of its labels only (nothing to run): judged
    // against the finished RayJob, or once it is gone, against the hash of the spec that ran (none recorded: a status
    // written before status.jobSpecHash existed, and any new generation runs again).
    if (run.rerun && (observed.ray_job || !ran_hash.empty()))
      run.rerun = job_spec_changed(build_ray_job(w, labels).to_json(), observed.ray_job, ran_hash);
    // A RayJob of ours gone before it was seen to end is taken as ended (phase Failed, RayJobGone) until a change of
    // the spec of what runs; a change held while it ran is that change, at the next generation (as after a finished
    // run).
    if (s.job && !run.rerun &&
        job_gone_unseen(previous, previous_conditions, observed.ray_job, ran_hash, w.name, run.finished)) {
      run.finished = true;
      in.job_lost = true;
    }
    check_kind_change_while_running(w, observed, out.errors);
    // A finished RayJob run again is replaced: its successor may carry any priority class.
    check_priority_class_change(s, run.rerun ? nullptr : observed_top(s, observed), labels, out.errors);
    std::string label;
    bool hold_wrapped = false;  // a finished AppWrapper keeps the spec it ran
    PathOrigins origins;        // where the values of the Pod templates came from, for the findings on them
    if (s.job) {
      RayJob job = build_ray_job(w, labels);
      job.collect_origins(origins);
      children.push_back(job.to_json());
      label = std::string(kRayJobKind) + "/" + w.name;
      out.recreate = run.rerun && observed.ray_job;
      if (run.rerun)
        add_warning(out.errors, "spec", "JobRerun",
                    std::string(run.lost ? "the job's RayJob went before it was seen to end" : "the job has finished") +
                        " and the spec changed since: RayJob " + w.name +
                        (out.recreate ? " is replaced" : " is created again") + " and the job runs again",
                    "codeflare-operator: a finished RayJob is not run again in place (kuberay#1776)");
    } else if (s.app_wrapper) {
      RayCluster inner = build_ray_cluster(w, RayClusterPlacement{false, {}});
      inner.spec.collect_origins("spec.components[0].template.spec", origins);
      children.push_back(build_app_wrapper(w, inner, labels).to_json());
      label = std::string(kAppWrapperKind) + "/" + w.name;
      out.recreate = app_wrapper_template_changed(children.back(), observed.app_wrapper);
      // A finished AppWrapper runs again for a change made after its end was seen (a new generation since), or when
      // no status saw it (a replacement under way). A change refused while it ran (below) is not applied by itself
      // when it ends: it is held, as a change of a started RayJob is, until the spec changes again (or the AppWrapper
      // is deleted: it is then created as the spec is now).
      const AppWrapperRecord seen = app_wrapper_record(previous, w.name);
      // One that ended and is gone since (deleted by someone), the spec unchanged: not created again, as a finished
      // RayJob is not (a deleted AppWrapper would otherwise run its job again).
      if (!observed.app_wrapper && seen.ended && !new_generation) {
        hold_wrapped = true;
        in.finished_app_wrapper_gone = true;
      }
      const bool deleted = out.recreate && json::find_path(*observed.app_wrapper, "metadata.deletionTimestamp");
      if (out.recreate && child_ended(observed.app_wrapper) && !deleted && seen.seen &&
          !(seen.ended && new_generation)) {
        out.recreate = false;
        hold_wrapped = true;
        in.ran_earlier_spec = true;
        add_warning(out.errors, "spec", "FinishedAppWrapperUnchanged",
                    "the AppWrapper finished (phase " + json::string_at(*observed.app_wrapper, "status.phase") +
                        ") running an earlier spec: a change made while it ran is not applied when it ends; to run "
                        "the spec as it is now, change it again (AppWrapper " +
                        w.name + " is then replaced and runs again) or delete and re-create the workload",
                    "appwrapper: webhook ValidateUpdate (components are immutable)");
      } else if (out.recreate && child_ended(observed.app_wrapper)) {
        add_warning(out.errors, "spec", "AppWrapperRerun",
                    "the AppWrapper has finished (phase " + json::string_at(*observed.app_wrapper, "status.phase") +
                        ") and the spec changed since: AppWrapper " + w.name + " is replaced and runs again",
                    "appwrapper: webhook ValidateUpdate (components are immutable)");
      } else if (out.recreate && runs_after_apply(s, observed.app_wrapper)) {
        add_error(out.errors, "spec", "AppWrapperChangeWhileRunning",
                  "the AppWrapper runs, and its components cannot change: applying this change means replacing it, "
                  "which stops the running Ray cluster; set spec.suspend: true with the change, or delete and "
                  "re-create the workload",
                  "appwrapper: webhook ValidateUpdate (components are immutable)");
      }
      if (observed.app_wrapper && !out.recreate && keep_wrapped_labels(children.back(), *observed.app_wrapper))
        add_warning(out.errors, "spec.labels", "WrappedLabelsUnchanged",
                    "the labels changed: they are on AppWrapper " + w.name +
                        ", but its wrapped RayCluster keeps those it was created with (components cannot change) "
                        "until the AppWrapper is replaced by a change of its components",
                    "appwrapper: webhook ValidateUpdate (components are immutable)");
    } else {
      RayCluster rc = build_ray_cluster(w, RayClusterPlacement{true, labels});
      rc.spec.collect_origins("spec", origins);
      children.push_back(rc.to_json());
      label = std::string(kRayClusterKind) + "/" + w.name;
      if (queue) warn_resize_requeues(s, children.back(), observed.ray_cluster, observed.kueue_workload, out.errors);
    }
    if (s.job && !out.recreate)
      in.ran_earlier_spec = (observed.ray_job ? child_ended(observed.ray_job) : run.finished) &&
                            job_spec_changed(children.back(), observed.ray_job, ran_hash);
    in.quota = quota_preview(children.back());
    check_immutable_on_live(s, queue, out.recreate ? nullptr : observed_top(s, observed), children.back(), out.errors);
    if (!queue) warn_topology_without_queue(s, out.errors);
    // A child whose kind the cluster does not serve cannot be judged (no schema) nor written: the hold says so.
    const bool kind_unserved = in.held_reason == "AppWrapperNotInstalled" || in.held_reason == "RayJobNotInstalled" ||
                               in.held_reason == "RayClusterNotInstalled";
    if (kind_unserved) {
      children.pop_back();
      out.recreate = false;
    } else if (s.job && run.finished && !run.rerun) {
      warn_finished_job_ran_earlier_spec(children.back(), observed.ray_job, ran_hash, out.errors);
      children.pop_back();  // done: nothing to apply, not even after a deletion
    }
    std::optional<int64_t> autoscaled_workers;  // with autoscaling: the workers the live RayCluster is scaled to
    if (!children.empty() && json::get_string(children.back(), "kind") != std::string(kLocalQueueKind)) {
      // An existing child is updated in place, unless it is replaced (then the new one is created).
      const json::Value* live = s.job ? observed.ray_job : s.app_wrapper ? observed.app_wrapper : observed.ray_cluster;
      // A RayJob or AppWrapper still on its way out (deletionTimestamp: a replacement whose finalizers still run) is
      // waited for as during the replacement, not written to: the new one is created once it is gone.
      // A RayJob of the current spec on its way out is not a replacement but someone's deletion (by hand, or
      // KubeRay's): nothing is written to it, and once it is gone its record decides (RayJobGone, or the job's end).
      bool going = false;
      if (live && (s.job || s.app_wrapper) && json::find_path(*live, "metadata.deletionTimestamp")) {
        going = s.job && !ran_hash.empty() && !job_spec_changed(children.back(), live, ran_hash);
        out.recreate = !going;
      }
      const std::size_t bytes = stamp_spec_hash(children.back());
      if (!s.job && !s.app_wrapper && s.autoscaling.enabled && live && !out.recreate) {
        keep_autoscaled_replicas(children.back(), *live);
        autoscaled_workers = worker_count(children.back());
      }
      if (queue && !s.suspend && live && !out.recreate) keep_queued_child_suspended(children.back(), *live);
      if (!queue && !s.suspend && live && !out.recreate) resume_unqueued_child(children.back(), *live);
      const bool hold_job = s.job && live && !out.recreate && !s.suspend &&
                            hold_started_job_change(children.back(), *live, ran_hash, out.errors);
      validate_child(children.back(), label, workload, schemas, facts, out.errors, out.recreate ? nullptr : live, memo,
                     origins);
      check_size(bytes, label, s, out.errors);
      if (queue && facts.queue_objects)
        in.admissibility = judge_child(children.back(), label, workload, *facts.queue_objects,
                                       creating_local_queue.IsObject() ? &creating_local_queue : nullptr, origins);
      if (hold_job || hold_wrapped || going)
        children.pop_back();  // judged as the user wrote it, not applied while the job runs
      else
        out.origins = std::move(origins);
    }
    in.finished_job = run.finished && !run.rerun;
    in.wrapped = s.app_wrapper && !s.job;
    in.job = s.job.has_value();
    in.suspended = in.suspend_requested = s.suspend;
    in.queue = queue;
    // Held with a child: it stays in the queue it was submitted to, which the status tells.
    if (!in.held_reason.empty() && top) {
      in.queue = queue_label_of(top);
      in.suspended = suspended(top);  // a suspension is held back too (the twentieth user trial: phase Suspended)
      in.queue_missing = in.queue && facts.local_queue_names && !facts.local_queue_names->contains(*in.queue) &&
                         *in.queue != in.managed_local_queue;
    }
    int64_t desired = 0;
    if (autoscaled_workers)
      desired = *autoscaled_workers;  // the autoscaler's count, as applied
    else if (!existing_cluster)
      for (const auto& g : s.worker_groups) desired += g.replicas;
    in.desired_workers = static_cast<int32_t>(std::min<int64_t>(desired, INT32_MAX));
    in.ray_cluster_name = s.job ? "" : w.name;
    in.app_wrapper_name = in.wrapped ? w.name : "";
    in.ray_job_name = s.job ? w.name : "";
  }

  out.valid = !has_errors(out.errors);
  in.valid = out.valid;
  in.warnings_message = findings_message(out.errors, Severity::Warning);
  out.held = out.valid && !in.held_reason.empty();
  if (!out.valid || out.held) out.confirm_local_queue = {};
  if (out.valid && !out.held) {
    out.desired = std::move(children);  // each stamped with its spec hash above
    // The RayJob applied now is what runs next; one being replaced takes its record with it (the new one is created,
    // and recorded, once the old one is gone).
    if (w.spec.job && out.recreate)
      in.job_spec_hash.clear();
    else if (w.spec.job && !out.desired.empty() &&
             json::get_string(out.desired.back(), "kind") == std::string(kRayJobKind))
      in.job_spec_hash = job_spec_hash(out.desired.back());
  } else if (!out.valid) {
    out.needs_finalizer = false;
    out.recreate = false;
    out.release_local_queue.clear();
    in.invalid_message = invalid_message(out.errors);
    if (previous) {  // what runs keeps its names and size in the status
      in.ray_cluster_name = json::get_string(*previous, "rayClusterName").value_or("");
      in.app_wrapper_name = json::get_string(*previous, "appWrapperName").value_or("");
      in.ray_job_name = json::get_string(*previous, "rayJobName").value_or("");
      in.wrapped = !in.app_wrapper_name.empty();
      in.job = !in.ray_job_name.empty();
      in.desired_workers = static_cast<int32_t>(json::get_int(*previous, "desiredWorkers").value_or(0));
      in.managed_local_queue = json::get_string(*previous, "managedLocalQueue").value_or("");
      in.quota = quota_from_status(previous);
      if (auto q = json::get_string(*previous, "queue")) in.queue = q;
    }
    // The job that runs goes on while the spec is rejected: its end, or its loss, is recorded as with a valid spec
    // (the status keeps what KubeRay last said once the RayJob is gone), so that a later fix finds it finished.
    if (in.job) {
      const bool ended = job_end_recorded(previous, in.ray_job_name);
      in.job_lost = job_gone_unseen(previous, previous_conditions, observed.ray_job, ran_hash, in.ray_job_name, ended);
      in.finished_job = ended || in.job_lost;
    }
    auto is_error = [](const FieldError& e) { return e.severity == Severity::Error; };
    auto first = std::find_if(out.errors.begin(), out.errors.end(), is_error);
    auto count = std::count_if(out.errors.begin(), out.errors.end(), is_error);
    const Condition* valid_before = find_condition(previous_conditions, kConditionValid);
    bool told = valid_before && valid_before->status == "False" && valid_before->message == in.invalid_message;
    if (first != out.errors.end() && !told)
      out.events.push_back(EventSpec{
          "Warning", "InvalidSpec",
          truncate("invalid spec: " + describe_finding(*first) +
                       (count > 1 ? " (and " + std::to_string(count - 1) + " more; see the Valid condition)" : ""),
                   kMaxEventMessage)});
  }

  // A child being replaced says nothing about the new one: the status is computed as if it were gone (else a
  // finished RayJob run again would report the old run's end for the new generation, and never be run again).
  Observed seen = observed;
  if (out.recreate) {
    (w.spec.job ? seen.ray_job : seen.app_wrapper) = nullptr;
    seen.kueue_workload = nullptr;
  }
  WorkloadStatus status = compute_status(in, seen, previous, now);
  // One event per transition: a held workload says why once; every other phase change is announced; warnings about
  // a spec once per generation.
  std::string before = phase_of(previous);
  // The hold in effect before: status.heldFor; a status written before that field existed shows a hold of the
  // workload (no child yet) as the Ready condition's reason.
  const Condition* ready_before = find_condition(previous_conditions, kConditionReady);
  std::string held_before = previous ? json::get_string(*previous, "heldFor").value_or("") : "";
  if (held_before.empty() && ready_before && is_hold_reason(ready_before->reason)) held_before = ready_before->reason;
  // A job or AppWrapper run again is an action, said when it happens (the end that allows it may come after the
  // change; the recorder drops repeats).
  // A child found ended running an earlier spec is said once too, when it is found (its end comes without a change
  // of the spec): the held AppWrapper change by its warning, the job that ended while the spec was invalid (no phase
  // change is announced then) by its Succeeded condition.
  const Condition* ready_now = find_condition(status.conditions, kConditionReady);
  const bool found_ended_earlier = ready_now && ready_now->reason.starts_with("EarlierSpec") &&
                                   (!ready_before || ready_before->reason != ready_now->reason);
  for (const auto& e : out.errors)
    if (e.severity == Severity::Warning && (new_generation || e.rule == "JobRerun" || e.rule == "AppWrapperRerun" ||
                                            (e.rule == "FinishedAppWrapperUnchanged" && found_ended_earlier)))
      out.events.push_back(EventSpec{"Warning", e.rule, truncate(warning_note(e), kMaxEventMessage)});
  if (!out.valid && w.spec.job) {
    const Condition* succeeded = find_condition(status.conditions, kConditionSucceeded);
    const Condition* succeeded_before = find_condition(previous_conditions, kConditionSucceeded);
    if (succeeded && succeeded->status != "Unknown" &&
        (!succeeded_before || succeeded_before->reason != succeeded->reason))
      out.events.push_back(EventSpec{succeeded->reason == "EarlierSpecSucceeded" ? "Normal" : "Warning",
                                     succeeded->reason, truncate(succeeded->message, kMaxEventMessage)});
  }
  const Condition* admissible_before = find_condition(previous_conditions, kConditionAdmissible);
  if (out.valid && in.admissibility && !in.admissibility->admissible && in.held_reason != "LocalQueueMismatch" &&
      !(admissible_before && admissible_before->status == "False" &&
        admissible_before->message == in.admissibility->message))
    out.events.push_back(EventSpec{
        "Warning", in.admissibility->reason,
        truncate(in.admissibility->lead(in.queue.value_or(""), "the workload") + ": " + in.admissibility->message,
                 kMaxEventMessage)});
  // One hold giving way to another (Kueue installed, its LocalQueue not created yet): the first is released too.
  if (out.held && !held_before.empty() && held_before != in.held_reason && !new_generation)
    out.events.push_back(EventSpec{"Normal", released_reason(held_before),
                                   "no longer held (" + held_before + "); now held for " + in.held_reason});
  if (out.held && held_before != in.held_reason)
    out.events.push_back(EventSpec{"Warning", in.held_reason, truncate(in.held_message, kMaxEventMessage)});
  if (!held_before.empty() && out.valid && !out.held)
    // Released by the spec (it no longer names what was missing) or by the cluster (it appeared).
    out.events.push_back(
        new_generation ? EventSpec{"Normal", "HoldReleased",
                                   "no longer held (" + held_before + "): the spec changed; the workload goes ahead"}
                       : EventSpec{"Normal", released_reason(held_before),
                                   "no longer held (" + held_before + "): the workload goes ahead"});
  if (auto e = phase_event(before, status, out.held)) out.events.push_back(std::move(*e));
  out.status = status.to_json();
  out.recheck_after_seconds = status.recheck_after_seconds;
  out.status_input = std::move(in);
  return out;
}

void restatus(Outcome& outcome, const Observed& observed, const json::Value* previous_status, const std::string& now) {
  WorkloadStatus status = compute_status(outcome.status_input, observed, previous_status, now);
  outcome.status = status.to_json();
  outcome.recheck_after_seconds = status.recheck_after_seconds;
}

void restatus_unapplied(Outcome& outcome, const Observed& observed, const json::Value* previous_status,
                        const std::string& now) {
  StatusInput& in = outcome.status_input;
  if (!in.valid) return;  // an invalid spec already reports what runs
  const json::Value* top = in.job ? observed.ray_job : in.wrapped ? observed.app_wrapper : observed.ray_cluster;
  if (!top) return;
  keep_what_runs(in, top, previous_status);
  const std::string announced = phase_of(&outcome.status);
  // A child being replaced keeps its queue, but its state says nothing of the new one (as in reconcile()).
  Observed seen = observed;
  if (outcome.recreate) {
    (in.job ? seen.ray_job : seen.app_wrapper) = nullptr;
    seen.kueue_workload = nullptr;
  }
  WorkloadStatus status = compute_status(in, seen, previous_status, now);
  // The phase the write would have brought is not the one the status takes (the twenty-first user trial: Suspended
  // announced for a child left running): its event is replaced by the one for the phase taken, if that changed.
  if (status.phase != announced) {
    std::erase_if(outcome.events, [&](const EventSpec& e) { return is_phase_event(e, announced); });
    if (auto e = phase_event(phase_of(previous_status), status, outcome.held)) outcome.events.push_back(std::move(*e));
  }
  outcome.status = status.to_json();
  outcome.recheck_after_seconds = status.recheck_after_seconds;
}

}  // namespace cfo::workload
