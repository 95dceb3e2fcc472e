#pragma once
// Reconciling a workload written as a YAML spec, for the tests of the API's fields.
#include <string>

#include "parse_test_util.hpp"
#include "workload/reconcile.hpp"

namespace cfo::workload::test {

/// A CodeFlareWorkload named `name` in namespace "team-a" (uid "uid-1", generation 1) whose spec is the YAML `spec`.
inline json::Document workload_doc(const std::string& spec, const std::string& name = "demo") {
  json::Document d =
      yaml_doc("apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: " + name +
               "\nspec: " + spec + "\n");
  set_identity(d);
  return d;
}

/// reconcile() of workload_doc(spec) at a fixed time.
inline Outcome reconcile_spec(const std::string& spec, const validation::SchemaSet& schemas,
                              const ClusterFacts& facts = {}, const Observed& observed = {}) {
  return reconcile(workload_doc(spec), observed, facts, schemas, "2026-01-01T00:00:00Z");
}

/// The Error finding at `path` with `rule` (any rule when empty), or nullptr.
inline const FieldError* error_at(const Outcome& out, const std::string& path, const std::string& rule = "") {
  for (const auto& e : out.errors)
    if (e.severity == Severity::Error && e.path == path && (rule.empty() || e.rule == rule)) return &e;
  return nullptr;
}

/// The last desired object (the top-level child).
inline const json::Value& top(const Outcome& out) { return out.desired.back(); }

/// Cluster facts with Kueue served (v1beta2) and "q" as the namespace's default LocalQueue.
inline ClusterFacts with_default_queue() {
  ClusterFacts f;
  f.kueue_version = "v1beta2";
  f.default_local_queue = "q";
  return f;
}

}  // namespace cfo::workload::test
