#include "workload/child_views.hpp"

#include "workload/workload_types.hpp"

namespace cfo::workload {

namespace {
bool true_at(const json::Value& obj, std::string_view dotted) {
  const json::Value* v = json::find_path(obj, dotted);
  return v && v->IsBool() && v->GetBool();
}

int32_t int_at(const json::Value& obj, std::string_view dotted) {
  const json::Value* v = json::find_path(obj, dotted);
  return v && v->IsInt() ? v->GetInt() : 0;
}

// Reads a RayClusterStatus object (the `status` of a RayCluster or a RayJob's `status.rayClusterStatus`).
void read_cluster_status(const json::Value& status, RayClusterView& v) {
  v.state = json::string_at(status, "state");
  v.reason = json::string_at(status, "reason");
  v.ready_workers = int_at(status, "readyWorkerReplicas");
  v.head_service = json::string_at(status, "head.serviceName");
}

// The condition of `type` in a status.conditions array, or nullptr.
const json::Value* condition(const json::Value& obj, std::string_view type) {
  const json::Value* conds = json::find_path(obj, "status.conditions");
  if (!conds || !conds->IsArray()) return nullptr;
  for (const auto& c : conds->GetArray())
    if (c.IsObject() && json::get_string(c, "type") == std::string(type)) return &c;
  return nullptr;
}

bool condition_is(const json::Value* c, const char* status) {
  return c && json::get_string(*c, "status") == std::string(status);
}
}  // namespace

RayClusterView view_ray_cluster(const json::Value* rc) {
  RayClusterView v;
  if (!rc || !rc->IsObject()) return v;
  v.present = true;
  v.suspended = true_at(*rc, "spec.suspend");
  v.created = json::string_at(*rc, "metadata.creationTimestamp");
  if (const json::Value* st = json::find(*rc, "status"); st && st->IsObject()) {
    v.reported = st->MemberCount() > 0;
    read_cluster_status(*st, v);
  }
  return v;
}

RayJobView view_ray_job(const json::Value* rj) {
  RayJobView v;
  if (!rj || !rj->IsObject()) return v;
  v.present = true;
  v.suspended = true_at(*rj, "spec.suspend");
  v.created = json::string_at(*rj, "metadata.creationTimestamp");
  v.deleting = json::find_path(*rj, "metadata.deletionTimestamp") != nullptr;
  if (const json::Value* st = json::find(*rj, "status"); st && st->IsObject()) v.reported = st->MemberCount() > 0;
  v.job_status = json::string_at(*rj, "status.jobStatus");
  v.deployment_status = json::string_at(*rj, "status.jobDeploymentStatus");
  v.message = json::string_at(*rj, "status.message");
  v.ray_cluster_name = json::string_at(*rj, "status.rayClusterName");
  v.dashboard_url = json::string_at(*rj, "status.dashboardURL");
  if (const json::Value* cs = json::find_path(*rj, "status.rayClusterStatus"); cs && cs->IsObject()) {
    v.cluster.present = true;
    read_cluster_status(*cs, v.cluster);
  }
  return v;
}

AdmissionView view_admission(const json::Value* wl) {
  AdmissionView v;
  if (!wl || !wl->IsObject()) return v;
  v.present = true;
  v.workload_name = json::string_at(*wl, "metadata.name");
  v.cluster_queue = json::string_at(*wl, "status.admission.clusterQueue");
  const json::Value* admitted = condition(*wl, "Admitted");
  const json::Value* reserved = condition(*wl, "QuotaReserved");
  const json::Value* evicted = condition(*wl, "Evicted");
  v.admitted = admitted ? condition_is(admitted, "True") : !v.cluster_queue.empty();
  v.evicted = condition_is(evicted, "True");
  const json::Value* telling = v.evicted ? evicted : condition_is(reserved, "False") ? reserved : admitted;
  if (telling) v.message = json::get_string(*telling, "message").value_or("");
  return v;
}

bool controlled_by(const json::Value& obj, std::string_view uid) {
  const json::Value* refs = json::find_path(obj, "metadata.ownerReferences");
  if (uid.empty() || !refs || !refs->IsArray()) return false;
  for (const auto& r : refs->GetArray())
    if (json::get_bool(r, "controller").value_or(false))
      return json::string_at(r, "kind") == kWorkloadKind && json::string_at(r, "uid") == uid;
  return false;
}

}  // namespace cfo::workload
