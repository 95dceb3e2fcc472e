#include "workload/parse_topology.hpp"

#include <cctype>

#include "core/names.hpp"
#include "workload/field_reader.hpp"
#include "workload/labels.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kTasSource = "kueue:ValidateTASPodSetRequest (v0.19.2)";

void level(const std::string& value, const std::string& at, FieldErrors& errs) {
  for (const auto& m : names::qualified_name(value))
    add_error(errs, at, "TopologyLevel", "is not a node label name: " + m, kTasSource);
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}
}  // namespace

std::map<std::string, std::string> TopologyRequest::annotations() const {
  std::map<std::string, std::string> out;
  if (!required.empty()) out[std::string(kTopologyRequiredAnnotation)] = required;
  if (!preferred.empty()) out[std::string(kTopologyPreferredAnnotation)] = preferred;
  if (unconstrained) out[std::string(kTopologyUnconstrainedAnnotation)] = "true";
  if (!slice_required.empty()) out[std::string(kTopologySliceRequiredAnnotation)] = slice_required;
  if (slice_size) out[std::string(kTopologySliceSizeAnnotation)] = std::to_string(*slice_size);
  if (!pod_set_group.empty()) out[std::string(kTopologyGroupAnnotation)] = pod_set_group;
  return out;
}

TopologyRequest parse_topology(const json::Value& v, const std::string& path, FieldErrors& errs) {
  TopologyRequest t;
  FieldReader r(v, path, errs);
  t.required = r.string("required").value_or("");
  t.preferred = r.string("preferred").value_or("");
  t.unconstrained = r.boolean("unconstrained").value_or(false);
  t.slice_required = r.string("sliceRequired").value_or("");
  if (auto n = r.integer("sliceSize", 1, 2147483647)) t.slice_size = static_cast<int32_t>(*n);
  t.pod_set_group = r.string("podSetGroup").value_or("");
  r.reject_unknown();
  if (!r.is_object()) return t;

  int kinds = 0;
  for (auto [given, name] : {std::pair{!t.required.empty(), "required"},
                             {!t.preferred.empty(), "preferred"},
                             {t.unconstrained, "unconstrained"}})
    if (given && ++kinds > 1)
      add_error(errs, r.child(name), "TopologyRequestOne", "give only one of required, preferred and unconstrained",
                kTasSource);
  if (!t.required.empty()) level(t.required, r.child("required"), errs);
  if (!t.preferred.empty()) level(t.preferred, r.child("preferred"), errs);
  if (!t.slice_required.empty()) level(t.slice_required, r.child("sliceRequired"), errs);
  if (!t.slice_required.empty() && !t.slice_size)
    add_error(errs, r.child("sliceSize"), "TopologySlice", "is required with sliceRequired", kTasSource);
  if (t.slice_required.empty() && t.slice_size)
    add_error(errs, r.child("sliceSize"), "TopologySlice", "needs sliceRequired", kTasSource);
  if (!t.pod_set_group.empty()) {
    const std::string at = r.child("podSetGroup");
    if (all_digits(t.pod_set_group)) add_error(errs, at, "TopologyPodSetGroup", "must not be a number", kTasSource);
    if (t.required.empty() && t.preferred.empty())
      add_error(errs, at, "TopologyPodSetGroup", "needs required or preferred", kTasSource);
    if (!t.slice_required.empty() || t.slice_size)
      add_error(errs, at, "TopologyPodSetGroup", "may not be set with sliceRequired or sliceSize", kTasSource);
  }
  return t;
}

void check_topology_pod_count(const TopologyRequest& t, int64_t pods, const std::string& path, FieldErrors& errs) {
  if (t.slice_size && *t.slice_size > pods)
    add_error(
        errs, join_path(path, "sliceSize"), "TopologySlice",
        "is " + std::to_string(*t.slice_size) + ", more than the " + std::to_string(pods) + " Pod(s) of the group",
        "kueue:ValidateSliceSizeAnnotationUpperBound (v0.19.2)");
}

}  // namespace cfo::workload
