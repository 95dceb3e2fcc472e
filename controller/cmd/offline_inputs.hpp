#pragma once
// What the offline commands (render, validate) share: the upstream schemas, the manifests, and the cluster profile.
#include <expected>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cmd/args.hpp"
#include "cmd/crd_schemas.hpp"
#include "cmd/input_files.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::cmd {

/// Upper bound accepted for --kueue-max-podsets (Kueue itself allows at most 18 today).
inline constexpr long kMaxPodSetsFlagLimit = 1000;

/// True when `doc` is a CodeFlareWorkload of the version this operator serves (codeflare.dev/v1alpha1).
bool is_workload(const json::Value& doc);

/// For an object that claims the codeflare.dev group or the CodeFlareWorkload kind but is not a
/// codeflare.dev/v1alpha1 CodeFlareWorkload (a version or kind this operator does not serve): the error to report
/// (rule schema:unknownKind, naming what is served); std::nullopt for any other object.
std::optional<FieldError> unserved_workload(const json::Value& doc);

/// True when `doc` is a v1 Namespace (not judged, but its labels are context for its closed set).
bool is_namespace(const json::Value& doc);

/// The API group of an apiVersion: "ray.io" for "ray.io/v1", "" (the core group) for "v1".
std::string api_group(std::string_view api_version);

/// What the offline commands can judge: the API groups of the loaded CRDs (SchemaSet::kinds()) plus codeflare.dev,
/// and the kinds they serve (CodeFlareWorkload included).
struct CheckedApis {
  std::set<std::string> groups;
  std::set<std::string> kinds;
};
CheckedApis checked_apis(const std::vector<std::string>& kinds);

/// The CRDs the documents lead to: each one's own kind (by API group), the kinds a CodeFlareWorkload expands into
/// (RayCluster, RayJob, AppWrapper, LocalQueue) and an AppWrapper's components; ray.io RayCluster always (its Pod
/// template schema judges the PodSpecs of every kind).
CrdNeeds crd_needs_of(const std::vector<InputDocument>& docs);

/// Why `doc` is not checked at all, or nullopt when it is. An object is skipped when it has a non-empty apiVersion
/// and kind, its API group is none of `apis.groups` and its kind none of `apis.kinds` (a ConfigMap, a Deployment, a
/// Kustomization...): nothing here knows its schema. An object of a known group but an unknown version or kind, a
/// known kind under another group ("v1 RayCluster", "Ray.io/v1"), or one without apiVersion or kind, is not
/// skipped: its checks report it (most likely a typo). An apiVersion without "/" that names a known group ("ray.io")
/// is not skipped either.
std::optional<std::string> skip_reason(const json::Value& doc, const CheckedApis& apis);

/// The --crds paths of `args`, or, without --crds, the schemas that ship with the binary (bundled_crds_path).
/// Error: no --crds and no bundled schemas beside the binary (the message names where they were looked for).
Result<std::vector<std::string>> schema_paths(const Args& args);

/// The values of `-f` as kubectl reads them: each one split at its commas (`-f a.yaml,b.yaml`, pflag's string
/// slice), in order. An empty part stays (and is refused by load_offline_inputs).
std::vector<std::string> filename_args(const Args& args);

/// The minor version of a --kubernetes-version value: "1.31", "v1.31" and "1.31.2" give 31. std::nullopt for anything
/// else (another major, no minor, a minor of more than three digits, text after it other than ".patch").
std::optional<int> kubernetes_minor_of_flag(std::string_view value);

/// The loaded inputs of an offline command.
struct OfflineInputs {
  validation::SchemaSet schemas;  ///< the schemas of the CRDs the documents lead to (crd_needs_of)
  CheckedApis apis;               ///< what every CRD found serves, compiled or not
  std::vector<InputDocument> docs;
  validation::ClusterProfile profile;
};

/// Reads `-f` (required; filename_args: comma-separated lists too; a URL is a usage error), `-R`, `--crds`,
/// `--kueue-max-podsets`, `--profile`, `--pod-security-level` (when the command takes it: privileged, baseline or
/// restricted, else a usage error) and `--kubernetes-version` (kubernetes_minor_of_flag, into
/// ClusterProfile::kubernetes_minor; unset: 0, unknown) from `args`. Without --crds, the schemas that ship with the
/// binary are used (bundled_crds_path). Kueue's MaxPodSets is the flag's value, else what the Workload CRD among the
/// schemas states (as the controller reads it from the cluster), else 8; the profile is --profile (vanilla, the
/// default, or odh). A file whose YAML does not parse is not an error here: it is an entry of `docs` with a problem
/// (OnYamlError::kAsEntry); one of the --crds is. Notes on stderr: the files of a folder that are not read, and
/// warnings for inputs that hold no object or are given again. On a usage or I/O error it prints
/// "<command>: <reason>" (naming the flag: "-f: cannot read x.yaml: no such file or folder", "--crds: ...", and
/// usage_hint for usage errors) to stderr and returns the exit code 2.
std::expected<OfflineInputs, int> load_offline_inputs(const Args& args, const char* command);

}  // namespace cfo::cmd
