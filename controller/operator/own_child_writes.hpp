#pragma once
// The watch events of our own child creations. A reconcile that creates a workload's top-level child already reports
// that child in the status it writes (workload_controller.cpp), so the child informer's event for the very version
// our apply returned has nothing new to tell: waking the workload for it cost a second reconcile per new workload
// that wrote nothing (issue 11: 2.0 reconciles per new workload). Any other version (KubeRay's status, a change by
// someone else, a relist that found a newer object) wakes it as before.
//
// The event often comes before the apply's response (the apiserver sends both at once): while a creation is under
// way, the events of that workload's children are held back and their versions noted; once the response is in, a
// noted version other than the one created (or any, when the creation failed) wakes the workload then.
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/json.hpp"

namespace cfo::op {

/// Per workload key: the creation of its top-level child (RayCluster, AppWrapper or RayJob) under way, or the
/// metadata.resourceVersion that creation returned until its event is seen. Thread-safe (written by the workers,
/// read by the child informers' event handlers). At most one entry per workload; an entry goes when its event is
/// seen, when the cache is seen to hold that version already, or when the workload is gone.
class OwnChildWrites {
 public:
  /// `wake` enqueues a workload key (the work queue's add): called for an event held back that turned out to be
  /// news. Null: nothing is ever held back.
  explicit OwnChildWrites(std::function<void(const std::string&)> wake = {});

  /// A creation of `key`'s top-level child starts (before its apply is sent).
  void creating(const std::string& key);

  /// The creation of `key`'s top-level child returned `child` (the apiserver's response). An event held back whose
  /// version is another wakes the workload. Nothing is kept for a response without metadata.resourceVersion.
  void created(const std::string& key, const json::Value& child);

  /// The creation of `key`'s top-level child did not happen (the apply failed, or the plan stopped before it): every
  /// event held back wakes the workload.
  void not_created(const std::string& key);

  /// True when the event of `child` (a child informer's event object, mapped to workload `key`) wakes nothing: it is
  /// the version our creation returned (the entry is dropped), or a creation is under way (its version is noted and
  /// judged when the response is in). False otherwise.
  bool is_echo(const std::string& key, const json::Value& child);

  /// Drops `key`'s entry when `cached` (the child the cache holds now, or null) is the version created: its event
  /// was seen (it woke the workload, whose reconcile calls this).
  void cache_holds(const std::string& key, const json::Value* cached);

  /// Drops `key`'s entry (the workload is deleted).
  void forget(const std::string& key);

  /// The number of entries kept (for tests).
  std::size_t size() const;

 private:
  struct Entry {
    bool creating = false;
    std::string version;            ///< the version our creation returned (once it did)
    std::vector<std::string> held;  ///< versions of the events held back while creating
  };
  std::function<void(const std::string&)> wake_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace cfo::op
