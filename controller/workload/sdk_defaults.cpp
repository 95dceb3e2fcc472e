#include "workload/sdk_defaults.hpp"

#include "core/names.hpp"
#include "workload/resource_mapping.hpp"

namespace cfo::workload {

const SdkDefaults& sdk_defaults() {
  static const SdkDefaults d;
  return d;
}

std::string default_image(const std::string& ray_version) {
  return sdk_defaults().image_repository + ":" + ray_version;
}

std::string default_group_name(const std::string& workload_name) {
  std::string n = sdk_defaults().default_group_prefix + workload_name;
  if (n.size() > names::kDNS1123LabelMaxLength) n.resize(names::kDNS1123LabelMaxLength);
  while (!n.empty() && (n.back() == '-' || n.back() == '.')) n.pop_back();
  return n;
}

namespace {
void default_one(const ResourceRequirements& user, const std::string& name, const std::string& def_request,
                 const std::string& def_limit, ResourceRequirements& out) {
  const Quantity* req = user.requests.find(name);
  const Quantity* lim = user.limits.find(name);
  // Only a limit: the request is the limit, as Kubernetes defaults it (core/v1 SetDefaults_Pod), so that what Kueue
  // charges (requests) is what the user wrote. Only a request: the default limit, raised to the request.
  Quantity r = req ? *req : lim ? *lim : must_quantity(def_request);
  Quantity l = lim ? *lim : must_quantity(def_limit);
  if (req && !lim && l < r) l = r;
  out.requests.set(name, r);
  out.limits.set(name, l);
}
}  // namespace

ResourceRequirements apply_resource_defaults(const ResourceRequirements& user, const ContainerDefaults& d) {
  ResourceRequirements out;
  default_one(user, "cpu", d.cpu_request, d.cpu_limit, out);
  default_one(user, "memory", d.memory_request, d.memory_limit, out);
  for (const auto& [name, q] : user.requests.items)
    if (name != "cpu" && name != "memory") out.requests.set(name, q);
  for (const auto& [name, q] : user.limits.items)
    if (name != "cpu" && name != "memory") out.limits.set(name, q);
  // Extended resources: whichever side is missing takes the other's value (when both are given they are equal,
  // which parsing checks). Standard resources such as ephemeral-storage are left as the user wrote them.
  for (const auto& [name, q] : user.limits.items)
    if (!is_standard_resource(name) && !out.requests.find(name)) out.requests.set(name, q);
  for (const auto& [name, q] : user.requests.items)
    if (!is_standard_resource(name) && !out.limits.find(name)) out.limits.set(name, q);
  return out;
}

}  // namespace cfo::workload
