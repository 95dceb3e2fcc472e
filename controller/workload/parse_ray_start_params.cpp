#include "workload/parse_ray_start_params.hpp"

#include <algorithm>
#include <cctype>

#include "workload/field_reader.hpp"

namespace cfo::workload {

namespace {
bool option_name(const std::string& k) {
  auto ok = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; };
  return !k.empty() && std::isalnum(static_cast<unsigned char>(k[0])) && std::all_of(k.begin(), k.end(), ok);
}
}  // namespace

std::string ray_start_param_path(const std::string& params_path, std::string_view key) {
  return params_path + "[" + std::string(key) + "]";
}

bool is_derived_ray_start_param(std::string_view key, RayNodeKind kind) {
  if (key == "block" || key == "num-cpus" || key == "num-gpus" || key == "resources") return true;
  return kind == RayNodeKind::Head && key == "dashboard-host";
}

std::map<std::string, std::string> parse_ray_start_params(const json::Value& v, const std::string& path,
                                                          RayNodeKind kind, FieldErrors& errs) {
  std::map<std::string, std::string> out;
  if (!expect_type(v, v.IsObject(), "an object of strings", path, errs)) return out;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    std::string key(it->name.GetString(), it->name.GetStringLength());
    std::string p = ray_start_param_path(path, key);
    if (!expect_type(it->value, it->value.IsString(), "a string (e.g. \"4\" rather than 4)", p, errs)) continue;
    if (is_derived_ray_start_param(key, kind)) {
      add_error(errs, p, "RayStartParamReserved",
                "\"" + key + "\" is set by the operator" +
                    (key == "num-cpus" || key == "num-gpus" || key == "resources"
                         ? " from the container's resources; change those instead"
                         : ""),
                "codeflare-sdk:build_ray_cluster rayStartParams");
      continue;
    }
    if (key == "labels") {
      add_error(errs, p, "RayStartParamsLabels", "rayStartParams must not set labels (KubeRay refuses it)",
                "kuberay:validateRayGroupLabels");
      continue;
    }
    if (!option_name(key)) {
      add_error(errs, p, "RayStartParamKey",
                "\"" + key + "\" is not a ray start option name (letters, digits, '-' and '_')");
      continue;
    }
    out.emplace(std::move(key), std::string(it->value.GetString(), it->value.GetStringLength()));
  }
  return out;
}

}  // namespace cfo::workload
