#pragma once
// What the offline commands (render, validate) share: the upstream schemas, the manifests, and the cluster profile.
#include <expected>
#include <string>
#include <vector>

#include "cmd/args.hpp"
#include "cmd/input_files.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"

namespace cfo::cmd {

/// Upper bound accepted for --kueue-max-podsets (Kueue itself allows at most 18 today).
inline constexpr long kMaxPodSetsFlagLimit = 1000;

/// True when `doc` is a CodeFlareWorkload of the version this operator serves (codeflare.dev/v1alpha1).
bool is_workload(const json::Value& doc);

/// The loaded inputs of an offline command.
struct OfflineInputs {
  validation::SchemaSet schemas;
  std::vector<InputDocument> docs;
  validation::ClusterProfile profile;
};

/// Reads `-f`, `--crds` and `--kueue-max-podsets` from `args` (`-f` and `--crds` required). On a usage or I/O
/// error it prints "<command>: <reason>" (with `help` for usage errors) to stderr and returns the exit code 2.
std::expected<OfflineInputs, int> load_offline_inputs(const Args& args, const char* command, const char* help);

}  // namespace cfo::cmd
