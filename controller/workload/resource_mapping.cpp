#include "workload/resource_mapping.hpp"

#include <algorithm>

namespace cfo::workload {

const std::vector<ResourceMapping>& default_resource_mapping() {
  static const std::vector<ResourceMapping> m = {
      {"nvidia.com/gpu", "GPU"},       {"intel.com/gpu", "GPU"},
      {"amd.com/gpu", "GPU"},          {"aws.amazon.com/neuroncore", "neuron_cores"},
      {"google.com/tpu", "TPU"},       {"habana.ai/gaudi", "HPU"},
      {"huawei.com/Ascend910", "NPU"}, {"huawei.com/Ascend310", "NPU"},
  };
  return m;
}

std::optional<std::string> ray_resource_name(std::string_view kubernetes_name,
                                             const std::vector<ResourceMapping>& mapping) {
  for (const auto& e : mapping)
    if (e.kubernetes_name == kubernetes_name) return e.ray_name;
  return std::nullopt;
}

bool is_standard_resource(std::string_view n) { return n == "cpu" || n == "memory" || n == "ephemeral-storage"; }

bool is_forbidden_custom_resource(std::string_view ray_name) {
  return ray_name == "GPU" || ray_name == "CPU" || ray_name == "memory";
}

std::string num_cpus_param(const Quantity& cpu_limit) {
  const std::string& t = cpu_limit.text();
  bool plain_int = !t.empty() && std::all_of(t.begin() + (t[0] == '+' || t[0] == '-' ? 1 : 0), t.end(),
                                             [](char c) { return c >= '0' && c <= '9'; });
  if (plain_int) return std::to_string(std::max<int64_t>(cpu_limit.value(), 0));
  __int128 whole = cpu_limit.nanos() / 1'000'000'000;  // truncates toward zero, as Python int() does
  if (!t.empty() && t.back() == 'm') whole = cpu_limit.milli_value() / 1000;
  return std::to_string(std::max<int64_t>(static_cast<int64_t>(whole), 1));
}

std::string num_gpus_param(const ResourceList& requests, const std::vector<ResourceMapping>& mapping) {
  int64_t sum = 0;
  for (const auto& [name, q] : requests.items)
    if (auto ray = ray_resource_name(name, mapping); ray && *ray == "GPU") sum += q.value();
  return std::to_string(sum);
}

std::string resources_param(const ResourceList& requests, const std::vector<ResourceMapping>& mapping) {
  std::vector<std::pair<std::string, int64_t>> sums;
  for (const auto& [name, q] : requests.items) {
    auto ray = ray_resource_name(name, mapping);
    if (!ray || is_forbidden_custom_resource(*ray)) continue;
    auto it = std::find_if(sums.begin(), sums.end(), [&](const auto& p) { return p.first == *ray; });
    if (it == sums.end())
      sums.emplace_back(*ray, q.value());
    else
      it->second += q.value();
  }
  // Python json.dumps separators: ", " between items and ": " after keys. Ray names need no escaping (the mapping
  // admits none that would).
  std::string obj = "{";
  for (std::size_t i = 0; i < sums.size(); ++i) {
    if (i) obj += ", ";
    obj += "\"" + sums[i].first + "\": " + std::to_string(sums[i].second);
  }
  obj += "}";
  std::string out = "\"";
  for (char c : obj) {
    if (c == '"') out += '\\';
    out += c;
  }
  out += "\"";
  return out;
}

}  // namespace cfo::workload
