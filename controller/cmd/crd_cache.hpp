#pragma once
// The cache of the CRD files `--crds` names: each YAML file's CustomResourceDefinitions, descriptions stripped, kept as
// compact JSON so that the next `validate` or `render` reads them with RapidJSON instead of parsing megabytes of YAML
// again (kubectl keeps its discovery cache the same way, under ~/.kube/cache). An entry is found by the file's
// canonical path, size, modification time and inode: any change of the file misses. Everything is best effort: a
// cache that cannot be read or written is a miss, never an error.
#include <optional>
#include <string>

#include "cmd/args.hpp"
#include "core/json.hpp"

namespace cfo::cmd {

/// The cache folder of the offline commands: `--cache-dir DIR` when given (`--cache-dir off`: no cache), else
/// $XDG_CACHE_HOME/codeflare-operator, else $HOME/.cache/codeflare-operator; empty (no cache) when none applies. The
/// entries go into its `crds` sub-folder, one file per CRD file: crds-<FNV-1a hash of the key>.json.
std::string crd_cache_dir(const Args& args);

/// What identifies the contents of `file` without reading it: "v<format>|<canonical path>|<size>|<mtime ns>|<inode>";
/// nullopt when the file cannot be looked at.
std::optional<std::string> crd_cache_key(const std::string& file);

/// The entry stored under `key` in `dir`: a JSON array of the file's CRDs (descriptions stripped); nullopt when there
/// is none, it holds another key (a hash collision), or it does not parse.
std::optional<json::Document> read_crd_cache(const std::string& dir, const std::string& key);

/// Stores `crds` (a JSON array of CRDs) under `key` in `dir` (created if missing), through a temporary file renamed
/// into place so that a concurrent reader never sees half an entry. Returns false when it could not (no error).
bool write_crd_cache(const std::string& dir, const std::string& key, const json::Value& crds);

/// Removes, in place, every `description` keyword of a CRD (of its schemas and printer columns); a property named
/// "description" (a key of `properties` or `patternProperties`) is a field and is kept. What hack/bundle-upstream-
/// crds.py does for the CRDs that ship with the binary, so that both are judged alike.
void strip_descriptions(json::Value& node);

}  // namespace cfo::cmd
