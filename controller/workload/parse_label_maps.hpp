#pragma once
// Reading the label and annotation maps of a CodeFlareWorkload: spec.labels / spec.annotations (copied to the
// generated objects) and the Pod labels / annotations of a group (head, workerGroups[i]).
#include <map>
#include <string>

#include "core/field_error.hpp"
#include "core/json.hpp"

namespace cfo::workload {

/// Which map is read, for its reserved keys.
enum class LabelMapKind {
  ObjectLabels,       ///< spec.labels: is_reserved_label keys refused (`ReservedLabel`)
  ObjectAnnotations,  ///< spec.annotations (also on every Pod template): elastic-job refused (`ReservedAnnotation`);
                      ///< topology keys stay allowed there, as before the `topology` fields existed
  PodLabels,          ///< a group's Pod labels: is_reserved_pod_label keys refused (`ReservedLabel`)
  PodAnnotations,     ///< a group's Pod annotations: elastic-job and topology keys refused (`ReservedAnnotation`)
};

/// Reads an object of strings at `path`: keys are qualified names (`LabelKey` / `AnnotationKey`), label values
/// label values (`LabelValue`), annotations at most 256 KiB in all (`AnnotationsSize`; apimachinery
/// ValidateObjectMeta), and the keys `kind` reserves are refused. Never throws; what could be read is returned.
std::map<std::string, std::string> parse_label_map(const json::Value& v, const std::string& path, LabelMapKind kind,
                                                   FieldErrors& errs);

}  // namespace cfo::workload
