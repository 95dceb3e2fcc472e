#include "runtime/store.hpp"

#include <mutex>

#include "runtime/object_key.hpp"

namespace cfo::runtime {

ObjectPtr Store::get(const std::string& key) const {
  std::shared_lock lk(mu_);
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Store::list() const {
  std::shared_lock lk(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(objects_.size());
  for (const auto& [key, obj] : objects_) out.push_back(obj);
  return out;
}

std::vector<std::string> Store::keys() const {
  std::shared_lock lk(mu_);
  std::vector<std::string> out;
  out.reserve(objects_.size());
  for (const auto& [key, obj] : objects_) out.push_back(key);
  return out;
}

std::size_t Store::size() const {
  std::shared_lock lk(mu_);
  return objects_.size();
}

std::size_t Store::bytes() const {
  std::shared_lock lk(mu_);
  return bytes_;
}

std::size_t object_bytes(const ObjectPtr& object) {
  if (!object) return 0;
  // GetAllocator() is not const in RapidJSON; Capacity() only reads.
  return const_cast<json::Document&>(*object).GetAllocator().Capacity();
}

std::vector<StoreChange> Store::replace(std::vector<ObjectPtr> objects) {
  std::map<std::string, ObjectPtr> next;
  std::size_t next_bytes = 0;
  for (auto& obj : objects) {
    if (!obj) continue;
    std::string key = key_of(*obj);
    if (key.empty()) continue;
    ObjectPtr& slot = next[key];
    next_bytes -= object_bytes(slot);
    next_bytes += object_bytes(obj);
    slot = std::move(obj);
  }
  std::vector<StoreChange> changes;
  std::unique_lock lk(mu_);
  auto old_it = objects_.begin();
  auto new_it = next.begin();
  // Merge the two sorted maps.
  while (old_it != objects_.end() || new_it != next.end()) {
    if (new_it == next.end() || (old_it != objects_.end() && old_it->first < new_it->first)) {
      changes.push_back({StoreChange::Kind::Deleted, old_it->first, nullptr, old_it->second});
      ++old_it;
    } else if (old_it == objects_.end() || new_it->first < old_it->first) {
      changes.push_back({StoreChange::Kind::Added, new_it->first, nullptr, new_it->second});
      ++new_it;
    } else {
      changes.push_back({StoreChange::Kind::Updated, new_it->first, old_it->second, new_it->second});
      ++old_it;
      ++new_it;
    }
  }
  objects_ = std::move(next);
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
      bytes_ -= object_bytes(it->second);
      objects_.erase(it);
    }
    return StoreChange{StoreChange::Kind::Deleted, std::move(key), nullptr, std::move(object)};
  }
  bytes_ += object_bytes(object);
  if (it == objects_.end()) {
    objects_.emplace(key, object);
    return StoreChange{StoreChange::Kind::Added, std::move(key), nullptr, std::move(object)};
  }
  bytes_ -= object_bytes(it->second);
  ObjectPtr old = std::exchange(it->second, object);
  return StoreChange{StoreChange::Kind::Updated, std::move(key), std::move(old), std::move(object)};
}

}  // namespace cfo::runtime
