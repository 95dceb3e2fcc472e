#include "operator/kueue_index.hpp"

#include "operator/drift.hpp"

#include "operator/resources.hpp"

namespace cfo::op {

namespace {
std::string job_uid_of(const json::Value& wl) {
  const json::Value* labels = json::find_path(wl, "metadata.labels");
  return labels ? json::get_string(*labels, kKueueJobUidLabel).value_or("") : "";
}

// Keeps the members named in `keep` of object `v` (when it is an object), removes the others.
void keep_only(json::Value& v, std::initializer_list<std::string_view> keep) {
  if (!v.IsObject()) return;
  for (auto it = v.MemberBegin(); it != v.MemberEnd();) {
    std::string_view name(it->name.GetString(), it->name.GetStringLength());
    bool wanted = false;
    for (auto k : keep) wanted = wanted || k == name;
    it = wanted ? it + 1 : v.EraseMember(it);
  }
}
}  // namespace

void KueueWorkloadIndex::follow(runtime::Informer& informer) {
  informer.on_add([this](const runtime::ObjectPtr& wl) { put(wl); });
  informer.on_update([this](const runtime::ObjectPtr& old_wl, const runtime::ObjectPtr& wl) {
    if (old_wl && job_uid_of(*old_wl) != job_uid_of(*wl)) drop(old_wl);
    put(wl);
  });
  informer.on_delete([this](const runtime::ObjectPtr& wl) { drop(wl); });
}

void KueueWorkloadIndex::put(const runtime::ObjectPtr& wl) {
  if (!wl) return;
  std::string uid = job_uid_of(*wl);
  if (uid.empty()) return;
  std::lock_guard lock(mu_);
  by_job_uid_[uid] = wl;
}

void KueueWorkloadIndex::drop(const runtime::ObjectPtr& wl) {
  if (!wl) return;
  std::string uid = job_uid_of(*wl);
  std::lock_guard lock(mu_);
  auto it = by_job_uid_.find(uid);
  // Only the entry of this very Workload: a newer one for the same job may have replaced it.
  if (it != by_job_uid_.end() && json::string_at(*it->second, "metadata.uid") == json::string_at(*wl, "metadata.uid"))
    by_job_uid_.erase(it);
}

runtime::ObjectPtr KueueWorkloadIndex::get(const std::string& job_uid) const {
  std::lock_guard lock(mu_);
  auto it = by_job_uid_.find(job_uid);
  return it == by_job_uid_.end() ? nullptr : it->second;
}

std::size_t KueueWorkloadIndex::size() const {
  std::lock_guard lock(mu_);
  return by_job_uid_.size();
}

void kueue_workload_transform(json::Document& wl) {
  keep_only(wl, {"apiVersion", "kind", "metadata", "status"});
  if (json::Value* meta = json::find(wl, "metadata")) {
    keep_only(*meta, {"name", "namespace", "uid", "resourceVersion", "labels", "ownerReferences"});
    if (json::Value* labels = json::find(*meta, "labels")) keep_only(*labels, {kKueueJobUidLabel});
  }
  if (json::Value* status = json::find(wl, "status")) {
    keep_only(*status, {"admission", "conditions"});
    if (json::Value* admission = json::find(*status, "admission")) keep_only(*admission, {"clusterQueue"});
    if (json::Value* conds = json::find(*status, "conditions"); conds && conds->IsArray())
      for (auto& c : conds->GetArray()) keep_only(c, {"type", "status", "reason", "message"});
  }
}

void local_queue_transform(json::Document& lq) {
  keep_only(lq, {"apiVersion", "kind", "metadata", "spec"});
  if (json::Value* meta = json::find(lq, "metadata")) {
    keep_only(*meta, {"name", "namespace", "uid", "resourceVersion", "labels", "annotations"});
    // Of its labels and annotations, only what is read: whether the operator manages it, whether it is the default.
    if (json::Value* labels = json::find(*meta, "labels"); labels && labels->IsObject())
      keep_only(*labels, {"app.kubernetes.io/managed-by"});
    if (json::Value* annotations = json::find(*meta, "annotations"); annotations && annotations->IsObject())
      keep_only(*annotations, {"kueue.x-k8s.io/default-queue"});
  }
  if (json::Value* spec = json::find(lq, "spec")) keep_only(*spec, {"clusterQueue"});
}

void cluster_queue_transform(json::Document& cq) {
  keep_only(cq, {"apiVersion", "kind", "metadata", "spec"});
  if (json::Value* meta = json::find(cq, "metadata"))
    keep_only(*meta, {"name", "uid", "resourceVersion", "generation"});
  if (json::Value* spec = json::find(cq, "spec"))
    keep_only(*spec, {"namespaceSelector", "resourceGroups", "cohortName", "cohort"});
}

void resource_flavor_transform(json::Document& rf) {
  keep_only(rf, {"apiVersion", "kind", "metadata", "spec"});
  if (json::Value* meta = json::find(rf, "metadata"))
    keep_only(*meta, {"name", "uid", "resourceVersion", "generation"});
  if (json::Value* spec = json::find(rf, "spec"))
    keep_only(*spec, {"nodeLabels", "nodeTaints", "tolerations", "topologyName"});
}

void priority_class_transform(json::Document& pc) {
  keep_only(pc, {"apiVersion", "kind", "metadata", "value"});
  if (json::Value* meta = json::find(pc, "metadata")) keep_only(*meta, {"name", "uid", "resourceVersion"});
}

void child_transform(json::Document& child) {
  const json::Value* labels = json::find_path(child, "metadata.labels");
  if (labels && labels->IsObject() && json::find(*labels, kWorkloadLabel)) {
    reduce_managed_fields(child);  // who wrote it last, for a ChildModified event (drift.hpp)
    return;
  }
  runtime::strip_managed_fields(child);
  keep_only(child, {"apiVersion", "kind", "metadata"});
  if (json::Value* meta = json::find(child, "metadata"))
    keep_only(*meta, {"name", "namespace", "uid", "resourceVersion", "ownerReferences"});
}

}  // namespace cfo::op
