#pragma once
// metav1.Condition (k8s.io/apimachinery/pkg/apis/meta/v1 types.go) and the SetStatusCondition semantics.
#include <cstdint>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/timestamp.hpp"

namespace cfo {

/// One status condition. `status` is "True", "False" or "Unknown"; `reason` is CamelCase;
/// `last_transition_time` is RFC 3339 UTC ("2026-11-29T19:36:02Z").
struct Condition {
  std::string type;
  std::string status;
  int64_t observed_generation = 0;
  std::string last_transition_time;
  std::string reason;
  std::string message;

  bool operator==(const Condition&) const = default;
};

/// Sets `c` in `conditions` as apimachinery's meta.SetStatusCondition does: an existing condition of the same type
/// is updated in place and keeps its lastTransitionTime unless its status changes; a new one is appended. When
/// `c.last_transition_time` is empty, `now` is used. Returns true when anything changed.
bool set_condition(std::vector<Condition>& conditions, Condition c, const std::string& now);

/// Removes the condition of the given type (meta.RemoveStatusCondition); returns true when there was one.
bool remove_condition(std::vector<Condition>& conditions, const std::string& type);

/// The condition of the given type, or nullptr.
const Condition* find_condition(const std::vector<Condition>& conditions, const std::string& type);

/// JSON array of conditions, in metav1.Condition field names.
json::Value conditions_to_json(const std::vector<Condition>& conditions, json::Allocator& a);

/// Reads a JSON array of conditions; entries without a `type` are skipped.
std::vector<Condition> conditions_from_json(const json::Value& v);

}  // namespace cfo
