#include "workload/build_appwrapper.hpp"

#include "workload/build_raycluster.hpp"

namespace cfo::workload {

AppWrapper build_app_wrapper(const Workload& w, const RayCluster& inner,
                             const std::map<std::string, std::string>& kueue_labels) {
  AppWrapper aw;
  aw.metadata.name = w.name;
  aw.metadata.namespace_ = w.namespace_;
  aw.metadata.labels = w.spec.labels;  // the user's labels, also on the wrapped RayCluster (never reserved keys)
  for (const auto& [k, v] : child_labels(w)) aw.metadata.labels[k] = v;
  for (const auto& [k, v] : kueue_labels) aw.metadata.labels[k] = v;
  set_workload_owner(aw.metadata, w);
  aw.components.push_back(AppWrapperComponent{Fragment(inner.to_json())});
  aw.suspend = w.spec.suspend;
  if (w.spec.queue.multi_kueue) aw.managed_by = kMultiKueueManager;
  return aw;
}

}  // namespace cfo::workload
