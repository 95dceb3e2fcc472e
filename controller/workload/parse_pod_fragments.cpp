#include "workload/parse_pod_fragments.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string_view>

#include "core/names.hpp"
#include "workload/field_reader.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kCorePod = "core/v1:ValidatePodSpec";
constexpr const char* kEnvSource = "core/v1:validateEnvVarValueFrom";
constexpr const char* kTolerationSource = "core/v1:validateTolerations";
constexpr const char* kMountSource = "core/v1:validateVolumeMounts";

// The members of a core/v1 Volume that are volume sources (VolumeSource's fields).
// clang-format off
constexpr std::array<std::string_view, 30> kVolumeSources = {
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume",
    "scaleIO", "storageos", "csi", "projected", "ephemeral", "image"};
// clang-format on

// Pod fields an env var may read through the downward API (subscripted labels and annotations aside).
constexpr std::array<std::string_view, 9> kEnvFieldPaths = {
    "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
    "status.hostIP", "status.hostIPs",     "status.podIP", "status.podIPs"};

// Container resources an env var may read.
constexpr std::array<std::string_view, 6> kEnvResources = {
    "limits.cpu",   "limits.memory",   "limits.ephemeral-storage",
    "requests.cpu", "requests.memory", "requests.ephemeral-storage"};

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

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& list, std::string_view s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

// `metadata.labels['key']` or `metadata.annotations['key']`.
bool subscripted_field_path(std::string_view p) {
  for (std::string_view prefix : {"metadata.labels['", "metadata.annotations['"})
    if (p.starts_with(prefix) && p.ends_with("']") && p.size() > prefix.size() + 2) return true;
  return false;
}

// configMapKeyRef / secretKeyRef: {name, key, optional}. The name is a DNS-1123 subdomain, the key a non-empty run
// of letters, digits, '-', '_' and '.' (IsConfigMapKey).
void check_key_selector(const json::Value& v, const std::string& path, FieldErrors& errs) {
  FieldReader r(v, path, errs);
  auto name = r.string("name");
  auto key = r.required_string("key");
  r.boolean("optional");
  r.reject_unknown();
  if (!r.is_object()) return;
  if (!name || name->empty())
    add_error(errs, r.child("name"), "schema:required", "is required (the object to read the key from)", kEnvSource);
  else
    for (const auto& m : names::dns1123_subdomain(*name))
      add_error(errs, r.child("name"), "DNS1123Subdomain", m, kEnvSource);
  if (key) {
    bool ok = key->size() <= names::kDNS1123SubdomainMaxLength && *key != "." && !key->starts_with("..") &&
              std::all_of(key->begin(), key->end(), [](char c) {
                return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '_' || c == '.';
              });
    if (!ok)
      add_error(errs, r.child("key"), "ConfigMapKey",
                "must be at most 253 letters, digits, '-', '_' and '.', and must not be \".\" or start with \"..\"",
                kEnvSource);
  }
}

// spec.env[i].valueFrom: exactly one source, with its required members.
void check_value_from(const json::Value& v, const std::string& path, FieldErrors& errs) {
  FieldReader r(v, path, errs);
  int sources = 0;
  if (const json::Value* x = r.object("fieldRef")) {
    ++sources;
    FieldReader f(*x, r.child("fieldRef"), errs);
    f.string("apiVersion");
    auto fp = f.required_string("fieldPath");
    f.reject_unknown();
    if (fp && !one_of(kEnvFieldPaths, *fp) && !subscripted_field_path(*fp))
      add_error(errs, f.child("fieldPath"), "EnvFieldPath",
                "\"" + *fp +
                    "\" is not a pod field an env var can read: use metadata.name, metadata.namespace, metadata.uid, "
                    "metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, "
                    "spec.serviceAccountName, status.hostIP(s) or status.podIP(s)",
                kEnvSource);
  }
  if (const json::Value* x = r.object("resourceFieldRef")) {
    ++sources;
    FieldReader f(*x, r.child("resourceFieldRef"), errs);
    f.string("containerName");
    f.get("divisor");  // a quantity; its grammar is left to the apiserver
    auto res = f.required_string("resource");
    f.reject_unknown();
    if (res && !one_of(kEnvResources, *res) && !res->starts_with("limits.hugepages-") &&
        !res->starts_with("requests.hugepages-"))
      add_error(errs, f.child("resource"), "EnvResourceFieldRef",
                "\"" + *res +
                    "\" is not a container resource an env var can read: use limits.* or requests.* of cpu, memory, "
                    "ephemeral-storage or hugepages-<size>",
                kEnvSource);
  }
  if (const json::Value* x = r.object("configMapKeyRef")) {
    ++sources;
    check_key_selector(*x, r.child("configMapKeyRef"), errs);
  }
  if (const json::Value* x = r.object("secretKeyRef")) {
    ++sources;
    check_key_selector(*x, r.child("secretKeyRef"), errs);
  }
  if (const json::Value* x = r.object("fileKeyRef")) {
    ++sources;
    FieldReader f(*x, r.child("fileKeyRef"), errs);
    f.required_string("key");
    f.required_string("path");
    f.required_string("volumeName");
    f.boolean("optional");
    f.reject_unknown();
  }
  r.reject_unknown();
  if (!r.is_object()) return;
  if (sources == 0)
    add_error(errs, path, "EnvValueFromOneSource",
              "must name one source: fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef or fileKeyRef",
              kEnvSource);
  else if (sources > 1)
    add_error(errs, path, "EnvValueFromOneSource",
              "names " + std::to_string(sources) + " sources; it may name only one", kEnvSource);
}

// A subPath or subPathExpr: relative, and no element is "..".
void check_local_descending_path(const std::string& p, const std::string& at, FieldErrors& errs) {
  if (p.starts_with('/'))
    add_error(errs, at, "LocalDescendingPath", "must be a relative path, not \"" + p + "\"", kMountSource);
  std::string_view rest = p;
  while (true) {
    auto slash = rest.find('/');
    if (rest.substr(0, slash) == "..") {
      add_error(errs, at, "LocalDescendingPath", "must not contain '..' (\"" + p + "\")", kMountSource);
      break;
    }
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
}

}  // namespace

void check_image(const std::string& image, const std::string& path, FieldErrors& errs) {
  constexpr const char* kSource = "core/v1:validateContainers";
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  if (image.empty())
    add_error(errs, path, "ContainerImage", "must not be empty", kSource);
  else if (kSpace.find(image.front()) != std::string_view::npos || kSpace.find(image.back()) != std::string_view::npos)
    add_error(errs, path, "ContainerImage", "must not have leading or trailing whitespace", kSource);
}

std::vector<EnvVar> parse_env(const json::Value& v, const std::string& path, FieldErrors& errs) {
  std::vector<EnvVar> out;
  if (!is_array(v, path, errs)) return out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    FieldReader r(v[i], index_path(path, i), errs);
    EnvVar e;
    auto name = r.required_string("name");
    e.value = r.string("value");
    if (const json::Value* from = r.object("valueFrom")) {
      check_value_from(*from, r.child("valueFrom"), errs);
      e.value_from = Fragment(*from);
    }
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
    // A Volume is a name and one member per volume source: the sources are kept as given.
    FieldReader r(v[i], index_path(path, i), errs);
    auto name = r.required_string("name");
    std::vector<std::string_view> sources;
    for (std::string_view src : kVolumeSources)
      if (r.object(src)) sources.push_back(src);
    r.reject_unknown();
    if (!r.is_object()) continue;
    if (sources.empty())
      add_error(errs, r.path(), "VolumeSource", "must specify a volume type, such as emptyDir or persistentVolumeClaim",
                "core/v1:validateVolumeSource");
    else if (sources.size() > 1)
      add_error(errs, r.path(), "VolumeSource",
                "may not specify more than 1 volume type (has " + std::string(sources[0]) + " and " +
                    std::string(sources[1]) + ")",
                "core/v1:validateVolumeSource");
    if (!name) continue;
    for (const auto& msg : names::dns1123_label(*name)) add_error(errs, r.child("name"), "DNS1123Label", msg, kCorePod);
    unique(seen, *name, r.child("name"), "volume", errs);
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
    auto sub_path = r.string("subPath");
    auto sub_path_expr = r.string("subPathExpr");
    r.string("mountPropagation");
    r.string("recursiveReadOnly");
    r.reject_unknown();
    if (sub_path && !sub_path->empty()) check_local_descending_path(*sub_path, r.child("subPath"), errs);
    if (sub_path_expr && !sub_path_expr->empty()) {
      if (sub_path && !sub_path->empty())
        add_error(errs, r.child("subPathExpr"), "SubPathExclusive", "may not be set together with subPath",
                  kMountSource);
      check_local_descending_path(*sub_path_expr, r.child("subPathExpr"), errs);
    }
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
    std::string key = r.string("key").value_or("");
    std::string value = r.string("value").value_or("");
    std::string op = r.string("operator").value_or("");
    std::string effect = r.string("effect").value_or("");
    auto seconds = r.integer("tolerationSeconds", INT64_MIN, INT64_MAX);
    r.reject_unknown();
    if (!r.is_object()) continue;
    if (!key.empty())
      for (const auto& m : names::qualified_name(key))
        add_error(errs, r.child("key"), "TolerationKey", m, kTolerationSource);
    if (op.empty() || op == "Equal") {
      if (key.empty())
        add_error(errs, r.child("operator"), "TolerationEmptyKey",
                  "must be Exists when `key` is empty (which matches every taint)", kTolerationSource);
      for (const auto& m : names::label_value(value))
        add_error(errs, r.child("value"), "TolerationValue", m, kTolerationSource);
    } else if (op == "Exists") {
      if (!value.empty())
        add_error(errs, r.child("value"), "TolerationValue", "must be empty when `operator` is Exists",
                  kTolerationSource);
    } else {
      add_error(errs, r.child("operator"), "schema:enum", "must be Exists or Equal, not \"" + op + "\"",
                kTolerationSource);
    }
    if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")
      add_error(errs, r.child("effect"), "schema:enum",
                "must be NoSchedule, PreferNoSchedule or NoExecute, not \"" + effect + "\"", kTolerationSource);
    if (seconds && effect != "NoExecute")
      add_error(errs, r.child("effect"), "TolerationSeconds",
                "must be NoExecute when `tolerationSeconds` is set" +
                    std::string(effect.empty() ? "" : ", not \"" + effect + "\""),
                kTolerationSource);
    out.emplace_back(v[i]);
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
