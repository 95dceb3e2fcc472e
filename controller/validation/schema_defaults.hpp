#pragma once
// Internal to cfo_validation. Structural defaulting, as kube-apiserver applies it to a custom resource before it
// validates it: for every object property whose schema has a `default` and that is missing, or null while the
// property is not nullable, a copy of the default is set; this goes down into every object member (the defaults
// just set included), map value (additionalProperties) and list item (items). An explicit null of a nullable
// property stays null.
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/json.hpp"
#include "validation/schema_plan.hpp"

namespace cfo::validation::structural {

/// The places apply_defaults() set a value, kept as path segments and rendered as field paths only on demand (most
/// validations report nothing, and rendering every path would cost more than the defaulting). Segments view names
/// held by the plan and by the defaulted document: render() only while both are alive.
class DefaultedPaths {
 public:
  using Segment = std::variant<std::string_view, std::size_t>;

  /// Records one defaulted value at `segments`.
  void add(const std::vector<Segment>& segments);
  bool empty() const { return ranges_.empty(); }
  /// The field paths ("spec.workerGroupSpecs[0].numOfHosts"), in the order they were set.
  std::vector<std::string> render() const;

 private:
  std::vector<Segment> segments_;
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;  // [begin, end) in segments_
};

/// True when apply_defaults() would change `obj` (read only; lets callers skip the copy).
bool needs_defaults(const PlanNode& plan, const json::Value& obj);

/// Applies the defaults of `plan` to `obj` in place, allocating from `alloc` (the allocator of the document that
/// holds `obj`; member names of defaulted fields refer to the plan's strings, so the document must not outlive the
/// plan). When `defaulted` is given, the place of every value set is recorded there.
void apply_defaults(const PlanNode& plan, json::Value& obj, json::Allocator& alloc, DefaultedPaths* defaulted);

}  // namespace cfo::validation::structural
