#include "workload/rayjob_types.hpp"

namespace cfo::workload {

namespace {
// A number as JSON: a whole amount as an integer (1, not 1.0, so that it reads back the same through YAML).
json::Value amount_json(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v)) && v >= -9.0e15 && v <= 9.0e15)
    return json::Value(static_cast<int64_t>(v));
  return json::Value(v);
}
}  // namespace

json::Value RayJob::to_json(json::Allocator& a) const {
  json::Value spec(rapidjson::kObjectType);
  // Empty only in InteractiveMode; written as "" a server-side apply is refused ("null" is not a string).
  if (!entrypoint.empty()) spec.AddMember("entrypoint", json::str(entrypoint, a), a);
  if (!runtime_env_yaml.empty()) spec.AddMember("runtimeEnvYAML", json::str(runtime_env_yaml, a), a);
  spec.AddMember("shutdownAfterJobFinishes", shutdown_after_job_finishes, a);
  if (shutdown_after_job_finishes) spec.AddMember("ttlSecondsAfterFinished", ttl_seconds_after_finished, a);
  if (active_deadline_seconds) spec.AddMember("activeDeadlineSeconds", *active_deadline_seconds, a);
  if (backoff_limit) spec.AddMember("backoffLimit", *backoff_limit, a);
  if (!submission_mode.empty()) spec.AddMember("submissionMode", json::str(submission_mode, a), a);
  if (pre_running_deadline_seconds) spec.AddMember("preRunningDeadlineSeconds", *pre_running_deadline_seconds, a);
  if (entrypoint_num_cpus) spec.AddMember("entrypointNumCpus", amount_json(*entrypoint_num_cpus), a);
  if (entrypoint_num_gpus) spec.AddMember("entrypointNumGpus", amount_json(*entrypoint_num_gpus), a);
  if (!entrypoint_resources.empty()) spec.AddMember("entrypointResources", json::str(entrypoint_resources, a), a);
  if (!job_metadata.empty()) spec.AddMember("metadata", string_map_to_json(job_metadata, a), a);
  if (!job_id.empty()) spec.AddMember("jobId", json::str(job_id, a), a);
  if (!deletion_rules.empty()) {
    json::Value rules(rapidjson::kArrayType);
    for (const auto& r : deletion_rules) rules.PushBack(r.to_json(a), a);
    json::Value strategy(rapidjson::kObjectType);
    strategy.AddMember("deletionRules", std::move(rules), a);
    spec.AddMember("deletionStrategy", std::move(strategy), a);
  }
  if (submitter_backoff_limit) {
    json::Value config(rapidjson::kObjectType);
    config.AddMember("backoffLimit", *submitter_backoff_limit, a);
    spec.AddMember("submitterConfig", std::move(config), a);
  }
  if (!managed_by.empty()) spec.AddMember("managedBy", json::str(managed_by, a), a);
  if (suspend) spec.AddMember("suspend", true, a);  // never false: Kueue owns the field on a queued job
  if (ray_cluster_spec)
    spec.AddMember("rayClusterSpec", ray_cluster_spec->to_json(a), a);
  else if (!cluster_selector.empty())
    spec.AddMember("clusterSelector", string_map_to_json(cluster_selector, a), a);
  if (submitter_pod_template) spec.AddMember("submitterPodTemplate", submitter_pod_template->to_json(a), a);

  json::Value o(rapidjson::kObjectType);
  o.AddMember("apiVersion", json::str(kRayJobApiVersion, a), a);
  o.AddMember("kind", json::str(kRayJobKind, a), a);
  o.AddMember("metadata", metadata.to_json(a), a);
  o.AddMember("spec", std::move(spec), a);
  return o;
}

json::Value RayJobDeletionRule::to_json(json::Allocator& a) const {
  json::Value condition(rapidjson::kObjectType);
  if (!job_status.empty()) condition.AddMember("jobStatus", json::str(job_status, a), a);
  if (!job_deployment_status.empty())
    condition.AddMember("jobDeploymentStatus", json::str(job_deployment_status, a), a);
  if (ttl_seconds) condition.AddMember("ttlSeconds", ttl_seconds, a);
  json::Value o(rapidjson::kObjectType);
  o.AddMember("policy", json::str(policy, a), a);
  o.AddMember("condition", std::move(condition), a);
  return o;
}

void RayJob::collect_origins(PathOrigins& out) const {
  if (ray_cluster_spec) ray_cluster_spec->collect_origins("spec.rayClusterSpec", out);
  if (submitter_pod_template) submitter_pod_template->collect_origins("spec.submitterPodTemplate", out);
}

json::Document RayJob::to_json() const {
  json::Document d;
  json::Value v = to_json(d.GetAllocator());
  static_cast<json::Value&>(d).Swap(v);  // v lives in d's allocator
  return d;
}

}  // namespace cfo::workload
