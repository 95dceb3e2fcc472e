#include "workload/parse_autoscaling.hpp"

#include "workload/field_reader.hpp"
#include "workload/parse_pod_fragments.hpp"
#include "workload/parse_resources.hpp"
#include "workload/sdk_defaults.hpp"

namespace cfo::workload {

namespace {
constexpr int64_t kInt32Max = 2147483647;
constexpr const char* kSdkAutoscaling = "codeflare-sdk:ClusterConfiguration._validate_autoscaling";

void ignored(FieldErrors& errs, const std::string& path) {
  add_warning(errs, path, "AutoscalingSettingsIgnored",
              "has no effect while spec.autoscaling.enabled is false: no autoscaler runs");
}
}  // namespace

AutoscalingSpec parse_autoscaling(const json::Value& v, const std::string& path, FieldErrors& errs) {
  const SdkDefaults& d = sdk_defaults();
  AutoscalingSpec a;
  FieldReader r(v, path, errs);
  a.enabled = r.boolean("enabled").value_or(false);
  auto idle = r.integer("idleTimeoutSeconds", 0, kInt32Max);
  a.idle_timeout_seconds = static_cast<int32_t>(idle.value_or(d.autoscaler_idle_timeout_seconds));
  auto mode = r.string("upscalingMode");
  a.upscaling_mode = mode.value_or(d.autoscaler_upscaling_mode);
  if (mode && *mode != "Default" && *mode != "Aggressive" && *mode != "Conservative") {
    add_error(errs, r.child("upscalingMode"), "schema:enum",
              "must be Default, Aggressive or Conservative, not \"" + *mode + "\"", "crd:ray.io/v1/RayCluster");
    a.upscaling_mode = d.autoscaler_upscaling_mode;
  }
  const json::Value* res = r.get("resources");
  if (res) a.resources = parse_resources(*res, r.child("resources"), {}, errs);
  auto elastic = r.boolean("elasticJob");
  a.elastic_job = elastic.value_or(false);
  auto version = r.string("version");
  a.version = version.value_or("");
  if (version && *version != "v1" && *version != "v2") {
    add_error(errs, r.child("version"), "schema:enum", "must be v1 or v2, not \"" + *version + "\"",
              "crd:ray.io/v1/RayCluster");
    a.version.clear();
  }
  auto image = r.string("image");
  a.image = image.value_or("");
  if (image) check_image(a.image, r.child("image"), errs);
  r.reject_unknown();

  if (!a.enabled) {
    if (a.elastic_job)
      add_warning(errs, r.child("elasticJob"), "ElasticJobWithoutAutoscaling",
                  "ignored while spec.autoscaling.enabled is false: the kueue.x-k8s.io/elastic-job annotation is set "
                  "only on a cluster that scales");
    if (idle) ignored(errs, r.child("idleTimeoutSeconds"));
    if (mode) ignored(errs, r.child("upscalingMode"));
    if (res) ignored(errs, r.child("resources"));
    if (version) ignored(errs, r.child("version"));
    if (image) ignored(errs, r.child("image"));
  }
  return a;
}

void resolve_replicas(const ReplicaCounts& given, bool autoscaling, const std::string& path, WorkerGroup& g,
                      FieldErrors& errs) {
  const std::string min_path = join_path(path, "minReplicas");
  const std::string max_path = join_path(path, "maxReplicas");
  if (!autoscaling) {
    g.replicas = static_cast<int32_t>(given.replicas.value_or(sdk_defaults().default_worker_replicas));
    g.min_replicas = g.max_replicas = g.replicas;
    auto warn = [&](const std::optional<int64_t>& bound, const std::string& p, const char* field) {
      if (bound && *bound != g.replicas)
        add_warning(errs, p, "ReplicaBoundsIgnored",
                    std::string(field) + " " + std::to_string(*bound) +
                        " is ignored without spec.autoscaling.enabled: the group runs exactly replicas (" +
                        std::to_string(g.replicas) + ") workers",
                    kSdkAutoscaling);
    };
    warn(given.min_replicas, min_path, "minReplicas");
    warn(given.max_replicas, max_path, "maxReplicas");
    return;
  }

  if (!given.min_replicas || !given.max_replicas) {
    std::string missing = !given.min_replicas && !given.max_replicas ? "minReplicas and maxReplicas"
                          : !given.min_replicas                      ? "minReplicas"
                                                                     : "maxReplicas";
    add_error(
        errs, path, "AutoscalingReplicaBounds",
        "with spec.autoscaling.enabled every worker group needs minReplicas and maxReplicas; " + missing + " missing",
        kSdkAutoscaling);
    g.replicas = static_cast<int32_t>(given.replicas.value_or(given.min_replicas.value_or(0)));
    g.min_replicas = static_cast<int32_t>(given.min_replicas.value_or(g.replicas));
    g.max_replicas = static_cast<int32_t>(given.max_replicas.value_or(g.replicas));
    return;
  }
  g.min_replicas = static_cast<int32_t>(*given.min_replicas);
  g.max_replicas = static_cast<int32_t>(*given.max_replicas);
  g.replicas = static_cast<int32_t>(given.replicas.value_or(g.min_replicas));
  if (g.min_replicas > g.max_replicas) {
    add_error(errs, max_path, "ReplicasWithinBounds",
              "maxReplicas (" + std::to_string(g.max_replicas) + ") must not be less than minReplicas (" +
                  std::to_string(g.min_replicas) + ")",
              "kuberay:ValidateRayClusterSpec");
    return;
  }
  if (g.min_replicas > g.replicas)
    add_error(errs, min_path, "ReplicasWithinBounds",
              "minReplicas (" + std::to_string(g.min_replicas) + ") must not exceed replicas (" +
                  std::to_string(g.replicas) + ")");
  if (g.max_replicas < g.replicas)
    add_error(errs, max_path, "ReplicasWithinBounds",
              "maxReplicas (" + std::to_string(g.max_replicas) + ") must not be less than replicas (" +
                  std::to_string(g.replicas) + ")");
}

}  // namespace cfo::workload
