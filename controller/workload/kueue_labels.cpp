#include "workload/kueue_labels.hpp"

#include "workload/labels.hpp"

namespace cfo::workload {

std::optional<std::string> select_local_queue(const QueueSpec& queue, const std::optional<std::string>& default_queue) {
  if (!queue.local_queue.empty()) return queue.local_queue;
  if (default_queue && !default_queue->empty()) return default_queue;
  return std::nullopt;
}

std::map<std::string, std::string> kueue_labels(const std::optional<std::string>& local_queue, const QueueSpec& queue) {
  std::map<std::string, std::string> out;
  if (local_queue) out.emplace(kQueueNameLabel, *local_queue);
  if (!queue.priority_class.empty()) out.emplace(kPriorityClassLabel, queue.priority_class);
  return out;
}

}  // namespace cfo::workload
