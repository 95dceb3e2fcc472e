#pragma once
// Our own DELETEs of a workload's children, until the informer cache shows them. A DELETE of a child held by a
// finalizer leaves it in place with a deletionTimestamp, and the plan waits for such a child instead of deleting it
// again (write_plan.hpp, already_going). But the child's watch event may come after another reconcile of the same
// workload (woken by the workload's own event, on another watch stream): that reconcile read the child without a
// deletionTimestamp, sent a second DELETE and told "Replacing" twice (operator_e2e
// AKindChangeWaitsForTheOldChildHeldByAFinalizer, 15 ms apart). Remembering the uids deleted closes that window.
#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/json.hpp"
#include "operator/resources.hpp"

namespace cfo::op {

/// Per workload key: the metadata.uid of each child whose DELETE the apiserver accepted, until the cache shows that
/// child with a deletionTimestamp, shows it gone, or shows another object (another uid) in its place. Thread-safe.
/// Entries live for the time between a DELETE and its watch event.
class DeletionsSent {
 public:
  /// The DELETE of `child` (the cached child it was sent for) under workload `key` was accepted (or answered 404).
  /// Nothing is kept for a child without metadata.uid.
  void deleted(const std::string& key, const json::Value& child);

  /// For each child kind, whether `cached[i]` (the cache's child of that kind under `key`, or null) is one we deleted
  /// that the cache does not yet show going. Drops every uid the cache has caught up with.
  std::array<bool, kChildKindCount> pending(const std::string& key,
                                            const std::array<const json::Value*, kChildKindCount>& cached);

  /// Drops `key`'s entry (the workload is deleted).
  void forget(const std::string& key);

  /// The number of workload keys with an entry (for tests).
  std::size_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::vector<std::string>> uids_;
};

}  // namespace cfo::op
