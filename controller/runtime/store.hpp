#pragma once
// The informer cache: the latest known state of every watched object, keyed by namespace/name.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/watch_event.hpp"

namespace cfo::runtime {

/// An immutable cached object. Readers may keep it as long as they like; the cache replaces, never mutates.
using ObjectPtr = std::shared_ptr<const json::Document>;

class ObjectPacker;

/// An object a StoreChange names: held whole, or packed and opened anew by each get(), so that the changes of a
/// list of thousands of packed objects do not hold every one of them opened at once.
class ChangedObject {
 public:
  ChangedObject() = default;
  /// The object itself (may be null: no object).
  ChangedObject(ObjectPtr object);  // NOLINT(google-explicit-constructor): a whole object is the common case
  /// A blob `packer` made (ObjectPacker::pack).
  ChangedObject(std::shared_ptr<const ObjectPacker> packer, std::string blob);

  /// The object, or nullptr when there is none or its blob does not unpack.
  ObjectPtr get() const;
  /// Whether there is an object (whole or packed).
  explicit operator bool() const { return object_ != nullptr || packer_ != nullptr; }

 private:
  ObjectPtr object_;
  std::shared_ptr<const ObjectPacker> packer_;
  std::string blob_;
};

/// One change the cache went through, as handed to informer event handlers.
/// Added: `object` is new. Updated: `old_object` was replaced by `object`. Deleted: `object` is the last known
/// state (the DELETED event's object, or the cached one when a relist found the object gone).
struct StoreChange {
  enum class Kind { Added, Updated, Deleted };
  Kind kind = Kind::Added;
  std::string key;
  ChangedObject old_object;  ///< set for Updated only
  ChangedObject object;
};

/// kube-rs reflector Store / client-go ThreadSafeStore (without indexers). Keys come from key_of(); objects
/// without metadata.name are ignored. Reads and writes are thread-safe (reads share a lock).
/// A packed store holds each object deflated (packed_object.hpp; the first object stored is the dictionary of all):
/// a fifth of the memory or less, for an inflate and a parse per object read back (get, list, and the old object of
/// an Updated or Deleted change, and the new object of a change replace() reports). Objects are packed by prepare(),
/// outside the lock readers wait on; an informer prepares each page of a list as it arrives, so that a list of
/// thousands of objects is never held unpacked at once.
class Store {
 public:
  /// An object made ready for the store by prepare(): its key, and the object itself or (packed store) its blob.
  /// An empty key means the object is not stored (no object, or no metadata.name).
  struct Item {
    std::string key;
    ObjectPtr object;
    std::string blob;
  };

  explicit Store(bool packed = false);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// The object under `key`, or nullptr.
  ObjectPtr get(const std::string& key) const;
  /// Every object whose key starts with `prefix` ("ns/": a namespace's objects; "": all), ordered by key. A packed
  /// store opens only those.
  std::vector<ObjectPtr> list(std::string_view prefix = {}) const;
  /// Every key that starts with `prefix`, sorted. Opens no object.
  std::vector<std::string> keys(std::string_view prefix = {}) const;
  /// Number of cached objects.
  std::size_t size() const;
  /// Bytes the cached objects hold: the sum of their documents' allocator capacities (for compact objects, one block
  /// sized to the object; see compact_object), or of their packed sizes in a packed store (the dictionary included).
  /// Keys and the map's nodes are not counted.
  std::size_t bytes() const;

  /// Keys `object` and, in a packed store, packs it (the first object packed becomes the dictionary of all). Takes
  /// no lock that readers wait on. Throws std::bad_alloc only.
  Item prepare(ObjectPtr object);

  /// Replaces the whole content with `items` (a complete list; of two items with one key the later wins). Returns
  /// the changes in key order: Added for new keys, Updated for keys that stay (client-go Replace reports them as
  /// updates, so a relist resyncs every object), Deleted (with the last cached state) for keys that vanished
  /// (client-go DeletedFinalStateUnknown). In a packed store the changes' objects are packed too (ChangedObject).
  std::vector<StoreChange> replace(std::vector<Item> items);
  /// replace() of the objects, each prepared.
  std::vector<StoreChange> replace_objects(const std::vector<ObjectPtr>& objects);

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
  ObjectPtr open(const Slot& slot) const;
  ChangedObject changed(Slot slot) const;
  static std::size_t slot_bytes(const Slot& slot);

  const bool packed_;
  mutable std::shared_mutex mu_;
  std::once_flag packer_made_;
  std::shared_ptr<const ObjectPacker> packer_;        // packed stores: made from the first object prepared
  std::map<std::string, Slot, std::less<>> objects_;  // transparent: looked up by string_view prefixes
  std::size_t bytes_ = 0;                             // sum of slot_bytes() over objects_
};

/// The bytes `object`'s document holds in its allocator (0 for null).
std::size_t object_bytes(const ObjectPtr& object);

}  // namespace cfo::runtime
