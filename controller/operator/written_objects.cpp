#include "operator/written_objects.hpp"

#include "runtime/cached_object.hpp"

namespace cfo::op {

namespace {
std::string resource_version(const json::Value& obj) { return json::string_at(obj, "metadata.resourceVersion"); }
}  // namespace

runtime::ObjectPtr WrittenObjects::newest(const std::string& key, const runtime::ObjectPtr& cached) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return cached;
  if (resource_version(*cached) == it->second.written_on) return it->second.after;
  entries_.erase(it);  // the cache shows our write, or a later change: it is the newest again
  return cached;
}

void WrittenObjects::wrote_status(const std::string& key, const json::Value& read, const json::Value& status) {
  const std::string on = resource_version(read);
  if (on.empty()) return;
  json::Document copy;
  copy.SetObject();
  auto& a = copy.GetAllocator();
  for (const auto& m : read.GetObject())
    if (!(m.name == "status")) copy.AddMember(json::Value(m.name, a), json::Value(m.value, a), a);
  copy.AddMember("status", json::Value(status, a), a);
  runtime::ObjectPtr after = runtime::compact_object(copy);
  // A second write made on the first one's result (newest() gave it, with the version the cache still holds)
  // replaces it under the same version.
  std::lock_guard lock(mu_);
  entries_[key] = Entry{on, std::move(after)};
}

void WrittenObjects::cache_moved(const std::string& key, const json::Value& cached) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end() && resource_version(cached) != it->second.written_on) entries_.erase(it);
}

void WrittenObjects::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  entries_.erase(key);
}

std::size_t WrittenObjects::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace cfo::op
