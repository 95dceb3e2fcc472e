#pragma once
// Where the upstream CRD schemas come from: files for the offline commands, the apiserver for the controller.
#include <optional>
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

/// Where the upstream CRD schemas that ship with the binary are looked for when no --crds is given:
/// <directory of the running binary>/../share/codeflare-operator/upstream-crds.json (the installed layout, e.g.
/// /usr/local/bin + /usr/local/share, and the build tree's controller/cmd + controller/share). The bundle is made
/// by hack/bundle-upstream-crds.py from the pinned upstream CRDs, descriptions stripped.
/// Returns the path, or std::nullopt (with the path looked at in `looked_at`) when there is no file there.
std::optional<std::string> bundled_crds_path(std::string* looked_at = nullptr);

/// The CRDs whose schemas the controller checks generated objects against (name as served, e.g. "rayclusters.ray.io").
extern const std::vector<std::string> kTargetCrdNames;

/// Reads each CRD of kTargetCrdNames from the apiserver (apiextensions.k8s.io/v1) and compiles its schema. A CRD that
/// is not installed is skipped and listed in `missing`. Errors: any failure other than 404.
Result<validation::SchemaSet> load_schemas_from_cluster(client::RestClient& client, std::vector<std::string>& missing);

}  // namespace cfo::cmd
