#include "workload/build_raycluster.hpp"

#include "workload/labels.hpp"
#include "workload/odh_ca_bundle.hpp"
#include "workload/resource_mapping.hpp"

namespace cfo::workload {

namespace {
// codeflare-sdk build_ray_cluster.py: autoscalerOptions is always present, even with autoscaling off; its values come
// from spec.autoscaling, whose defaults are the SDK's (Default, 60 s, 500m / 512Mi).
AutoscalerOptions autoscaler_options(const AutoscalingSpec& a) {
  AutoscalerOptions o;
  o.upscaling_mode = a.upscaling_mode;
  o.idle_timeout_seconds = a.idle_timeout_seconds;
  o.resources = a.resources;
  return o;
}

// num-cpus, num-gpus and resources, derived from the container's resources as the SDK derives them.
void add_resource_params(const ResourceRequirements& r, const std::vector<ResourceMapping>& mapping,
                         std::map<std::string, std::string>& params) {
  if (const Quantity* cpu = r.limits.find("cpu")) params["num-cpus"] = num_cpus_param(*cpu);
  params["num-gpus"] = num_gpus_param(r.requests, mapping);
  params["resources"] = resources_param(r.requests, mapping);
}

// User env first, then RAY_USAGE_STATS_ENABLED, "1" with spec.usageStats and "0" otherwise (the SDK always sets it,
// after the user's envs). Parsing refuses a user variable of that name, so the list-map key stays unique.
std::vector<EnvVar> container_env(const WorkloadSpec& s) {
  std::vector<EnvVar> env = s.env;
  env.push_back(EnvVar{"RAY_USAGE_STATS_ENABLED", s.usage_stats ? "1" : "0", std::nullopt});
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
  if (s.odh_trusted_ca_bundle)  // after the user's mounts, as the SDK appends them
    for (const auto& m : odh_ca_bundle_mounts()) c.volume_mounts.push_back(m);
  return c;
}

PodTemplateSpec pod_template(const WorkloadSpec& s, Container c, const std::vector<Fragment>& tolerations) {
  PodTemplateSpec t;
  t.annotations = s.annotations;
  t.spec.containers.push_back(std::move(c));
  t.spec.volumes = s.volumes;
  if (s.odh_trusted_ca_bundle)
    for (const auto& v : odh_ca_bundle_volumes()) t.spec.volumes.push_back(v);
  t.spec.tolerations = tolerations;
  t.spec.image_pull_secrets = s.image_pull_secrets;
  return t;
}

HeadGroupSpec head_group(const WorkloadSpec& s) {
  HeadGroupSpec h;
  h.service_type = "ClusterIP";
  h.enable_ingress = false;  // codeflare-operator's RayCluster webhook rejects enableIngress: true
  // The user's extra parameters, then the derived ones (parsing refuses user keys that the operator derives).
  h.ray_start_params = s.head.ray_start_params;
  h.ray_start_params["dashboard-host"] = "0.0.0.0";
  h.ray_start_params["block"] = "true";
  add_resource_params(s.head.resources, s.resource_mapping, h.ray_start_params);
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
  w.ray_start_params = g.ray_start_params;
  w.ray_start_params["block"] = "true";
  add_resource_params(g.resources, s.resource_mapping, w.ray_start_params);
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

std::map<std::string, std::string> admitted_object_annotations(const WorkloadSpec& s) {
  std::map<std::string, std::string> out = s.annotations;
  if (s.autoscaling.enabled && s.autoscaling.elastic_job) out[std::string(kElasticJobAnnotation)] = "true";
  return out;
}

RayCluster build_ray_cluster(const Workload& w, const RayClusterPlacement& placement) {
  const WorkloadSpec& s = w.spec;
  RayCluster rc;
  rc.metadata.name = w.name;
  rc.metadata.namespace_ = w.namespace_;
  rc.metadata.labels = s.labels;  // user labels never carry the keys below (parse rejects reserved keys)
  rc.metadata.labels[std::string(kControllerToolsLabel)] = kControllerToolsValue;
  rc.metadata.labels[std::string(kRayClusterLabel)] = w.name;
  for (auto& [k, v] : child_labels(w)) rc.metadata.labels[k] = v;
  rc.metadata.annotations = placement.top_level ? admitted_object_annotations(s) : s.annotations;
  if (placement.top_level) {
    for (const auto& [k, v] : placement.kueue_labels) rc.metadata.labels[k] = v;
    set_workload_owner(rc.metadata, w);
  }

  rc.spec = build_ray_cluster_spec(w);
  // Only the top-level child carries the user's suspension; inside an AppWrapper the AppWrapper is suspended.
  rc.spec.suspend = placement.top_level && s.suspend;
  return rc;
}

RayClusterSpec build_ray_cluster_spec(const Workload& w) {
  const WorkloadSpec& s = w.spec;
  RayClusterSpec spec;
  spec.ray_version = s.ray_version;
  spec.enable_in_tree_autoscaling = s.autoscaling.enabled;
  spec.autoscaler_options = autoscaler_options(s.autoscaling);
  spec.head_group_spec = head_group(s);
  for (const auto& g : s.worker_groups) spec.worker_group_specs.push_back(worker_group(s, g));
  if (const auto& ft = s.gcs_fault_tolerance) {
    GcsFaultToleranceOptions o;
    o.redis_address = ft->redis_address;
    if (ft->redis_password) o.redis_password = SecretKeySelector{ft->redis_password->name, ft->redis_password->key};
    o.external_storage_namespace = ft->external_storage_namespace;
    spec.gcs_fault_tolerance_options = std::move(o);
  }
  return spec;
}

}  // namespace cfo::workload
