#pragma once
// Helpers for the cfo_workload tests: project files, YAML loading and the upstream CRD schemas.
#include <string>
#include <vector>

#include "core/json.hpp"
#include "test_files.hpp"
#include "validation/schema_set.hpp"

namespace cfo::workload::test {

// Project files and YAML: cfo_test_support's.
using test_support::read_text;
using test_support::source_dir;
using test_support::yaml_doc;

/// A sample from config/samples, with metadata.namespace "team-a", uid "uid-1" and generation 1 added.
json::Document sample(const std::string& file);

/// Paths of the *.yaml files in a project folder, sorted.
std::vector<std::string> yaml_files(const std::string& dir);

/// Schemas of the upstream CRDs from $UPSTREAM_CRDS/upstream, loaded once; nullptr when UPSTREAM_CRDS is unset.
const validation::SchemaSet* upstream_schemas();

/// Adds (or replaces) metadata.namespace, uid and generation of a workload object.
void set_identity(json::Document& d, const std::string& ns = "team-a", const std::string& uid = "uid-1",
                  int64_t generation = 1);

/// Walks a path of object keys and array indices, e.g. at(d, {"spec", "workerGroupSpecs", 0, "groupName"}).
struct Step {
  Step(const char* k) : key(k) {}
  Step(int i) : index(i) {}
  const char* key = nullptr;
  int index = -1;
};
const json::Value& at(const json::Value& v, std::initializer_list<Step> path);

}  // namespace cfo::workload::test

/// Skips the test unless UPSTREAM_CRDS is set, and binds `schemas` to the loaded SchemaSet.
#define CFO_REQUIRE_SCHEMAS(schemas)                                                                   \
  const ::cfo::validation::SchemaSet* schemas##_ptr = ::cfo::workload::test::upstream_schemas();       \
  if (!schemas##_ptr) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRD schemas are needed"; \
  const ::cfo::validation::SchemaSet& schemas = *schemas##_ptr
