#include "workload/parse_pod_fields.hpp"

#include "workload/parse_label_maps.hpp"
#include "workload/parse_pod_fragments.hpp"
#include "workload/parse_topology.hpp"

namespace cfo::workload {

PodFields parse_pod_fields(FieldReader& r, const TemplateScope& scope, FieldErrors& errs) {
  PodFields p;
  if (auto image = r.string("image")) {
    p.image = *image;
    check_image(p.image, r.child("image"), errs);
  }
  if (const json::Value* x = r.get("env")) p.env = parse_env(*x, r.child("env"), errs);
  if (const json::Value* x = r.get("labels"))
    p.labels = parse_label_map(*x, r.child("labels"), LabelMapKind::PodLabels, errs);
  if (const json::Value* x = r.get("annotations"))
    p.annotations = parse_label_map(*x, r.child("annotations"), LabelMapKind::PodAnnotations, errs);
  if (const json::Value* x = r.get("template")) p.template_ = parse_pod_template(*x, r.child("template"), scope, errs);
  if (const json::Value* x = r.get("topology")) p.topology = parse_topology(*x, r.child("topology"), errs);
  return p;
}

}  // namespace cfo::workload
