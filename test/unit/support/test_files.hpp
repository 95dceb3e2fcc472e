#pragma once
// What the unit tests of several layers share: the project's files, the data folders the environment names, YAML
// inputs, and the upstream CRD schemas loaded once per test binary (with the product's own loader,
// validation::SchemaSet::load_dir). Library cfo_test_support.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "validation/schema_set.hpp"

namespace cfo::test_support {

/// The project's source folder (the library's compile definition CFO_SOURCE_DIR).
std::string source_dir();

/// $UPSTREAM_CRDS (laid out like shared/crds: upstream/, apiserver-1.20/), or nullopt when unset or empty.
std::optional<std::string> upstream_crds_dir();

/// $CFO_SHARED_DIR (laid out like shared: samples/, cases/), or nullopt when unset or empty.
std::optional<std::string> shared_dir();

/// The whole file; fails the current test (and returns "") when it cannot be read.
std::string read_text(const std::string& path);

/// The first YAML document of `text` as JSON; an empty object (and a test failure) when it does not parse or holds
/// no document.
json::Document yaml_doc(std::string_view text);

/// Paths of the *.yaml files directly in `dir` (an absolute path), sorted; without kustomization.yaml when
/// `skip_kustomization`.
std::vector<std::string> yaml_files(const std::string& dir, bool skip_kustomization = false);

/// The schemas of $UPSTREAM_CRDS/upstream, loaded once per process; null when UPSTREAM_CRDS is unset.
/// Throws std::runtime_error (the test fails) when the folder cannot be loaded.
std::shared_ptr<const validation::SchemaSet> upstream_schemas();

}  // namespace cfo::test_support
