// Pod Security Standards on the Pods a generated object leads to, as their controllers create them: where the Pods of
// each kind come from (KubeRay's head and worker Pods with the autoscaler sidecar KubeRay adds, the RayJob submitter
// Job's Pod, the PodSets of other wrapped kinds), judged by pod_security_checks.cpp at the level of the profile.
#include "validation/rules/pod_security_checks.hpp"
#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules {

namespace {

bool group_is(const std::string& api_version, std::string_view group) {
  return api_version.starts_with(std::string(group) + "/");
}

pss::PodView template_view(const json::Value& tmpl, const std::string& path) {
  return pss::pod_view(object_at(tmpl, "spec"), object_at(tmpl, "metadata"), path + ".spec", path + ".metadata");
}

// The head and worker Pods of a RayClusterSpec at `path`. With enableInTreeAutoscaling, KubeRay (BuildPod ->
// BuildAutoscalerContainer) adds an "autoscaler" container to the head whose securityContext is
// autoscalerOptions.securityContext (none when unset). The workers' "wait-gcs-ready" init container copies the Ray
// container's securityContext: it adds nothing to judge.
void cluster_pods(const json::Value& cs, const std::string& path, PodSecurityLevel level, const Sink& sink) {
  if (const json::Value* head = object_at(cs, "headGroupSpec"))
    if (const json::Value* t = object_at(*head, "template")) {
      pss::PodView pod = template_view(*t, path + ".headGroupSpec.template");
      if (true_at(cs, "enableInTreeAutoscaling"))
        pod.containers.push_back({object_at(cs, "autoscalerOptions"), path + ".autoscalerOptions", "autoscaler"});
      pss::check_pod(pod, level, sink);
    }
  if (const json::Value* workers = array_at(cs, "workerGroupSpecs"))
    for (rapidjson::SizeType i = 0; i < workers->Size(); ++i)
      if (const json::Value* t = (*workers)[i].IsObject() ? object_at((*workers)[i], "template") : nullptr)
        pss::check_pod(template_view(*t, index_path(path + ".workerGroupSpecs", i) + ".template"), level, sink);
}

// A RayJob's Pods: its cluster's, and in K8sJobMode (the default) the submitter Job's Pod, built from
// submitterPodTemplate or, without one, from KubeRay's default template (one "ray-job-submitter" container with no
// securityContext, no pod securityContext).
void rayjob_pods(const json::Value& obj, PodSecurityLevel level, const Sink& sink) {
  const json::Value* spec = object_at(obj, "spec");
  if (!spec) return;
  if (const json::Value* cs = object_at(*spec, "rayClusterSpec")) cluster_pods(*cs, "spec.rayClusterSpec", level, sink);
  if (string_at(*spec, "submissionMode").value_or("K8sJobMode") != "K8sJobMode") return;
  if (const json::Value* t = object_at(*spec, "submitterPodTemplate")) {
    pss::check_pod(template_view(*t, "spec.submitterPodTemplate"), level, sink);
    return;
  }
  pss::PodView pod{nullptr, nullptr, "spec.submitterPodTemplate.spec", "spec.submitterPodTemplate.metadata", {}};
  pod.containers.push_back({nullptr, "spec.submitterPodTemplate.spec.containers[0]", "ray-job-submitter"});
  pss::check_pod(pod, level, sink);
}

}  // namespace

void validate_pod_security(const Scope& scope, const json::Value& obj, const Sink& sink) {
  const PodSecurityLevel level = scope.profile.pod_security;
  if (level == PodSecurityLevel::kPrivileged) return;
  const std::string api_version = string_at(obj, "apiVersion").value_or("");
  const std::string kind = string_at(obj, "kind").value_or("");
  if (group_is(api_version, "ray.io") && kind == "RayCluster") {
    if (const json::Value* spec = object_at(obj, "spec")) cluster_pods(*spec, "spec", level, sink);
  } else if (group_is(api_version, "ray.io") && kind == "RayJob") {
    rayjob_pods(obj, level, sink);
  }
}

void validate_pod_security_of(const Scope& scope, const json::Value& pod_spec, const json::Value* metadata,
                              const std::string& spec_path, const std::string& meta_path, const Sink& sink) {
  if (scope.profile.pod_security == PodSecurityLevel::kPrivileged) return;
  pss::check_pod(pss::pod_view(&pod_spec, metadata, spec_path, meta_path), scope.profile.pod_security, sink);
}

}  // namespace cfo::validation::rules
