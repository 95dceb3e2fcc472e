#include "runtime/store.hpp"

#include <mutex>

#include "runtime/object_key.hpp"
#include "runtime/packed_object.hpp"

namespace cfo::runtime {

Store::Store(bool packed) : packed_(packed) {}
Store::~Store() = default;

Store::Slot Store::slot_of(ObjectPtr object) {
  if (!packed_ || !object) return {std::move(object), {}};
  if (!packer_) packer_ = std::make_unique<ObjectPacker>(json::dump(*object));
  return {nullptr, packer_->pack(*object)};
}

ObjectPtr Store::open(const Slot& slot) const {
  return slot.object || !packer_ ? slot.object : packer_->unpack(slot.blob);
}

std::size_t Store::slot_bytes(const Slot& slot) {
  return slot.object ? object_bytes(slot.object) : slot.blob.capacity();
}

ObjectPtr Store::get(const std::string& key) const {
  std::shared_lock lk(mu_);
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : open(it->second);
}

std::vector<ObjectPtr> Store::list() const {
  std::shared_lock lk(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(objects_.size());
  for (const auto& [key, slot] : objects_) out.push_back(open(slot));
  return out;
}

std::vector<std::string> Store::keys() const {
  std::shared_lock lk(mu_);
  std::vector<std::string> out;
  out.reserve(objects_.size());
  for (const auto& [key, slot] : objects_) out.push_back(key);
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

std::vector<StoreChange> Store::replace(std::vector<ObjectPtr> objects) {
  std::map<std::string, ObjectPtr> next;
  for (auto& obj : objects) {
    if (!obj) continue;
    std::string key = key_of(*obj);
    if (key.empty()) continue;
    next[key] = std::move(obj);
  }
  std::vector<StoreChange> changes;
  std::map<std::string, Slot> slots;
  std::size_t next_bytes = 0;
  std::unique_lock lk(mu_);
  auto old_it = objects_.begin();
  auto new_it = next.begin();
  // Merge the two sorted maps.
  while (old_it != objects_.end() || new_it != next.end()) {
    if (new_it == next.end() || (old_it != objects_.end() && old_it->first < new_it->first)) {
      changes.push_back({StoreChange::Kind::Deleted, old_it->first, nullptr, open(old_it->second)});
      ++old_it;
      continue;
    }
    const bool known = old_it != objects_.end() && old_it->first == new_it->first;
    changes.push_back({known ? StoreChange::Kind::Updated : StoreChange::Kind::Added, new_it->first,
                       known ? open(old_it->second) : nullptr, new_it->second});
    Slot& slot = slots.emplace_hint(slots.end(), new_it->first, slot_of(new_it->second))->second;
    next_bytes += slot_bytes(slot);
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
  std::string key = key_of(*object);
  if (key.empty()) return std::nullopt;
  std::unique_lock lk(mu_);
  auto it = objects_.find(key);
  if (type == WatchEvent::Type::Deleted) {
    if (it != objects_.end()) {
      bytes_ -= slot_bytes(it->second);
      objects_.erase(it);
    }
    return StoreChange{StoreChange::Kind::Deleted, std::move(key), nullptr, std::move(object)};
  }
  Slot slot = slot_of(object);
  bytes_ += slot_bytes(slot);
  if (it == objects_.end()) {
    objects_.emplace(key, std::move(slot));
    return StoreChange{StoreChange::Kind::Added, std::move(key), nullptr, std::move(object)};
  }
  bytes_ -= slot_bytes(it->second);
  ObjectPtr old = open(it->second);
  it->second = std::move(slot);
  return StoreChange{StoreChange::Kind::Updated, std::move(key), std::move(old), std::move(object)};
}

}  // namespace cfo::runtime
