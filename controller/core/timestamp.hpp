#pragma once
// metav1.Time as text: RFC 3339 UTC with second precision ("2026-12-01T15:04:05Z"), the form the apiserver writes
// for creationTimestamp, deletionTimestamp and a condition's lastTransitionTime.
#include <cstdint>
#include <string>

namespace cfo {

/// The current time in RFC 3339 UTC with second precision, as metav1.Time serialises.
std::string now_rfc3339();

/// Whole seconds from `since` to `now`, both RFC 3339 ("...Z"; a fraction or offset after the seconds is ignored, as
/// the apiserver writes UTC "Z" without one); negative when `now` is earlier; 0 when either does not parse.
int64_t seconds_between(const std::string& since, const std::string& now);

}  // namespace cfo
