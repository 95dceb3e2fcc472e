#pragma once
// Where the offline commands (render, validate) find the upstream CRD schemas: files, or the bundle that ships with
// the binary. (The controller reads them from the apiserver: operator/served_apis.hpp.)
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "validation/schema_set.hpp"

namespace cfo::cmd {

/// Which CRDs an offline run compiles, by API group and kind ({"ray.io", "RayCluster"}): compiling a CRD's schemas
/// is most of what `validate` of a small file costs, so only the kinds the inputs lead to are compiled.
struct CrdNeeds {
  bool every = true;  ///< compile every CRD found (when the inputs are not known)
  std::set<std::pair<std::string, std::string>> kinds;
  bool wants(const std::string& group, const std::string& kind) const { return every || kinds.contains({group, kind}); }
};

/// The CRDs of the offline commands: their schemas and the cluster facts they state.
struct LoadedCrds {
  validation::SchemaSet schemas;  ///< the schemas of the CRDs `needs` wanted
  /// "<apiVersion>/<Kind>" of every served version of every CRD found, compiled or not (what the inputs may name).
  std::vector<std::string> available_kinds;
  /// Kueue's MaxPodSets as the Workload CRD among them states it (validation::kueue_max_pod_sets_of, the controller
  /// reads the served CRD the same way); 0 when no Workload CRD is among them or it states none.
  int kueue_max_pod_sets = 0;
};

/// Loads the CustomResourceDefinitions found in the given files or folders (a folder that holds no CRD but has an
/// `upstream/` subfolder, like the project's UPSTREAM_CRDS layout, is read through that subfolder) whose group and
/// kind `needs` wants; the others are only listed (available_kinds). Errors: unreadable inputs, YAML errors, a CRD
/// that is wanted and malformed, or no CRD found at all. Every CRD is judged with its descriptions stripped (as the
/// bundled ones are); with a `cache_dir` (crd_cache.hpp), a YAML file read once is read from the cache after that.
Result<LoadedCrds> load_schemas_from_files(const std::vector<std::string>& paths, const CrdNeeds& needs = {},
                                           const std::string& cache_dir = {});

/// Where the upstream CRD schemas that ship with the binary are looked for when no --crds is given:
/// <directory of the running binary>/../share/codeflare-operator/upstream-crds.json (the installed layout, e.g.
/// /usr/local/bin + /usr/local/share, and the build tree's controller/cmd + controller/share). The bundle is made
/// by hack/bundle-upstream-crds.py from the pinned upstream CRDs, descriptions stripped.
/// Returns the path, or std::nullopt (with the path looked at in `looked_at`) when there is no file there.
std::optional<std::string> bundled_crds_path(std::string* looked_at = nullptr);

}  // namespace cfo::cmd
