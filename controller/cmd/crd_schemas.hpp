#pragma once
// Where the upstream CRD schemas come from: files for the offline commands, the apiserver for the controller.
#include <string>
#include <vector>

#include "client/rest_client.hpp"
#include "core/error.hpp"
#include "validation/schema_set.hpp"

namespace cfo::cmd {

/// Loads every CustomResourceDefinition found in the given files or folders (a folder that holds no CRD but has an
/// `upstream/` subfolder, like the project's UPSTREAM_CRDS layout, is read through that subfolder).
/// Errors: unreadable inputs, YAML errors, or no CRD found at all.
Result<validation::SchemaSet> load_schemas_from_files(const std::vector<std::string>& paths);

/// The CRDs whose schemas the controller checks generated objects against (name as served, e.g. "rayclusters.ray.io").
extern const std::vector<std::string> kTargetCrdNames;

/// Reads each CRD of kTargetCrdNames from the apiserver (apiextensions.k8s.io/v1) and compiles its schema. A CRD that
/// is not installed is skipped and listed in `missing`. Errors: any failure other than 404.
Result<validation::SchemaSet> load_schemas_from_cluster(client::RestClient& client, std::vector<std::string>& missing);

}  // namespace cfo::cmd
