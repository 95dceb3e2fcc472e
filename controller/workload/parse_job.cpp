#include "workload/parse_job.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "core/names.hpp"
#include "core/yaml.hpp"
#include "workload/field_reader.hpp"
#include "workload/labels.hpp"
#include "workload/parse_pod_template.hpp"
#include "workload/parse_topology.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kRayJobSpecSource = "kuberay:ValidateRayJobSpec";
constexpr int64_t kInt32Max = 2147483647;

// The fields of spec that only shape a new RayCluster; with clusterSelector the job runs on a cluster that exists,
// so they would be silently ignored.
constexpr auto kClusterShapingFields = std::to_array<std::string_view>(
    {"head", "workerGroups", "autoscaling", "gcsFaultTolerance", "extendedResourceMapping",
     "overwriteDefaultResourceMapping", "image", "imagePullSecrets", "env", "volumes", "volumeMounts",
     "odhTrustedCABundle", "usageStats", "template", "authOptions", "upgradeStrategy"});

constexpr auto kSubmissionModes =
    std::to_array<std::string_view>({"K8sJobMode", "HTTPMode", "SidecarMode", "InteractiveMode"});

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

// KubeRay v1.7 DeletionRule (rayjob_types.go, CRD enums and CEL): policy DeleteCluster | DeleteWorkers | DeleteSelf |
// DeleteNone; the condition names exactly one of jobStatus (SUCCEEDED | FAILED) and jobDeploymentStatus (Failed)
// (validateDeletionCondition); ttlSeconds >= 0.
std::vector<DeletionRule> read_deletion_rules(const json::Value& v, const std::string& at, FieldErrors& errs) {
  std::vector<DeletionRule> out;
  if (!expect_type(v, v.IsArray(), "a list", at, errs)) return out;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    FieldReader r(v[i], index_path(at, i), errs);
    DeletionRule rule;
    rule.policy = r.required_string("policy").value_or("");
    if (!rule.policy.empty() && rule.policy != "DeleteCluster" && rule.policy != "DeleteWorkers" &&
        rule.policy != "DeleteSelf" && rule.policy != "DeleteNone")
      add_error(errs, r.child("policy"), "schema:enum",
                "must be DeleteCluster, DeleteWorkers, DeleteSelf or DeleteNone, not \"" + rule.policy + "\"",
                "crd:ray.io/v1/RayJob");
    if (const json::Value* c = r.get("condition")) {
      FieldReader cr(*c, r.child("condition"), errs);
      auto status = cr.string("jobStatus");
      auto deployment = cr.string("jobDeploymentStatus");
      rule.ttl_seconds = static_cast<int32_t>(cr.integer("ttlSeconds", 0, kInt32Max).value_or(0));
      cr.reject_unknown();
      rule.job_status = status.value_or("");
      rule.job_deployment_status = deployment.value_or("");
      if (status && *status != "SUCCEEDED" && *status != "FAILED")
        add_error(errs, cr.child("jobStatus"), "schema:enum", "must be SUCCEEDED or FAILED, not \"" + *status + "\"",
                  "crd:ray.io/v1/RayJob");
      if (deployment && *deployment != "Failed")
        add_error(errs, cr.child("jobDeploymentStatus"), "schema:enum", "must be Failed, not \"" + *deployment + "\"",
                  "crd:ray.io/v1/RayJob");
      if (cr.is_object() && status.has_value() == deployment.has_value())
        add_error(errs, cr.path(), "DeletionCondition",
                  status ? "names both jobStatus and jobDeploymentStatus; give one"
                         : "needs jobStatus or jobDeploymentStatus",
                  "kuberay:validateDeletionCondition");
    } else if (r.is_object()) {
      add_error(errs, r.child("condition"), "schema:required",
                "is required (jobStatus or jobDeploymentStatus, and "
                "ttlSeconds)",
                "crd:ray.io/v1/RayJob");
    }
    r.reject_unknown();
    if (r.is_object()) out.push_back(std::move(rule));
  }
  return out;
}

// spec.job.entrypointResources: Ray resource name -> amount, written as the JSON text KubeRay passes to
// `ray job submit --entrypoint-resources`.
std::vector<std::pair<std::string, double>> read_entrypoint_resources(const json::Value& v, const std::string& at,
                                                                      FieldErrors& errs) {
  std::vector<std::pair<std::string, double>> out;
  if (!expect_type(v, v.IsObject(), "an object of numbers", at, errs)) return out;
  for (const auto& m : v.GetObject()) {
    std::string key(m.name.GetString(), m.name.GetStringLength());
    const std::string p = key_path(at, key);
    if (!expect_type(m.value, m.value.IsNumber(), "a number", p, errs)) continue;
    if (m.value.GetDouble() < 0) add_error(errs, p, "schema:minimum", "must not be negative");
    out.emplace_back(std::move(key), m.value.GetDouble());
  }
  return out;
}

// A non-negative number member (entrypointNumCpus, entrypointNumGpus).
std::optional<double> read_amount(FieldReader& r, std::string_view key, FieldErrors& errs) {
  const json::Value* v = r.get(key);
  if (!v) return std::nullopt;
  if (!expect_type(*v, v->IsNumber(), "a number", r.child(key), errs)) return std::nullopt;
  if (v->GetDouble() < 0) add_error(errs, r.child(key), "schema:minimum", "must not be negative");
  return v->GetDouble();
}

// spec.job.submitter: the template and topology of the submitter Pod and its Job's backoffLimit.
SubmitterSpec read_submitter(const json::Value& v, const std::string& at, bool existing_cluster, FieldErrors& errs) {
  SubmitterSpec sub;
  FieldReader r(v, at, errs);
  if (const json::Value* t = r.get("template")) {
    sub.template_ = parse_pod_template(*t, r.child("template"), TemplateScope{}, errs);
    // With clusterSelector there is no cluster spec to take the submitter's image from (KubeRay reads the existing
    // cluster's head image then): the template must name it.
    bool has_image = false;
    if (const json::Value* cs = json::find_path(*t, "spec.containers"); cs && cs->IsArray())
      for (const auto& c : cs->GetArray())
        has_image = has_image || (json::get_string(c, "name") == kSubmitterContainerName && json::find(c, "image"));
    if (existing_cluster && sub.template_ && !has_image)
      add_error(errs, r.child("template"), "SubmitterImage",
                "with clusterSelector, give the image of the container ray-job-submitter (no cluster spec here to "
                "take the head's image from)");
  }
  if (const json::Value* t = r.get("topology")) sub.topology = parse_topology(*t, r.child("topology"), errs);
  check_topology_pod_count(sub.topology, 1, r.child("topology"), errs);
  if (auto b = r.integer("backoffLimit", 0, kInt32Max)) sub.backoff_limit = static_cast<int32_t>(*b);
  r.reject_unknown();
  return sub;
}

// KubeRay v1.7: only K8sJobMode runs a submitter Pod; SidecarMode refuses submitterPodTemplate and submitterConfig
// (ValidateRayJobSpec), and in HTTPMode and InteractiveMode no submitter exists to shape.
void SubmitterMode(const JobView& v, const json::Value* submitter, FieldErrors& errs) {
  if (!submitter || v.job.mode() == "K8sJobMode") return;
  add_error(errs, v.at("submitter"), "SubmitterMode",
            v.job.mode() == "SidecarMode"
                ? "SidecarMode submits from a container of the head Pod: shape it with spec.head.template"
                : v.job.mode() + " runs no submitter Pod",
            kRayJobSpecSource);
}

// KubeRay validateDeletionConfiguration: deletionRules and shutdownAfterJobFinishes exclude each other (TTL and
// rules too, since a TTL needs shutdownAfterJobFinishes).
void DeletionRulesShutdown(const JobView& v, FieldErrors& errs) {
  if (!v.job.deletion_rules.empty() && v.shutdown_given.value_or(false))
    add_error(errs, v.at("shutdownAfterJobFinishes"), "DeletionRulesShutdown",
              "must be false (or unset) with spec.job.deletionRules, which decide what is deleted and when",
              "kuberay:validateDeletionConfiguration");
}

// batch/v1 ValidateJobSpec (the submitter runs as a Kubernetes Job that KubeRay creates): the Pod template's
// restartPolicy is Never or OnFailure. The submitter's template takes it from spec.job.submitter.template, else from
// spec.template, else KubeRay's default (Never); Always would have every submitter Job refused when KubeRay creates it.
void SubmitterRestartPolicy(const JobView& v, const json::Value* submitter, FieldErrors& errs) {
  if (v.job.mode() != "K8sJobMode") return;
  const json::Value* own = submitter ? json::find_path(*submitter, "template.spec.restartPolicy") : nullptr;
  const json::Value* all = v.selector_given ? nullptr : json::find_path(v.spec, "template.spec.restartPolicy");
  const json::Value* policy = own ? own : all;
  if (!policy || !policy->IsString() || std::string_view(policy->GetString()) != "Always") return;
  add_error(errs,
            own ? v.at("submitter") + ".template.spec.restartPolicy" : v.spec_at("template") + ".spec.restartPolicy",
            "SubmitterRestartPolicy",
            "the submitter runs as a Kubernetes Job, whose Pods restart Never or OnFailure, not Always" +
                std::string(own ? ""
                                : " (spec.template reaches the submitter's Pod too; set the submitter's own "
                                  "restartPolicy in spec.job.submitter.template)"),
            "batch/v1:ValidateJobSpec (KubeRay's submitter Job)");
}

// Ours: InteractiveMode waits for the user to submit the job, so the entrypoint is optional there and required
// elsewhere.
void Entrypoint(const JobView& v, bool given, FieldErrors& errs) {
  if (!given && v.job.mode() != "InteractiveMode")
    add_error(errs, v.at("entrypoint"), "schema:required",
              "is required (the command the job runs), except with submissionMode InteractiveMode");
}
}  // namespace

std::optional<JobSpec> parse_job(const json::Value& job, const json::Value& spec, const std::string& path,
                                 FieldErrors& errs) {
  FieldReader r(job, path, errs);
  if (!r.is_object()) return std::nullopt;
  JobSpec j;
  auto entrypoint = r.string("entrypoint");
  if (entrypoint && entrypoint->empty())
    add_error(errs, r.child("entrypoint"), "schema:minLength", "must not be empty");
  j.entrypoint = entrypoint.value_or("");
  j.runtime_env_yaml = r.string("runtimeEnvYAML").value_or("");
  if (!j.runtime_env_yaml.empty()) RuntimeEnvYAML(j.runtime_env_yaml, r.child("runtimeEnvYAML"), errs);
  const std::optional<bool> shutdown = r.boolean("shutdownAfterJobFinishes");
  j.ttl_seconds_after_finished = static_cast<int32_t>(r.integer("ttlSecondsAfterFinished", 0, kInt32Max).value_or(0));
  if (auto d = r.integer("activeDeadlineSeconds", 1, kInt32Max)) j.active_deadline_seconds = static_cast<int32_t>(*d);
  const json::Value* selector = r.object("clusterSelector");
  if (selector) j.cluster_selector = read_selector(*selector, r.child("clusterSelector"), errs);
  if (auto m = r.string("submissionMode")) {
    if (std::find(kSubmissionModes.begin(), kSubmissionModes.end(), *m) == kSubmissionModes.end())
      add_error(errs, r.child("submissionMode"), "schema:enum",
                "must be K8sJobMode, HTTPMode, SidecarMode or InteractiveMode, not \"" + *m + "\"",
                "crd:ray.io/v1/RayJob");
    else
      j.submission_mode = *m;
  }
  if (auto b = r.integer("backoffLimit", 0, kInt32Max)) j.backoff_limit = static_cast<int32_t>(*b);
  const json::Value* submitter = r.get("submitter");
  if (submitter) j.submitter = read_submitter(*submitter, r.child("submitter"), selector != nullptr, errs);
  if (const json::Value* x = r.get("deletionRules"))
    j.deletion_rules = read_deletion_rules(*x, r.child("deletionRules"), errs);
  if (auto d = r.integer("preRunningDeadlineSeconds", 1, kInt32Max))
    j.pre_running_deadline_seconds = static_cast<int32_t>(*d);
  j.entrypoint_num_cpus = read_amount(r, "entrypointNumCpus", errs);
  j.entrypoint_num_gpus = read_amount(r, "entrypointNumGpus", errs);
  if (const json::Value* x = r.get("entrypointResources"))
    j.entrypoint_resources = read_entrypoint_resources(*x, r.child("entrypointResources"), errs);
  if (const json::Value* x = r.object("metadata")) j.metadata = read_selector(*x, r.child("metadata"), errs);
  j.job_id = r.string("jobId").value_or("");
  r.reject_unknown();

  // A new cluster is the job's own and goes when the job is done (a Kueue-managed RayJob must shut down); an existing
  // cluster is not the job's to delete, and deletion rules take over the decision when given.
  j.shutdown_after_job_finishes = shutdown.value_or(selector == nullptr && j.deletion_rules.empty());

  const JobView v{spec, parent_path(path), path, j, selector, selector != nullptr, shutdown};
  ClusterSelector(v, errs);
  ExistingClusterFields(v, errs);
  ClusterSelectorSuspend(v, errs);
  ClusterSelectorShutdown(v, errs);
  TTLSecondsAfterFinished(v, errs);
  SuspendNeedsShutdown(v, errs);
  JobInAppWrapper(v, errs);
  SubmitterMode(v, submitter, errs);
  DeletionRulesShutdown(v, errs);
  Entrypoint(v, entrypoint.has_value(), errs);
  SubmitterRestartPolicy(v, submitter, errs);
  return j;
}

}  // namespace cfo::workload
