#include "workload/labels.hpp"

namespace cfo::workload {

bool is_reserved_label(std::string_view key) {
  return key == kControllerToolsLabel || key == kRayClusterLabel || key == kWorkloadLabel || key == kQueueNameLabel ||
         key == kPriorityClassLabel;
}

bool is_reserved_annotation(std::string_view key) { return key == kElasticJobAnnotation; }

}  // namespace cfo::workload
