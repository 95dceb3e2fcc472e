#include "operator/drift.hpp"

#include <algorithm>

#include "workload/apply_plan.hpp"

namespace cfo::op {

namespace {
std::string hash_of(const json::Value& obj) {
  const json::Value* annotations = json::find_path(obj, "metadata.annotations");
  return annotations && annotations->IsObject()
             ? json::get_string(*annotations, workload::kSpecHashAnnotation).value_or("")
             : "";
}
}  // namespace

std::optional<Drift> detect_drift(const json::Value& desired, const json::Value& live, const std::string& our_manager) {
  const std::string want = hash_of(desired), have = hash_of(live);
  // The operator writes the annotation on every child it applies: a controlled child without it lost it to a hand
  // edit (trial 57: removing it was set back without a word), a drift like any other.
  if (want.empty() || (!have.empty() && want != have) || workload::is_applied(desired, live)) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> seen;  // (time, "manager (operation)")
  if (const json::Value* mf = json::find_path(live, "metadata.managedFields"); mf && mf->IsArray())
    for (const auto& e : mf->GetArray()) {
      const std::string manager = json::get_string(e, "manager").value_or("");
      if (manager.empty() || manager == our_manager) continue;
      seen.emplace_back(json::get_string(e, "time").value_or(""),
                        manager + " (" + json::get_string(e, "operation").value_or("?") + ")");
    }
  std::stable_sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  Drift d;
  for (auto& [time, who] : seen) d.managers.push_back(std::move(who));
  return d;
}

std::string describe_drift(const Drift& d, const std::string& kind, const std::string& name) {
  std::string who;
  for (const auto& m : d.managers) who += (who.empty() ? "" : ", ") + m;
  return kind + " " + name + " was changed by " +
         (who.empty() ? std::string("a writer its managedFields do not name (as when fields are only removed)")
                      : "field manager " + who) +
         " in fields the operator owns; they are set back (changes belong in the CodeFlareWorkload's spec)";
}

void reduce_managed_fields(json::Document& obj) {
  json::Value* mf = json::find(obj, "metadata") ? json::find(*json::find(obj, "metadata"), "managedFields") : nullptr;
  if (!mf || !mf->IsArray()) return;
  for (auto& e : mf->GetArray())
    if (e.IsObject()) e.RemoveMember("fieldsV1"), e.RemoveMember("fieldsType"), e.RemoveMember("apiVersion");
}

int64_t RestorePacer::admit(const std::string& key, Clock::time_point now) {
  std::lock_guard lock(mu_);
  auto [it, fresh] = by_key_.try_emplace(key);
  State& s = it->second;
  if (fresh || now - s.last >= 2 * max_) {
    s = {now, first_};
    return 0;
  }
  const auto due = s.last + s.gap;
  if (now < due) return std::chrono::duration_cast<std::chrono::milliseconds>(due - now).count() + 1;
  s.last = now;
  s.gap = std::min(max_, s.gap * 2);
  return 0;
}

void RestorePacer::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  by_key_.erase(key);
}

}  // namespace cfo::op
