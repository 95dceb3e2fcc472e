#include "workload/build_rayjob.hpp"

#include <cstdio>
#include <cstdlib>

#include "core/field_error.hpp"

#include "workload/build_raycluster.hpp"
#include "workload/sdk_defaults.hpp"

namespace cfo::workload {

namespace {
// A number as JSON text: an integer without a fraction, else the shortest text that reads back the same.
std::string number_text(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v))) return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// spec.job.entrypointResources as the JSON object text KubeRay passes on ({"Custom":1,"TPU":0.5}), in the user's order.
std::string entrypoint_resources_text(const std::vector<std::pair<std::string, double>>& resources) {
  if (resources.empty()) return "";
  json::Document d;
  d.SetObject();
  std::string out = "{";
  for (const auto& [name, amount] : resources)
    out += (out.size() > 1 ? "," : "") + json::dump(json::str(name, d.GetAllocator())) + ":" + number_text(amount);
  return out + "}";
}

// KubeRay's default submitter Pod (v1.7.0 common/job.go GetSubmitterTemplate: one container ray-job-submitter with the
// head's image and the default resources, restartPolicy Never), with the submitter's topology annotations and the
// templates merged over it (spec.template, then spec.job.submitter.template). `image` is empty for a job on an
// existing cluster (parsing then requires the template to give it).
PodTemplateSpec submitter_template(const WorkloadSpec& s, const JobSpec& job, const std::string& image) {
  const ContainerDefaults& d = sdk_defaults().submitter;
  Container c;
  c.name = kSubmitterContainerName;
  c.image = image;
  c.resources.requests.set("cpu", must_quantity(d.cpu_request));
  c.resources.requests.set("memory", must_quantity(d.memory_request));
  c.resources.limits.set("cpu", must_quantity(d.cpu_limit));
  c.resources.limits.set("memory", must_quantity(d.memory_limit));
  PodTemplateSpec t;
  t.spec.containers.push_back(std::move(c));
  t.spec.restart_policy = "Never";
  for (const auto& [k, v] : job.submitter.topology.annotations()) {
    t.annotations[k] = v;
    t.origins.push_back({key_path("metadata.annotations", k), "spec.job.submitter.topology"});
  }
  const WorkloadSpec no_all;  // with an existing cluster spec.template is refused, and only the submitter's applies
  add_template_overlays(job.cluster_selector.empty() ? s : no_all, job.submitter.template_,
                        "spec.job.submitter.template", t);
  return t;
}

// The submitter Pod is written only where the workload shapes it: in K8sJobMode (the only mode with a submitter
// Pod), with spec.job.submitter.template, or, on a new cluster, with spec.template or a submitter topology. Otherwise
// KubeRay's default applies, as before these fields existed.
bool writes_submitter_template(const WorkloadSpec& s, const JobSpec& job) {
  if (job.mode() != "K8sJobMode") return false;
  if (job.submitter.template_) return true;
  return job.cluster_selector.empty() && (s.template_ || !job.submitter.topology.empty());
}
}  // namespace

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
  j.backoff_limit = job.backoff_limit;
  j.submission_mode = job.submission_mode;
  j.pre_running_deadline_seconds = job.pre_running_deadline_seconds;
  j.entrypoint_num_cpus = job.entrypoint_num_cpus;
  j.entrypoint_num_gpus = job.entrypoint_num_gpus;
  j.entrypoint_resources = entrypoint_resources_text(job.entrypoint_resources);
  j.job_metadata = job.metadata;
  j.job_id = job.job_id;
  for (const auto& r : job.deletion_rules)
    j.deletion_rules.push_back(RayJobDeletionRule{r.policy, r.job_status, r.job_deployment_status, r.ttl_seconds});
  j.submitter_backoff_limit = job.submitter.backoff_limit;
  if (s.queue.multi_kueue) j.managed_by = kMultiKueueManager;
  if (writes_submitter_template(s, job)) {
    std::string image;
    if (j.ray_cluster_spec && !j.ray_cluster_spec->head_group_spec.template_.spec.containers.empty())
      image = j.ray_cluster_spec->head_group_spec.template_.spec.containers[0].image;
    j.submitter_pod_template = submitter_template(s, job, image);
  }
  return j;
}

}  // namespace cfo::workload
