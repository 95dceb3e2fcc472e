#pragma once
// Every rule id the rule sets of cfo_validation report, with the upstream source it ports and the cluster profiles
// it belongs to. `validate --list-rules` prints it; validate_object and validate_set drop the findings of rules that
// do not belong to the profile judged under.
#include <span>
#include <string_view>

#include "validation/cluster_facts.hpp"

namespace cfo::validation {

/// Bits of RuleInfo::profiles.
inline constexpr unsigned kVanillaProfile = 1u << 0;
inline constexpr unsigned kOdhProfile = 1u << 1;
inline constexpr unsigned kAllProfiles = kVanillaProfile | kOdhProfile;

/// One rule id.
struct RuleInfo {
  std::string_view id;      ///< the `rule` of its findings ("ValidateRayClusterSpec" rules have their own ids)
  std::string_view source;  ///< the upstream project, version, file and function it ports
  unsigned profiles;        ///< the profiles under which it reports (kVanillaProfile | kOdhProfile bits)
};

/// Every rule id of the rule sets (rules/*.cpp), sorted by id. Rules of the CRD schemas ("schema:...", "cel:...")
/// are not listed: they come from the CRDs themselves and apply under every profile.
std::span<const RuleInfo> rule_catalog();

/// The catalog entry of `id`, or nullptr.
const RuleInfo* find_rule(std::string_view id);

/// True when findings of rule `id` are reported under `profile`: ids outside the catalog (schema:..., cel:...) always.
bool rule_applies(std::string_view id, Profile profile);

/// The profile names of a RuleInfo::profiles set, "vanilla,odh" / "odh".
std::string_view profiles_text(unsigned profiles);

}  // namespace cfo::validation
