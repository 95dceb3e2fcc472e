#include "workload/build_rayjob.hpp"

#include "workload/build_raycluster.hpp"

namespace cfo::workload {

RayJob build_ray_job(const Workload& w, const std::map<std::string, std::string>& kueue_labels) {
  const WorkloadSpec& s = w.spec;
  const JobSpec job = s.job.value_or(JobSpec{});

  RayJob j;
  j.metadata.name = w.name;
  j.metadata.namespace_ = w.namespace_;
  // Later sources win; parse rejects user labels with the operator's and Kueue's keys, so nothing is overridden.
  j.metadata.labels = child_labels(w);
  for (const auto& [k, v] : s.labels) j.metadata.labels[k] = v;
  for (const auto& [k, v] : kueue_labels) j.metadata.labels[k] = v;
  j.metadata.annotations = admitted_object_annotations(s);
  set_workload_owner(j.metadata, w);

  j.entrypoint = job.entrypoint;
  j.runtime_env_yaml = job.runtime_env_yaml;
  j.shutdown_after_job_finishes = job.shutdown_after_job_finishes;
  j.ttl_seconds_after_finished = job.ttl_seconds_after_finished;
  j.active_deadline_seconds = job.active_deadline_seconds;
  j.suspend = s.suspend;
  if (job.cluster_selector.empty())
    j.ray_cluster_spec = build_ray_cluster_spec(w);
  else
    j.cluster_selector = job.cluster_selector;
  return j;
}

}  // namespace cfo::workload
