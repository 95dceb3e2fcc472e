#include "workload/build_raycluster.hpp"

#include "workload/labels.hpp"
#include "workload/resource_mapping.hpp"

namespace cfo::workload {

namespace {
// codeflare-sdk build_ray_cluster.py: autoscalerOptions (always present, even with autoscaling off).
AutoscalerOptions sdk_autoscaler_options() {
  AutoscalerOptions o;
  o.upscaling_mode = "Default";
  o.idle_timeout_seconds = 60;
  for (ResourceList* l : {&o.resources.requests, &o.resources.limits}) {
    l->set("cpu", must_quantity("500m"));
    l->set("memory", must_quantity("512Mi"));
  }
  return o;
}

// num-cpus, num-gpus and resources, derived from the container's resources as the SDK derives them.
void add_resource_params(const ResourceRequirements& r, std::map<std::string, std::string>& params) {
  if (const Quantity* cpu = r.limits.find("cpu")) params["num-cpus"] = num_cpus_param(*cpu);
  params["num-gpus"] = num_gpus_param(r.requests);
  params["resources"] = resources_param(r.requests);
}

// User env first, then RAY_USAGE_STATS_ENABLED=0 (the SDK always injects it, "0" unless usage stats are enabled),
// unless the user set it: theirs wins rather than a duplicate list-map key.
std::vector<EnvVar> container_env(const WorkloadSpec& s) {
  std::vector<EnvVar> env = s.env;
  bool user_set = false;
  for (const auto& e : env) user_set = user_set || e.name == "RAY_USAGE_STATS_ENABLED";
  if (!user_set) env.push_back(EnvVar{"RAY_USAGE_STATS_ENABLED", "0", std::nullopt});
  return env;
}

Container ray_container(const WorkloadSpec& s, std::string name, const ResourceRequirements& resources) {
  Container c;
  c.name = std::move(name);
  c.image = s.image;
  c.image_pull_policy = "Always";  // codeflare-sdk: imagePullPolicy Always on head and workers
  c.pre_stop_command = {"/bin/sh", "-c", "ray stop"};
  c.resources = resources;
  c.env = container_env(s);
  c.volume_mounts = s.volume_mounts;
  return c;
}

PodTemplateSpec pod_template(const WorkloadSpec& s, Container c, const std::vector<Fragment>& tolerations) {
  PodTemplateSpec t;
  t.annotations = s.annotations;
  t.spec.containers.push_back(std::move(c));
  t.spec.volumes = s.volumes;
  t.spec.tolerations = tolerations;
  t.spec.image_pull_secrets = s.image_pull_secrets;
  return t;
}

HeadGroupSpec head_group(const WorkloadSpec& s) {
  HeadGroupSpec h;
  h.service_type = "ClusterIP";
  h.enable_ingress = false;  // codeflare-operator's RayCluster webhook rejects enableIngress: true
  h.ray_start_params = {{"dashboard-host", "0.0.0.0"}, {"block", "true"}};
  add_resource_params(s.head.resources, h.ray_start_params);
  Container c = ray_container(s, "ray-head", s.head.resources);
  // gcs, dashboard and client are the SDK's ports. 8080 is KubeRay's metrics endpoint (the head service and the
  // codeflare-operator's NetworkPolicy expose it); the SDK leaves it out, so Prometheus scraping by port name
  // would find nothing. Declaring it costs nothing.
  c.ports = {{"gcs", 6379}, {"dashboard", 8265}, {"client", 10001}, {"metrics", 8080}};
  h.template_ = pod_template(s, std::move(c), s.head.tolerations);
  return h;
}

WorkerGroupSpec worker_group(const WorkloadSpec& s, const WorkerGroup& g) {
  WorkerGroupSpec w;
  w.group_name = g.name;
  w.replicas = g.replicas;
  w.min_replicas = g.min_replicas;
  w.max_replicas = g.max_replicas;
  w.ray_start_params = {{"block", "true"}};
  add_resource_params(g.resources, w.ray_start_params);
  w.template_ = pod_template(s, ray_container(s, "machine-learning", g.resources), g.tolerations);
  return w;
}
}  // namespace

OwnerReference workload_owner_reference(const Workload& w) {
  return OwnerReference{kWorkloadApiVersion, kWorkloadKind, w.name, w.uid, true, true};
}

void set_workload_owner(ObjectMeta& meta, const Workload& w) {
  if (!w.uid.empty()) meta.owner_references.push_back(workload_owner_reference(w));
}

std::map<std::string, std::string> child_labels(const Workload& w) { return {{std::string(kWorkloadLabel), w.name}}; }

RayCluster build_ray_cluster(const Workload& w, const RayClusterPlacement& placement) {
  const WorkloadSpec& s = w.spec;
  RayCluster rc;
  rc.metadata.name = w.name;
  rc.metadata.namespace_ = w.namespace_;
  rc.metadata.labels = s.labels;  // user labels never carry the keys below (parse rejects reserved keys)
  rc.metadata.labels[std::string(kControllerToolsLabel)] = kControllerToolsValue;
  rc.metadata.labels[std::string(kRayClusterLabel)] = w.name;
  for (auto& [k, v] : child_labels(w)) rc.metadata.labels[k] = v;
  rc.metadata.annotations = s.annotations;
  if (placement.top_level) {
    for (const auto& [k, v] : placement.kueue_labels) rc.metadata.labels[k] = v;
    set_workload_owner(rc.metadata, w);
  }

  rc.spec.ray_version = s.ray_version;
  rc.spec.enable_in_tree_autoscaling = false;
  rc.spec.autoscaler_options = sdk_autoscaler_options();
  rc.spec.head_group_spec = head_group(s);
  for (const auto& g : s.worker_groups) rc.spec.worker_group_specs.push_back(worker_group(s, g));
  return rc;
}

}  // namespace cfo::workload
