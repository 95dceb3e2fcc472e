#pragma once
// The watch events of our own child writes. A reconcile that creates or updates a workload's top-level child already
// reports that child in the status it writes (workload_controller.cpp), so the child informer's event for the very
// version our apply returned has nothing new to tell: waking the workload for it costs a second reconcile per new
// workload that writes nothing (issue 11: 2.0 reconciles per new workload). Any other version (KubeRay's status, a
// change by someone else, a relist that found a newer object) wakes it as before.
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/json.hpp"

namespace cfo::op {

/// Per workload key: the metadata.resourceVersion of its top-level child (RayCluster, AppWrapper or RayJob) as our
/// last apply of it returned. Thread-safe (written by the workers, read by the child informers' event handlers).
/// At most one entry per workload; an entry goes when its event is seen, when the cache is seen to hold that version
/// already, on the next apply, or when the workload is gone.
class OwnChildWrites {
 public:
  /// Records that our apply of `key`'s top-level child returned `child` (the apiserver's response). Nothing is kept
  /// for a response without metadata.resourceVersion.
  void applied(const std::string& key, const json::Value& child);

  /// True when `child` (a child informer's event object, mapped to workload `key`) is the version our last apply of
  /// that workload's child returned: the event is our write's own echo, and the entry is dropped. False otherwise.
  bool is_echo(const std::string& key, const json::Value& child);

  /// Drops `key`'s entry when `cached` (the child the cache holds now, or null) is that version: its event came
  /// before the apply's response was recorded (it woke the workload, whose reconcile calls this).
  void cache_holds(const std::string& key, const json::Value* cached);

  /// Drops `key`'s entry (the workload is deleted).
  void forget(const std::string& key);

  /// The number of entries kept (for tests and the cache-size figures).
  std::size_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::string> versions_;  // workload key -> the child's resourceVersion
};

}  // namespace cfo::op
