#pragma once
// The resource catalog: every API resource the operator reads or writes, named in one place.
#include <array>
#include <string>
#include <string_view>

#include "client/rest_client.hpp"

namespace cfo::op {

/// The resource types, by what they are to the operator.
namespace resources {
extern const client::ResourceType kCodeFlareWorkloads;  ///< codeflare.dev/v1alpha1 codeflareworkloads (ours)
extern const client::ResourceType kRayClusters;         ///< ray.io/v1 rayclusters
extern const client::ResourceType kRayJobs;             ///< ray.io/v1 rayjobs
extern const client::ResourceType kAppWrappers;         ///< workload.codeflare.dev/v1beta2 appwrappers
extern const client::ResourceType kCrds;                ///< apiextensions.k8s.io/v1 customresourcedefinitions
extern const client::ResourceType kNamespaces;          ///< v1 namespaces (their Pod Security label)

/// Kueue's resources at the API version the cluster serves ("v1beta2" or "v1beta1").
client::ResourceType local_queues(const std::string& kueue_version);
client::ResourceType workload_priority_classes(const std::string& kueue_version);
client::ResourceType kueue_workloads(const std::string& kueue_version);
client::ResourceType cluster_queues(const std::string& kueue_version);    ///< cluster-scoped
client::ResourceType resource_flavors(const std::string& kueue_version);  ///< cluster-scoped
}  // namespace resources

/// The kinds of top-level child a CodeFlareWorkload becomes; exactly one is desired at a time.
enum class ChildKind { kRayCluster = 0, kAppWrapper = 1, kRayJob = 2 };
inline constexpr std::size_t kChildKindCount = 3;

/// One row of the child table: the kind's name (as in `kind:`), its resource type, and its CRD's name.
struct ChildKindInfo {
  ChildKind kind;
  std::string_view name;
  const client::ResourceType* type;
  std::string_view crd;
};

/// The child table, indexed by ChildKind.
const std::array<ChildKindInfo, kChildKindCount>& child_kinds();
/// The row of `kind`.
const ChildKindInfo& info(ChildKind kind);
/// The ChildKind of a `kind:` value ("RayCluster"...), or nullptr when it is not a top-level child kind.
const ChildKindInfo* child_kind_named(std::string_view kind);

/// Label put on every child so that events on children map back to their workload (value: the workload's name).
inline constexpr const char* kWorkloadLabel = "codeflare.dev/workload";
/// The field manager of every write, as server-side apply records it.
inline constexpr const char* kFieldManager = "codeflare-operator";

}  // namespace cfo::op
