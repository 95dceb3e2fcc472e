#pragma once
// A finding about one field of one object: the unit every check in the project reports.
#include <string>
#include <string_view>
#include <vector>

namespace cfo {

/// Severity of a finding. Warnings never change a verdict or an exit code.
enum class Severity { Error, Warning };

/// One finding. `path` is the field path in kubectl style (`spec.workerGroupSpecs[0].template.spec`),
/// `rule` the rule's id (`DNS1035Label`, `RequestsWithinLimits`, `schema:required`), `source` where a real
/// cluster enforces it (`kuberay:ValidateRayClusterSpec`, `core/v1:ValidateResourceRequirements`,
/// `crd:ray.io/v1/RayCluster`), and `reason` one line that says what is wrong.
struct FieldError {
  std::string path;
  std::string rule;
  std::string source;
  std::string reason;
  Severity severity = Severity::Error;
};

using FieldErrors = std::vector<FieldError>;

/// True when at least one finding is an error (not a warning).
inline bool has_errors(const FieldErrors& errs) {
  for (const auto& e : errs)
    if (e.severity == Severity::Error) return true;
  return false;
}

/// One line for a status condition, an event or an admission answer: "path: reason [Rule]" ("reason [Rule]" without a
/// path, no brackets without a rule). The upstream source is left to `validate` and the logs, for length.
inline std::string describe_finding(const FieldError& e) {
  std::string out = e.path.empty() ? e.reason : e.path + ": " + e.reason;
  if (!e.rule.empty()) out += " [" + e.rule + "]";
  return out;
}

/// Joins a parent path and a child field: join_path("spec", "image") == "spec.image"; join_path("", "spec") == "spec".
inline std::string join_path(const std::string& parent, const std::string& field) {
  return parent.empty() ? field : parent + "." + field;
}

/// Appends an index: index_path("spec.workerGroups", 2) == "spec.workerGroups[2]".
inline std::string index_path(const std::string& parent, std::size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

/// Appends a map key, quoting keys that are not plain identifiers, as kubectl does:
/// key_path("spec.resources.limits", "nvidia.com/gpu") == "spec.resources.limits[nvidia.com/gpu]",
/// key_path("spec.resources.limits", "memory") == "spec.resources.limits.memory".
std::string key_path(const std::string& parent, const std::string& key);

/// key_path() in place: appends `key` to `path` (a walker's path buffer, cut back to its old size after the child).
void append_key(std::string& path, std::string_view key);

/// index_path() in place: appends "[i]" to `path`.
void append_index(std::string& path, std::size_t i);

}  // namespace cfo
