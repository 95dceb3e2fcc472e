#include "validation/rules/appwrapper_pod_sets.hpp"

#include <algorithm>

#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules {

/// Resolves an AppWrapper path ("template.spec.workerGroupSpecs[0].template") inside a component template.
/// On failure returns nullptr and explains why in `why`.
const json::Value* resolve(const json::Value& tmpl, std::string_view path, std::string& why) {
  if (!path.starts_with("template")) {
    why = "the path must start with \"template\"";
    return nullptr;
  }
  std::string_view rest = path.substr(8);
  const json::Value* cur = &tmpl;
  while (!rest.empty()) {
    if (rest.front() == '[') {
      auto end = rest.find(']');
      auto idx = end == std::string_view::npos ? std::nullopt : parse_int(rest.substr(1, end - 1));
      if (!idx) {
        why = "bad index in " + std::string(rest);
        return nullptr;
      }
      if (!cur->IsArray() || *idx < 0 || *idx >= static_cast<int64_t>(cur->Size())) {
        why = "index [" + std::to_string(*idx) + "] does not exist";
        return nullptr;
      }
      cur = &(*cur)[static_cast<rapidjson::SizeType>(*idx)];
      rest.remove_prefix(end + 1);
    } else if (rest.front() == '.') {
      rest.remove_prefix(1);
      auto end = std::min(rest.find('.'), rest.find('['));
      std::string key(rest.substr(0, end));
      const json::Value* next = cur->IsObject() ? json::find(*cur, key) : nullptr;
      if (!next) {
        why = "field " + dq(key) + " does not exist";
        return nullptr;
      }
      cur = next;
      rest.remove_prefix(std::min(end, rest.size()));
    } else {
      why = "unexpected text " + dq(rest);
      return nullptr;
    }
  }
  return cur;
}

/// "template.spec.x" (AppWrapper path) -> field path "spec.x" relative to the template.
std::string relative_to_template(std::string_view aw_path) {
  aw_path.remove_prefix(std::min<std::size_t>(8, aw_path.size()));
  if (!aw_path.empty() && aw_path.front() == '.') aw_path.remove_prefix(1);
  return std::string(aw_path);
}

namespace {

/// A replica count read as the AppWrapper reads it: absent -> 1, a JSON integer -> its value, else an error.
struct Replicas {
  std::optional<int64_t> value;
  bool bad = false;
};
Replicas replicas_at(const json::Value& tmpl, const std::string& aw_path) {
  std::string why;
  const json::Value* v = resolve(tmpl, aw_path, why);
  if (!v) return {1, false};
  if (v->IsInt64()) return {v->GetInt64(), false};
  return {std::nullopt, true};
}

}  // namespace

bool exists(const json::Value& tmpl, const std::string& aw_path) {
  std::string why;
  return resolve(tmpl, aw_path, why) != nullptr;
}

static void infer_ray(const json::Value& tmpl, const std::string& prefix, Inference& inf) {
  inf.pod_sets.push_back({prefix + "headGroupSpec.template", 1});
  std::string why;
  const json::Value* workers = resolve(tmpl, prefix + "workerGroupSpecs", why);
  if (!workers || !workers->IsArray()) return;
  for (rapidjson::SizeType i = 0; i < workers->Size(); ++i) {
    const std::string group = prefix + "workerGroupSpecs[" + std::to_string(i) + "].";
    if (!exists(tmpl, group + "template")) continue;
    Replicas r = replicas_at(tmpl, group + "replicas");
    if (r.bad) inf.bad_replicas.push_back(group + "replicas");
    inf.pod_sets.push_back({group + "template", r.value});
  }
}

// AppWrapper utils.InferPodSets: the PodSets of the kinds it knows.
Inference infer_pod_sets(const json::Value& tmpl) {
  Inference inf;
  const std::string av = string_at(tmpl, "apiVersion").value_or("");
  const std::string kind = string_at(tmpl, "kind").value_or("");
  auto simple = [&](const std::string& path, const std::string& replicas_path) {
    inf.known = true;
    if (!exists(tmpl, path)) return;
    Replicas r = replicas_path.empty() ? Replicas{1, false} : replicas_at(tmpl, replicas_path);
    if (r.bad) inf.bad_replicas.push_back(replicas_path);
    inf.pod_sets.push_back({path, r.value});
  };
  if (av == "ray.io/v1" && kind == "RayCluster") {
    inf.known = true;
    infer_ray(tmpl, "template.spec.", inf);
  } else if (av == "ray.io/v1" && kind == "RayJob") {
    inf.known = true;
    infer_ray(tmpl, "template.spec.rayClusterSpec.", inf);
  } else if (av == "v1" && kind == "Pod") {
    simple("template", "");
  } else if (av == "apps/v1" && (kind == "Deployment" || kind == "StatefulSet")) {
    simple("template.spec.template", "template.spec.replicas");
  } else if (av == "batch/v1" && kind == "Job") {
    inf.known = true;
    int64_t replicas = 1;
    std::string why;
    if (const json::Value* p = resolve(tmpl, "template.spec.parallelism", why); p && p->IsInt64())
      replicas = p->GetInt64();
    if (const json::Value* c = resolve(tmpl, "template.spec.completions", why);
        c && c->IsInt64() && c->GetInt64() < replicas)
      replicas = c->GetInt64();
    inf.pod_sets.push_back({"template.spec.template", replicas});
  } else if (av == "kubeflow.org/v1" && kind == "PyTorchJob") {
    inf.known = true;
    for (const char* role : {"Master", "Worker"}) {
      const std::string prefix = std::string("template.spec.pytorchReplicaSpecs.") + role + ".";
      if (!exists(tmpl, prefix + "template")) continue;
      Replicas r = replicas_at(tmpl, prefix + "replicas");
      if (r.bad) inf.bad_replicas.push_back(prefix + "replicas");
      inf.pod_sets.push_back({prefix + "template", r.value});
    }
  } else if (av == "jobset.x-k8s.io/v1alpha2" && kind == "JobSet") {
    // One PodSet per replicated job; its Pod count depends on JobSet defaulting, so replicas are not compared.
    inf.known = true;
    std::string why;
    const json::Value* jobs = resolve(tmpl, "template.spec.replicatedJobs", why);
    if (jobs && jobs->IsArray())
      for (rapidjson::SizeType i = 0; i < jobs->Size(); ++i) {
        const std::string path = "template.spec.replicatedJobs[" + std::to_string(i) + "].template.spec.template";
        if (exists(tmpl, path)) inf.pod_sets.push_back({path, std::nullopt});
      }
  }
  return inf;
}

}  // namespace cfo::validation::rules
