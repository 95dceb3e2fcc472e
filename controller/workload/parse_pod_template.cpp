#include "workload/parse_pod_template.hpp"

#include <set>

#include "workload/field_reader.hpp"
#include "workload/labels.hpp"
#include "workload/odh_ca_bundle.hpp"
#include "workload/strategic_merge.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kPodTemplateSource = "core/v1:ValidatePodTemplateSpec";
constexpr const char* kUsageStatsEnv = "RAY_USAGE_STATS_ENABLED";

// Calls f(item, path) for each object item of the array member `key` of `obj`.
template <class F>
void each_item(const json::Value& obj, const char* key, const std::string& path, F f) {
  const json::Value* arr = json::find(obj, key);
  if (!arr || !arr->IsArray()) return;
  for (rapidjson::SizeType i = 0; i < arr->Size(); ++i)
    if ((*arr)[i].IsObject()) f((*arr)[i], index_path(join_path(path, key), i));
}

// Two items of the list `key` with the same `merge_key` value.
void unique_keys(const json::Value& obj, const char* key, const std::string& merge_key, const std::string& path,
                 FieldErrors& errs) {
  std::set<std::string> seen;
  each_item(obj, key, path, [&](const json::Value& item, const std::string& at) {
    const json::Value* k = json::find(item, merge_key);
    if (!k) return;
    if (!seen.insert(json::dump(*k)).second)
      add_error(errs, join_path(at, merge_key), "Duplicate",
                "another item of " + std::string(key) + " has the same " + merge_key + " " + json::dump(*k),
                "crd:codeflare.dev/v1alpha1/CodeFlareWorkload (list-map key)");
  });
}

void check_metadata(const json::Value& meta, const std::string& path, FieldErrors& errs) {
  for (const char* f : {"name", "namespace"})
    if (json::find(meta, f))
      add_error(errs, join_path(path, f), "TemplateObjectMeta",
                std::string(f) == "name" ? "KubeRay names the Pods; a template's name is not used"
                                         : "the Pods run in the workload's namespace; remove it",
                kPodTemplateSource);
  if (const json::Value* labels = json::find(meta, "labels"); labels && labels->IsObject())
    for (const auto& m : labels->GetObject()) {
      std::string key(m.name.GetString(), m.name.GetStringLength());
      if (is_reserved_pod_label(key))
        add_error(errs, key_path(join_path(path, "labels"), key), "ReservedLabel",
                  "label \"" + key + "\" of the Pods is set by KubeRay or the operator and cannot be overridden");
    }
  if (const json::Value* ann = json::find(meta, "annotations"); ann && ann->IsObject())
    for (const auto& m : ann->GetObject()) {
      std::string key(m.name.GetString(), m.name.GetStringLength());
      if (is_reserved_annotation(key) || is_topology_annotation(key))
        add_error(errs, key_path(join_path(path, "annotations"), key), "ReservedAnnotation",
                  "annotation \"" + key + "\" is set by the operator; use " +
                      (is_reserved_annotation(key) ? "spec.autoscaling.elasticJob"
                                                   : "the `topology` field of the head, the group or the submitter") +
                      " instead");
    }
}

// The checks on one container of a template that is the Ray container of a group owned by `owner`.
void check_ray_container(const json::Value& c, const std::string& at, const std::string& owner, FieldErrors& errs) {
  for (const char* f : {"command", "args"})
    if (json::find(c, f))
      add_error(errs, join_path(at, f), "RayContainerCommand",
                "the Ray container runs KubeRay's `ray start`, built from " + owner +
                    ".rayStartParams; set the parameters there (this field would change the command)");
  if (const json::Value* res = json::find(c, "resources"); res && res->IsObject())
    for (const char* side : {"requests", "limits"})
      if (json::find(*res, side))
        add_error(errs, join_path(join_path(at, "resources"), side), "RayContainerResources",
                  "the Ray container's resources are set by " + owner +
                      ".resources (they also size `ray start` and "
                      "the Kueue quota); set them there");
  if (json::find(c, "image"))
    add_error(errs, join_path(at, "image"), "RayContainerImage",
              "the Ray container's image is set by " + owner + ".image (or spec.image); set it there");
  each_item(c, "env", at, [&](const json::Value& e, const std::string& ep) {
    if (json::get_string(e, "name") == kUsageStatsEnv)
      add_error(errs, join_path(ep, "name"), "ReservedEnvVar",
                "RAY_USAGE_STATS_ENABLED is set by the operator from spec.usageStats (true gives \"1\", else \"0\")");
  });
}

void check_containers(const json::Value& spec, const std::string& path, const TemplateScope& scope, FieldErrors& errs) {
  for (const char* list : {"containers", "initContainers"}) {
    unique_keys(spec, list, "name", path, errs);
    each_item(spec, list, path, [&](const json::Value& c, const std::string& at) {
      for (const char* field : {"env", "ports", "volumeMounts", "volumeDevices"})
        unique_keys(c, field, container_merge_key(field), at, errs);
      if (scope.odh_trusted_ca_bundle)
        each_item(c, "volumeMounts", at, [&](const json::Value& m, const std::string& mp) {
          if (auto p = json::get_string(m, "mountPath"); p && is_odh_ca_bundle_mount_path(*p))
            add_error(errs, join_path(mp, "mountPath"), "ReservedMountPath",
                      *p + " is where the operator mounts the OpenDataHub CA bundle for spec.odhTrustedCABundle");
        });
      if (std::string_view(list) != "containers") return;
      auto name = json::get_string(c, "name");
      for (const auto& [ray, owner] : scope.ray_containers)
        if (name == ray) {
          check_ray_container(c, at, owner, errs);
          break;
        }
    });
  }
}

void check_spec(const json::Value& spec, const std::string& path, const TemplateScope& scope, FieldErrors& errs) {
  check_containers(spec, path, scope, errs);
  for (const char* list :
       {"volumes", "imagePullSecrets", "hostAliases", "topologySpreadConstraints", "resourceClaims", "schedulingGates"})
    unique_keys(spec, list, pod_spec_merge_key(list), path, errs);
  if (const json::Value* e = json::find(spec, "ephemeralContainers"); e && !(e->IsArray() && e->Empty()))
    add_error(errs, join_path(path, "ephemeralContainers"), "EphemeralContainers",
              "a Pod template cannot carry ephemeral containers (they are added to running Pods only)",
              kPodTemplateSource);
  if (const json::Value* t = json::find(spec, "tolerations"); t && !scope.tolerations_given.empty()) {
    std::string fields;
    for (const auto& f : scope.tolerations_given) fields += (fields.empty() ? "" : ", ") + f;
    add_error(errs, join_path(path, "tolerations"), "TemplateTolerations",
              "would replace the tolerations of " + fields +
                  " (a list without a merge key is replaced whole); set "
                  "them in one place");
  }
  if (scope.odh_trusted_ca_bundle)
    each_item(spec, "volumes", path, [&](const json::Value& v, const std::string& at) {
      if (auto name = json::get_string(v, "name"); name && is_odh_ca_bundle_volume(*name))
        add_error(errs, join_path(at, "name"), "ReservedVolumeName",
                  "volume \"" + *name + "\" is added by the operator for spec.odhTrustedCABundle; rename this one");
    });
}
}  // namespace

std::optional<Fragment> parse_pod_template(const json::Value& v, const std::string& path, const TemplateScope& scope,
                                           FieldErrors& errs) {
  FieldReader r(v, path, errs);
  const json::Value* meta = r.object("metadata");
  const json::Value* spec = r.object("spec");
  r.reject_unknown();
  if (!r.is_object()) return std::nullopt;
  if (meta) check_metadata(*meta, r.child("metadata"), errs);
  if (spec) check_spec(*spec, r.child("spec"), scope, errs);
  return Fragment(v);
}

}  // namespace cfo::workload
