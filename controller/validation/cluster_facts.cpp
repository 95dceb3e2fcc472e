#include "validation/cluster_facts.hpp"

namespace cfo::validation {

int kueue_max_pod_sets_of(const json::Value& crd) {
  const json::Value* versions = json::find_path(crd, "spec.versions");
  if (!versions || !versions->IsArray()) return 0;
  int storage = 0, first = 0;
  for (const auto& v : versions->GetArray()) {
    const json::Value* max = json::find_path(v, "schema.openAPIV3Schema.properties.spec.properties.podSets.maxItems");
    if (!max || !max->IsInt()) continue;
    if (first == 0) first = max->GetInt();
    if (json::get_bool(v, "storage").value_or(false)) storage = max->GetInt();
  }
  return storage > 0 ? storage : first;
}

std::string_view profile_name(Profile p) { return p == Profile::kOdh ? "odh" : "vanilla"; }

std::optional<Profile> parse_profile(std::string_view name) {
  if (name == "vanilla") return Profile::kVanilla;
  if (name == "odh") return Profile::kOdh;
  return std::nullopt;
}

}  // namespace cfo::validation
