#include "operator/own_child_writes.hpp"

#include <algorithm>

namespace cfo::op {

namespace {
std::string resource_version(const json::Value& obj) { return json::string_at(obj, "metadata.resourceVersion"); }
}  // namespace

OwnChildWrites::OwnChildWrites(std::function<void(const std::string&)> wake) : wake_(std::move(wake)) {}

void OwnChildWrites::creating(const std::string& key) {
  if (!wake_) return;  // nothing could be woken later: nothing is held back
  std::lock_guard lock(mu_);
  entries_[key] = Entry{true, {}, {}};
}

void OwnChildWrites::created(const std::string& key, const json::Value& child) {
  std::string rv = resource_version(child);
  bool news = false;
  {
    std::lock_guard lock(mu_);
    Entry& e = entries_[key];
    news = std::any_of(e.held.begin(), e.held.end(), [&](const std::string& v) { return v.empty() || v != rv; });
    const bool seen = std::find(e.held.begin(), e.held.end(), rv) != e.held.end();
    if (rv.empty() || seen)
      entries_.erase(key);  // its event came already, or versions cannot be told apart
    else
      e = Entry{false, std::move(rv), {}};
  }
  if (news) wake_(key);
}

void OwnChildWrites::not_created(const std::string& key) {
  bool news = false;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end() || !it->second.creating) return;
    news = !it->second.held.empty();
    entries_.erase(it);
  }
  if (news) wake_(key);
}

bool OwnChildWrites::is_echo(const std::string& key, const json::Value& child) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  Entry& e = it->second;
  if (e.creating) {
    e.held.push_back(resource_version(child));
    return true;
  }
  if (e.version != resource_version(child)) return false;
  entries_.erase(it);
  return true;
}

void OwnChildWrites::cache_holds(const std::string& key, const json::Value* cached) {
  if (!cached) return;
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end() && !it->second.creating && it->second.version == resource_version(*cached))
    entries_.erase(it);
}

void OwnChildWrites::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  entries_.erase(key);
}

std::size_t OwnChildWrites::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace cfo::op
