#include "operator/own_child_writes.hpp"

namespace cfo::op {

namespace {
std::string resource_version(const json::Value& obj) { return json::string_at(obj, "metadata.resourceVersion"); }
}  // namespace

void OwnChildWrites::applied(const std::string& key, const json::Value& child) {
  std::string rv = resource_version(child);
  std::lock_guard lock(mu_);
  if (rv.empty())
    versions_.erase(key);
  else
    versions_[key] = std::move(rv);
}

bool OwnChildWrites::is_echo(const std::string& key, const json::Value& child) {
  std::lock_guard lock(mu_);
  auto it = versions_.find(key);
  if (it == versions_.end() || it->second != resource_version(child)) return false;
  versions_.erase(it);
  return true;
}

void OwnChildWrites::cache_holds(const std::string& key, const json::Value* cached) {
  if (!cached) return;
  std::lock_guard lock(mu_);
  auto it = versions_.find(key);
  if (it != versions_.end() && it->second == resource_version(*cached)) versions_.erase(it);
}

void OwnChildWrites::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  versions_.erase(key);
}

std::size_t OwnChildWrites::size() const {
  std::lock_guard lock(mu_);
  return versions_.size();
}

}  // namespace cfo::op
