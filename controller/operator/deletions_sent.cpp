#include "operator/deletions_sent.hpp"

#include <algorithm>

namespace cfo::op {

void DeletionsSent::deleted(const std::string& key, const json::Value& child) {
  std::string uid = json::string_at(child, "metadata.uid");
  if (uid.empty()) return;
  std::lock_guard lock(mu_);
  auto& uids = uids_[key];
  if (std::find(uids.begin(), uids.end(), uid) == uids.end()) uids.push_back(std::move(uid));
}

std::array<bool, kChildKindCount> DeletionsSent::pending(
    const std::string& key, const std::array<const json::Value*, kChildKindCount>& cached) {
  std::array<bool, kChildKindCount> out{};
  std::lock_guard lock(mu_);
  auto it = uids_.find(key);
  if (it == uids_.end()) return out;
  auto& uids = it->second;
  // A uid stays only while the cache holds that very child without a deletionTimestamp.
  std::erase_if(uids, [&](const std::string& uid) {
    for (std::size_t i = 0; i < kChildKindCount; ++i)
      if (cached[i] && json::string_at(*cached[i], "metadata.uid") == uid &&
          !json::find_path(*cached[i], "metadata.deletionTimestamp")) {
        out[i] = true;
        return false;
      }
    return true;
  });
  if (uids.empty()) uids_.erase(it);
  return out;
}

void DeletionsSent::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  uids_.erase(key);
}

std::size_t DeletionsSent::size() const {
  std::lock_guard lock(mu_);
  return uids_.size();
}

}  // namespace cfo::op
