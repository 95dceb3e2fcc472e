#pragma once
// Internal to cfo_validation: the PodSets of an AppWrapper component as the AppWrapper infers them
// (project-codeflare/appwrapper v1.2.1 pkg/utils/utils.go: InferPodSets and the path grammar of GetPodTemplateSpec).
// Shared by the AppWrapper webhook rules and the Kueue admissibility judgement.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace cfo::validation::rules {

/// A PodSet: where its pod template is (AppWrapper path grammar, starting at "template") and how many Pods.
struct PodSet {
  std::string path;
  std::optional<int64_t> replicas;  // nullopt: not known (not compared)
};

/// Resolves an AppWrapper path ("template.spec.workerGroupSpecs[0].template") inside a component template.
/// On failure returns nullptr and explains why in `why`.
const json::Value* resolve(const json::Value& tmpl, std::string_view path, std::string& why);

/// "template.spec.x" (AppWrapper path) -> field path "spec.x" relative to the template.
std::string relative_to_template(std::string_view aw_path);

/// True when the AppWrapper path resolves inside `tmpl`.
bool exists(const json::Value& tmpl, const std::string& aw_path);

/// What utils.InferPodSets gives for a component template.
struct Inference {
  bool known = false;  // the kind is one the AppWrapper infers PodSets for
  std::vector<PodSet> pod_sets;
  std::vector<std::string> bad_replicas;  // AppWrapper paths of replica counts that are not integers
};

/// AppWrapper utils.InferPodSets: the PodSets of the kinds it knows (RayCluster, RayJob, Pod, Deployment,
/// StatefulSet, Job, PyTorchJob, JobSet).
Inference infer_pod_sets(const json::Value& tmpl);

}  // namespace cfo::validation::rules
