#include "core/condition.hpp"

namespace cfo {

bool set_condition(std::vector<Condition>& conditions, Condition c, const std::string& now) {
  for (auto& existing : conditions) {
    if (existing.type != c.type) continue;
    bool changed = false;
    if (existing.status != c.status) {
      existing.status = c.status;
      existing.last_transition_time = c.last_transition_time.empty() ? now : c.last_transition_time;
      changed = true;
    }
    if (existing.reason != c.reason) existing.reason = c.reason, changed = true;
    if (existing.message != c.message) existing.message = c.message, changed = true;
    if (existing.observed_generation != c.observed_generation)
      existing.observed_generation = c.observed_generation, changed = true;
    return changed;
  }
  if (c.last_transition_time.empty()) c.last_transition_time = now;
  conditions.push_back(std::move(c));
  return true;
}

bool remove_condition(std::vector<Condition>& conditions, const std::string& type) {
  return std::erase_if(conditions, [&](const Condition& c) { return c.type == type; }) > 0;
}

const Condition* find_condition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

json::Value conditions_to_json(const std::vector<Condition>& conditions, json::Allocator& a) {
  json::Value arr(rapidjson::kArrayType);
  for (const auto& c : conditions) {
    json::Value o(rapidjson::kObjectType);
    o.AddMember("type", json::str(c.type, a), a);
    o.AddMember("status", json::str(c.status, a), a);
    o.AddMember("observedGeneration", json::Value(static_cast<int64_t>(c.observed_generation)), a);
    o.AddMember("lastTransitionTime", json::str(c.last_transition_time, a), a);
    o.AddMember("reason", json::str(c.reason, a), a);
    o.AddMember("message", json::str(c.message, a), a);
    arr.PushBack(std::move(o), a);
  }
  return arr;
}

std::vector<Condition> conditions_from_json(const json::Value& v) {
  std::vector<Condition> out;
  if (!v.IsArray()) return out;
  for (const auto& item : v.GetArray()) {
    auto type = json::get_string(item, "type");
    if (!type) continue;
    Condition c;
    c.type = *type;
    c.status = json::get_string(item, "status").value_or("Unknown");
    c.observed_generation = json::get_int(item, "observedGeneration").value_or(0);
    c.last_transition_time = json::get_string(item, "lastTransitionTime").value_or("");
    c.reason = json::get_string(item, "reason").value_or("");
    c.message = json::get_string(item, "message").value_or("");
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace cfo
