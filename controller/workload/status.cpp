#include "workload/status.hpp"

#include "workload/child_views.hpp"

#include <algorithm>

namespace cfo::workload {

namespace {
// Phase plus the Ready condition that goes with it.
struct Readiness {
  std::string phase;
  bool ready = false;
  std::string reason;
  std::string message;
};

Readiness queued_or_suspended(const StatusInput& in, const std::string& what) {
  if (in.queue)
    return {phase::kQueued, false, "Queued",
            what + " is suspended, waiting for Kueue admission in LocalQueue " + *in.queue};
  return {phase::kSuspended, false, "Suspended", what + " is suspended"};
}

// A child its controller has not written any status to for kSilentChildSeconds after its creation: that controller
// is probably not running (or not watching the namespace). Before then, `recheck` is set to when to look again.
std::optional<Readiness> silent_child(const std::string& what, bool reported, const std::string& created,
                                      const char* reason, const char* controller, const std::string& now,
                                      int64_t& recheck) {
  if (reported || created.empty()) return std::nullopt;
  const int64_t age = seconds_between(created, now);
  if (age < kSilentChildSeconds) {
    recheck = kSilentChildSeconds - std::max<int64_t>(age, 0) + 1;
    return std::nullopt;
  }
  // The message stays the same from one look to the next (no running age), or every look would write the status.
  return Readiness{phase::kPending, false, reason,
                   what + " has no status more than " + std::to_string(kSilentChildSeconds) +
                       " s after its creation (" + created + "): is " + controller +
                       " running (and watching this namespace)?"};
}

Readiness from_ray_cluster(const StatusInput& in, const RayClusterView& rc, bool admitted, const std::string& now,
                           int64_t& recheck) {
  std::string what = "RayCluster " + in.ray_cluster_name;
  if (!rc.present) {
    if (admitted)
      return {phase::kAdmitted, false, "Admitted",
              "AppWrapper " + in.app_wrapper_name + " is admitted; " + what + " is not created yet"};
    return {phase::kPending, false, "Pending", what + " is not created yet"};
  }
  if (auto r = silent_child(what, rc.reported, rc.created, "NoStatusFromKubeRay", "the KubeRay operator", now, recheck))
    return *r;
  if (rc.suspended || rc.state == "suspended") return queued_or_suspended(in, what);
  if (rc.state == "ready") return {phase::kRunning, true, "Ready", what + " is ready"};
  if (rc.state == "failed")
    return {phase::kFailed, false, "ClusterFailed", what + " failed" + (rc.reason.empty() ? "" : ": " + rc.reason)};
  return {admitted ? phase::kAdmitted : phase::kPending, false, "ClusterNotReady",
          what + " is not ready" + (rc.state.empty() ? "" : " (state " + rc.state + ")")};
}

Readiness from_ray_job(const StatusInput& in, const RayJobView& rj, bool admitted, const std::string& now,
                       int64_t& recheck) {
  std::string what = "RayJob " + in.ray_job_name;
  if (!rj.present) return {phase::kPending, false, "Pending", what + " is not created yet"};
  if (auto r = silent_child(what, rj.reported, rj.created, "NoStatusFromKubeRay", "the KubeRay operator", now, recheck))
    return *r;
  std::string detail = rj.message.empty() ? "" : ": " + rj.message;
  if (rj.job_status == "SUCCEEDED") return {phase::kSucceeded, false, "JobSucceeded", what + " succeeded"};
  if (rj.job_status == "FAILED" || rj.deployment_status == "Failed")
    return {phase::kFailed, false, "JobFailed", what + " failed" + detail};
  if (rj.job_status == "STOPPED") return {phase::kFailed, false, "JobStopped", what + " was stopped" + detail};
  // Deleted by someone (the operator's own replacement is not shown): what it did is stopping.
  if (rj.deleting)
    return {rj.deployment_status == "Running" ? phase::kRunning : phase::kPending, false, "RayJobDeleting",
            what + " is being deleted" +
                (rj.deployment_status.empty() ? "" : " (its job was " + rj.deployment_status + ")") +
                ": it is not created again unless the spec of what runs changes"};
  if (rj.suspended || rj.deployment_status == "Suspended" || rj.deployment_status == "Suspending")
    return queued_or_suspended(in, what);
  if (rj.deployment_status == "Running") return {phase::kRunning, true, "JobRunning", what + " is running"};
  if (rj.deployment_status == "Complete")
    return {phase::kSucceeded, false, "JobComplete", what + " is complete (job status " + rj.job_status + ")"};
  return {admitted ? phase::kAdmitted : phase::kPending, false, "JobStarting",
          what + " is starting" + (rj.deployment_status.empty() ? "" : " (" + rj.deployment_status + ")")};
}

// The phase a job ended with, as the previous status records it: its phase when Succeeded or Failed, else (the phase
// was Invalid: the spec was rejected while the job ran) from KubeRay's job status as last seen.
std::string ended_phase(const json::Value& previous_status) {
  std::string before = json::string_at(previous_status, "phase");
  if (before == phase::kSucceeded || before == phase::kFailed) return before;
  const std::string job = json::string_at(previous_status, "jobStatus");
  const std::string deployment = json::string_at(previous_status, "jobDeploymentStatus");
  if (job == "SUCCEEDED" || (deployment == "Complete" && job != "FAILED" && job != "STOPPED")) return phase::kSucceeded;
  return phase::kFailed;
}

// Phase and readiness from the children alone (no verdict on the spec).
Readiness from_children(const StatusInput& in, const Observed& observed, const AdmissionView& admission,
                        const json::Value* previous_status, const std::string& now, int64_t& recheck) {
  if (in.job) {
    RayJobView rj = view_ray_job(observed.ray_job);
    if (!rj.present && in.job_lost && previous_status) {
      const std::string last = json::string_at(*previous_status, "jobDeploymentStatus");
      return {phase::kFailed, false, "RayJobGone",
              "RayJob " + in.ray_job_name + " is gone before it was seen to end (" +
                  (last.empty() ? "KubeRay had not reported on it" : "its job was " + last) +
                  "): its outcome is unknown, and it is not created again unless the spec of what runs changes (or "
                  "the workload is deleted and re-created)"};
    }
    if (!rj.present && in.finished_job && previous_status) {
      const std::string before = ended_phase(*previous_status);
      return {before, false, "JobFinished",
              "RayJob " + in.ray_job_name + " finished (" + before +
                  ") and is gone; the job is not run again unless its spec changes"};
    }
    return from_ray_job(in, rj, admission.admitted, now, recheck);
  }
  if (!in.wrapped)
    return from_ray_cluster(in, view_ray_cluster(observed.ray_cluster), admission.admitted, now, recheck);
  std::string what = "AppWrapper " + in.app_wrapper_name;
  if (!observed.app_wrapper && in.finished_app_wrapper_gone && previous_status) {
    const std::string before = json::string_at(*previous_status, "appWrapperPhase");
    return {before, false, "AppWrapperFinished",
            what + " finished (" + before +
                ") and is gone; it is not created again unless its spec changes (or the workload is re-created)"};
  }
  if (!observed.app_wrapper) return {phase::kPending, false, "Pending", what + " is not created yet"};
  const json::Value* p = json::find_path(*observed.app_wrapper, "status.phase");
  std::string aw_phase = p && p->IsString() ? p->GetString() : "";
  if (aw_phase == "Succeeded") return {phase::kSucceeded, false, "Succeeded", what + " succeeded"};
  if (aw_phase == "Failed") return {phase::kFailed, false, "AppWrapperFailed", what + " failed"};
  if (aw_phase == "Suspended" || aw_phase == "Suspending") return queued_or_suspended(in, what);
  if (aw_phase.empty()) {
    if (auto r = silent_child(what, false, json::string_at(*observed.app_wrapper, "metadata.creationTimestamp"),
                              "NoStatusFromAppWrapperController", "the AppWrapper controller", now, recheck))
      return *r;
    return {phase::kPending, false, "Pending", what + " has no phase yet"};
  }
  return from_ray_cluster(in, view_ray_cluster(observed.ray_cluster), true, now, recheck);
}

// What the children report while the spec is rejected (a job's end or loss is recorded as with a valid spec); empty
// when there is none.
std::optional<Readiness> running_while_invalid(const StatusInput& in, const Observed& observed,
                                               const AdmissionView& admission, const json::Value* previous_status,
                                               const std::string& now, int64_t& recheck) {
  const bool any_child =
      observed.ray_cluster || observed.app_wrapper || observed.ray_job || (in.job && in.finished_job);
  if (in.valid || !any_child) return std::nullopt;
  return from_children(in, observed, admission, previous_status, now, recheck);
}

Readiness readiness(const StatusInput& in, const std::optional<Readiness>& running, const Observed& observed,
                    const AdmissionView& admission, const json::Value* previous_status, const std::string& now,
                    int64_t& recheck) {
  if (!in.valid) {
    // The spec is rejected, but what runs keeps running: Ready still says whether it is ready, and what it does.
    if (!running) return {phase::kInvalid, false, "Invalid", "the spec is invalid; see the Valid condition"};
    return {phase::kInvalid, running->ready, running->ready ? running->reason : "Invalid",
            running->message + "; the spec is invalid (see the Valid condition): nothing is applied until it is fixed"};
  }
  if (!in.held_reason.empty() && !in.child_exists) return {phase::kPending, false, in.held_reason, in.held_message};
  // A finished job stays finished when the workload is suspended (nothing runs, nothing is to run).
  // Suspended by the spec, or still suspended because the change that resumes it is held back (then the spec no
  // longer says so; trial 40, m2).
  Readiness r = in.suspended && !in.finished_job
                    ? Readiness{phase::kSuspended, false, "Suspended",
                                in.suspend_requested ? "spec.suspend is true"
                                                     : "suspended until the change that resumes it is applied"}
                    : from_children(in, observed, admission, previous_status, now, recheck);
  if (!in.held_reason.empty()) r.message += "; changes are held back (" + in.held_reason + "): " + in.held_message;
  return r;
}

// Queued=False for the hold and Admitted=False NotQueued: held before its first submission.
void set_not_queued(const StatusInput& in, std::vector<Condition>& conds, const std::string& now) {
  set_condition(conds, Condition{kConditionQueued, "False", in.generation, "", in.held_reason, in.held_message}, now);
  set_condition(
      conds, Condition{kConditionAdmitted, "False", in.generation, "", "NotQueued", "not submitted to Kueue yet"}, now);
}

bool ended(const std::string& p) { return p == phase::kSucceeded || p == phase::kFailed; }

// Queued and Admitted, while a LocalQueue is in effect.
void set_queue_conditions(const StatusInput& in, const Readiness& r, const AdmissionView& admission,
                          std::vector<Condition>& conds, const std::string& now) {
  if (!in.valid) return;  // an invalid spec changes nothing about the admission of what runs
  // Held before its first submission: not queued, whether or not a queue is known yet (a workload that names none
  // waits for its namespace's default: LocalQueueUnknown; the eighteenth user trial found no Queued condition then).
  const bool held_unsubmitted = !in.held_reason.empty() && !in.child_exists;
  if (!in.queue) {
    remove_condition(conds, kConditionAdmissible);
    if (held_unsubmitted && in.held_reason == "LocalQueueUnknown") {
      set_not_queued(in, conds, now);
    } else {
      remove_condition(conds, kConditionQueued);
      remove_condition(conds, kConditionAdmitted);
    }
    return;
  }
  // A running or finished child has been admitted, whether or not its Kueue Workload is seen.
  const bool past_admission = r.phase == phase::kAdmitted || r.phase == phase::kRunning || r.phase == phase::kSucceeded;
  // Whether Kueue can ever admit it is moot once it has: Kueue does not evict an admitted workload when the quota
  // shrinks under it, and "never admits it" next to Admitted=True would contradict it.
  // Nor is it judged for a workload held for LocalQueueMismatch: the queue's ClusterQueue is not the one it asks for.
  if (!in.admissibility || admission.admitted || past_admission || in.held_reason == "LocalQueueMismatch")
    remove_condition(conds, kConditionAdmissible);
  else if (!in.admissibility->known)
    set_condition(conds,
                  Condition{kConditionAdmissible, "Unknown", in.generation, "", in.admissibility->reason,
                            in.admissibility->message},
                  now);
  else if (in.admissibility->admissible)
    set_condition(conds,
                  Condition{kConditionAdmissible, "True", in.generation, "", "Admissible",
                            "LocalQueue " + *in.queue + " can admit it"},
                  now);
  else
    set_condition(conds,
                  Condition{kConditionAdmissible, "False", in.generation, "", in.admissibility->reason,
                            in.admissibility->message},
                  now);
  if (held_unsubmitted) {
    set_not_queued(in, conds, now);
    return;
  }
  // Its job ended and its RayJob is gone (RayJobGone, JobFinished): nothing is in the queue any more, nor waits for
  // admission (the twenty-second user trial: Failed RayJobGone beside "submitted" and "waiting for Kueue").
  if (in.job && !in.child_exists && ended(r.phase)) {
    remove_condition(conds, kConditionAdmissible);
    const std::string gone = "RayJob " + in.ray_job_name + " is gone: nothing is in LocalQueue " + *in.queue;
    set_condition(conds, Condition{kConditionQueued, "False", in.generation, "", r.reason, gone}, now);
    set_condition(conds, Condition{kConditionAdmitted, "False", in.generation, "", r.reason, gone}, now);
    return;
  }
  // Submitted to a LocalQueue that is gone (deleted since): Kueue admits nothing from it until it is back.
  if ((in.queue_missing || in.held_reason == "LocalQueueNotFound") && !admission.admitted && !past_admission) {
    remove_condition(conds, kConditionAdmissible);  // nothing is judged against a queue that is not there
    set_condition(conds,
                  Condition{kConditionQueued, "False", in.generation, "", "LocalQueueNotFound",
                            "submitted to LocalQueue " + *in.queue +
                                ", which does not exist: Kueue admits nothing from it until it exists"},
                  now);
    set_condition(conds,
                  Condition{kConditionAdmitted, "False", in.generation, "", "Pending",
                            "waiting for LocalQueue " + *in.queue + " to exist"},
                  now);
    return;
  }
  set_condition(
      conds,
      Condition{
          kConditionQueued, "True", in.generation, "", "Submitted",
          "submitted to LocalQueue " + *in.queue +
              (in.held_reason.empty() ? "" : "; changes are held back (" + in.held_reason + "): " + in.held_message)},
      now);
  Condition admitted{kConditionAdmitted, "False", in.generation, "", "Pending", ""};
  if (admission.admitted || past_admission) {
    admitted.status = "True";
    admitted.reason = "Admitted";
    admitted.message = admission.cluster_queue.empty() ? "admitted by Kueue"
                                                       : "admitted by Kueue in ClusterQueue " + admission.cluster_queue;
  } else if (admission.evicted) {
    admitted.reason = "Evicted";
    admitted.message = admission.message.empty() ? "evicted by Kueue" : admission.message;
  } else {
    admitted.message =
        admission.message.empty() ? "waiting for Kueue to admit it in LocalQueue " + *in.queue : admission.message;
  }
  set_condition(conds, std::move(admitted), now);
}

// `running`: what the children report while the spec is invalid (running_while_invalid).
void set_job_condition(const StatusInput& in, const Readiness& r, const std::optional<Readiness>& running,
                       std::vector<Condition>& conds, const std::string& now) {
  if (!in.valid) {
    // The job that ran was an earlier spec's: its end says so; until then the condition stays as it was.
    if (!in.job || !running || !ended(running->phase)) return;
    std::string reason = running->reason == "RayJobGone"       ? "RayJobGone"
                         : running->phase == phase::kSucceeded ? "EarlierSpecSucceeded"
                                                               : "EarlierSpecFailed";
    set_condition(conds,
                  Condition{kConditionSucceeded, "False", in.generation, "", std::move(reason),
                            running->message + "; it ran an earlier spec: the current spec is invalid (see the Valid "
                                               "condition) and has not run"},
                  now);
    return;
  }
  if (!in.job) {
    remove_condition(conds, kConditionSucceeded);
    return;
  }
  Condition c{kConditionSucceeded, "Unknown", in.generation, "", "JobNotFinished", "the job has not finished"};
  if (r.phase == phase::kSucceeded) c = {kConditionSucceeded, "True", in.generation, "", r.reason, r.message};
  if (r.phase == phase::kFailed) c = {kConditionSucceeded, "False", in.generation, "", r.reason, r.message};
  // EarlierSpecSucceeded / EarlierSpecFailed (compute_status): the current spec has not run.
  if (in.ran_earlier_spec && ended(r.phase)) c = {kConditionSucceeded, "False", in.generation, "", r.reason, r.message};
  set_condition(conds, std::move(c), now);
}

void put_string(json::Value& obj, const char* key, const std::string& v, json::Allocator& a) {
  if (!v.empty()) obj.AddMember(rapidjson::StringRef(key), json::str(v, a), a);
}
}  // namespace

json::Document WorkloadStatus::to_json() const {
  json::Document d;
  d.SetObject();
  auto& a = d.GetAllocator();
  d.AddMember("observedGeneration", observed_generation, a);
  put_string(d, "phase", phase, a);
  put_string(d, "queue", queue, a);
  d.AddMember("desiredWorkers", desired_workers, a);
  d.AddMember("readyWorkers", ready_workers, a);
  put_string(d, "rayClusterName", ray_cluster_name, a);
  put_string(d, "appWrapperName", app_wrapper_name, a);
  put_string(d, "rayJobName", ray_job_name, a);
  put_string(d, "rayClusterState", ray_cluster_state, a);
  put_string(d, "appWrapperPhase", app_wrapper_phase, a);
  put_string(d, "jobStatus", job_status, a);
  put_string(d, "jobDeploymentStatus", job_deployment_status, a);
  put_string(d, "headService", head_service, a);
  put_string(d, "dashboardURL", dashboard_url, a);
  put_string(d, "managedLocalQueue", managed_local_queue, a);
  put_string(d, "jobSpecHash", job_spec_hash, a);
  put_string(d, "heldFor", held_for, a);
  if (!admission_workload.empty() || !admission_cluster_queue.empty()) {
    json::Value adm(rapidjson::kObjectType);
    put_string(adm, "workload", admission_workload, a);
    put_string(adm, "clusterQueue", admission_cluster_queue, a);
    d.AddMember("admission", adm, a);
  }
  if (!quota.empty()) {
    d.AddMember("podSets", quota.pod_sets_json(a), a);
    d.AddMember("totalRequests", quota.total_json(a), a);
  }
  d.AddMember("conditions", conditions_to_json(conditions, a), a);
  return d;
}

QuotaPreview quota_from_status(const json::Value* status) {
  QuotaPreview q;
  const json::Value* sets = status ? json::find(*status, "podSets") : nullptr;
  if (!sets || !sets->IsArray()) return q;
  auto quantities = [](const json::Value* m) {
    std::vector<std::pair<std::string, Quantity>> out;
    if (m && m->IsObject())
      for (const auto& r : m->GetObject())
        if (r.value.IsString())
          if (auto v = Quantity::parse(r.value.GetString())) out.emplace_back(r.name.GetString(), *v);
    return out;
  };
  for (const auto& ps : sets->GetArray())
    q.pod_sets.push_back(PodSetQuota{json::get_string(ps, "name").value_or(""),
                                     static_cast<int32_t>(json::get_int(ps, "count").value_or(0)),
                                     quantities(json::find(ps, "requests"))});
  if (const json::Value* total = json::find(*status, "totalRequests"); total && total->IsObject())
    for (const auto& r : total->GetObject())
      if (r.value.IsString()) q.total.emplace_back(r.name.GetString(), r.value.GetString());
  return q;
}

WorkloadStatus compute_status(const StatusInput& in, const Observed& observed, const json::Value* previous_status,
                              const std::string& now) {
  WorkloadStatus st;
  st.observed_generation = in.generation;
  st.queue = in.queue.value_or("");
  st.desired_workers = in.desired_workers;
  st.managed_local_queue = in.managed_local_queue;
  st.job_spec_hash = in.job ? in.job_spec_hash : "";
  st.held_for = in.valid ? in.held_reason : "";
  st.quota = in.quota;
  st.app_wrapper_name = in.wrapped ? in.app_wrapper_name : "";
  st.ray_job_name = in.job ? in.ray_job_name : "";

  // What the children report: a RayJob carries its cluster's status; otherwise the RayCluster itself.
  RayClusterView cluster;
  if (in.job) {
    RayJobView rj = view_ray_job(observed.ray_job);
    cluster = rj.cluster;
    st.ray_cluster_name = rj.ray_cluster_name;
    st.job_status = rj.job_status;
    st.job_deployment_status = rj.deployment_status;
    st.dashboard_url = rj.dashboard_url;
    if (!rj.present && in.finished_job && previous_status) {  // the record of a finished job outlives its RayJob
      st.job_status = json::get_string(*previous_status, "jobStatus").value_or("");
      st.job_deployment_status = json::get_string(*previous_status, "jobDeploymentStatus").value_or("");
    }
  } else {
    cluster = view_ray_cluster(observed.ray_cluster);
    st.ray_cluster_name = in.ray_cluster_name;
  }
  st.ready_workers = cluster.ready_workers;
  st.ray_cluster_state = cluster.state;
  st.head_service = cluster.head_service;
  if (st.dashboard_url.empty() && !cluster.head_service.empty() && !in.namespace_.empty())
    st.dashboard_url = "http://" + cluster.head_service + "." + in.namespace_ + ".svc:8265";
  if (in.wrapped && observed.app_wrapper)
    if (const json::Value* p = json::find_path(*observed.app_wrapper, "status.phase"); p && p->IsString())
      st.app_wrapper_phase = p->GetString();
  if (in.wrapped && !observed.app_wrapper && in.finished_app_wrapper_gone && previous_status)
    st.app_wrapper_phase = json::string_at(*previous_status, "appWrapperPhase");  // the record outlives it
  AdmissionView admission = view_admission(in.queue ? observed.kueue_workload : nullptr);
  st.admission_workload = admission.workload_name;
  st.admission_cluster_queue = admission.cluster_queue;

  if (previous_status)
    if (const json::Value* c = json::find(*previous_status, "conditions")) st.conditions = conditions_from_json(*c);

  Condition valid{kConditionValid, "False", in.generation, "", "InvalidSpec", in.invalid_message};
  if (in.valid)
    valid = in.warnings_message.empty()
                ? Condition{kConditionValid, "True", in.generation, "", "Valid", "the spec is valid"}
                : Condition{kConditionValid,     "True",
                            in.generation,       "",
                            "ValidWithWarnings", "the spec is valid, with warnings: " + in.warnings_message};
  set_condition(st.conditions, std::move(valid), now);

  const std::optional<Readiness> running =
      running_while_invalid(in, observed, admission, previous_status, now, st.recheck_after_seconds);
  Readiness r = readiness(in, running, observed, admission, previous_status, now, st.recheck_after_seconds);
  // A workload Kueue can never admit says so where it would otherwise only wait.
  if (in.valid && in.queue && in.admissibility && !in.admissibility->admissible &&
      in.held_reason != "LocalQueueMismatch" && (r.phase == phase::kQueued || r.phase == phase::kPending) &&
      !admission.admitted) {
    r.reason = in.admissibility->reason;
    r.message = in.admissibility->lead(*in.queue, "it") + ": " + in.admissibility->message;
  }
  // Waiting in a LocalQueue that is gone: the phase and Ready say what the Queued condition says (the child waits
  // for the queue, not for Kueue's admission), unless the user suspended it.
  // (Held before anything was submitted, Ready already says the hold's own message, which may be that the queue cannot
  // be read, not that it is gone.)
  if (in.valid && in.queue && (in.queue_missing || (in.held_reason == "LocalQueueNotFound" && in.child_exists)) &&
      !admission.admitted && (r.phase == phase::kQueued || r.phase == phase::kPending)) {
    r.phase = phase::kPending;
    r.reason = "LocalQueueNotFound";
    r.message = "LocalQueue " + *in.queue + " does not exist: Kueue admits nothing from it until it exists";
  }
  // A job or AppWrapper that ended running an earlier spec: the phase is the child's, the reason (Ready, the REASON
  // column) and a job's Succeeded condition say the current spec has not run.
  if (in.valid && in.ran_earlier_spec && ended(r.phase)) {
    r.reason = r.phase == phase::kSucceeded ? "EarlierSpecSucceeded" : "EarlierSpecFailed";
    r.message += "; it ran an earlier spec: the changes made while it ran have not run";
  }
  st.phase = r.phase;
  set_queue_conditions(in, r, admission, st.conditions, now);
  Condition ready{kConditionReady, r.ready ? "True" : "False", in.generation, "", r.reason, r.message};
  set_condition(st.conditions, std::move(ready), now);
  set_job_condition(in, r, running, st.conditions, now);
  return st;
}

}  // namespace cfo::workload
