#include "workload/status.hpp"

namespace cfo::workload {

namespace {
// Phase plus the Ready condition that goes with it.
struct Readiness {
  std::string phase;
  bool ready = false;
  std::string reason;
  std::string message;
};

std::string str_at(const json::Value* obj, std::string_view dotted) {
  if (!obj) return "";
  const json::Value* v = json::find_path(*obj, dotted);
  return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
}

Readiness queued_or_suspended(const StatusInput& in, const std::string& what) {
  if (in.queue)
    return {phase::kQueued, false, "Queued",
            what + " is suspended, waiting for Kueue admission in LocalQueue " + *in.queue};
  return {phase::kSuspended, false, "Suspended", what + " is suspended"};
}

Readiness from_ray_cluster(const StatusInput& in, const json::Value* rc, bool admitted) {
  std::string what = "RayCluster " + in.ray_cluster_name;
  if (!rc) {
    if (admitted)
      return {phase::kAdmitted, false, "Admitted",
              "AppWrapper " + in.app_wrapper_name + " is admitted; " + what + " is not created yet"};
    return {phase::kPending, false, "Pending", what + " is not created yet"};
  }
  const json::Value* suspend = json::find_path(*rc, "spec.suspend");
  std::string state = str_at(rc, "status.state");
  if ((suspend && suspend->IsBool() && suspend->GetBool()) || state == "suspended")
    return queued_or_suspended(in, what);
  if (state == "ready") return {phase::kRunning, true, "Ready", what + " is ready"};
  if (state == "failed") {
    std::string reason = str_at(rc, "status.reason");
    return {phase::kFailed, false, "ClusterFailed", what + " failed" + (reason.empty() ? "" : ": " + reason)};
  }
  return {admitted ? phase::kAdmitted : phase::kPending, false, "ClusterNotReady",
          what + " is not ready" + (state.empty() ? "" : " (state " + state + ")")};
}

Readiness readiness(const StatusInput& in, const Observed& observed) {
  if (!in.valid) return {phase::kInvalid, false, "Invalid", "the spec is invalid; see the Valid condition"};
  if (!in.wrapped) return from_ray_cluster(in, observed.ray_cluster, false);
  std::string what = "AppWrapper " + in.app_wrapper_name;
  if (!observed.app_wrapper) return {phase::kPending, false, "Pending", what + " is not created yet"};
  std::string aw_phase = str_at(observed.app_wrapper, "status.phase");
  if (aw_phase == "Succeeded") return {phase::kSucceeded, false, "Succeeded", what + " succeeded"};
  if (aw_phase == "Failed") return {phase::kFailed, false, "AppWrapperFailed", what + " failed"};
  if (aw_phase == "Suspended" || aw_phase == "Suspending") return queued_or_suspended(in, what);
  if (aw_phase.empty()) return {phase::kPending, false, "Pending", what + " has no phase yet"};
  return from_ray_cluster(in, observed.ray_cluster, true);
}

void put_string(json::Document& d, const char* key, const std::string& v) {
  if (!v.empty()) d.AddMember(rapidjson::StringRef(key), json::str(v, d.GetAllocator()), d.GetAllocator());
}
}  // namespace

json::Document WorkloadStatus::to_json() const {
  json::Document d;
  d.SetObject();
  auto& a = d.GetAllocator();
  d.AddMember("observedGeneration", observed_generation, a);
  put_string(d, "phase", phase);
  put_string(d, "queue", queue);
  d.AddMember("desiredWorkers", desired_workers, a);
  d.AddMember("readyWorkers", ready_workers, a);
  put_string(d, "rayClusterName", ray_cluster_name);
  put_string(d, "appWrapperName", app_wrapper_name);
  d.AddMember("conditions", conditions_to_json(conditions, a), a);
  return d;
}

WorkloadStatus compute_status(const StatusInput& in, const Observed& observed, const json::Value* previous_status,
                              const std::string& now) {
  WorkloadStatus st;
  st.observed_generation = in.generation;
  st.queue = in.queue.value_or("");
  st.desired_workers = in.valid ? in.desired_workers : 0;
  st.ray_cluster_name = in.ray_cluster_name;
  st.app_wrapper_name = in.wrapped ? in.app_wrapper_name : "";
  if (observed.ray_cluster)
    if (auto n = json::find_path(*observed.ray_cluster, "status.readyWorkerReplicas"); n && n->IsInt64())
      st.ready_workers = static_cast<int32_t>(n->GetInt64());

  if (previous_status)
    if (const json::Value* c = json::find(*previous_status, "conditions")) st.conditions = conditions_from_json(*c);

  Condition valid{kConditionValid,
                  in.valid ? "True" : "False",
                  in.generation,
                  "",
                  in.valid ? "Valid" : "InvalidSpec",
                  in.valid ? "the spec is valid" : in.invalid_message};
  set_condition(st.conditions, std::move(valid), now);

  Readiness r = readiness(in, observed);
  st.phase = r.phase;
  Condition ready{kConditionReady, r.ready ? "True" : "False", in.generation, "", r.reason, r.message};
  set_condition(st.conditions, std::move(ready), now);
  return st;
}

}  // namespace cfo::workload
