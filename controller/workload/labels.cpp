#include "workload/labels.hpp"

namespace cfo::workload {

bool is_reserved_label(std::string_view key) {
  return key == kControllerToolsLabel || key == kRayClusterLabel || key == kWorkloadLabel || key == kQueueNameLabel ||
         key == kPriorityClassLabel;
}

bool is_reserved_annotation(std::string_view key) { return key == kElasticJobAnnotation; }

bool is_reserved_pod_label(std::string_view key) {
  return is_reserved_label(key) || key == kRayGroupLabel || key == kRayNodeTypeLabel;
}

bool is_topology_annotation(std::string_view key) {
  return key == kTopologyRequiredAnnotation || key == kTopologyPreferredAnnotation ||
         key == kTopologyUnconstrainedAnnotation || key == kTopologySliceRequiredAnnotation ||
         key == kTopologySliceSizeAnnotation || key == kTopologyGroupAnnotation;
}

}  // namespace cfo::workload
