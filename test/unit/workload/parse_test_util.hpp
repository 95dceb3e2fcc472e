#pragma once
// Small helpers shared by the parse tests.
#include <string>

#include "core/field_error.hpp"
#include "test_support.hpp"
#include "workload/parse_workload.hpp"

namespace cfo::workload::test {

/// Parses a workload named `name` in namespace "team-a" whose spec is the YAML (flow or block) `spec`.
inline ParsedWorkload parse_spec(const std::string& spec, const std::string& name = "demo") {
  json::Document d =
      yaml_doc("apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: " + name +
               "\nspec: " + spec + "\n");
  set_identity(d);
  return parse_workload(d);
}

/// The first finding at `path` (and with `rule`, when given), or nullptr.
inline const FieldError* finding(const FieldErrors& errs, const std::string& path, const std::string& rule = "") {
  for (const auto& e : errs)
    if (e.path == path && (rule.empty() || e.rule == rule)) return &e;
  return nullptr;
}

/// All findings, one per line, for failure messages.
inline std::string dump(const FieldErrors& errs) {
  std::string out;
  for (const auto& e : errs)
    out += (e.severity == Severity::Error ? "E " : "W ") + e.path + " [" + e.rule + "] " + e.reason + "\n";
  return out;
}

}  // namespace cfo::workload::test
