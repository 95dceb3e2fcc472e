#pragma once
// Reading the Pod fields of spec.head and of each spec.workerGroups entry: image, env, labels, annotations, template
// and topology (PodFields).
#include "core/field_error.hpp"
#include "workload/field_reader.hpp"
#include "workload/parse_pod_template.hpp"
#include "workload/workload_types.hpp"

namespace cfo::workload {

/// Reads the members image (check_image: `ContainerImage`), env (parse_env), labels (`LabelMapKind::PodLabels`),
/// annotations (`LabelMapKind::PodAnnotations`), template (parse_pod_template with `scope`) and topology
/// (parse_topology) of the object `r` reads, marking them known. Absent members leave their defaults (nothing is
/// written for them). Never throws.
PodFields parse_pod_fields(FieldReader& r, const TemplateScope& scope, FieldErrors& errs);

}  // namespace cfo::workload
