#include "validation/pod_security.hpp"

namespace cfo::validation {

std::optional<PodSecurityLevel> parse_pod_security_level(std::string_view name) {
  if (name == "privileged") return PodSecurityLevel::kPrivileged;
  if (name == "baseline") return PodSecurityLevel::kBaseline;
  if (name == "restricted") return PodSecurityLevel::kRestricted;
  return std::nullopt;
}

PodSecurityLevel pod_security_level_of_label(const std::string_view* label_value) {
  if (!label_value) return PodSecurityLevel::kPrivileged;
  return parse_pod_security_level(*label_value).value_or(PodSecurityLevel::kRestricted);
}

std::string_view pod_security_level_name(PodSecurityLevel level) {
  switch (level) {
    case PodSecurityLevel::kBaseline:
      return "baseline";
    case PodSecurityLevel::kRestricted:
      return "restricted";
    case PodSecurityLevel::kPrivileged:
      break;
  }
  return "privileged";
}

}  // namespace cfo::validation
