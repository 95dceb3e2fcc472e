#pragma once
// Kueue queue selection and the labels that put a generated object under Kueue (codeflare-sdk
// build_ray_cluster.add_queue_label; Kueue job integrations for RayCluster and AppWrapper).
#include <map>
#include <optional>
#include <string>

#include "workload/workload_types.hpp"

namespace cfo::workload {

/// The LocalQueue to use: spec.queue.localQueue when set, else the namespace's default LocalQueue (the one
/// annotated kueue.x-k8s.io/default-queue: "true"), else none, in which case the workload is not gated by Kueue
/// (codeflare-sdk: `local_queue or get_default_local_queue()`, no label when neither).
std::optional<std::string> select_local_queue(const QueueSpec& queue, const std::optional<std::string>& default_queue);

/// The Kueue labels of the top-level child: kueue.x-k8s.io/queue-name when `local_queue` is set, and
/// kueue.x-k8s.io/priority-class when spec.queue.priorityClass is set. They go on the AppWrapper when wrapped and
/// on the RayCluster otherwise, never on both (validation-rules §10).
std::map<std::string, std::string> kueue_labels(const std::optional<std::string>& local_queue, const QueueSpec& queue);

}  // namespace cfo::workload
