#pragma once
// The CodeFlareWorkload API (codeflare.dev/v1alpha1) as typed C++: what parse_workload produces and the builders
// consume. Field names follow crds/codeflare.dev_codeflareworkloads.yaml; the functional model is codeflare-sdk's
// ClusterConfiguration (src/codeflare_sdk/ray/cluster/config.py).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workload/fragment.hpp"
#include "workload/pod_types.hpp"

namespace cfo::workload {

inline constexpr const char* kWorkloadApiVersion = "codeflare.dev/v1alpha1";
inline constexpr const char* kWorkloadKind = "CodeFlareWorkload";

/// spec.head: resources of the Ray head container and tolerations of the head pod.
struct HeadSpec {
  /// After parsing: cpu and memory requests and limits always present (SDK defaults filled in), each extended
  /// resource present in both requests and limits with the same whole value.
  ResourceRequirements resources;
  std::vector<Fragment> tolerations;
};

/// One entry of spec.workerGroups. Replica counts are pods; after parsing min_replicas <= replicas <= max_replicas.
struct WorkerGroup {
  std::string name;
  int32_t replicas = 1;
  int32_t min_replicas = 1;
  int32_t max_replicas = 1;
  /// Same shape as HeadSpec::resources after parsing.
  ResourceRequirements resources;
  std::vector<Fragment> tolerations;
};

/// spec.queue: Kueue LocalQueue name and WorkloadPriorityClass name (both optional, empty when unset).
struct QueueSpec {
  std::string local_queue;
  std::string priority_class;
};

/// spec, with defaults applied (ray_version and image are never empty after parsing; worker_groups is never empty).
struct WorkloadSpec {
  std::string ray_version;
  std::string image;
  std::vector<std::string> image_pull_secrets;
  HeadSpec head;
  std::vector<WorkerGroup> worker_groups;
  std::vector<EnvVar> env;
  std::vector<Fragment> volumes;
  std::vector<Fragment> volume_mounts;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  QueueSpec queue;
  bool app_wrapper = false;
};

/// A CodeFlareWorkload: the metadata the operator needs plus its spec.
struct Workload {
  std::string name;
  std::string namespace_;
  std::string uid;
  int64_t generation = 0;
  WorkloadSpec spec;
};

}  // namespace cfo::workload
