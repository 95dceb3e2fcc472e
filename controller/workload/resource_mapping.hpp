#pragma once
// Kubernetes extended resources and how they map to Ray's logical resources, and the rayStartParams that follow
// from a container's resources (codeflare-sdk build_ray_cluster.py: head/worker rayStartParams).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/quantity.hpp"
#include "workload/pod_types.hpp"

namespace cfo::workload {

/// One entry of the extended-resource mapping: Kubernetes resource name -> Ray resource name.
struct ResourceMapping {
  std::string kubernetes_name;
  std::string ray_name;
};

/// codeflare-sdk DEFAULT_RESOURCE_MAPPING (config.py, unchanged from 68d1f6c to HEAD), in its order:
/// nvidia.com/gpu, intel.com/gpu, amd.com/gpu -> GPU; aws.amazon.com/neuroncore -> neuron_cores;
/// google.com/tpu -> TPU; habana.ai/gaudi -> HPU; huawei.com/Ascend910, huawei.com/Ascend310 -> NPU.
/// A workload's own mapping (WorkloadSpec::resource_mapping) starts from these; see parse_resource_mapping.hpp.
const std::vector<ResourceMapping>& default_resource_mapping();

/// The Ray name of Kubernetes extended resource `kubernetes_name` in `mapping` (normally the workload's
/// WorkloadSpec::resource_mapping), or std::nullopt when the mapping does not know it.
std::optional<std::string> ray_resource_name(std::string_view kubernetes_name,
                                             const std::vector<ResourceMapping>& mapping);

/// True for the container resources the operator accepts without a mapping: cpu, memory, ephemeral-storage.
bool is_standard_resource(std::string_view kubernetes_name);

/// Ray names that never go into the `resources` start parameter (codeflare-sdk FORBIDDEN_CUSTOM_RESOURCE_TYPES).
bool is_forbidden_custom_resource(std::string_view ray_name);

/// `num-cpus` from the cpu limit, by codeflare-sdk `_cpu_limit_to_num_cpus`: a plain integer is kept (at least 0);
/// a milli value ("500m") becomes max(floor(m / 1000), 1); any other quantity ("1.5", "2k") becomes
/// max(floor(value), 1). Returns the decimal text.
std::string num_cpus_param(const Quantity& cpu_limit);

/// `num-gpus`: the sum of the extended resources (in `requests`) that `mapping` maps to Ray "GPU", as decimal text
/// ("0" when none). With the SDK's mapping overwritten so that intel.com/gpu is "TPU", intel.com/gpu no longer counts.
std::string num_gpus_param(const ResourceList& requests, const std::vector<ResourceMapping>& mapping);

/// `resources`: the other extended resources of `requests` that `mapping` maps (to a Ray name other than GPU, CPU or
/// memory) as a JSON object of whole numbers, summed per Ray name in first-seen order, serialised like Python
/// json.dumps (`{"TPU": 2, "NPU": 1}`), every '"' escaped as '\"' and the whole wrapped in literal double quotes:
/// `"{\"TPU\": 2}"`. No such resource gives `"{}"`. Ray names are written as they are: parse_resource_mapping only
/// admits names that need no JSON escaping.
std::string resources_param(const ResourceList& requests, const std::vector<ResourceMapping>& mapping);

}  // namespace cfo::workload
