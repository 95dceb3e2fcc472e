#include "workload/parse_resources.hpp"

#include "workload/field_reader.hpp"
#include "workload/resource_mapping.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kCoreResources = "core/v1:ValidateResourceRequirements";

std::string mapping_keys(const std::vector<ResourceMapping>& mapping) {
  std::string out;
  for (const auto& e : mapping) out += (out.empty() ? "" : ", ") + e.kubernetes_name;
  return out;
}

ResourceList parse_list(const json::Value& v, const std::string& path, const std::vector<ResourceMapping>& mapping,
                        FieldErrors& errs) {
  ResourceList out;
  if (!expect_type(v, v.IsObject(), "an object of resource quantities", path, errs)) return out;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    std::string name(it->name.GetString(), it->name.GetStringLength());
    std::string p = key_path(path, name);
    auto q = parse_quantity_value(it->value, p, errs);
    if (!q) continue;
    if (!is_standard_resource(name)) {
      if (!ray_resource_name(name, mapping)) {
        add_error(errs, p, "ExtendedResourceMapping",
                  "resource \"" + name + "\" is not cpu, memory or ephemeral-storage" +
                      (mapping.empty() ? "; extended resources are not accepted here"
                                       : " and has no Ray mapping (add it to spec.extendedResourceMapping); known: " +
                                             mapping_keys(mapping)),
                  "codeflare-sdk:ClusterConfiguration extended resource validation");
        continue;
      }
      if (!q->is_integer()) {
        add_error(errs, p, "ExtendedResourceInteger",
                  "must be a whole number: extended resource " + name + " cannot be fractional (got " + q->text() + ")",
                  kCoreResources);
        continue;
      }
    }
    out.set(name, *q);
  }
  return out;
}
}  // namespace

std::optional<Quantity> parse_quantity_value(const json::Value& v, const std::string& path, FieldErrors& errs) {
  std::string text;
  if (v.IsInt64())
    text = std::to_string(v.GetInt64());
  else if (v.IsString())
    text.assign(v.GetString(), v.GetStringLength());
  else {
    expect_type(v, false, "an integer or a quantity string", path, errs);
    return std::nullopt;
  }
  auto q = Quantity::parse(text);
  if (!q) {
    add_error(errs, path, "Quantity", q.error().message, "apimachinery:resource.ParseQuantity");
    return std::nullopt;
  }
  if (q->nanos() < 0) {
    add_error(errs, path, "NonNegativeQuantity", "must be greater than or equal to 0", kCoreResources);
    return std::nullopt;
  }
  return *q;
}

ResourceRequirements parse_resources(const json::Value& v, const std::string& path,
                                     const std::vector<ResourceMapping>& mapping, FieldErrors& errs) {
  ResourceRequirements out;
  FieldReader r(v, path, errs);
  if (const json::Value* req = r.get("requests")) out.requests = parse_list(*req, r.child("requests"), mapping, errs);
  if (const json::Value* lim = r.get("limits")) out.limits = parse_list(*lim, r.child("limits"), mapping, errs);
  r.reject_unknown();

  for (const auto& [name, req] : out.requests.items) {
    const Quantity* lim = out.limits.find(name);
    if (!lim) continue;
    std::string p = key_path(r.child("requests"), name);
    if (!is_standard_resource(name) && req != *lim)
      add_error(errs, p, "ExtendedResourceRequestsEqualLimits",
                "request " + req.text() + " differs from the limit " + lim->text() +
                    "; an extended resource is not overcommitted, so the two must match",
                kCoreResources);
    else if (req > *lim)
      add_error(errs, p, "RequestsWithinLimits", "request " + req.text() + " is above the limit " + lim->text(),
                kCoreResources);
  }
  return out;
}

}  // namespace cfo::workload
