#include "operator/resources.hpp"

namespace cfo::op {

namespace resources {
const client::ResourceType kCodeFlareWorkloads{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const client::ResourceType kRayClusters{"ray.io", "v1", "rayclusters", true};
const client::ResourceType kRayJobs{"ray.io", "v1", "rayjobs", true};
const client::ResourceType kAppWrappers{"workload.codeflare.dev", "v1beta2", "appwrappers", true};
const client::ResourceType kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};
const client::ResourceType kNamespaces{"", "v1", "namespaces", false};

client::ResourceType local_queues(const std::string& kueue_version) {
  return {"kueue.x-k8s.io", kueue_version, "localqueues", true};
}
client::ResourceType workload_priority_classes(const std::string& kueue_version) {
  return {"kueue.x-k8s.io", kueue_version, "workloadpriorityclasses", false};
}
client::ResourceType kueue_workloads(const std::string& kueue_version) {
  return {"kueue.x-k8s.io", kueue_version, "workloads", true};
}
client::ResourceType cluster_queues(const std::string& kueue_version) {
  return {"kueue.x-k8s.io", kueue_version, "clusterqueues", false};
}
client::ResourceType resource_flavors(const std::string& kueue_version) {
  return {"kueue.x-k8s.io", kueue_version, "resourceflavors", false};
}
}  // namespace resources

const std::array<ChildKindInfo, kChildKindCount>& child_kinds() {
  static const std::array<ChildKindInfo, kChildKindCount> table = {{
      {ChildKind::kRayCluster, "RayCluster", &resources::kRayClusters, "rayclusters.ray.io"},
      {ChildKind::kAppWrapper, "AppWrapper", &resources::kAppWrappers, "appwrappers.workload.codeflare.dev"},
      {ChildKind::kRayJob, "RayJob", &resources::kRayJobs, "rayjobs.ray.io"},
  }};
  return table;
}

const ChildKindInfo& info(ChildKind kind) { return child_kinds()[static_cast<std::size_t>(kind)]; }

const ChildKindInfo* child_kind_named(std::string_view kind) {
  for (const auto& row : child_kinds())
    if (row.name == kind) return &row;
  return nullptr;
}

}  // namespace cfo::op
