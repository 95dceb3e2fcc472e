#include "runtime/store.hpp"

#include <algorithm>
#include <mutex>

#include "runtime/object_key.hpp"
#include "runtime/packed_object.hpp"

namespace cfo::runtime {

ChangedObject::ChangedObject(ObjectPtr object) : object_(std::move(object)) {}

ChangedObject::ChangedObject(std::shared_ptr<const ObjectPacker> packer, std::string blob)
    : packer_(std::move(packer)), blob_(std::move(blob)) {}

ObjectPtr ChangedObject::get() const {
  if (object_ || !packer_) return object_;
  return packer_->unpack(blob_);
}

Store::Store(bool packed) : packed_(packed) {}
Store::~Store() = default;

Store::Item Store::prepare(ObjectPtr object) {
  Item item;
  if (!object) return item;
  item.key = key_of(*object);
  if (item.key.empty() || !packed_) {
    item.object = std::move(object);
    return item;
  }
  // call_once orders the packer's making before every use of it here; readers take it under mu_.
  std::call_once(packer_made_, [&] {
    auto packer = std::make_shared<const ObjectPacker>(json::dump(*object));
    std::unique_lock lk(mu_);
    packer_ = std::move(packer);
  });
  item.blob = packer_->pack(*object);
  return item;
}

ObjectPtr Store::open(const Slot& slot) const {
  return slot.object || !packer_ ? slot.object : packer_->unpack(slot.blob);
}

ChangedObject Store::changed(Slot slot) const {
  if (slot.object || !packer_) return {std::move(slot.object)};
  return {packer_, std::move(slot.blob)};
}

std::size_t Store::slot_bytes(const Slot& slot) {
  return slot.object ? object_bytes(slot.object) : slot.blob.capacity();
}

ObjectPtr Store::get(const std::string& key) const {
  std::shared_lock lk(mu_);
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : open(it->second);
}

std::vector<ObjectPtr> Store::list(std::string_view prefix) const {
  std::shared_lock lk(mu_);
  std::vector<ObjectPtr> out;
  if (prefix.empty()) out.reserve(objects_.size());
  for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.starts_with(prefix); ++it)
    out.push_back(open(it->second));
  return out;
}

std::vector<std::string> Store::keys(std::string_view prefix) const {
  std::shared_lock lk(mu_);
  std::vector<std::string> out;
  if (prefix.empty()) out.reserve(objects_.size());
  for (auto it = objects_.lower_bound(prefix); it != objects_.end() && it->first.starts_with(prefix); ++it)
    out.push_back(it->first);
  return out;
}

std::size_t Store::size() const {
  std::shared_lock lk(mu_);
  return objects_.size();
}

std::size_t Store::bytes() const {
  std::shared_lock lk(mu_);
  return bytes_ + (packer_ ? packer_->dictionary().capacity() : 0);
}

std::size_t object_bytes(const ObjectPtr& object) {
  if (!object) return 0;
  // GetAllocator() is not const in RapidJSON; Capacity() only reads.
  return const_cast<json::Document&>(*object).GetAllocator().Capacity();
}

std::vector<StoreChange> Store::replace_objects(const std::vector<ObjectPtr>& objects) {
  std::vector<Item> items;
  items.reserve(objects.size());
  for (const auto& object : objects) items.push_back(prepare(object));
  return replace(std::move(items));
}

std::vector<StoreChange> Store::replace(std::vector<Item> items) {
  std::erase_if(items, [](const Item& item) { return item.key.empty(); });
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
  // Of equal keys keep the last: walking backwards, unique keeps the first it meets.
  auto first_kept =
      std::unique(items.rbegin(), items.rend(), [](const Item& a, const Item& b) { return a.key == b.key; }).base();
  std::vector<StoreChange> changes;
  changes.reserve(items.size());
  std::map<std::string, Slot, std::less<>> slots;
  std::size_t next_bytes = 0;
  std::unique_lock lk(mu_);
  auto old_it = objects_.begin();
  auto new_it = first_kept;
  // Merge the two sorted sequences.
  while (old_it != objects_.end() || new_it != items.end()) {
    if (new_it == items.end() || (old_it != objects_.end() && old_it->first < new_it->key)) {
      changes.push_back({StoreChange::Kind::Deleted, old_it->first, {}, changed(std::move(old_it->second))});
      ++old_it;
      continue;
    }
    const bool known = old_it != objects_.end() && old_it->first == new_it->key;
    Slot& slot =
        slots.emplace_hint(slots.end(), new_it->key, Slot{std::move(new_it->object), std::move(new_it->blob)})->second;
    next_bytes += slot_bytes(slot);
    changes.push_back({known ? StoreChange::Kind::Updated : StoreChange::Kind::Added, std::move(new_it->key),
                       known ? changed(std::move(old_it->second)) : ChangedObject{}, changed(slot)});
    if (known) ++old_it;
    ++new_it;
  }
  objects_ = std::move(slots);
  bytes_ = next_bytes;
  return changes;
}

std::optional<StoreChange> Store::apply(WatchEvent::Type type, ObjectPtr object) {
  if (!object) return std::nullopt;
  if (type != WatchEvent::Type::Added && type != WatchEvent::Type::Modified && type != WatchEvent::Type::Deleted)
    return std::nullopt;
  if (type == WatchEvent::Type::Deleted) {
    std::string key = key_of(*object);
    if (key.empty()) return std::nullopt;
    std::unique_lock lk(mu_);
    if (auto it = objects_.find(key); it != objects_.end()) {
      bytes_ -= slot_bytes(it->second);
      objects_.erase(it);
    }
    return StoreChange{StoreChange::Kind::Deleted, std::move(key), {}, std::move(object)};
  }
  Item item = prepare(object);
  if (item.key.empty()) return std::nullopt;
  Slot slot{std::move(item.object), std::move(item.blob)};
  std::unique_lock lk(mu_);
  bytes_ += slot_bytes(slot);
  auto it = objects_.find(item.key);
  if (it == objects_.end()) {
    objects_.emplace(item.key, std::move(slot));
    return StoreChange{StoreChange::Kind::Added, std::move(item.key), {}, std::move(object)};
  }
  bytes_ -= slot_bytes(it->second);
  ChangedObject old = changed(std::move(it->second));
  it->second = std::move(slot);
  return StoreChange{StoreChange::Kind::Updated, std::move(item.key), std::move(old), std::move(object)};
}

}  // namespace cfo::runtime
