// KubeRay rules (ray-project/kuberay ray-operator, v1.7.0):
//   controllers/ray/utils/validation.go  ValidateRayClusterMetadata, ValidateRayClusterSpec, ValidateRayJobMetadata,
//                                         ValidateRayJobSpec, ValidateRayClusterUpgradeOptions
//   pkg/webhooks/v1/raycluster_webhook.go the optional validating webhook (worker group names unique)
// The CEL rules of the CRDs (config/crd/bases/*.yaml: spec.managedBy, spec.deletionStrategy, ...) are not here:
// SchemaSet evaluates the CRDs' x-kubernetes-validations themselves (validation/cel/).
//   controllers/ray/common/pod.go         labelPod: the group name becomes the ray.io/group Pod label
// The controller checks run after the apiserver accepted the object: it is then silently not reconciled (event
// InvalidRayClusterSpec) or the RayJob goes to a validation-failed state. KubeRay stops at the first problem; we
// report every one.
#include <cctype>
#include <map>
#include <set>

#include "core/names.hpp"
#include "core/yaml.hpp"
#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

namespace {

constexpr std::string_view kClusterMeta = "kuberay:ValidateRayClusterMetadata";
constexpr std::string_view kJobMeta = "kuberay:ValidateRayJobMetadata";
constexpr std::string_view kWebhook = "kuberay:webhook";
constexpr std::string_view kClusterSpec = "kuberay:ValidateRayClusterSpec";
constexpr std::string_view kJobSpec = "kuberay:ValidateRayJobSpec";
constexpr std::string_view kUpgrade = "kuberay:ValidateRayClusterUpgradeOptions";
constexpr std::string_view kPodLabels = "kuberay:labelPod";
constexpr std::string_view kPodName = "kuberay:utils.PodName (v1.7.0)";
constexpr std::string_view kHeadService = "kuberay:BuildServiceForHeadPod + k8s:ValidateService";
constexpr std::string_view kChecklist = "cfo:checklist";

constexpr std::size_t kMaxRayClusterNameLength = 53;  // 63 - len("-serve-svc")
constexpr std::size_t kMaxRayJobNameLength = 47;      // 53 - the 6-character suffix of the cluster it creates
constexpr std::size_t kGeneratedSuffixLength = 5;     // apiserver generateName suffix
constexpr std::size_t kMaxGenerateNamePrefix = 58;    // 63 - 5: the apiserver cuts longer prefixes

constexpr std::string_view kFTEnabledAnnotation = "ray.io/ft-enabled";
constexpr std::string_view kExternalStorageNSAnnotation = "ray.io/external-storage-namespace";

std::string joined(const std::vector<std::string>& msgs) {
  std::string s;
  for (const auto& m : msgs) s += (s.empty() ? "" : "; ") + m;
  return s;
}

/// A RayClusterSpec with where it sits: `spec` of a RayCluster or `spec.rayClusterSpec` of a RayJob.
struct ClusterSpec {
  const json::Value& spec;
  std::string path;
  const json::Value& owner;  // the RayCluster or RayJob (its annotations count)
  bool from_rayjob;
  int kubernetes_minor;  // ClusterProfile::kubernetes_minor, for the Pod rules of the templates

  const json::Value* head() const { return object_at(spec, "headGroupSpec"); }
  const json::Value* head_template() const { return head() ? object_at(*head(), "template") : nullptr; }
  const json::Value* head_container() const { return head_template() ? first_container(*head_template()) : nullptr; }
  const json::Value* workers() const { return array_at(spec, "workerGroupSpecs"); }
  std::string head_path() const { return path + ".headGroupSpec"; }
  std::string worker_path(rapidjson::SizeType i) const { return index_path(path + ".workerGroupSpecs", i); }
  bool autoscaling() const { return true_at(spec, "enableInTreeAutoscaling"); }
  const json::Value* autoscaler_options() const { return object_at(spec, "autoscalerOptions"); }
  const json::Value* gcs_ft() const { return object_at(spec, "gcsFaultToleranceOptions"); }
  std::string annotation(std::string_view key) const { return annotation_of(owner, key).value_or(""); }
  /// The path of the head Ray container's env entry `name` (the first), the field at fault when it may not be set.
  std::string head_env_path(std::string_view name) const {
    std::string env = head_path() + ".template.spec.containers[0].env";
    const json::Value* c = head_container();
    const json::Value* list = c ? array_at(*c, "env") : nullptr;
    if (list)
      for (rapidjson::SizeType i = 0; i < list->Size(); ++i)
        if (string_at((*list)[i], "name") == name) return index_path(env, i);
    return env;
  }

  /// utils.IsAutoscalingV2Enabled: autoscalerOptions.version v2, or RAY_enable_autoscaler_v2 set on the head.
  bool autoscaler_v2() const {
    if (const json::Value* o = autoscaler_options())
      if (string_at(*o, "version") == "v2") return true;
    if (const json::Value* c = head_container())
      if (const json::Value* e = env_entry(*c, "RAY_enable_autoscaler_v2")) {
        auto v = string_at(*e, "value").value_or("");
        return v == "1" || v == "true";
      }
    return false;
  }
  /// utils.IsGCSFaultToleranceEnabled.
  bool gcs_ft_enabled() const { return gcs_ft() || annotation(kFTEnabledAnnotation) == "true"; }
};

/// Calls f(group, path) for each worker group that is an object.
template <class F>
void for_each_group(const ClusterSpec& cs, F f) {
  const json::Value* workers = cs.workers();
  if (!workers) return;
  for (rapidjson::SizeType i = 0; i < workers->Size(); ++i)
    if ((*workers)[i].IsObject()) f((*workers)[i], cs.worker_path(i));
}

/// Calls f(template, path) for the head template and each worker template.
template <class F>
void for_each_template(const ClusterSpec& cs, F f) {
  if (const json::Value* t = cs.head_template()) f(*t, cs.head_path() + ".template");
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    if (const json::Value* t = object_at(g, "template")) f(*t, gp + ".template");
  });
}

// ---- metadata ------------------------------------------------------------------------------------------------

/// The name KubeRay will see: metadata.name, or a stand-in for what generateName produces.
struct EffectiveName {
  std::string name;   // the name (or a stand-in of the generated name's length and shape)
  std::string path;   // metadata.name or metadata.generateName
  std::string shown;  // what the manifest says
};

std::optional<EffectiveName> effective_name(const json::Value& obj) {
  const json::Value* meta = object_at(obj, "metadata");
  if (!meta) return std::nullopt;
  if (auto name = string_at(*meta, "name"); name && !name->empty()) return EffectiveName{*name, "metadata.name", *name};
  if (auto prefix = string_at(*meta, "generateName"); prefix && !prefix->empty())
    return EffectiveName{prefix->substr(0, kMaxGenerateNamePrefix) + std::string(kGeneratedSuffixLength, 'x'),
                         "metadata.generateName", *prefix};
  return std::nullopt;
}

// KubeRay ValidateRayClusterMetadata / ValidateRayJobMetadata: the name is a DNS-1035 label (it names Services).
void DNS1035Name(const json::Value& obj, std::string_view source, const Sink& sink) {
  auto name = effective_name(obj);
  if (!name) return;
  std::vector<std::string> shape;  // the length is MaxNameLength's business
  for (auto& m : names::dns1035_label(name->name))
    if (m.find("longer than") == std::string::npos) shape.push_back(m);
  if (!shape.empty()) sink.error(name->path, "DNS1035Name", source, "name " + dq(name->shown) + " " + joined(shape));
}

// KubeRay ValidateRayClusterMetadata (53) / ValidateRayJobMetadata (47): maximum name length.
void MaxNameLength(const json::Value& obj, std::size_t max, std::string_view source, const Sink& sink) {
  auto name = effective_name(obj);
  if (!name || name->name.size() <= max) return;
  sink.error(name->path, "MaxNameLength", source,
             std::string(name->path == "metadata.name" ? "name is " : "generated names will be ") +
                 std::to_string(name->name.size()) + " characters long; at most " + std::to_string(max) +
                 " are allowed");
}

// ---- webhook ---------------------------------------------------------------------------------------------------

// KubeRay raycluster_webhook validateRayCluster: worker group names are unique. Without the webhook the operator
// keeps fighting over the clashing groups' Pods, so this fails late either way.
void UniqueGroupName(const ClusterSpec& cs, const Sink& sink) {
  std::map<std::string, std::string> seen;
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    auto name = string_at(g, "groupName");
    if (!name) return;
    auto [it, fresh] = seen.emplace(*name, gp);
    if (!fresh)
      sink.error(gp + ".groupName", "UniqueGroupName", kWebhook,
                 "worker group name " + dq(*name) + " is already used by " + it->second);
  });
}

// ---- ValidateRayClusterSpec ----------------------------------------------------------------------------------

// KubeRay ValidateRayClusterSpec: the head and every worker group have at least one container (containers[0] is Ray).
void ContainersRequired(const ClusterSpec& cs, const Sink& sink) {
  for_each_template(cs, [&](const json::Value& t, const std::string& tp) {
    const json::Value* spec = object_at(t, "spec");
    const json::Value* containers = spec ? array_at(*spec, "containers") : nullptr;
    if (!containers || containers->Empty())
      sink.error(tp + ".spec.containers", "ContainersRequired", kClusterSpec,
                 "the pod template needs at least one container; the first one runs Ray");
  });
  if (!cs.head_template() && cs.head())
    sink.error(cs.head_path() + ".template.spec.containers", "ContainersRequired", kClusterSpec,
               "the head group needs a pod template with at least one container");
}

// KubeRay ValidateRayClusterSpec: minReplicas and maxReplicas are not negative.
void NonNegativeReplicas(const ClusterSpec& cs, const Sink& sink) {
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    for (const char* f : {"minReplicas", "maxReplicas"})
      if (auto v = int_at(g, f); v && *v < 0)
        sink.error(gp + "." + f, "NonNegativeReplicas", kClusterSpec, std::string(f) + " must not be negative");
  });
}

// KubeRay ValidateRayClusterSpec: minReplicas does not exceed maxReplicas.
void MinWithinMaxReplicas(const ClusterSpec& cs, const Sink& sink) {
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    auto lo = int_at(g, "minReplicas").value_or(0);
    auto hi = int_at(g, "maxReplicas").value_or(2147483647);
    if (lo > hi)
      sink.error(gp + ".minReplicas", "MinWithinMaxReplicas", kClusterSpec,
                 "minReplicas " + std::to_string(lo) + " is greater than maxReplicas " + std::to_string(hi));
  });
}

/// Calls f(group, path, is_head) for the head group and each worker group.
template <class F>
void for_each_ray_group(const ClusterSpec& cs, F f) {
  if (const json::Value* h = cs.head()) f(*h, cs.head_path(), true);
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) { f(g, gp, false); });
}

// KubeRay validateRayGroupLabels: rayStartParams may not carry `labels`; group .labels replace it.
void RayStartParamsLabels(const ClusterSpec& cs, const Sink& sink) {
  for_each_ray_group(cs, [&](const json::Value& g, const std::string& gp, bool) {
    const json::Value* params = object_at(g, "rayStartParams");
    if (params && member(*params, "labels"))
      sink.error(gp + ".rayStartParams.labels", "RayStartParamsLabels", kClusterSpec,
                 "rayStartParams must not set labels; use the group's labels field");
  });
}

// KubeRay validateRayGroupLabels: group .labels keys are qualified names and values label values.
void GroupLabels(const ClusterSpec& cs, const Sink& sink) {
  for_each_ray_group(cs, [&](const json::Value& g, const std::string& gp, bool) {
    const json::Value* labels = object_at(g, "labels");
    if (!labels) return;
    for (auto it = labels->MemberBegin(); it != labels->MemberEnd(); ++it) {
      const std::string at = key_path(gp + ".labels", text(it->name));
      if (auto msgs = names::qualified_name(text(it->name)); !msgs.empty())
        sink.error(at, "GroupLabels", kClusterSpec,
                   "label key " + dq(text(it->name)) + " is not a qualified name: " + joined(msgs));
      if (auto msgs = names::label_value(text(it->value)); !msgs.empty())
        sink.error(at, "GroupLabels", kClusterSpec, "label value " + dq(text(it->value)) + " " + joined(msgs));
    }
  });
}

// KubeRay validateRayGroupResources: resource keys in rayStartParams and the group .resources map exclude each other.
void GroupResourcesExclusive(const ClusterSpec& cs, const Sink& sink) {
  for_each_ray_group(cs, [&](const json::Value& g, const std::string& gp, bool) {
    const json::Value* params = object_at(g, "rayStartParams");
    const json::Value* resources = object_at(g, "resources");
    if (!params || !resources || resources->MemberCount() == 0) return;
    for (const char* k : {"num-cpus", "num-gpus", "memory", "resources"})
      if (const json::Value* v = member(*params, k); v && !(v->IsString() && v->GetStringLength() == 0))
        sink.error(
            key_path(gp + ".rayStartParams", k), "GroupResourcesExclusive", kClusterSpec,
            std::string("rayStartParams ") + dq(k) + " conflicts with the group's resources field; use one of them");
  });
}

// KubeRay ValidateRayClusterSpec: idleTimeoutSeconds is not negative, and per group it needs autoscaler v2.
void IdleTimeoutSeconds(const ClusterSpec& cs, const Sink& sink) {
  if (const json::Value* o = cs.autoscaler_options())
    if (auto v = int_at(*o, "idleTimeoutSeconds"); v && *v < 0)
      sink.error(cs.path + ".autoscalerOptions.idleTimeoutSeconds", "IdleTimeoutSeconds", kClusterSpec,
                 "idleTimeoutSeconds must not be negative");
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    auto v = int_at(g, "idleTimeoutSeconds");
    if (!v) return;
    if (*v < 0)
      sink.error(gp + ".idleTimeoutSeconds", "IdleTimeoutSeconds", kClusterSpec,
                 "idleTimeoutSeconds must not be negative");
    else if (!cs.autoscaler_v2())
      sink.error(gp + ".idleTimeoutSeconds", "IdleTimeoutSeconds", kClusterSpec,
                 "a per-group idleTimeoutSeconds needs autoscalerOptions.version v2");
  });
}

// KubeRay ValidateRayClusterSpec: a worker group priority needs Ray >= 2.56.0 and autoscaler v2.
void WorkerGroupPriority(const ClusterSpec& cs, const Sink& sink) {
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    auto p = int_at(g, "priority");
    if (!p || *p == 0) return;
    auto version = parse_version(string_at(cs.spec, "rayVersion").value_or(""));
    if (!version || *version < std::array<long, 3>{2, 56, 0})
      sink.error(gp + ".priority", "WorkerGroupPriority", kClusterSpec,
                 "a group priority needs rayVersion 2.56.0 or later");
    if (!cs.autoscaler_v2())
      sink.error(gp + ".priority", "WorkerGroupPriority", kClusterSpec,
                 "a group priority needs autoscalerOptions.version v2");
  });
}

// KubeRay ValidateRayClusterSpec: the ray.io/ft-enabled annotation and gcsFaultToleranceOptions exclude each other.
// The annotation is the field at fault: it names it (on the RayJob for a RayJob's cluster).
void GcsFTAnnotationConflict(const ClusterSpec& cs, const Sink& sink) {
  if (cs.gcs_ft() && !cs.annotation(kFTEnabledAnnotation).empty())
    sink.error(key_path("metadata.annotations", std::string(kFTEnabledAnnotation)), "GcsFTAnnotationConflict",
               kClusterSpec,
               "remove the ray.io/ft-enabled annotation; " + cs.path +
                   ".gcsFaultToleranceOptions alone configures fault tolerance");
}

// KubeRay ValidateRayClusterSpec: RAY_REDIS_ADDRESS on the head implies fault tolerance, which must be configured.
void RedisAddressNeedsGcsFT(const ClusterSpec& cs, const Sink& sink) {
  const json::Value* c = cs.head_container();
  if (!c || cs.gcs_ft_enabled() || !env_entry(*c, "RAY_REDIS_ADDRESS")) return;
  sink.error(cs.head_env_path("RAY_REDIS_ADDRESS"), "RedisAddressNeedsGcsFT", kClusterSpec,
             "RAY_REDIS_ADDRESS is set but gcsFaultToleranceOptions is not");
}

// KubeRay ValidateRayClusterSpec: with gcsFaultToleranceOptions, Redis settings come only from those options.
void GcsFTForbiddenSetting(const ClusterSpec& cs, const Sink& sink) {
  if (!cs.gcs_ft()) return;
  const std::string why = "is not allowed with gcsFaultToleranceOptions; set it in those options";
  if (const json::Value* h = cs.head())
    if (const json::Value* p = object_at(*h, "rayStartParams");
        p && !string_at(*p, "redis-password").value_or("").empty())
      sink.error(cs.head_path() + ".rayStartParams.redis-password", "GcsFTForbiddenSetting", kClusterSpec,
                 "rayStartParams redis-password " + why);
  if (const json::Value* c = cs.head_container())
    for (const char* env : {"REDIS_PASSWORD", "RAY_REDIS_ADDRESS"})
      if (env_entry(*c, env))
        sink.error(cs.head_env_path(env), "GcsFTForbiddenSetting", kClusterSpec, std::string("env ") + env + " " + why);
  if (!cs.annotation(kExternalStorageNSAnnotation).empty())
    sink.error(std::string("metadata.annotations[") + std::string(kExternalStorageNSAnnotation) + "]",
               "GcsFTForbiddenSetting", kClusterSpec, "annotation ray.io/external-storage-namespace " + why);
}

// KubeRay ValidateRayClusterSpec: the Redis user name is set only through gcsFaultToleranceOptions.redisUsername.
void RedisUsername(const ClusterSpec& cs, const Sink& sink) {
  if (const json::Value* h = cs.head())
    if (const json::Value* p = object_at(*h, "rayStartParams");
        p && !string_at(*p, "redis-username").value_or("").empty())
      sink.error(cs.head_path() + ".rayStartParams.redis-username", "RedisUsername", kClusterSpec,
                 "set the Redis user name in gcsFaultToleranceOptions.redisUsername");
  if (const json::Value* c = cs.head_container(); c && env_entry(*c, "REDIS_USERNAME"))
    sink.error(cs.head_env_path("REDIS_USERNAME"), "RedisUsername", kClusterSpec,
               "set the Redis user name in gcsFaultToleranceOptions.redisUsername, not env REDIS_USERNAME");
}

// KubeRay validateGcsFaultToleranceBackend: the embedded RocksDB backend needs the GCSFaultToleranceEmbeddedStorage
// feature gate (alpha, off by default in v1.7.0), takes none of the Redis fields, a PVC by claimName or by size /
// storageClassName / accessModes, and leaves the head's RAY_gcs_storage(_path) env, its gcs-storage volume and its
// /data/gcs mount to the operator; the Redis backend (the default) takes no storage.
void GcsFTBackend(const ClusterSpec& cs, const Sink& sink) {
  const json::Value* ft = cs.gcs_ft();
  if (!ft) return;
  const std::string at = cs.path + ".gcsFaultToleranceOptions";
  if (string_at(*ft, "backend") != "rocksdb") {
    if (member(*ft, "storage"))
      sink.error(at + ".storage", "GcsFTBackend", kClusterSpec, "storage is only allowed with backend rocksdb");
    return;
  }
  sink.error(at + ".backend", "GcsFTBackend", kClusterSpec,
             "the rocksdb backend needs KubeRay's GCSFaultToleranceEmbeddedStorage feature gate, which is off by "
             "default");
  for (const char* f : {"redisAddress", "redisPassword", "redisUsername", "externalStorageNamespace"})
    if (member(*ft, f) && !(member(*ft, f)->IsString() && member(*ft, f)->GetStringLength() == 0))
      sink.error(at + "." + f, "GcsFTBackend", kClusterSpec, std::string(f) + " does not apply to the rocksdb backend");
  if (const json::Value* storage = object_at(*ft, "storage");
      storage && !string_at(*storage, "claimName").value_or("").empty())
    for (const char* f : {"size", "storageClassName", "accessModes"})
      if (member(*storage, f) && !(member(*storage, f)->IsArray() && member(*storage, f)->Empty()))
        sink.error(at + ".storage." + f, "GcsFTBackend", kClusterSpec,
                   std::string(f) + " cannot be combined with storage.claimName (an existing PVC)");
  const json::Value* c = cs.head_container();
  const std::string cp = cs.head_path() + ".template.spec.containers[0]";
  if (c) {
    if (const json::Value* env = array_at(*c, "env"))
      for (rapidjson::SizeType i = 0; i < env->Size(); ++i) {
        const std::string name = string_at((*env)[i], "name").value_or("");
        if (name == "RAY_gcs_storage" || name == "RAY_gcs_storage_path")
          sink.error(index_path(cp + ".env", i) + ".name", "GcsFTBackend", kClusterSpec,
                     "env " + name + " is set by the operator for the rocksdb backend");
      }
    if (const json::Value* mounts = array_at(*c, "volumeMounts"))
      for (rapidjson::SizeType i = 0; i < mounts->Size(); ++i) {
        const json::Value& m = (*mounts)[i];
        if (string_at(m, "mountPath") == "/data/gcs" || string_at(m, "name") == "gcs-storage")
          sink.error(index_path(cp + ".volumeMounts", i), "GcsFTBackend", kClusterSpec,
                     "the gcs-storage volume mount at /data/gcs is made by the operator for the rocksdb backend");
      }
  }
  const json::Value* t = cs.head_template();
  const json::Value* ps = t ? object_at(*t, "spec") : nullptr;
  if (const json::Value* vols = ps ? array_at(*ps, "volumes") : nullptr)
    for (rapidjson::SizeType i = 0; i < vols->Size(); ++i)
      if (string_at((*vols)[i], "name") == "gcs-storage")
        sink.error(index_path(cs.head_path() + ".template.spec.volumes", i) + ".name", "GcsFTBackend", kClusterSpec,
                   "the volume gcs-storage is made by the operator for the rocksdb backend");
}

// KubeRay ValidateRayClusterSpec: a worker group cannot be suspended while the autoscaler runs.
void WorkerGroupSuspend(const ClusterSpec& cs, const Sink& sink) {
  if (!cs.autoscaling()) return;
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    if (true_at(g, "suspend"))
      sink.error(gp + ".suspend", "WorkerGroupSuspend", kClusterSpec,
                 "the autoscaler manages this group, so it cannot be suspended while enableInTreeAutoscaling is on");
  });
}

// KubeRay ValidateRayClusterSpec: RAY_enable_autoscaler_v2 = 1/true on the head needs enableInTreeAutoscaling.
void AutoscalerV2Env(const ClusterSpec& cs, const Sink& sink) {
  const json::Value* c = cs.head_container();
  const json::Value* e = c ? env_entry(*c, "RAY_enable_autoscaler_v2") : nullptr;
  if (!e || cs.autoscaling()) return;
  auto v = string_at(*e, "value").value_or("");
  if (v == "1" || v == "true")
    sink.error(cs.head_env_path("RAY_enable_autoscaler_v2"), "AutoscalerV2Env", kClusterSpec,
               "RAY_enable_autoscaler_v2 is " + dq(v) + " but enableInTreeAutoscaling is not true");
}

// KubeRay ValidateRayClusterSpec: autoscalerOptions.version and the RAY_enable_autoscaler_v2 env exclude each other.
void AutoscalerVersionConflict(const ClusterSpec& cs, const Sink& sink) {
  const json::Value* o = cs.autoscaler_options();
  const json::Value* c = cs.head_container();
  if (!cs.autoscaling() || !o || !member(*o, "version") || !c || !env_entry(*c, "RAY_enable_autoscaler_v2")) return;
  sink.error(
      cs.path + ".autoscalerOptions.version", "AutoscalerVersionConflict", kClusterSpec,
      "remove RAY_enable_autoscaler_v2 from the head container; autoscalerOptions.version selects the autoscaler");
}

// KubeRay ValidateRayClusterSpec: with autoscaler v2 every Ray pod's restartPolicy is Never or unset.
void AutoscalerV2RestartPolicy(const ClusterSpec& cs, const Sink& sink) {
  if (!cs.autoscaling() || !cs.autoscaler_v2()) return;
  for_each_template(cs, [&](const json::Value& t, const std::string& tp) {
    const json::Value* spec = object_at(t, "spec");
    auto policy = spec ? string_at(*spec, "restartPolicy") : std::nullopt;
    if (policy && !policy->empty() && *policy != "Never")
      sink.error(
          tp + ".spec.restartPolicy", "AutoscalerV2RestartPolicy", kClusterSpec,
          "autoscaler v2 replaces failed Ray pods itself; restartPolicy " + dq(*policy) + " must be Never or unset");
  });
}

// KubeRay ValidateRayClusterSpec: autoscalerOptions.env may not set KUBERAY_GEN_AUTOSCALER_START_CMD (operator-owned).
void AutoscalerEnvReserved(const ClusterSpec& cs, const Sink& sink) {
  const json::Value* o = cs.autoscaler_options();
  const json::Value* env = o ? array_at(*o, "env") : nullptr;
  if (!env) return;
  for (rapidjson::SizeType i = 0; i < env->Size(); ++i)
    if (string_at((*env)[i], "name") == "KUBERAY_GEN_AUTOSCALER_START_CMD")
      sink.error(index_path(cs.path + ".autoscalerOptions.env", i), "AutoscalerEnvReserved", kClusterSpec,
                 "KUBERAY_GEN_AUTOSCALER_START_CMD is reserved for the operator");
}

/// rayVersion >= min (false when unset or unparseable).
bool ray_version_at_least(const ClusterSpec& cs, std::array<long, 3> min) {
  auto v = parse_version(string_at(cs.spec, "rayVersion").value_or(""));
  return v && *v >= min;
}

// KubeRay ValidateRayClusterSpec: authOptions.mode token needs rayVersion 2.52.0 or later.
void AuthRayVersion(const ClusterSpec& cs, const Sink& sink) {
  const json::Value* auth = object_at(cs.spec, "authOptions");
  if (!auth || string_at(*auth, "mode") != "token") return;
  // The field too new for the rayVersion is at fault, not rayVersion.
  if (!ray_version_at_least(cs, {2, 52, 0}))
    sink.error(cs.path + ".authOptions.mode", "AuthRayVersion", kClusterSpec,
               "token authentication needs Ray 2.52.0 or later, but rayVersion is " +
                   dq(string_at(cs.spec, "rayVersion").value_or("<unset>")));
}

// KubeRay ValidateRayClusterSpec: enableK8sTokenAuth needs mode token, rayVersion >= 2.55.0 and no secretName;
// RayJob does not support it.
void K8sTokenAuth(const ClusterSpec& cs, const Sink& sink) {
  const json::Value* auth = object_at(cs.spec, "authOptions");
  if (!auth || !true_at(*auth, "enableK8sTokenAuth")) return;
  const std::string at = cs.path + ".authOptions.enableK8sTokenAuth";
  if (cs.from_rayjob) {
    sink.error(at, "K8sTokenAuth", kJobSpec, "Kubernetes token authentication is not supported for RayJob");
    return;
  }
  if (string_at(*auth, "mode") != "token")
    sink.error(at, "K8sTokenAuth", kClusterSpec, "enableK8sTokenAuth needs authOptions.mode token");
  if (!ray_version_at_least(cs, {2, 55, 0}))
    sink.error(at, "K8sTokenAuth", kClusterSpec, "enableK8sTokenAuth needs rayVersion 2.55.0 or later");
  if (member(*auth, "secretName"))
    sink.error(cs.path + ".authOptions.secretName", "K8sTokenAuth", kClusterSpec,
               "secretName cannot be combined with enableK8sTokenAuth");
}

// KubeRay ValidateRayClusterSpec: historyServerOptions, networkPolicy and tlsOptions need feature gates that are
// off by default.
void FeatureGate(const ClusterSpec& cs, const Sink& sink) {
  for (const char* f : {"historyServerOptions", "networkPolicy", "tlsOptions"})
    if (member(cs.spec, f))
      sink.error(cs.path + "." + f, "FeatureGate", kClusterSpec,
                 std::string(f) + " needs a KubeRay feature gate that is off by default");
}

// KubeRay ValidateRayClusterSpec: with networkPolicy, worker group names must be DNS-1123 labels.
void NetworkPolicyGroupName(const ClusterSpec& cs, const Sink& sink) {
  if (!member(cs.spec, "networkPolicy")) return;
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    auto name = string_at(g, "groupName");
    if (name && !names::dns1123_label(*name).empty())
      sink.error(gp + ".groupName", "NetworkPolicyGroupName", kClusterSpec,
                 "with networkPolicy, group name " + dq(*name) + " must be a DNS-1123 label");
  });
}

// KubeRay ValidateRayClusterSpec: with tlsOptions the operator owns RAY_USE_TLS and RAY_TLS_* env vars.
void TLSEnv(const ClusterSpec& cs, const Sink& sink) {
  if (!member(cs.spec, "tlsOptions")) return;
  for_each_template(cs, [&](const json::Value& t, const std::string& tp) {
    const json::Value* spec = object_at(t, "spec");
    const json::Value* containers = spec ? array_at(*spec, "containers") : nullptr;
    if (!containers) return;
    for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
      const json::Value* env = array_at((*containers)[i], "env");
      if (!env) continue;
      for (rapidjson::SizeType j = 0; j < env->Size(); ++j) {
        std::string name = string_at((*env)[j], "name").value_or("");
        if (name == "RAY_USE_TLS" || name.starts_with("RAY_TLS_"))
          sink.error(index_path(index_path(tp + ".spec.containers", i) + ".env", j), "TLSEnv", kClusterSpec,
                     "env " + name + " is managed by the operator when tlsOptions is set");
      }
    }
  });
}

// KubeRay common/service.go BuildServiceForHeadPod makes the head Service of type headService.spec.type, else
// headGroupSpec.serviceType (ClusterIP when both are empty); kubernetes ValidateService refuses that Service, and so
// the cluster never gets its head Service, when the type is none of ClusterIP, NodePort, LoadBalancer and
// ExternalName, or ExternalName without spec.externalName (which only headService can give).
void HeadServiceType(const ClusterSpec& cs, const Sink& sink) {
  const json::Value* head = cs.head();
  if (!head) return;
  const json::Value* svc = object_at(*head, "headService");
  const json::Value* svc_spec = svc ? object_at(*svc, "spec") : nullptr;
  std::string type = svc_spec ? string_at(*svc_spec, "type").value_or("") : "";
  std::string at = cs.head_path() + ".headService.spec.type";
  if (type.empty()) {
    type = string_at(*head, "serviceType").value_or("");
    at = cs.head_path() + ".serviceType";
  }
  if (type.empty()) return;
  if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer" && type != "ExternalName") {
    sink.error(at, "HeadServiceType", kHeadService,
               "service type " + dq(type) +
                   " is not ClusterIP, NodePort, LoadBalancer or ExternalName, so the "
                   "head Service cannot be created");
    return;
  }
  if (type == "ExternalName" && (!svc_spec || string_at(*svc_spec, "externalName").value_or("").empty()))
    sink.error(at, "HeadServiceType", kHeadService,
               "an ExternalName head Service needs headService.spec.externalName, so it cannot be created");
}

// KubeRay ValidateRayClusterUpgradeOptions: upgradeStrategy is not allowed on a cluster a RayJob creates.
// A cluster is a RayJob's (or a RayService's) when a RayJob makes it, or when it carries the label
// ray.io/originated-from-crd those controllers put on theirs; only a set upgradeStrategy.type counts.
void UpgradeStrategyOwner(const ClusterSpec& cs, const Sink& sink) {
  const json::Value* us = object_at(cs.spec, "upgradeStrategy");
  if (!us || !member(*us, "type")) return;
  const std::string origin = cs.from_rayjob ? "RayJob" : label_of(cs.owner, "ray.io/originated-from-crd").value_or("");
  if (origin == "RayJob" || origin == "RayService")
    sink.error(cs.path + ".upgradeStrategy.type", "UpgradeStrategyOwner", kUpgrade,
               "upgradeStrategy cannot be set on a cluster created by a " + origin);
}

// KubeRay common/pod.go labelPod: the group name is the value of the ray.io/group Pod label, so it must be a
// valid label value, or the Pods cannot be created.
void GroupNameLabelValue(const ClusterSpec& cs, const Sink& sink) {
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    auto name = string_at(g, "groupName");
    if (!name) return;
    if (auto msgs = names::label_value(*name); !msgs.empty() || name->empty())
      sink.error(gp + ".groupName", "GroupNameLabelValue", kPodLabels,
                 "group name " + dq(*name) + " becomes the ray.io/group Pod label: " +
                     (msgs.empty() ? std::string("it must not be empty") : joined(msgs)));
  });
}

// KubeRay utils.PodName (raycluster_controller.go buildWorkerPod, v1.7.0): a worker Pod's generateName is
// lower(first 50 characters of "<cluster>-<group>") + "-worker-", which the apiserver checks as a DNS-1123
// subdomain prefix when it creates the Pod. A group name with '_' (or a cut that leaves a '.' next to the '-')
// makes every worker Pod of the group refused. The cluster of a RayJob is named "<rayjob>-<5 random characters>".
void PodName(const ClusterSpec& cs, const Sink& sink) {
  auto owner = effective_name(cs.owner);  // a generateName stands in with placeholder characters
  if (!owner) return;
  std::string cluster = owner->name;
  if (cs.from_rayjob) cluster += "-xxxxx";
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    auto group = string_at(g, "groupName");
    if (!group || group->empty() || !names::label_value(*group).empty()) return;  // GroupNameLabelValue reports those
    std::string prefix = (cluster + "-" + *group).substr(0, 50);
    for (auto& c : prefix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string generate = prefix + "-worker-";
    std::string masked = generate.substr(0, 58);
    if (masked.back() == '-') masked.back() = 'a';
    if (auto msgs = names::dns1123_subdomain(masked); !msgs.empty())
      sink.error(gp + ".groupName", "PodName", kPodName,
                 "the worker Pods get generateName " + dq(generate) + ", which the apiserver refuses: " + joined(msgs));
  });
}

// Checklist (notes §1.4/§11): group names should be DNS-1123 labels (Kueue lower-cases them into PodSet names).
void GroupNameDNS1123(const ClusterSpec& cs, const Sink& sink) {
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    auto name = string_at(g, "groupName");
    if (!name || name->empty() || !names::label_value(*name).empty()) return;  // GroupNameLabelValue reports those
    if (!names::dns1123_label(*name).empty())
      sink.warn(gp + ".groupName", "GroupNameDNS1123", kChecklist,
                "group name " + dq(*name) + " is not a DNS-1123 label (lower-case letters, digits, '-')");
  });
}

// Checklist (notes §1.4): KubeRay clamps replicas into [minReplicas, maxReplicas] while Kueue counts replicas as
// given, so a value outside the bounds makes quota and reality disagree.
void ReplicasWithinBounds(const ClusterSpec& cs, const Sink& sink) {
  for_each_group(cs, [&](const json::Value& g, const std::string& gp) {
    auto r = int_at(g, "replicas");
    if (!r) return;
    auto lo = int_at(g, "minReplicas").value_or(0);
    auto hi = int_at(g, "maxReplicas").value_or(2147483647);
    if (lo <= hi && (*r < lo || *r > hi))
      sink.warn(gp + ".replicas", "ReplicasWithinBounds", kChecklist,
                "replicas " + std::to_string(*r) + " lies outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "]; KubeRay will clamp it while Kueue counts it as written");
  });
}

/// Everything KubeRay checks on a RayClusterSpec, plus the late Pod rules of its templates.
void validate_cluster_spec(const ClusterSpec& cs, const Sink& sink) {
  UniqueGroupName(cs, sink);
  ContainersRequired(cs, sink);
  NonNegativeReplicas(cs, sink);
  MinWithinMaxReplicas(cs, sink);
  RayStartParamsLabels(cs, sink);
  GroupLabels(cs, sink);
  GroupResourcesExclusive(cs, sink);
  IdleTimeoutSeconds(cs, sink);
  WorkerGroupPriority(cs, sink);
  GcsFTAnnotationConflict(cs, sink);
  RedisAddressNeedsGcsFT(cs, sink);
  GcsFTForbiddenSetting(cs, sink);
  RedisUsername(cs, sink);
  GcsFTBackend(cs, sink);
  WorkerGroupSuspend(cs, sink);
  AutoscalerV2Env(cs, sink);
  AutoscalerVersionConflict(cs, sink);
  AutoscalerV2RestartPolicy(cs, sink);
  AutoscalerEnvReserved(cs, sink);
  AuthRayVersion(cs, sink);
  K8sTokenAuth(cs, sink);
  FeatureGate(cs, sink);
  NetworkPolicyGroupName(cs, sink);
  TLSEnv(cs, sink);
  UpgradeStrategyOwner(cs, sink);
  HeadServiceType(cs, sink);
  GroupNameLabelValue(cs, sink);
  PodName(cs, sink);
  GroupNameDNS1123(cs, sink);
  ReplicasWithinBounds(cs, sink);
  for_each_ray_group(cs, [&](const json::Value& g, const std::string& gp, bool) {
    if (const json::Value* params = object_at(g, "rayStartParams")) RayStart(*params, gp + ".rayStartParams", sink);
  });
  for_each_template(cs, [&](const json::Value& t, const std::string& tp) {
    validate_pod_template(t, tp, sink, cs.kubernetes_minor);
  });
  if (const json::Value* o = cs.autoscaler_options())
    if (const json::Value* r = object_at(*o, "resources"))
      validate_resources_late(*r, cs.path + ".autoscalerOptions.resources", sink);
  validate_codeflare_raycluster_spec(cs.spec, cs.path, sink);
}

// ---- RayJob ----------------------------------------------------------------------------------------------------

struct JobSpec {
  const json::Value& spec;
  const json::Value& job;
  bool shutdown() const { return true_at(spec, "shutdownAfterJobFinishes"); }
  bool selector_mode() const {
    const json::Value* s = object_at(spec, "clusterSelector");
    return s && s->MemberCount() > 0;
  }
  const json::Value* cluster_spec() const { return object_at(spec, "rayClusterSpec"); }
  std::string mode() const { return string_at(spec, "submissionMode").value_or("K8sJobMode"); }
  bool autoscaling() const { return cluster_spec() && true_at(*cluster_spec(), "enableInTreeAutoscaling"); }
};

// KubeRay ValidateRayJobSpec: suspend needs shutdownAfterJobFinishes.
void SuspendNeedsShutdown(const JobSpec& js, const Sink& sink) {
  if (true_at(js.spec, "suspend") && !js.shutdown())
    sink.error("spec.suspend", "SuspendNeedsShutdown", kJobSpec,
               "suspending needs shutdownAfterJobFinishes: true, since the cluster is torn down on suspend");
}

// KubeRay ValidateRayJobSpec: ttlSecondsAfterFinished is not negative and needs shutdownAfterJobFinishes when > 0.
void TTLSecondsAfterFinished(const JobSpec& js, const Sink& sink) {
  auto ttl = int_at(js.spec, "ttlSecondsAfterFinished");
  if (!ttl) return;
  if (*ttl < 0)
    sink.error("spec.ttlSecondsAfterFinished", "TTLSecondsAfterFinished", kJobSpec, "must not be negative");
  else if (*ttl > 0 && !js.shutdown())
    sink.error("spec.ttlSecondsAfterFinished", "TTLSecondsAfterFinished", kJobSpec,
               "has no effect without shutdownAfterJobFinishes true and is rejected");
}

// KubeRay validateDeletionConfiguration / validateLegacyDeletionPolicies / validateDeletionRules.
void DeletionPolicies(const JobSpec& js, const Sink& sink) {
  const json::Value* ds = object_at(js.spec, "deletionStrategy");
  if (!ds) return;
  const json::Value* rules = array_at(*ds, "deletionRules");
  const bool legacy = member(*ds, "onSuccess") || member(*ds, "onFailure");
  if (rules && !rules->Empty() && js.shutdown())
    sink.error("spec.shutdownAfterJobFinishes", "DeletionPolicies", kJobSpec,
               "shutdownAfterJobFinishes and deletionStrategy.deletionRules exclude each other");
  if (legacy) {
    for (const char* which : {"onSuccess", "onFailure"}) {
      const json::Value* p = object_at(*ds, which);
      if (!p) continue;
      const std::string at = std::string("spec.deletionStrategy.") + which + ".policy";
      auto policy = string_at(*p, "policy");
      if (!policy) {
        sink.error(at, "DeletionPolicies", kJobSpec, "the policy must be set");
        continue;
      }
      if (js.selector_mode() && (*policy == "DeleteCluster" || *policy == "DeleteWorkers"))
        sink.error(at, "DeletionPolicies", kJobSpec, *policy + " cannot be used with clusterSelector");
      if (*policy == "DeleteWorkers" && js.autoscaling())
        sink.error(at, "DeletionPolicies", kJobSpec,
                   "the autoscaler would bring back deleted workers, so DeleteWorkers is refused with autoscaling");
      if (*policy == "DeleteNone" && js.shutdown())
        sink.error(at, "DeletionPolicies", kJobSpec, "DeleteNone contradicts shutdownAfterJobFinishes true");
    }
    return;
  }
  if (!rules) return;
  // The CRD's CEL takes a present deletionRules list, even an empty one; KubeRay needs at least one rule.
  if (rules->Empty()) {
    sink.error("spec.deletionStrategy.deletionRules", "DeletionPolicies", kJobSpec,
               "deletionRules is empty: give at least one rule, or both onSuccess and onFailure");
    return;
  }
  std::map<std::string, std::map<std::string, int64_t>> by_status;  // condition -> policy -> ttl
  for (rapidjson::SizeType i = 0; i < rules->Size(); ++i) {
    const json::Value& r = (*rules)[i];
    const std::string at = index_path("spec.deletionStrategy.deletionRules", i);
    const json::Value* cond = object_at(r, "condition");
    const std::string policy = string_at(r, "policy").value_or("");
    const int64_t ttl = cond ? int_at(*cond, "ttlSeconds").value_or(0) : 0;
    if (ttl < 0) {
      sink.error(at + ".condition.ttlSeconds", "DeletionPolicies", kJobSpec, "ttlSeconds must not be negative");
      continue;
    }
    if (js.selector_mode() && (policy == "DeleteCluster" || policy == "DeleteWorkers")) {
      sink.error(at + ".policy", "DeletionPolicies", kJobSpec, policy + " cannot be used with clusterSelector");
      continue;
    }
    if (policy == "DeleteWorkers" && js.autoscaling()) {
      sink.error(at + ".policy", "DeletionPolicies", kJobSpec,
                 "the autoscaler would bring back deleted workers, so DeleteWorkers is refused with autoscaling");
      continue;
    }
    // Rules are grouped by their condition: a JobStatus or a JobDeploymentStatus (the CRD's CEL allows one).
    const bool by_deployment = cond && member(*cond, "jobDeploymentStatus") && !member(*cond, "jobStatus");
    const std::string condition =
        (by_deployment ? "job deployment status " : "job status ") +
        dq(cond ? string_at(*cond, by_deployment ? "jobDeploymentStatus" : "jobStatus").value_or("") : "");
    auto& policies = by_status[condition];
    if (!policies.emplace(policy, ttl).second)
      sink.error(at, "DeletionPolicies", kJobSpec, "duplicate rule for policy " + policy + " and " + condition);
  }
  // TTLs grow along DeleteWorkers <= DeleteCluster <= DeleteSelf for each job status.
  for (const auto& [status, policies] : by_status) {
    std::optional<std::pair<std::string, int64_t>> prev;
    for (const char* p : {"DeleteWorkers", "DeleteCluster", "DeleteSelf"}) {
      auto it = policies.find(p);
      if (it == policies.end()) continue;
      if (prev && it->second < prev->second)
        sink.error("spec.deletionStrategy.deletionRules", "DeletionPolicies", kJobSpec,
                   "for " + status + " the " + p + " TTL (" + std::to_string(it->second) + ") is below the " +
                       prev->first + " TTL (" + std::to_string(prev->second) + ")");
      prev = {p, it->second};
    }
  }
}

// KubeRay ValidateRayJobSpec: one of rayClusterSpec or clusterSelector is required.
void ClusterSource(const JobSpec& js, const Sink& sink) {
  if (!js.cluster_spec() && !js.selector_mode())
    sink.error("spec.rayClusterSpec", "ClusterSource", kJobSpec, "set rayClusterSpec or clusterSelector");
}

// KubeRay ValidateRayJobSpec: clusterSelector names the cluster in ray.io/cluster and excludes suspend, SidecarMode
// and retries.
void ClusterSelector(const JobSpec& js, const Sink& sink) {
  if (!js.selector_mode()) return;
  const json::Value* sel = object_at(js.spec, "clusterSelector");
  if (string_at(*sel, "ray.io/cluster").value_or("").empty())
    sink.error("spec.clusterSelector[ray.io/cluster]", "ClusterSelector", kJobSpec,
               "clusterSelector must name the cluster under the key ray.io/cluster");
  if (true_at(js.spec, "suspend"))
    sink.error("spec.suspend", "ClusterSelector", kJobSpec,
               "suspend has no effect on a cluster picked by clusterSelector and is refused");
  if (js.mode() == "SidecarMode")
    sink.error("spec.submissionMode", "ClusterSelector", kJobSpec,
               "SidecarMode needs a cluster created for this RayJob, not one picked by clusterSelector");
  if (int_at(js.spec, "backoffLimit").value_or(0) > 0)
    sink.error("spec.backoffLimit", "ClusterSelector", kJobSpec,
               "retries (backoffLimit > 0) need a RayJob-owned cluster");
}

// KubeRay ValidateRayJobSpec: InteractiveMode does not retry.
void InteractiveModeBackoff(const JobSpec& js, const Sink& sink) {
  if (js.mode() == "InteractiveMode" && int_at(js.spec, "backoffLimit").value_or(0) > 0)
    sink.error("spec.backoffLimit", "InteractiveModeBackoff", kJobSpec,
               "retries are refused in InteractiveMode; set backoffLimit to 0");
}

// KubeRay ValidateRayJobSpec: SidecarMode has no submitter pod, and the head pod must not restart.
void SidecarMode(const JobSpec& js, const Sink& sink) {
  if (js.mode() != "SidecarMode") return;
  for (const char* f : {"submitterPodTemplate", "submitterConfig"})
    if (member(js.spec, f))
      sink.error(std::string("spec.") + f, "SidecarMode", kJobSpec,
                 std::string(f) + " is not supported in SidecarMode");
  const json::Value* cs = js.cluster_spec();
  const json::Value* head = cs ? object_at(*cs, "headGroupSpec") : nullptr;
  const json::Value* t = head ? object_at(*head, "template") : nullptr;
  const json::Value* ps = t ? object_at(*t, "spec") : nullptr;
  auto policy = ps ? string_at(*ps, "restartPolicy") : std::nullopt;
  if (policy && !policy->empty() && *policy != "Never")
    sink.error("spec.rayClusterSpec.headGroupSpec.template.spec.restartPolicy", "SidecarMode", kJobSpec,
               "SidecarMode submits from the head pod, so that pod must not restart: use Never or leave it unset");
}

// KubeRay ValidateRayJobSpec: runtimeEnvYAML parses as a YAML map.
void RuntimeEnvYAML(const JobSpec& js, const Sink& sink) {
  auto text_yaml = string_at(js.spec, "runtimeEnvYAML");
  if (!text_yaml || text_yaml->empty()) return;
  auto docs = yaml::to_json(*text_yaml);
  if (!docs) {
    sink.error("spec.runtimeEnvYAML", "RuntimeEnvYAML", kJobSpec, "is not valid YAML: " + docs.error().message);
    return;
  }
  if (docs->size() > 1 || (docs->size() == 1 && !(*docs)[0].IsObject() && !(*docs)[0].IsNull()))
    sink.error("spec.runtimeEnvYAML", "RuntimeEnvYAML", kJobSpec, "must be a single YAML map");
}

// KubeRay ValidateRayJobSpec: activeDeadlineSeconds > 0, preRunningDeadlineSeconds > 0 and backoffLimit >= 0.
void JobDeadlines(const JobSpec& js, const Sink& sink) {
  if (auto v = int_at(js.spec, "activeDeadlineSeconds"); v && *v <= 0)
    sink.error("spec.activeDeadlineSeconds", "JobDeadlines", kJobSpec, "activeDeadlineSeconds must be positive");
  if (auto v = int_at(js.spec, "preRunningDeadlineSeconds"); v && *v <= 0)
    sink.error("spec.preRunningDeadlineSeconds", "JobDeadlines", kJobSpec,
               "preRunningDeadlineSeconds must be positive");
  if (auto v = int_at(js.spec, "backoffLimit"); v && *v < 0)
    sink.error("spec.backoffLimit", "JobDeadlines", kJobSpec, "backoffLimit must not be negative");
}

}  // namespace

void validate_raycluster(const Scope& scope, const json::Value& obj, const Sink& sink) {
  (void)scope;
  DNS1035Name(obj, kClusterMeta, sink);
  MaxNameLength(obj, kMaxRayClusterNameLength, kClusterMeta, sink);
  const json::Value* spec = object_at(obj, "spec");
  if (!spec) {
    // The CRD does not require spec (with one, it requires headGroupSpec); KubeRay reads a missing spec as the empty
    // one (Go's zero value), whose head group has no container.
    sink.error("spec", "ContainersRequired", kClusterSpec,
               "a RayCluster needs a spec with a headGroupSpec whose pod template has at least one container");
    return;
  }
  validate_cluster_spec(ClusterSpec{*spec, "spec", obj, false, scope.profile.kubernetes_minor}, sink);
}

void validate_rayjob(const Scope& scope, const json::Value& obj, const Sink& sink) {
  (void)scope;
  DNS1035Name(obj, kJobMeta, sink);
  MaxNameLength(obj, kMaxRayJobNameLength, kJobMeta, sink);
  static const json::Value kEmptySpec(rapidjson::kObjectType);  // as for a RayCluster: a missing spec is the empty one
  const json::Value* spec = object_at(obj, "spec");
  if (!spec) spec = &kEmptySpec;
  JobSpec js{*spec, obj};
  SuspendNeedsShutdown(js, sink);
  TTLSecondsAfterFinished(js, sink);
  DeletionPolicies(js, sink);
  ClusterSource(js, sink);
  ClusterSelector(js, sink);
  InteractiveModeBackoff(js, sink);
  SidecarMode(js, sink);
  RuntimeEnvYAML(js, sink);
  JobDeadlines(js, sink);
  if (const json::Value* cs = js.cluster_spec())
    validate_cluster_spec(ClusterSpec{*cs, "spec.rayClusterSpec", obj, true, scope.profile.kubernetes_minor}, sink);
  if (const json::Value* t = object_at(*spec, "submitterPodTemplate"))
    validate_pod_template(*t, "spec.submitterPodTemplate", sink, scope.profile.kubernetes_minor);
}

}  // namespace cfo::validation::rules
