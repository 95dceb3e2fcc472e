#include "workload/finding_paths.hpp"

#include <cctype>
#include <string_view>
#include <utility>
#include <vector>

namespace cfo::workload {

namespace {

// One step of a finding path: a member name, or an index ("[2]") / a quoted map key ("[nvidia.com/gpu]").
struct Step {
  std::string name;
  bool bracket = false;
};

std::vector<Step> split_path(std::string_view path) {
  std::vector<Step> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      auto close = path.find(']', i);
      if (close == std::string_view::npos) close = path.size();
      out.push_back({std::string(path.substr(i + 1, close - i - 1)), true});
      i = close + 1;
      continue;
    }
    auto end = path.find_first_of(".[", i);
    if (end == std::string_view::npos) end = path.size();
    out.push_back({std::string(path.substr(i, end - i)), false});
    i = end;
  }
  return out;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// True when the field at `path` exists in `obj` (a bracketed step is an index into an array, else a map key).
bool exists(const json::Value& obj, std::string_view path) {
  const json::Value* at = &obj;
  for (const auto& step : split_path(path)) {
    if (step.bracket && at->IsArray()) {
      if (!all_digits(step.name)) return false;
      std::size_t i = std::stoul(step.name);
      if (i >= at->Size()) return false;
      at = &(*at)[static_cast<rapidjson::SizeType>(i)];
    } else if (at->IsObject()) {
      at = json::find(*at, step.name);
      if (!at) return false;
    } else {
      return false;
    }
  }
  return true;
}

std::string join_steps(const std::vector<Step>& steps, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < steps.size(); ++i)
    out += steps[i].bracket ? "[" + steps[i].name + "]" : (out.empty() ? "" : ".") + steps[i].name;
  return out;
}

bool is(const std::vector<Step>& s, std::size_t i, std::string_view name, bool bracket = false) {
  return i < s.size() && s[i].bracket == bracket && s[i].name == name;
}

// A request the user left out where they wrote the limit (`resources.requests.cpu` with only `resources.limits.cpu`):
// the builder takes the limit as the request, as Kubernetes defaults a container's requests, so a finding on that
// request (an admissibility one: Kueue charges requests) names the limit the user wrote; nullopt otherwise.
std::optional<std::string> limit_standing_in(const std::string& request_path, const json::Value& workload) {
  std::vector<Step> s = split_path(request_path);
  const std::size_t n = s.size();
  if (n < 3 || !is(s, n - 3, "resources") || !is(s, n - 2, "requests")) return std::nullopt;
  s[n - 2].name = "limits";
  std::string limit = join_steps(s, 0);
  if (!exists(workload, limit)) return std::nullopt;
  return limit;
}

// Where the RayClusterSpec sits in a generated object of `kind`: the number of steps before it, or npos.
std::size_t cluster_spec_start(std::string_view kind, const std::vector<Step>& s) {
  if (kind == "RayCluster") return is(s, 0, "spec") ? 1 : std::string::npos;
  if (kind == "RayJob") return is(s, 0, "spec") && is(s, 1, "rayClusterSpec") ? 2 : std::string::npos;
  if (kind == "AppWrapper")  // spec.components[0].template.spec
    return is(s, 0, "spec") && is(s, 1, "components") && s.size() > 4 && s[2].bracket && is(s, 3, "template") &&
                   is(s, 4, "spec")
               ? 5
               : std::string::npos;
  return std::string::npos;
}

// The candidate spec path for a path inside one group of the RayClusterSpec (`rest` starts after headGroupSpec or
// workerGroupSpecs[g]); `group` is "spec.head" or "spec.workerGroups[g]".
std::optional<std::string> in_group(const std::vector<Step>& s, std::size_t i, const std::string& group) {
  if (is(s, i, "rayStartParams")) return group + "." + join_steps(s, i);
  if (is(s, i, "groupName")) return group + ".name";
  if (is(s, i, "replicas") || is(s, i, "minReplicas") || is(s, i, "maxReplicas")) return group + "." + s[i].name;
  for (const char* same : {"serviceType", "enableIngress", "ingressOptions", "suspend", "idleTimeoutSeconds"})
    if (is(s, i, same)) return group + "." + join_steps(s, i);
  if (!is(s, i, "template")) return std::nullopt;
  ++i;
  if (is(s, i, "metadata") && (is(s, i + 1, "labels") || is(s, i + 1, "annotations")))
    return "spec." + join_steps(s, i + 1);
  if (!is(s, i, "spec")) return std::nullopt;
  ++i;
  if (is(s, i, "volumes")) return "spec." + join_steps(s, i);
  if (is(s, i, "imagePullSecrets")) return "spec." + join_steps(s, i);
  if (is(s, i, "tolerations")) return group + "." + join_steps(s, i);
  // The Ray container is the first one of each group's Pod.
  if (!is(s, i, "containers") || !is(s, i + 1, "0", true)) return std::nullopt;
  i += 2;
  if (is(s, i, "env") || is(s, i, "volumeMounts")) return "spec." + join_steps(s, i);
  if (is(s, i, "image")) return std::string("spec.image");
  if (is(s, i, "resources")) return group + "." + join_steps(s, i);
  return std::nullopt;
}

// The candidate spec path for a member of the RayClusterSpec itself (not of a group) at step `i`.
std::optional<std::string> in_cluster_spec(const std::vector<Step>& s, std::size_t i) {
  if (is(s, i, "rayVersion")) return std::string("spec.rayVersion");
  if (is(s, i, "enableInTreeAutoscaling")) return std::string("spec.autoscaling.enabled");
  if (is(s, i, "autoscalerOptions") && i + 1 < s.size()) return "spec.autoscaling." + join_steps(s, i + 1);
  if (is(s, i, "authOptions") || is(s, i, "upgradeStrategy")) return "spec." + join_steps(s, i);
  if (is(s, i, "managedBy")) return std::string("spec.queue.multiKueue");
  if (is(s, i, "workerGroupSpecs") && i + 1 == s.size()) return std::string("spec.workerGroups");  // the whole list
  return std::nullopt;
}

// The candidate spec path for a member of a RayJob's spec outside rayClusterSpec (steps after "spec").
std::optional<std::string> in_job_spec(const std::vector<Step>& s, std::size_t i) {
  for (const char* same :
       {"entrypoint", "runtimeEnvYAML", "shutdownAfterJobFinishes", "ttlSecondsAfterFinished", "activeDeadlineSeconds",
        "backoffLimit", "submissionMode", "preRunningDeadlineSeconds", "entrypointNumCpus", "entrypointNumGpus",
        "entrypointResources", "metadata", "jobId", "clusterSelector"})
    if (is(s, i, same)) return "spec.job." + join_steps(s, i);
  if (is(s, i, "deletionStrategy") && is(s, i + 1, "deletionRules")) return "spec.job." + join_steps(s, i + 1);
  if (is(s, i, "submitterConfig") && is(s, i + 1, "backoffLimit"))
    return std::string("spec.job.submitter.backoffLimit");
  if (is(s, i, "managedBy")) return std::string("spec.queue.multiKueue");
  if (is(s, i, "suspend")) return std::string("spec.suspend");
  return std::nullopt;
}

// Rules of a generated object that report a fault the workload's own rule already reports under another name, at
// the same field (or, `anywhere`, at whichever field: one such fault per object): Kueue's limit of PodSets, judged on
// the CodeFlareWorkload (KueueMaxPodSets, which also counts a RayJob's submitter) and on the RayCluster or RayJob
// (MaxPodSets); a worker group named "submitter" (ReservedGroupName, PodSetNames); a queued RayJob that keeps its
// cluster (KueueJobShutdown, KueueShutdownAfterJobFinishes; the workload's rule names deletionRules when they are why).
struct SameFault {
  std::string_view child_rule, workload_rule;
  bool anywhere;
};
constexpr SameFault kSameFaults[] = {{"MaxPodSets", "KueueMaxPodSets", false},
                                     {"PodSetNames", "ReservedGroupName", false},
                                     {"KueueShutdownAfterJobFinishes", "KueueJobShutdown", true}};

// True when `prior` (a finding on the workload) already tells child finding `e`, whose field in the spec is `user`
// (none: told only by a rule of the same fault `anywhere`).
bool already_told(const FieldError& prior, const FieldError& e, const std::optional<std::string>& user) {
  if (prior.severity != e.severity) return false;
  const bool same_field = user && prior.path == *user;
  if (prior.rule == e.rule) return same_field;
  for (const auto& same : kSameFaults)
    if (e.rule == same.child_rule && prior.rule == same.workload_rule) return same.anywhere || same_field;
  return false;
}

}  // namespace

std::optional<std::string> spec_path_of(std::string_view kind, std::string_view child_path,
                                        const json::Value& workload) {
  const std::vector<Step> s = split_path(child_path);
  std::optional<std::string> candidate;
  std::string group;  // for a field of one group: "spec.head" or "spec.workerGroups[g]"
  // The Kueue labels come from spec.queue (a queue chosen by the namespace's default has no field of its own).
  if (is(s, 0, "metadata") && is(s, 1, "labels") && is(s, 2, "kueue.x-k8s.io/queue-name", true) && s.size() == 3) {
    candidate = "spec.queue.localQueue";
    if (!exists(workload, *candidate)) candidate = "spec.queue.clusterQueue";
  } else if (is(s, 0, "metadata") && is(s, 1, "labels") && is(s, 2, "kueue.x-k8s.io/priority-class", true) &&
             s.size() == 3) {
    candidate = "spec.queue.priorityClass";
  } else if (is(s, 0, "metadata") && (is(s, 1, "labels") || is(s, 1, "annotations"))) {
    candidate = "spec." + join_steps(s, 1);
  } else if (std::size_t i = cluster_spec_start(kind, s); i != std::string::npos) {
    if (is(s, i, "headGroupSpec"))
      group = "spec.head";
    else if (is(s, i, "workerGroupSpecs") && i + 1 < s.size() && s[i + 1].bracket)
      group = "spec.workerGroups[" + s[i + 1].name + "]";
    if (!group.empty())
      candidate = in_group(s, group == "spec.head" ? i + 1 : i + 2, group);
    else
      candidate = in_cluster_spec(s, i);
  } else if (kind == "RayJob" && is(s, 0, "spec")) {
    candidate = in_job_spec(s, 1);
  } else if (kind == "AppWrapper" && is(s, 0, "spec") && is(s, 1, "managedBy")) {
    candidate = "spec.queue.multiKueue";
  }
  if (!candidate) return std::nullopt;
  if (exists(workload, *candidate)) return candidate;
  if (auto limit = limit_standing_in(*candidate, workload)) return limit;
  // A field of a group the user did not write but should (a missing limit, tolerations for a flavor's taint, a
  // replica count left to its default) is named where it would go, when the group itself is written; list items
  // are not (an index the user's list does not have is the operator's own entry).
  if (group.empty() || !candidate->starts_with(group + ".")) return std::nullopt;
  const std::vector<Step> rest = split_path(std::string_view(*candidate).substr(group.size() + 1));
  for (const auto& step : rest)
    if (step.bracket && all_digits(step.name)) return std::nullopt;
  if (group != "spec.head" && !exists(workload, group)) return std::nullopt;
  const bool count = rest.size() == 1 &&
                     (rest[0].name == "replicas" || rest[0].name == "minReplicas" || rest[0].name == "maxReplicas");
  const bool tolerations = rest.size() == 1 && rest[0].name == "tolerations";
  // A resource missing from resources the user wrote (the SDK's defaults stay the operator's own).
  const bool resource = rest.size() == 3 && rest[0].name == "resources" && exists(workload, group + ".resources");
  return count || tolerations || resource ? candidate : std::nullopt;
}

std::optional<std::string> origin_path_of(const PathOrigins& origins, std::string_view child_path) {
  const std::vector<Step> path = split_path(child_path);
  const PathOrigin* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& o : origins) {
    const std::vector<Step> prefix = split_path(o.child);
    if (prefix.size() > path.size() || (best && prefix.size() < best_len)) continue;
    bool match = true;
    for (std::size_t i = 0; match && i < prefix.size(); ++i)
      match = prefix[i].name == path[i].name && prefix[i].bracket == path[i].bracket;
    if (!match) continue;
    best = &o;  // a later origin of the same length wins: it was merged last
    best_len = prefix.size();
  }
  if (!best) return std::nullopt;
  std::string rest = join_steps(path, best_len);
  if (rest.empty()) return best->source;
  return best->source + (rest.front() == '[' ? "" : ".") + rest;
}

void add_child_findings(FieldErrors found, std::string_view kind, const std::string& label, const json::Value& workload,
                        FieldErrors& errs, const PathOrigins& origins) {
  for (auto& e : found) {
    std::optional<std::string> user = origin_path_of(origins, e.path);
    if (!user) user = spec_path_of(kind, e.path, workload);
    bool told = false;
    for (const auto& prior : errs) told = told || already_told(prior, e, user);
    if (told) continue;
    e.path = user ? *user : label + ": " + e.path;
    errs.push_back(std::move(e));
  }
}

}  // namespace cfo::workload
