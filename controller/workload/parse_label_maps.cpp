#include "workload/parse_label_maps.hpp"

#include "core/names.hpp"
#include "workload/field_reader.hpp"
#include "workload/labels.hpp"

namespace cfo::workload {

namespace {
constexpr const char* kMetaSource = "apimachinery:ValidateObjectMeta";

void report_all(FieldErrors& errs, const std::string& path, const char* rule, const std::vector<std::string>& msgs) {
  for (const auto& m : msgs) add_error(errs, path, rule, m, kMetaSource);
}

bool is_labels(LabelMapKind kind) { return kind == LabelMapKind::ObjectLabels || kind == LabelMapKind::PodLabels; }

// The operator's keys in this map: a reason to refuse `key`, or "".
std::string reserved_reason(LabelMapKind kind, const std::string& key) {
  switch (kind) {
    case LabelMapKind::ObjectLabels:
      if (!is_reserved_label(key)) return "";
      return "label \"" + key + "\" is set by the operator" +
             (key.starts_with("kueue.x-k8s.io/") ? "; use spec.queue instead" : "");
    case LabelMapKind::PodLabels:
      if (!is_reserved_pod_label(key)) return "";
      return "label \"" + key + "\" of the Pods is set by KubeRay or the operator and cannot be overridden";
    case LabelMapKind::ObjectAnnotations:
    case LabelMapKind::PodAnnotations:
      if (is_reserved_annotation(key))
        return "annotation \"" + key + "\" is set by the operator; use spec.autoscaling.elasticJob instead";
      if (kind == LabelMapKind::PodAnnotations && is_topology_annotation(key))
        return "annotation \"" + key +
               "\" is set by the operator; use the `topology` field of the head, the group or "
               "the submitter instead";
      return "";
  }
  return "";
}
}  // namespace

std::map<std::string, std::string> parse_label_map(const json::Value& v, const std::string& path, LabelMapKind kind,
                                                   FieldErrors& errs) {
  std::map<std::string, std::string> out;
  if (!expect_type(v, v.IsObject(), "an object of strings", path, errs)) return out;
  const bool labels = is_labels(kind);
  std::size_t total = 0;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    std::string key(it->name.GetString(), it->name.GetStringLength());
    std::string p = key_path(path, key);
    if (!expect_type(it->value, it->value.IsString(), "a string", p, errs)) continue;
    std::string value(it->value.GetString(), it->value.GetStringLength());
    report_all(errs, p, labels ? "LabelKey" : "AnnotationKey", names::qualified_name(key));
    if (labels) report_all(errs, p, "LabelValue", names::label_value(value));
    if (std::string why = reserved_reason(kind, key); !why.empty())
      add_error(errs, p, labels ? "ReservedLabel" : "ReservedAnnotation", why);
    total += key.size() + value.size();
    out.emplace(std::move(key), std::move(value));
  }
  if (!labels && total > names::kTotalAnnotationSizeLimitBytes)
    add_error(errs, path, "AnnotationsSize",
              "total size of annotations is " + std::to_string(total) + " bytes, more than " +
                  std::to_string(names::kTotalAnnotationSizeLimitBytes),
              kMetaSource);
  return out;
}

}  // namespace cfo::workload
