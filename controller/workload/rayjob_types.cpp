#include "workload/rayjob_types.hpp"

namespace cfo::workload {

json::Value RayJob::to_json(json::Allocator& a) const {
  json::Value spec(rapidjson::kObjectType);
  spec.AddMember("entrypoint", json::str(entrypoint, a), a);
  if (!runtime_env_yaml.empty()) spec.AddMember("runtimeEnvYAML", json::str(runtime_env_yaml, a), a);
  spec.AddMember("shutdownAfterJobFinishes", shutdown_after_job_finishes, a);
  if (shutdown_after_job_finishes) spec.AddMember("ttlSecondsAfterFinished", ttl_seconds_after_finished, a);
  if (active_deadline_seconds) spec.AddMember("activeDeadlineSeconds", *active_deadline_seconds, a);
  if (suspend) spec.AddMember("suspend", true, a);  // never false: Kueue owns the field on a queued job
  if (ray_cluster_spec)
    spec.AddMember("rayClusterSpec", ray_cluster_spec->to_json(a), a);
  else if (!cluster_selector.empty())
    spec.AddMember("clusterSelector", string_map_to_json(cluster_selector, a), a);

  json::Value o(rapidjson::kObjectType);
  o.AddMember("apiVersion", json::str(kRayJobApiVersion, a), a);
  o.AddMember("kind", json::str(kRayJobKind, a), a);
  o.AddMember("metadata", metadata.to_json(a), a);
  o.AddMember("spec", std::move(spec), a);
  return o;
}

json::Document RayJob::to_json() const {
  json::Document d;
  json::Value v = to_json(d.GetAllocator());
  static_cast<json::Value&>(d).Swap(v);  // v lives in d's allocator
  return d;
}

}  // namespace cfo::workload
