#pragma once
// Shared helpers for unit_validation. Data folders come from the environment:
//   UPSTREAM_CRDS  (upstream/ with the CRDs), CFO_SHARED_DIR (samples/, cases/).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/field_error.hpp"
#include "core/json.hpp"
#include "test_files.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::test {

// $UPSTREAM_CRDS / $CFO_SHARED_DIR (nullopt when unset or empty): cfo_test_support's.
using test_support::shared_dir;
using test_support::upstream_crds_dir;

/// The SchemaSet of $UPSTREAM_CRDS/upstream (cfo_test_support's, loaded once per process); nullptr when
/// UPSTREAM_CRDS is unset. A load failure fails the calling test.
const validation::SchemaSet* upstream_schemas();

/// The first document of a YAML text (the test fails if it does not parse).
json::Document yaml1(std::string_view text);
/// All documents of a YAML file.
std::vector<json::Document> yaml_file(const std::string& path);

/// A CustomResourceDefinition of group example.com, kind `kind` (plural: lower case + "s"), with one served and
/// stored version v1. Its openAPIV3Schema is an object whose properties are apiVersion, kind and metadata plus those
/// of `properties_yaml` (a YAML map, e.g. "spec: {type: object, ...}"); the members of `root_yaml` (a YAML map, e.g.
/// root-level x-kubernetes-validations) are added to that root schema. `version_yaml` (a YAML map) is merged into
/// the version, e.g. "{subresources: {status: {}}}". Cluster-scoped when `cluster` is true.
json::Document example_crd(std::string_view kind, std::string_view properties_yaml, std::string_view root_yaml = "{}",
                           std::string_view version_yaml = "{}", bool cluster = false);

/// A copy of `base` with edits applied: each edit is (path, YAML value); a value of "~delete" removes the field.
/// Paths use the finding syntax: "spec.workerGroupSpecs[0].groupName", "metadata.labels[kueue.x-k8s.io/queue-name]".
/// Missing objects along the path are created.
json::Document patched(const json::Value& base, const std::vector<std::pair<std::string, std::string>>& edits);

/// Findings matching path (exact) and rule; severity filter optional.
std::vector<FieldError> matching(const FieldErrors& errs, std::string_view path, std::string_view rule,
                                 std::optional<Severity> severity = std::nullopt);
bool has(const FieldErrors& errs, std::string_view path, std::string_view rule, Severity severity = Severity::Error);
/// Number of Error findings.
std::size_t error_count(const FieldErrors& errs);
/// One line per finding, for failure messages.
std::string describe(const FieldErrors& errs);

/// A small valid RayCluster (one worker group), an AppWrapper wrapping it, a RayJob, and Kueue queue objects.
const char* raycluster_yaml();
const char* rayjob_yaml();
const char* appwrapper_yaml();
const char* clusterqueue_yaml();
const char* resourceflavor_yaml();
const char* localqueue_yaml();

}  // namespace cfo::test

/// Skips the test when UPSTREAM_CRDS is unset; otherwise binds `schemas` (const SchemaSet&).
#define CFO_REQUIRE_SCHEMAS()                                                            \
  const ::cfo::validation::SchemaSet* cfo_schemas_ptr = ::cfo::test::upstream_schemas(); \
  if (!cfo_schemas_ptr) GTEST_SKIP() << "UPSTREAM_CRDS is not set; skipping";            \
  const ::cfo::validation::SchemaSet& schemas = *cfo_schemas_ptr
