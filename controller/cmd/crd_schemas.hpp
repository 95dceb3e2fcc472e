#pragma once
// Where the offline commands (render, validate) find the upstream CRD schemas: files, or the bundle that ships with
// the binary. (The controller reads them from the apiserver: operator/served_apis.hpp.)
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
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

/// The CRDs found in the --crds inputs, read but not yet compiled: load_schemas_from_files in two steps, so that an
/// offline run reads them (and compiles what every run needs) while it reads its inputs.
struct FoundCrds {
  struct File {
    std::string name;
    json::Document crds;  ///< an array of the file's CRDs, descriptions stripped
  };
  std::vector<File> files;  ///< the files that hold a CRD, in the order they are read
  LoadedCrds loaded;        ///< available_kinds and kueue_max_pod_sets of every CRD; the schemas added so far
  std::set<std::pair<std::string, std::string>> added_kinds;  ///< {group, kind} whose CRDs are in loaded.schemas
};

/// The first step of load_schemas_from_files: reads every CRD of `paths` (same layout, cache and errors), lists the
/// kinds they serve and Kueue's MaxPodSets, and compiles nothing.
Result<FoundCrds> read_crds(const std::vector<std::string>& paths, const std::string& cache_dir = {});

/// The second step: adds to found.loaded.schemas every CRD whose group and kind `needs` wants and that an earlier call
/// did not add (so it may be called once per set of needs; where two files define a kind, the later one wins as
/// in one call). Errors: a wanted CRD that is malformed, as "<file>: <reason>".
Result<void> add_wanted_crds(FoundCrds& found, const CrdNeeds& needs);

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
