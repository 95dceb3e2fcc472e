#pragma once
// core/v1 ResourceList (map of resource name to quantity) that keeps the order in which names were added, so that
// generated objects and the rayStartParams `resources` string are deterministic and follow the user's order.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.hpp"
#include "core/quantity.hpp"

namespace cfo::workload {

/// Resource name ("cpu", "memory", "nvidia.com/gpu") to quantity, in insertion order; names are unique.
struct ResourceList {
  std::vector<std::pair<std::string, Quantity>> items;

  /// The quantity of `name`, or nullptr.
  const Quantity* find(std::string_view name) const;
  /// Adds `name` at the end, or replaces its quantity in place.
  void set(const std::string& name, Quantity q);
  bool empty() const { return items.empty(); }

  /// JSON object `{name: "<quantity text>"}`. Quantities are written as strings, as the apiserver serialises them.
  json::Value to_json(json::Allocator& a) const;
};

/// Parses a quantity that is known to be valid (a compile-time default such as "500m"); throws std::logic_error
/// otherwise, since that is a programming error.
Quantity must_quantity(std::string_view text);

}  // namespace cfo::workload
