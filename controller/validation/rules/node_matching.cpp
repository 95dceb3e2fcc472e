#include "validation/rules/node_matching.hpp"

#include <charconv>

#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules {

namespace {

bool in_values(const json::Value& req, const std::string& v) {
  const json::Value* values = array_at(req, "values");
  if (!values) return false;
  for (const auto& x : values->GetArray())
    if (x.IsString() && text(x) == v) return true;
  return false;
}

std::optional<int64_t> as_integer(const std::string& s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

Labels string_map(const json::Value* obj) {
  Labels out;
  if (!obj || !obj->IsObject()) return out;
  for (auto it = obj->MemberBegin(); it != obj->MemberEnd(); ++it)
    if (it->value.IsString()) out[text(it->name)] = text(it->value);
  return out;
}

Match label_selector_matches(const json::Value* selector, const Labels& labels,
                             const std::function<bool(const std::string&)>& known) {
  if (!selector || selector->IsNull()) return Match::kNo;
  if (!selector->IsObject()) return Match::kUnknown;
  bool unknown = false;
  auto judge = [&](const std::string& key, bool verdict) {
    if (!known(key)) {
      unknown = true;
      return true;
    }
    return verdict;
  };
  if (const json::Value* ml = member(*selector, "matchLabels"); ml && ml->IsObject())
    for (auto it = ml->MemberBegin(); it != ml->MemberEnd(); ++it) {
      const std::string key = text(it->name);
      auto l = labels.find(key);
      if (!judge(key, l != labels.end() && l->second == text(it->value))) return Match::kNo;
    }
  if (const json::Value* me = array_at(*selector, "matchExpressions"))
    for (const auto& req : me->GetArray()) {
      const std::string key = string_at(req, "key").value_or("");
      const std::string op = string_at(req, "operator").value_or("");
      auto l = labels.find(key);
      bool ok;
      if (op == "In")
        ok = l != labels.end() && in_values(req, l->second);
      else if (op == "NotIn")
        ok = l == labels.end() || !in_values(req, l->second);
      else if (op == "Exists")
        ok = l != labels.end();
      else if (op == "DoesNotExist")
        ok = l == labels.end();
      else
        return Match::kUnknown;
      if (!judge(key, ok)) return Match::kNo;
    }
  return unknown ? Match::kUnknown : Match::kYes;
}

bool node_requirement_matches(const json::Value& req, const Labels& node_labels) {
  const std::string key = string_at(req, "key").value_or("");
  const std::string op = string_at(req, "operator").value_or("");
  auto l = node_labels.find(key);
  if (op == "In") return l != node_labels.end() && in_values(req, l->second);
  if (op == "NotIn") return l == node_labels.end() || !in_values(req, l->second);
  if (op == "Exists") return l != node_labels.end();
  if (op == "DoesNotExist") return l == node_labels.end();
  if (op == "Gt" || op == "Lt") {
    const json::Value* values = array_at(req, "values");
    if (l == node_labels.end() || !values || values->Size() != 1 || !(*values)[0].IsString()) return false;
    auto have = as_integer(l->second), want = as_integer(text((*values)[0]));
    if (!have || !want) return false;
    return op == "Gt" ? *have > *want : *have < *want;
  }
  return false;
}

bool tolerates(const json::Value& toleration, const json::Value& taint) {
  const std::string effect = string_at(toleration, "effect").value_or("");
  if (!effect.empty() && effect != string_at(taint, "effect").value_or("")) return false;
  const std::string key = string_at(toleration, "key").value_or("");
  const std::string op = string_at(toleration, "operator").value_or("");
  if (!key.empty() && key != string_at(taint, "key").value_or("")) return false;
  if (op == "Exists") return true;
  if (op.empty() || op == "Equal")
    return string_at(toleration, "value").value_or("") == string_at(taint, "value").value_or("");
  return true;  // Gt / Lt (a newer comparison feature): not judged here
}

}  // namespace cfo::validation::rules
