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

namespace {
// The decimal digits of a non-negative 128-bit value (a Quantity's whole units may pass int64).
std::string decimal(__int128 v) {
  if (v <= 0) return "0";
  std::string out;
  for (; v > 0; v /= 10) out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
  return out;
}
// The whole units of an extended-resource count (parse_resources refuses fractions), in 128 bits: Quantity::value()
// is an int64, and a count of 2^63 or more wrapped to a negative or small number in num-gpus (the thirty-seventh
// user trial).
__int128 whole_units(const Quantity& q) { return q.nanos() / 1'000'000'000; }
}  // namespace

std::string num_cpus_param(const Quantity& cpu_limit) {
  const std::string& t = cpu_limit.text();
  bool plain_int = !t.empty() && std::all_of(t.begin() + (t[0] == '+' || t[0] == '-' ? 1 : 0), t.end(),
                                             [](char c) { return c >= '0' && c <= '9'; });
  // Whole units, truncated toward zero as Python int() does; in 128 bits, so that a huge limit is not wrapped.
  __int128 whole = cpu_limit.nanos() / 1'000'000'000;
  if (plain_int) return decimal(whole);
  if (t.back() == 'm') whole = (cpu_limit.nanos() + 999'999) / 1'000'000 / 1000;  // milli-units rounded up, then /1000
  return decimal(std::max<__int128>(whole, 1));
}

std::string num_gpus_param(const ResourceList& requests, const std::vector<ResourceMapping>& mapping) {
  __int128 sum = 0;
  for (const auto& [name, q] : requests.items)
    if (auto ray = ray_resource_name(name, mapping); ray && *ray == "GPU") sum += whole_units(q);
  return decimal(sum);
}

std::string resources_param(const ResourceList& requests, const std::vector<ResourceMapping>& mapping) {
  std::vector<std::pair<std::string, __int128>> sums;
  for (const auto& [name, q] : requests.items) {
    auto ray = ray_resource_name(name, mapping);
    if (!ray || is_forbidden_custom_resource(*ray)) continue;
    auto it = std::find_if(sums.begin(), sums.end(), [&](const auto& p) { return p.first == *ray; });
    if (it == sums.end())
      sums.emplace_back(*ray, whole_units(q));
    else
      it->second += whole_units(q);
  }
  // Python json.dumps separators: ", " between items and ": " after keys. Ray names need no escaping (the mapping
  // admits none that would).
  std::string obj = "{";
  for (std::size_t i = 0; i < sums.size(); ++i) {
    if (i) obj += ", ";
    obj += "\"" + sums[i].first + "\": " + decimal(sums[i].second);
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
