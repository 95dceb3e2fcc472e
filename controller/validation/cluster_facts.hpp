#pragma once
// Facts about the target cluster that change verdicts, read the same way by the controller (from the CRDs the
// apiserver serves) and by the offline commands (from the --crds files or the bundled schemas).
#include <optional>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace cfo::validation {

/// Kueue's MaxPodSets when nothing says otherwise (Kueue up to v0.17).
inline constexpr int kDefaultKueueMaxPodSets = 8;

/// The CRD Kueue's MaxPodSets is read from.
inline constexpr std::string_view kKueueWorkloadCrdName = "workloads.kueue.x-k8s.io";

/// Kueue's MaxPodSets as a Workload CRD states it: `spec.podSets.maxItems` of the storage version's schema, else of
/// the first version that has one. `crd` is a CustomResourceDefinition. Returns 0 when no version states
/// it. Kueue v0.19 says 18, v0.18 10, older releases 8.
int kueue_max_pod_sets_of(const json::Value& crd);

/// A cluster profile: which operators run next to KubeRay, Kueue and AppWrapper, and so which of their rules apply.
///  - kVanilla: the upstream projects alone;
///  - kOdh: OpenDataHub / Red Hat OpenShift AI, where the CodeFlare operator's own webhooks also judge RayClusters.
enum class Profile { kVanilla, kOdh };

/// "vanilla" / "odh".
std::string_view profile_name(Profile p);
/// The profile named `name` ("vanilla", "odh"), or nullopt.
std::optional<Profile> parse_profile(std::string_view name);

}  // namespace cfo::validation
