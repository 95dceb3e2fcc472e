#include "workload/parse_pod_fragments.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include "core/names.hpp"
#include "workload/field_reader.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kCorePod = "core/v1:ValidatePodSpec";

bool is_array(const json::Value& v, const std::string& path, FieldErrors& errs) {
  return expect_type(v, v.IsArray(), "a list", path, errs);
}

// Reports an error when `name` was seen before in this list.
void unique(std::set<std::string>& seen, const std::string& name, const std::string& path, const char* what,
            FieldErrors& errs) {
  if (!seen.insert(name).second)
    add_error(errs, path, "Duplicate", std::string("duplicate ") + what + " \"" + name + "\"",
              "crd:ray.io/v1/RayCluster (list-map key)");
}

}  // namespace

std::vector<EnvVar> parse_env(const json::Value& v, const std::string& path, FieldErrors& errs) {
  std::vector<EnvVar> out;
  if (!is_array(v, path, errs)) return out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    FieldReader r(v[i], index_path(path, i), errs);
    EnvVar e;
    auto name = r.required_string("name");
    e.value = r.string("value");
    if (const json::Value* from = r.object("valueFrom")) e.value_from = Fragment(*from);
    r.reject_unknown();
    if (!name) continue;
    e.name = *name;
    unique(seen, e.name, r.child("name"), "env var", errs);
    if (e.value && !e.value->empty() && e.value_from)
      add_error(errs, r.child("valueFrom"), "EnvValueOrValueFrom", "may not be specified when `value` is not empty",
                "core/v1:validateEnv");
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<Fragment> parse_volumes(const json::Value& v, const std::string& path, FieldErrors& errs) {
  std::vector<Fragment> out;
  if (!is_array(v, path, errs)) return out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    // A Volume has one member per volume source: the members beyond `name` are kept as given.
    std::string p = index_path(path, i);
    if (!expect_type(v[i], v[i].IsObject(), "an object", p, errs)) continue;
    const json::Value* name = json::find(v[i], "name");
    if (!name) {
      add_error(errs, join_path(p, "name"), "schema:required", "is required");
      continue;
    }
    if (!expect_type(*name, name->IsString(), "a string", join_path(p, "name"), errs)) continue;
    std::string n = name->GetString();
    for (const auto& msg : names::dns1123_label(n))
      add_error(errs, join_path(p, "name"), "DNS1123Label", msg, kCorePod);
    unique(seen, n, join_path(p, "name"), "volume", errs);
    out.emplace_back(v[i]);
  }
  return out;
}

std::vector<Fragment> parse_volume_mounts(const json::Value& v, const std::string& path,
                                          const std::vector<std::string>& vol_names, FieldErrors& errs) {
  std::vector<Fragment> out;
  if (!is_array(v, path, errs)) return out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    FieldReader r(v[i], index_path(path, i), errs);
    auto name = r.required_string("name");
    auto mount_path = r.required_string("mountPath");
    r.boolean("readOnly");
    r.string("subPath");
    r.string("subPathExpr");
    r.string("mountPropagation");
    r.string("recursiveReadOnly");
    r.reject_unknown();
    if (!name || !mount_path) continue;
    unique(seen, *mount_path, r.child("mountPath"), "mount path", errs);
    if (std::find(vol_names.begin(), vol_names.end(), *name) == vol_names.end())
      add_error(errs, r.child("name"), "VolumeMountRefersToVolume", "volume \"" + *name + "\" is not in spec.volumes",
                "core/v1:validateVolumeMounts");
    out.emplace_back(v[i]);
  }
  return out;
}

std::vector<Fragment> parse_tolerations(const json::Value& v, const std::string& path, FieldErrors& errs) {
  std::vector<Fragment> out;
  if (!is_array(v, path, errs)) return out;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    FieldReader r(v[i], index_path(path, i), errs);
    r.string("key");
    r.string("value");
    if (auto op = r.string("operator"); op && !op->empty() && *op != "Exists" && *op != "Equal")
      add_error(errs, r.child("operator"), "schema:enum", "must be Exists or Equal, not \"" + *op + "\"",
                "core/v1:validateTolerations");
    if (auto eff = r.string("effect");
        eff && !eff->empty() && *eff != "NoSchedule" && *eff != "PreferNoSchedule" && *eff != "NoExecute")
      add_error(errs, r.child("effect"), "schema:enum",
                "must be NoSchedule, PreferNoSchedule or NoExecute, not \"" + *eff + "\"",
                "core/v1:validateTolerations");
    r.integer("tolerationSeconds", INT64_MIN, INT64_MAX);
    r.reject_unknown();
    if (r.is_object()) out.emplace_back(v[i]);
  }
  return out;
}

std::vector<std::string> parse_image_pull_secrets(const json::Value& v, const std::string& path, FieldErrors& errs) {
  std::vector<std::string> out;
  if (!is_array(v, path, errs)) return out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    FieldReader r(v[i], index_path(path, i), errs);
    auto name = r.required_string("name");
    r.reject_unknown();
    if (!name) continue;
    unique(seen, *name, r.child("name"), "image pull secret", errs);
    out.push_back(*name);
  }
  return out;
}

std::vector<std::string> volume_names(const std::vector<Fragment>& volumes) {
  std::vector<std::string> out;
  for (const auto& f : volumes)
    if (auto n = json::get_string(f.value(), "name")) out.push_back(*n);
  return out;
}

}  // namespace cfo::workload
