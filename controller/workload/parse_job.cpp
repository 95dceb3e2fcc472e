#include "workload/parse_job.hpp"

#include <array>
#include <string_view>

#include "core/names.hpp"
#include "core/yaml.hpp"
#include "workload/field_reader.hpp"
#include "workload/labels.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kRayJobSpecSource = "kuberay:ValidateRayJobSpec";
constexpr int64_t kInt32Max = 2147483647;

// The fields of spec that only shape a new RayCluster; with clusterSelector the job runs on a cluster that exists,
// so they would be silently ignored.
constexpr auto kClusterShapingFields = std::to_array<std::string_view>(
    {"head", "workerGroups", "autoscaling", "gcsFaultTolerance", "extendedResourceMapping",
     "overwriteDefaultResourceMapping", "image", "imagePullSecrets", "env", "volumes", "volumeMounts",
     "odhTrustedCABundle", "usageStats"});

// What the rules look at: the raw spec around the job and the job as read so far.
struct JobView {
  const json::Value& spec;
  std::string spec_path;  // "spec"
  std::string path;       // "spec.job"
  const JobSpec& job;
  // spec.job.clusterSelector as given; present (even empty) means the user asked for an existing cluster.
  const json::Value* selector;
  bool selector_given;
  std::optional<bool> shutdown_given;

  std::string at(std::string_view field) const { return key_path(path, std::string(field)); }
  std::string spec_at(std::string_view field) const { return key_path(spec_path, std::string(field)); }
  // A spec member given with a non-null value (the apiserver drops nulls).
  bool spec_has(std::string_view field) const {
    const json::Value* v = json::find(spec, field);
    return v && !v->IsNull();
  }
  // A spec boolean that is true; wrong types are the spec parser's to report.
  bool spec_true(std::string_view field) const {
    const json::Value* v = json::find(spec, field);
    return v && v->IsBool() && v->GetBool();
  }
};

// "spec" for "spec.job": the path of the object that holds the job.
std::string parent_path(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

// KubeRay ValidateRayJobSpec: runtimeEnvYAML must decode into Ray's runtime env, a map. An empty or comment-only text
// is an empty runtime env and passes.
void RuntimeEnvYAML(const std::string& text, const std::string& at, FieldErrors& errs) {
  auto docs = yaml::to_json(text);
  if (!docs) {
    add_error(errs, at, "RuntimeEnvYAML", "is not valid YAML: " + docs.error().message, kRayJobSpecSource);
    return;
  }
  if (docs->size() > 1) {
    add_error(errs, at, "RuntimeEnvYAML",
              "holds " + std::to_string(docs->size()) + " YAML documents; the runtime env is one mapping",
              kRayJobSpecSource);
    return;
  }
  if (docs->size() == 1 && !(*docs)[0].IsObject() && !(*docs)[0].IsNull())
    add_error(errs, at, "RuntimeEnvYAML",
              "must be a YAML mapping (pip, env_vars, working_dir, ...), not " + a_type_name((*docs)[0]),
              kRayJobSpecSource);
}

// spec.job.clusterSelector: a map of strings. Reports non-string values; returns what could be read.
std::map<std::string, std::string> read_selector(const json::Value& v, const std::string& at, FieldErrors& errs) {
  std::map<std::string, std::string> out;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    std::string key(it->name.GetString(), it->name.GetStringLength());
    if (!expect_type(it->value, it->value.IsString(), "a string", key_path(at, key), errs)) continue;
    out.emplace(std::move(key), std::string(it->value.GetString(), it->value.GetStringLength()));
  }
  return out;
}

// KubeRay ValidateRayJobSpec: with clusterSelector, KubeRay finds the cluster by the name under ray.io/cluster, so it
// must be there, non-empty, and a RayCluster name (a DNS-1035 label).
void ClusterSelector(const JobView& v, FieldErrors& errs) {
  if (!v.selector_given) return;
  const std::string at = key_path(v.at("clusterSelector"), std::string(kRayClusterLabel));
  auto it = v.job.cluster_selector.find(std::string(kRayClusterLabel));
  if (it == v.job.cluster_selector.end() || it->second.empty()) {
    const json::Value* value = json::find(*v.selector, kRayClusterLabel);
    if (value && !value->IsString()) return;  // reported as schema:type at the same path
    add_error(errs, at, "ClusterSelector",
              "clusterSelector must name the existing RayCluster under the key ray.io/cluster", kRayJobSpecSource);
    return;
  }
  for (const auto& m : names::dns1035_label(it->second))
    add_error(errs, at, "ClusterSelector", "is not a RayCluster name: " + m, kRayJobSpecSource);
}

// Ours: with clusterSelector the job runs on a cluster that already exists, so every field that would shape a new
// cluster is refused rather than ignored (codeflare-sdk RayJob takes a cluster_name or a cluster_config, not both).
void ExistingClusterFields(const JobView& v, FieldErrors& errs) {
  if (!v.selector_given) return;
  for (std::string_view f : kClusterShapingFields)
    if (v.spec_has(f))
      add_error(errs, v.spec_at(f), "ExistingClusterFields",
                "shapes a new cluster, but spec.job.clusterSelector runs the job on an existing one; remove it");
}

// KubeRay ValidateRayJobSpec: a RayJob on a clusterSelector cluster cannot be suspended.
void ClusterSelectorSuspend(const JobView& v, FieldErrors& errs) {
  if (v.selector_given && v.spec_true("suspend"))
    add_error(errs, v.spec_at("suspend"), "ClusterSelectorSuspend",
              "a job on an existing cluster (spec.job.clusterSelector) cannot be suspended", kRayJobSpecSource);
}

// Ours: the job does not own a cluster picked by clusterSelector, so there is nothing to shut down after it.
void ClusterSelectorShutdown(const JobView& v, FieldErrors& errs) {
  if (v.selector_given && v.shutdown_given.value_or(false))
    add_error(errs, v.at("shutdownAfterJobFinishes"), "ClusterSelectorShutdown",
              "must be false with clusterSelector: the existing cluster is not the job's to delete");
}

// KubeRay ValidateRayJobSpec: a positive ttlSecondsAfterFinished needs shutdownAfterJobFinishes: true.
void TTLSecondsAfterFinished(const JobView& v, FieldErrors& errs) {
  if (v.job.ttl_seconds_after_finished > 0 && !v.job.shutdown_after_job_finishes)
    add_error(errs, v.at("ttlSecondsAfterFinished"), "TTLSecondsAfterFinished",
              v.selector_given ? "must be 0 with clusterSelector: the existing cluster is not shut down after the job"
                               : "must be 0 when shutdownAfterJobFinishes is false",
              kRayJobSpecSource);
}

// KubeRay ValidateRayJobSpec: suspending a RayJob deletes its cluster, which needs shutdownAfterJobFinishes: true.
// With clusterSelector, ClusterSelectorSuspend says what is wrong.
void SuspendNeedsShutdown(const JobView& v, FieldErrors& errs) {
  if (!v.selector_given && v.spec_true("suspend") && !v.job.shutdown_after_job_finishes)
    add_error(errs, v.at("shutdownAfterJobFinishes"), "SuspendNeedsShutdown",
              "must be true while spec.suspend is true (suspending a RayJob deletes its cluster)", kRayJobSpecSource);
}

// Ours: the operator submits a RayJob to Kueue directly (Kueue's RayJob integration); it is never wrapped.
void JobInAppWrapper(const JobView& v, FieldErrors& errs) {
  if (v.spec_true("appWrapper"))
    add_error(errs, v.spec_at("appWrapper"), "JobInAppWrapper",
              "cannot be true with spec.job: the RayJob is queued with Kueue directly, not wrapped in an AppWrapper");
}

}  // namespace

std::optional<JobSpec> parse_job(const json::Value& job, const json::Value& spec, const std::string& path,
                                 FieldErrors& errs) {
  FieldReader r(job, path, errs);
  if (!r.is_object()) return std::nullopt;
  JobSpec j;
  j.entrypoint = r.required_string("entrypoint").value_or("");
  j.runtime_env_yaml = r.string("runtimeEnvYAML").value_or("");
  if (!j.runtime_env_yaml.empty()) RuntimeEnvYAML(j.runtime_env_yaml, r.child("runtimeEnvYAML"), errs);
  const std::optional<bool> shutdown = r.boolean("shutdownAfterJobFinishes");
  j.ttl_seconds_after_finished = static_cast<int32_t>(r.integer("ttlSecondsAfterFinished", 0, kInt32Max).value_or(0));
  if (auto d = r.integer("activeDeadlineSeconds", 1, kInt32Max)) j.active_deadline_seconds = static_cast<int32_t>(*d);
  const json::Value* selector = r.object("clusterSelector");
  if (selector) j.cluster_selector = read_selector(*selector, r.child("clusterSelector"), errs);
  r.reject_unknown();

  // A new cluster is the job's own and goes when the job is done (a Kueue-managed RayJob must shut down); an existing
  // cluster is not the job's to delete.
  j.shutdown_after_job_finishes = shutdown.value_or(selector == nullptr);

  const JobView v{spec, parent_path(path), path, j, selector, selector != nullptr, shutdown};
  ClusterSelector(v, errs);
  ExistingClusterFields(v, errs);
  ClusterSelectorSuspend(v, errs);
  ClusterSelectorShutdown(v, errs);
  TTLSecondsAfterFinished(v, errs);
  SuspendNeedsShutdown(v, errs);
  JobInAppWrapper(v, errs);
  return j;
}

}  // namespace cfo::workload
