#include "workload/validation_memo.hpp"

#include "workload/apply_plan.hpp"

namespace cfo::workload {

std::string ValidationMemo::key_of(const json::Value& desired, const json::Value* live,
                                   const validation::ClusterProfile& profile) {
  const json::Value* annotations = json::find_path(desired, "metadata.annotations");
  auto hash = annotations ? json::get_string(*annotations, kSpecHashAnnotation) : std::nullopt;
  if (!hash) return "";
  std::string key =
      json::get_string(desired, "kind").value_or("") + "/" + *hash + "/" + std::to_string(profile.kueue_max_pod_sets) +
      "/" + std::string(validation::pod_security_level_name(profile.pod_security)) + "/" +
      std::string(validation::profile_name(profile.name)) + "/" + std::to_string(profile.kubernetes_minor);
  if (live)
    key += "/" + json::string_at(*live, "metadata.uid") + ":" +
           std::to_string(json::get_int((*live)["metadata"], "generation").value_or(0));
  return key;
}

std::optional<FieldErrors> ValidationMemo::find(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = verdicts_.find(key);
  if (it == verdicts_.end()) return std::nullopt;
  return it->second;
}

void ValidationMemo::put(const std::string& key, FieldErrors findings) {
  if (key.empty() || capacity_ == 0) return;
  std::lock_guard lock(mu_);
  if (verdicts_.count(key)) return;
  while (verdicts_.size() >= capacity_ && !order_.empty()) {
    verdicts_.erase(order_.front());
    order_.pop_front();
  }
  verdicts_.emplace(key, std::move(findings));
  order_.push_back(key);
}

void ValidationMemo::clear() {
  std::lock_guard lock(mu_);
  verdicts_.clear();
  order_.clear();
}

std::size_t ValidationMemo::size() const {
  std::lock_guard lock(mu_);
  return verdicts_.size();
}

}  // namespace cfo::workload
