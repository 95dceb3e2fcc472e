#pragma once
// The informer cache: the latest known state of every watched object, keyed by namespace/name.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/watch_event.hpp"

namespace cfo::runtime {

/// An immutable cached object. Readers may keep it as long as they like; the cache replaces, never mutates.
using ObjectPtr = std::shared_ptr<const json::Document>;

/// One change the cache went through, as handed to informer event handlers.
/// Added: `object` is new. Updated: `old_object` was replaced by `object`. Deleted: `object` is the last known
/// state (the DELETED event's object, or the cached one when a relist found the object gone).
struct StoreChange {
  enum class Kind { Added, Updated, Deleted };
  Kind kind = Kind::Added;
  std::string key;
  ObjectPtr old_object;  ///< set for Updated only
  ObjectPtr object;
};

class ObjectPacker;

/// kube-rs reflector Store / client-go ThreadSafeStore (without indexers). Keys come from key_of(); objects
/// without metadata.name are ignored. Reads and writes are thread-safe (reads share a lock).
/// A packed store holds each object deflated (packed_object.hpp; the first object stored is the dictionary of all):
/// a fifth of the memory or less, for an inflate and a parse per object read back (get, list, and the old object of
/// an Updated or Deleted change). The objects changes hand out as `object` are the ones given, not read back.
class Store {
 public:
  explicit Store(bool packed = false);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// The object under `key`, or nullptr.
  ObjectPtr get(const std::string& key) const;
  /// Every object, ordered by key.
  std::vector<ObjectPtr> list() const;
  /// Every key, sorted.
  std::vector<std::string> keys() const;
  /// Number of cached objects.
  std::size_t size() const;
  /// Bytes the cached objects hold: the sum of their documents' allocator capacities (for compact objects, one block
  /// sized to the object; see compact_object), or of their packed sizes in a packed store (the dictionary included).
  /// Keys and the map's nodes are not counted.
  std::size_t bytes() const;

  /// Replaces the whole content with `objects` (a complete list). Returns the changes in key order: Added for new
  /// keys, Updated for keys that stay (client-go Replace reports them as updates, so a relist resyncs every
  /// object), Deleted (with the last cached state) for keys that vanished (client-go DeletedFinalStateUnknown).
  std::vector<StoreChange> replace(std::vector<ObjectPtr> objects);

  /// Applies one ADDED/MODIFIED/DELETED event. ADDED of a known key and MODIFIED of an unknown key are treated by
  /// what the cache holds (Updated / Added). DELETED of an unknown key still reports Deleted with the event's
  /// object. BOOKMARK and ERROR change nothing (std::nullopt), as do objects without a name.
  std::optional<StoreChange> apply(WatchEvent::Type type, ObjectPtr object);

 private:
  // One cached object: `object`, or in a packed store `blob`.
  struct Slot {
    ObjectPtr object;
    std::string blob;
  };
  Slot slot_of(ObjectPtr object);  // with mu_ held for writing
  ObjectPtr open(const Slot& slot) const;
  static std::size_t slot_bytes(const Slot& slot);

  const bool packed_;
  mutable std::shared_mutex mu_;
  std::unique_ptr<ObjectPacker> packer_;  // packed stores: made from the first object stored
  std::map<std::string, Slot> objects_;
  std::size_t bytes_ = 0;  // sum of slot_bytes() over objects_
};

/// The bytes `object`'s document holds in its allocator (0 for null).
std::size_t object_bytes(const ObjectPtr& object);

}  // namespace cfo::runtime
