#include "workload/local_queue.hpp"

namespace cfo::workload {

json::Document LocalQueue::to_json() const {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("apiVersion", json::str(api_version, a), a);
  d.AddMember("kind", rapidjson::StringRef(kLocalQueueKind), a);
  d.AddMember("metadata", metadata.to_json(a), a);
  json::Value spec(rapidjson::kObjectType);
  spec.AddMember("clusterQueue", json::str(cluster_queue, a), a);
  d.AddMember("spec", spec, a);
  return d;
}

LocalQueue build_managed_local_queue(const std::string& kueue_version, const std::string& name,
                                     const std::string& namespace_, const std::string& cluster_queue) {
  LocalQueue q;
  q.api_version = "kueue.x-k8s.io/" + kueue_version;
  q.metadata.name = name;
  q.metadata.namespace_ = namespace_;
  q.metadata.labels[kManagedByLabel] = kManagedByValue;
  q.cluster_queue = cluster_queue;
  return q;
}

bool is_managed_local_queue(const json::Value& local_queue) {
  const json::Value* labels = json::find_path(local_queue, "metadata.labels");
  return labels && json::get_string(*labels, kManagedByLabel) == std::string(kManagedByValue);
}

}  // namespace cfo::workload
