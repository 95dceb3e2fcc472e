#pragma once
// Pod Security Standards levels (kubernetes pod-security-admission): which level a namespace enforces, read from its
// `pod-security.kubernetes.io/enforce` label, and the names of the levels.
#include <optional>
#include <string_view>

namespace cfo::validation {

/// The three Pod Security Standards levels, from the least to the most restrictive.
enum class PodSecurityLevel { kPrivileged, kBaseline, kRestricted };

/// The namespace label that names the level Pod Security admission enforces on the namespace's Pods.
inline constexpr std::string_view kPodSecurityEnforceLabel = "pod-security.kubernetes.io/enforce";

/// "privileged", "baseline" or "restricted" -> the level; std::nullopt for anything else (case-sensitive, as the
/// admission reads the label).
std::optional<PodSecurityLevel> parse_pod_security_level(std::string_view name);

/// The level a namespace enforces, given its enforce label (nullptr: no label). No label: privileged (the admission's
/// default when its configuration names none). A label that names no level: restricted, as pod-security-admission
/// evaluates a namespace whose label it cannot parse (api.PolicyToEvaluate falls back to the most restrictive level).
PodSecurityLevel pod_security_level_of_label(const std::string_view* label_value);

/// "privileged", "baseline" or "restricted".
std::string_view pod_security_level_name(PodSecurityLevel level);

}  // namespace cfo::validation
