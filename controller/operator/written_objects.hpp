#pragma once
// Our own status writes, until the informer cache shows them. A status write wakes nothing by itself, but the watch
// event of a child we just created often does, and the reconcile it starts may read the workload from the cache
// before the cache has our status write: it would then write the same status again and repeat the events of the
// transition. WrittenObjects keeps the object as our write left it and hands it out instead of the cached copy while
// the cache still holds the version the write was made on.
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/json.hpp"
#include "runtime/store.hpp"

namespace cfo::op {

/// Per object key: the resourceVersion a write was made on and the object as the write left it. Thread-safe. Holds
/// at most one entry per key, dropped once the cache shows another version (or the object is gone): entries live
/// for the time between a write and its watch event.
class WrittenObjects {
 public:
  /// `cached` (the informer cache's copy of `key`), or the object our last write returned when `cached` is still the
  /// version that write was made on. Drops the entry when the cache has moved past it. `cached` must not be null.
  runtime::ObjectPtr newest(const std::string& key, const runtime::ObjectPtr& cached);

  /// Records a write of `status` to `key` made on `read` (the copy the reconcile read: the cache's or newest()'s):
  /// the object kept is `read` with that status. Nothing is kept for an object without metadata.resourceVersion
  /// (its versions cannot be told apart).
  void wrote_status(const std::string& key, const json::Value& read, const json::Value& status);

  /// Drops what is kept for `key` when `cached` (the cache's copy now) is not the version the write was made on: the
  /// cache shows the write, or a later change. Called by the cache's update events and right after a write (whose
  /// watch event may come before the write's own response), so that nothing is kept for a workload that is not
  /// reconciled again (a status write wakes no reconcile).
  void cache_moved(const std::string& key, const json::Value& cached);

  /// Drops what is kept for `key` (the object is deleted).
  void forget(const std::string& key);

  /// The number of entries kept (for tests).
  std::size_t size() const;

 private:
  struct Entry {
    std::string written_on;  ///< the resourceVersion the cache held when the first of these writes was made
    runtime::ObjectPtr after;
  };
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace cfo::op
