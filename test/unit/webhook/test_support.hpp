#pragma once
// Helpers of the cfo_webhook tests: project files, YAML, the upstream CRD schemas, and AdmissionReview requests.
#include <memory>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "test_files.hpp"
#include "validation/schema_set.hpp"
#include "webhook/admission.hpp"

namespace cfo::webhook::test {

// Project files, YAML and the upstream CRD schemas: cfo_test_support's.
using test_support::read_text;
using test_support::source_dir;
using test_support::upstream_schemas;
using test_support::yaml_doc;

/// Paths of the *.yaml files directly in `dir`, sorted, without kustomization.yaml.
std::vector<std::string> yaml_files(const std::string& dir);

/// An AdmissionRequest as decode_admission_review makes it from a review of `object` (and `old_object` for
/// UPDATE), with the group/version/kind of `object`, namespace "team-a", name from the object, uid "req-1".
AdmissionRequest review_of(const json::Value& object, Operation op = Operation::Create,
                           const json::Value* old_object = nullptr);

/// The review's JSON text, for the server tests.
std::string review_json(const json::Value& object, Operation op = Operation::Create,
                        const json::Value* old_object = nullptr, const std::string& uid = "req-1");

}  // namespace cfo::webhook::test

/// Skips the test unless UPSTREAM_CRDS is set, and binds `schemas` (shared_ptr) to the loaded SchemaSet.
#define CFO_REQUIRE_SCHEMAS(schemas)                       \
  auto schemas = ::cfo::webhook::test::upstream_schemas(); \
  if (!schemas) GTEST_SKIP() << "UPSTREAM_CRDS is not set: the upstream CRD schemas are needed"
