#include "cmd/offline_inputs.hpp"

#include <iostream>

#include "cmd/crd_schemas.hpp"

namespace cfo::cmd {

bool is_workload(const json::Value& doc) {
  return json::get_string(doc, "kind") == "CodeFlareWorkload" &&
         json::get_string(doc, "apiVersion") == "codeflare.dev/v1alpha1";
}

std::expected<OfflineInputs, int> load_offline_inputs(const Args& args, const char* command, const char* help) {
  auto fail_with = [&](const std::string& reason, bool usage) {
    std::cerr << command << ": " << reason << "\n";
    if (usage) std::cerr << "\n" << help;
    return std::unexpected(2);
  };
  if (!args.has("filename") || !args.has("crds")) return fail_with("-f and --crds are required", true);
  auto max_podsets = args.integer("kueue-max-podsets", 8);
  if (!max_podsets) return fail_with(max_podsets.error().message, true);
  if (*max_podsets < 1 || *max_podsets > kMaxPodSetsFlagLimit)
    return fail_with("--kueue-max-podsets must be between 1 and " + std::to_string(kMaxPodSetsFlagLimit), true);
  auto schemas = load_schemas_from_files(args.all("crds"));
  if (!schemas) return fail_with(schemas.error().message, false);
  auto docs = read_inputs(args.all("filename"));
  if (!docs) return fail_with(docs.error().message, false);
  OfflineInputs out{std::move(*schemas), std::move(*docs), {}};
  out.profile.kueue_max_pod_sets = static_cast<int>(*max_podsets);
  return out;
}

}  // namespace cfo::cmd
