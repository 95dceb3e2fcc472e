#include "workload/parse_resource_mapping.hpp"

#include <algorithm>

#include "core/names.hpp"
#include "workload/field_reader.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kSdkMapping = "codeflare-sdk:ClusterConfiguration._combine_extended_resource_mapping";

// core/v1 IsExtendedResourceName (k8s.io/kubernetes pkg/apis/core/helper): not a native resource (those have no
// domain prefix or sit under kubernetes.io/), no "requests." prefix, and "requests.<name>" is a qualified name.
std::vector<std::string> extended_resource_name(const std::string& name) {
  std::vector<std::string> out;
  if (name.find('/') == std::string::npos) {
    out.emplace_back("must have a domain prefix, e.g. example.com/fpga (names without one are native resources)");
    return out;
  }
  if (name.find("kubernetes.io/") != std::string::npos)
    out.emplace_back("must not be in the kubernetes.io domain, which holds the native resources");
  if (name.starts_with("requests.")) out.emplace_back("must not start with \"requests.\"");
  for (const auto& m : names::qualified_name("requests." + name)) out.push_back(m);
  return out;
}

bool printable_ascii_name(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c < 0x7f && c != '"' && c != '\\'; });
}
}  // namespace

std::vector<ResourceMapping> parse_resource_mapping(const json::Value& v, const std::string& path,
                                                    bool overwrite_defaults, FieldErrors& errs) {
  std::vector<ResourceMapping> out = default_resource_mapping();
  if (!expect_type(v, v.IsObject(), "an object of Ray resource names", path, errs)) return out;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    std::string key(it->name.GetString(), it->name.GetStringLength());
    std::string p = key_path(path, key);
    if (!expect_type(it->value, it->value.IsString(), "a string", p, errs)) continue;
    std::string ray(it->value.GetString(), it->value.GetStringLength());
    bool ok = true;
    for (const auto& m : extended_resource_name(key)) {
      add_error(errs, p, "ExtendedResourceName", "\"" + key + "\" " + m, "core/v1:IsExtendedResourceName");
      ok = false;
    }
    if (ray.empty()) {
      add_error(errs, p, "schema:minLength", "the Ray resource name must not be empty");
      ok = false;
    } else if (!printable_ascii_name(ray)) {
      add_error(errs, p, "RayResourceName",
                "the Ray resource name \"" + ray +
                    "\" may only hold printable ASCII characters without spaces, quotes or backslashes");
      ok = false;
    }
    if (!ok) continue;
    if (ray == "CPU" || ray == "memory")  // GPU is fine: it is how a new GPU kind is counted in num-gpus
      add_warning(errs, p, "RayResourceNameReserved",
                  "Ray resource name \"" + ray + "\" is Ray's own; " + key +
                      " reaches the pods but is not announced to Ray as a custom resource",
                  "codeflare-sdk:FORBIDDEN_CUSTOM_RESOURCE_TYPES");

    auto found =
        std::find_if(out.begin(), out.end(), [&](const ResourceMapping& e) { return e.kubernetes_name == key; });
    if (found == out.end()) {
      out.push_back(ResourceMapping{key, ray});
      continue;
    }
    if (found->ray_name == ray) continue;  // the default, restated
    std::string what = key + " is mapped to " + found->ray_name + " by default";
    if (!overwrite_defaults) {
      add_error(errs, p, "OverwriteDefaultResourceMapping",
                what + "; set spec.overwriteDefaultResourceMapping: true to map it to " + ray, kSdkMapping);
      continue;
    }
    add_warning(errs, p, "OverwriteDefaultResourceMapping", what + "; overwritten with " + ray, kSdkMapping);
    found->ray_name = ray;
  }
  return out;
}

}  // namespace cfo::workload
