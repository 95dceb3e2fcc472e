#include "workload/build_raycluster.hpp"

#include "core/field_error.hpp"
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
  o.version = a.version;
  o.image = a.image;
  return o;
}

// num-cpus, num-gpus and resources, derived from the container's resources as the SDK derives them.
void add_resource_params(const ResourceRequirements& r, const std::vector<ResourceMapping>& mapping,
                         std::map<std::string, std::string>& params) {
  if (const Quantity* cpu = r.limits.find("cpu")) params["num-cpus"] = num_cpus_param(*cpu);
  params["num-gpus"] = num_gpus_param(r.requests, mapping);
  params["resources"] = resources_param(r.requests, mapping);
}

// The Pod fields of the head or of one worker group, with that group's path in the workload ("spec.head").
struct Group {
  const PodFields& pod;
  std::string path;
};

// spec.env, then the group's env merged by name (a spec.env name is replaced in place, others follow), then
// RAY_USAGE_STATS_ENABLED, "1" with spec.usageStats and "0" otherwise (the SDK always sets it, after the user's envs).
// Parsing refuses a user variable of that name, so the list-map key stays unique. Records where the group's entries
// went (`origins`, relative to the template).
std::vector<EnvVar> container_env(const WorkloadSpec& s, const Group& g, PathOrigins& origins) {
  std::vector<EnvVar> env = s.env;
  for (std::size_t j = 0; j < g.pod.env.size(); ++j) {
    const EnvVar& e = g.pod.env[j];
    std::size_t k = 0;
    while (k < env.size() && env[k].name != e.name) ++k;
    if (k == env.size())
      env.push_back(e);
    else
      env[k] = e;
    origins.push_back({index_path("spec.containers[0].env", k), index_path(g.path + ".env", j)});
  }
  env.push_back(EnvVar{"RAY_USAGE_STATS_ENABLED", s.usage_stats ? "1" : "0", std::nullopt});
  return env;
}

Container ray_container(const WorkloadSpec& s, std::string name, const ResourceRequirements& resources, const Group& g,
                        PathOrigins& origins) {
  Container c;
  c.name = std::move(name);
  c.image = g.pod.image.empty() ? s.image : g.pod.image;
  if (!g.pod.image.empty()) origins.push_back({"spec.containers[0].image", g.path + ".image"});
  c.image_pull_policy = "Always";  // codeflare-sdk: imagePullPolicy Always on head and workers
  c.pre_stop_command = {"/bin/sh", "-c", "ray stop"};
  c.resources = resources;
  c.env = container_env(s, g, origins);
  c.volume_mounts = s.volume_mounts;
  if (s.odh_trusted_ca_bundle)  // after the user's mounts, as the SDK appends them
    for (const auto& m : odh_ca_bundle_mounts()) c.volume_mounts.push_back(m);
  return c;
}

// The Pod template of a group: the generated one, its labels and annotations (spec.annotations, then the group's,
// then the topology annotations), and the templates merged over it (spec.template, then the group's own).
PodTemplateSpec pod_template(const WorkloadSpec& s, Container c, const std::vector<Fragment>& tolerations,
                             const Group& g, PathOrigins origins) {
  PodTemplateSpec t;
  t.origins = std::move(origins);
  t.labels = g.pod.labels;
  for (const auto& [k, v] : g.pod.labels)
    t.origins.push_back({key_path("metadata.labels", k), key_path(g.path + ".labels", k)});
  t.annotations = s.annotations;
  for (const auto& [k, v] : g.pod.annotations) {
    t.annotations[k] = v;
    t.origins.push_back({key_path("metadata.annotations", k), key_path(g.path + ".annotations", k)});
  }
  for (const auto& [k, v] : g.pod.topology.annotations()) {
    t.annotations[k] = v;
    t.origins.push_back({key_path("metadata.annotations", k), g.path + ".topology"});
  }
  t.spec.containers.push_back(std::move(c));
  t.spec.volumes = s.volumes;
  if (s.odh_trusted_ca_bundle)
    for (const auto& v : odh_ca_bundle_volumes()) t.spec.volumes.push_back(v);
  t.spec.tolerations = tolerations;
  t.spec.image_pull_secrets = s.image_pull_secrets;
  add_template_overlays(s, g.pod.template_, g.path + ".template", t);
  return t;
}

HeadGroupSpec head_group(const WorkloadSpec& s) {
  HeadGroupSpec h;
  h.service_type = s.head.service_type;
  // codeflare-operator's RayCluster webhook rejects enableIngress: true (the OpenDataHub profile); on other clusters
  // KubeRay creates the dashboard's Ingress.
  h.enable_ingress = s.head.enable_ingress;
  h.ingress_options = s.head.ingress_options;
  // The user's extra parameters, then the derived ones (parsing refuses user keys that the operator derives).
  h.ray_start_params = s.head.ray_start_params;
  h.ray_start_params["dashboard-host"] = "0.0.0.0";
  h.ray_start_params["block"] = "true";
  add_resource_params(s.head.resources, s.resource_mapping, h.ray_start_params);
  const Group g{s.head.pod, "spec.head"};
  PathOrigins origins;
  Container c = ray_container(s, kHeadContainerName, s.head.resources, g, origins);
  // gcs, dashboard and client are the SDK's ports. 8080 is KubeRay's metrics endpoint (the head service and the
  // codeflare-operator's NetworkPolicy expose it); the SDK leaves it out, so Prometheus scraping by port name
  // would find nothing. Declaring it costs nothing.
  c.ports = {{"gcs", 6379}, {"dashboard", 8265}, {"client", 10001}, {"metrics", 8080}};
  h.template_ = pod_template(s, std::move(c), s.head.tolerations, g, std::move(origins));
  return h;
}

WorkerGroupSpec worker_group(const WorkloadSpec& s, const WorkerGroup& wg, std::size_t index) {
  WorkerGroupSpec w;
  w.group_name = wg.name;
  w.replicas = wg.replicas;
  w.min_replicas = wg.min_replicas;
  w.max_replicas = wg.max_replicas;
  w.suspend = wg.suspend;
  w.idle_timeout_seconds = wg.idle_timeout_seconds;
  w.ray_start_params = wg.ray_start_params;
  w.ray_start_params["block"] = "true";
  add_resource_params(wg.resources, s.resource_mapping, w.ray_start_params);
  const Group g{wg.pod, index_path("spec.workerGroups", index)};
  PathOrigins origins;
  Container c = ray_container(s, kWorkerContainerName, wg.resources, g, origins);
  w.template_ = pod_template(s, std::move(c), wg.tolerations, g, std::move(origins));
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
  if (placement.top_level && s.queue.multi_kueue) rc.spec.managed_by = kMultiKueueManager;
  return rc;
}

RayClusterSpec build_ray_cluster_spec(const Workload& w) {
  const WorkloadSpec& s = w.spec;
  RayClusterSpec spec;
  spec.ray_version = s.ray_version;
  spec.enable_in_tree_autoscaling = s.autoscaling.enabled;
  spec.autoscaler_options = autoscaler_options(s.autoscaling);
  spec.head_group_spec = head_group(s);
  for (std::size_t i = 0; i < s.worker_groups.size(); ++i)
    spec.worker_group_specs.push_back(worker_group(s, s.worker_groups[i], i));
  if (const auto& ft = s.gcs_fault_tolerance) {
    GcsFaultToleranceOptions o;
    o.redis_address = ft->redis_address;
    if (ft->redis_password) o.redis_password = SecretKeySelector{ft->redis_password->name, ft->redis_password->key};
    o.external_storage_namespace = ft->external_storage_namespace;
    spec.gcs_fault_tolerance_options = std::move(o);
  }
  if (const auto& auth = s.auth_options)
    spec.auth_options = RayAuthOptions{auth->mode, auth->secret_name, auth->enable_k8s_token_auth};
  spec.upgrade_strategy = s.upgrade_strategy;
  return spec;
}

void add_template_overlays(const WorkloadSpec& s, const std::optional<Fragment>& own, const std::string& own_path,
                           PodTemplateSpec& t) {
  if (s.template_)
    t.overlays.push_back(TemplateOverlay{
        *s.template_, "spec.template", {kHeadContainerName, kWorkerContainerName, kSubmitterContainerName}});
  if (own) t.overlays.push_back(TemplateOverlay{*own, own_path, {}});
}

}  // namespace cfo::workload
