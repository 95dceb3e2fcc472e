#include "validation/rules/kueue_pod_sets.hpp"

#include <algorithm>
#include <cctype>

#include "validation/rules/appwrapper_pod_sets.hpp"
#include "core/field_error.hpp"
#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules {

namespace {

/// Requests of one container, pod or fixed part, per resource, with the field each amount comes from.
using Requests = std::map<std::string, PodSetRequest>;

/// A ResourceList (`requests` or `limits` map) at `path`, in Kueue units; unparsable quantities are left out (the
/// Pod rules report them).
Requests resource_list(const json::Value* list, const std::string& path) {
  Requests out;
  if (!list || !list->IsObject()) return out;
  for (auto it = list->MemberBegin(); it != list->MemberEnd(); ++it) {
    const std::string name = text(it->name);
    const std::string s = it->value.IsString() ? text(it->value) : it->value.IsNumber() ? json::dump(it->value) : "";
    auto q = Quantity::parse(s);
    if (!q) continue;
    out[name] = {std::max<int64_t>(0, kueue_value(name, *q)), key_path(path, name)};
  }
  return out;
}

/// A ResourceRequirements block: its requests, with limits standing in for the missing ones
/// (UseLimitsAsMissingRequestsInPod). `floor` (the Redis clean-up of a GCS fault tolerant head) is merged into the
/// requests first, keeping the larger value (MergeResourceListKeepMax).
Requests effective(const json::Value* resources, const std::string& path, const Requests& floor = {}) {
  const json::Value* req = resources ? object_at(*resources, "requests") : nullptr;
  const json::Value* lim = resources ? object_at(*resources, "limits") : nullptr;
  Requests out = resource_list(req, path + ".requests");
  for (const auto& [name, r] : floor) {
    auto it = out.find(name);
    if (it == out.end())
      out[name] = r;
    else if (r.amount > it->second.amount)
      it->second.amount = r.amount;
  }
  for (auto& [name, r] : resource_list(lim, path + ".limits"))
    if (!out.count(name)) out[name] = r;
  return out;
}

void add_to(Requests& sum, const Requests& more) {
  for (const auto& [name, r] : more) {
    auto& s = sum[name];
    if (r.amount > s.amount || s.path.empty()) s.path = r.path;  // the largest part names the resource
    s.amount += r.amount;
  }
}

void max_into(Requests& acc, const Requests& other) {
  for (const auto& [name, r] : other) {
    auto it = acc.find(name);
    if (it == acc.end() || r.amount > it->second.amount) acc[name] = r;
  }
}

/// What the pod template adds besides its own containers.
struct Extras {
  Requests first_container_floor;    // merged into containers[0]'s requests (Redis clean-up)
  std::vector<Requests> containers;  // appended containers (autoscaler sidecar, sidecar submitter)
  bool sidecars_as_init = false;     // AppWrapper's copy drops initContainers[].restartPolicy
};

/// resource.PodRequests of a PodSpec at `spec_path`, after UseLimitsAsMissingRequestsInPod.
Requests pod_requests(const json::Value& spec, const std::string& spec_path, const Extras& extras) {
  Requests total;
  if (const json::Value* cs = array_at(spec, "containers"))
    for (rapidjson::SizeType i = 0; i < cs->Size(); ++i) {
      const std::string cp = index_path(spec_path + ".containers", i) + ".resources";
      const json::Value* res = object_at((*cs)[i], "resources");
      add_to(total, effective(res, cp, i == 0 ? extras.first_container_floor : Requests{}));
    }
  for (const auto& extra : extras.containers) add_to(total, extra);
  Requests restartable, init_max;
  if (const json::Value* ics = array_at(spec, "initContainers"))
    for (rapidjson::SizeType i = 0; i < ics->Size(); ++i) {
      const json::Value& c = (*ics)[i];
      Requests r = effective(object_at(c, "resources"), index_path(spec_path + ".initContainers", i) + ".resources");
      if (!extras.sidecars_as_init && string_at(c, "restartPolicy") == "Always") {
        add_to(total, r);
        add_to(restartable, r);
        max_into(init_max, restartable);
      } else {
        Requests with_sidecars = restartable;
        add_to(with_sidecars, r);
        max_into(init_max, with_sidecars);
      }
    }
  max_into(total, init_max);
  // Pod-level resources (PodLevelResources): the pod's own requests stand for the resources they name.
  if (const json::Value* pr = object_at(spec, "resources")) {
    for (auto& [name, r] : effective(pr, spec_path + ".resources"))
      if (name == "cpu" || name == "memory") total[name] = r;
  }
  add_to(total, resource_list(object_at(spec, "overhead"), spec_path + ".overhead"));
  std::erase_if(total, [](const auto& kv) { return kv.second.amount <= 0; });
  return total;
}

/// A fixed ResourceRequirements of a container the operator adds, every amount named by `path`.
Requests fixed(std::initializer_list<std::pair<const char*, const char*>> requests, const std::string& path) {
  Requests out;
  for (const auto& [name, text_value] : requests)
    if (auto q = Quantity::parse(text_value)) out[name] = {kueue_value(name, *q), path};
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

int64_t int_or(const json::Value& obj, std::string_view key, int64_t fallback) {
  return int_at(obj, key).value_or(fallback);
}

/// utils.IsGCSFaultToleranceEnabled.
bool gcs_ft(const json::Value& cluster_spec, const json::Value& owner) {
  return object_at(cluster_spec, "gcsFaultToleranceOptions") ||
         annotation_of(owner, "ray.io/ft-enabled") == std::optional<std::string>("true");
}

/// raycluster BuildPodSets (+ the RayJob additions) for the RayClusterSpec at `cs_path`.
void ray_pod_sets(const json::Value& cs, const std::string& cs_path, const json::Value& owner,
                  const std::string& sidecar_submitter_path, std::vector<KueuePodSet>& out) {
  const json::Value* head = object_at(cs, "headGroupSpec");
  const json::Value* head_tmpl = head ? object_at(*head, "template") : nullptr;
  const json::Value* head_spec = head_tmpl ? object_at(*head_tmpl, "spec") : nullptr;
  if (!head_spec) return;
  Extras extras;
  const std::string head_path = cs_path + ".headGroupSpec.template";
  if (gcs_ft(cs, owner))
    extras.first_container_floor = fixed({{"cpu", "200m"}, {"memory", "256Mi"}}, cs_path + ".gcsFaultToleranceOptions");
  if (true_at(cs, "enableInTreeAutoscaling")) {
    const json::Value* opts = object_at(cs, "autoscalerOptions");
    const json::Value* res = opts ? object_at(*opts, "resources") : nullptr;
    extras.containers.push_back(
        res ? effective(res, cs_path + ".autoscalerOptions.resources")
            : fixed({{"cpu", "500m"}, {"memory", "512Mi"}}, cs_path + ".enableInTreeAutoscaling"));
  }
  if (!sidecar_submitter_path.empty())
    extras.containers.push_back(fixed({{"cpu", "500m"}, {"memory", "200Mi"}}, sidecar_submitter_path));
  out.push_back({"head", head_path, head_spec, 1, "", pod_requests(*head_spec, head_path + ".spec", extras)});
  out.back().metadata = object_at(*head_tmpl, "metadata");
  if (const json::Value* workers = array_at(cs, "workerGroupSpecs"))
    for (rapidjson::SizeType i = 0; i < workers->Size(); ++i) {
      const json::Value& g = (*workers)[i];
      const json::Value* t = object_at(g, "template");
      const json::Value* spec = t ? object_at(*t, "spec") : nullptr;
      if (!spec) continue;
      const std::string gp = index_path(cs_path + ".workerGroupSpecs", i);
      const int64_t replicas = int_or(g, "replicas", 0), hosts = int_or(g, "numOfHosts", 1);
      out.push_back({lower(string_at(g, "groupName").value_or("")), gp + ".template", spec,
                     hosts > 1 ? replicas * hosts : replicas, gp + ".replicas",
                     pod_requests(*spec, gp + ".template.spec", {})});
      out.back().metadata = object_at(*t, "metadata");
    }
}

void rayjob_pod_sets(const json::Value& job, std::vector<KueuePodSet>& out) {
  const json::Value* spec = object_at(job, "spec");
  const json::Value* cs = spec ? object_at(*spec, "rayClusterSpec") : nullptr;
  if (!cs) return;
  const std::string mode = string_at(*spec, "submissionMode").value_or("K8sJobMode");
  ray_pod_sets(*cs, "spec.rayClusterSpec", job, mode == "SidecarMode" ? "spec.submissionMode" : "", out);
  if (out.empty() || mode != "K8sJobMode") return;
  if (const json::Value* t = object_at(*spec, "submitterPodTemplate")) {
    const json::Value* ps = object_at(*t, "spec");
    if (ps)
      out.push_back({"submitter", "spec.submitterPodTemplate", ps, 1, "",
                     pod_requests(*ps, "spec.submitterPodTemplate.spec", {})});
    if (ps) out.back().metadata = object_at(*t, "metadata");
    return;
  }
  // KubeRay's default submitter (the requests Kueue copies from KubeRay's GetDefaultSubmitterContainer).
  out.push_back({"submitter", "spec.submissionMode", nullptr, 1, "",
                 fixed({{"cpu", "500m"}, {"memory", "200Mi"}}, "spec.submissionMode")});
}

void appwrapper_pod_sets(const json::Value& aw, std::vector<KueuePodSet>& out) {
  const json::Value* spec = object_at(aw, "spec");
  const json::Value* components = spec ? array_at(*spec, "components") : nullptr;
  if (!components) return;
  const json::Value* meta = object_at(aw, "metadata");
  const std::string name = meta ? string_at(*meta, "name").value_or("") : "";
  std::size_t index = 0;
  for (rapidjson::SizeType i = 0; i < components->Size(); ++i) {
    const json::Value& comp = (*components)[i];
    const json::Value* tmpl = member(comp, "template");
    if (!tmpl || !tmpl->IsObject()) continue;
    const std::string cp = index_path("spec.components", i);
    // The declared PodSets, else the inferred ones (EnsureComponentStatusInitialized).
    struct Declared {
      std::string path;
      int64_t replicas;
      std::string replicas_path;
    };
    std::vector<Declared> sets;
    const json::Value* declared = array_at(comp, "podSets");
    if (declared && !declared->Empty()) {
      for (rapidjson::SizeType j = 0; j < declared->Size(); ++j) {
        const std::string dp = index_path(cp + ".podSets", j);
        sets.push_back(
            {string_at((*declared)[j], "path").value_or(""), int_or((*declared)[j], "replicas", 1), dp + ".replicas"});
      }
    } else {
      for (const auto& p : infer_pod_sets(*tmpl).pod_sets) {
        // An inferred count comes from the template's own replicas field where it has one.
        std::string count_path;
        if (p.path.ends_with(".template") && p.path != "template") {
          const std::string owner = relative_to_template(p.path.substr(0, p.path.size() - 9));
          std::string why;
          if (resolve(*tmpl, p.path.substr(0, p.path.size() - 9) + ".replicas", why))
            count_path = cp + ".template." + owner + ".replicas";
        }
        sets.push_back({p.path, p.replicas.value_or(1), count_path});
      }
    }
    for (const auto& s : sets) {
      std::string why;
      const json::Value* pts = resolve(*tmpl, s.path, why);
      const json::Value* ps = pts ? object_at(*pts, "spec") : nullptr;
      if (!ps) continue;  // GetComponentPodSpecs skips a path that does not lead to a pod template
      const std::string rel = relative_to_template(s.path);
      const std::string tp = cp + ".template" + (rel.empty() ? "" : "." + rel);
      Extras extras;
      extras.sidecars_as_init = true;  // GetPodTemplateSpec copies no restartPolicy of init containers
      out.push_back({name + "-" + std::to_string(index++), tp, ps, s.replicas, s.replicas_path,
                     pod_requests(*ps, tp + ".spec", extras)});
      out.back().metadata = object_at(*pts, "metadata");
    }
  }
}

}  // namespace

int64_t kueue_value(std::string_view resource, const Quantity& q) {
  return resource == "cpu" ? q.milli_value() : q.value();
}

std::vector<KueuePodSet> kueue_pod_sets(const json::Value& job) {
  std::vector<KueuePodSet> out;
  const std::string av = string_at(job, "apiVersion").value_or("");
  const std::string kind = string_at(job, "kind").value_or("");
  if (av.starts_with("ray.io/") && kind == "RayCluster") {
    if (const json::Value* spec = object_at(job, "spec")) ray_pod_sets(*spec, "spec", job, "", out);
  } else if (av.starts_with("ray.io/") && kind == "RayJob") {
    rayjob_pod_sets(job, out);
  } else if (av.starts_with("workload.codeflare.dev/") && kind == "AppWrapper") {
    appwrapper_pod_sets(job, out);
  }
  return out;
}

}  // namespace cfo::validation::rules
