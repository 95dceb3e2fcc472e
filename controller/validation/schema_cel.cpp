#include "validation/schema_cel.hpp"

#include <variant>
#include <vector>

namespace cfo::validation::structural {

namespace {

/// The item of `old_list` whose list-map key fields equal those of `item`, or nullptr.
const json::Value* correlate_item(const json::Value& item, const json::Value& old_list,
                                  const std::vector<std::string>& keys) {
  if (!item.IsObject() || !old_list.IsArray() || keys.empty()) return nullptr;
  for (auto it = old_list.Begin(); it != old_list.End(); ++it) {
    if (!it->IsObject()) continue;
    bool same = true;
    for (const auto& k : keys) {
      const json::Value* a = json::find(item, k);
      const json::Value* b = json::find(*it, k);
      if ((a == nullptr) != (b == nullptr) || (a && *a != *b)) {
        same = false;
        break;
      }
    }
    if (same) return &*it;
  }
  return nullptr;
}

class CelWalker {
 public:
  CelWalker(const std::string& source, FieldErrors& out) : source_(source), out_(out) {}

  /// Only finds out whether a rule would run (applies()), evaluating nothing.
  void dry_run() { dry_ = true; }
  bool applies() const { return applies_; }

  void walk(const PlanNode& n, const json::Value& v, const json::Value* old) {
    if (!n.rules_below || v.IsNull() || applies_) return;
    if (!n.rules.empty()) run_rules(n, v, old);
    if (v.IsObject()) {
      const json::Value* old_obj = old && old->IsObject() ? old : nullptr;
      for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        const std::string_view key(it->name.GetString(), it->name.GetStringLength());
        const PlanNode* child = n.member(key);
        if (!child || !child->rules_below) continue;
        segs_.emplace_back(key);
        walk(*child, it->value, old_obj ? json::find(*old_obj, key) : nullptr);
        segs_.pop_back();
      }
    } else if (v.IsArray() && n.items && n.items->rules_below) {
      const json::Value* old_list = old && old->IsArray() && !n.list_map_keys.empty() ? old : nullptr;
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        segs_.emplace_back(static_cast<std::size_t>(i));
        walk(*n.items, v[i], old_list ? correlate_item(v[i], *old_list, n.list_map_keys) : nullptr);
        segs_.pop_back();
      }
    }
  }

 private:
  void run_rules(const PlanNode& n, const json::Value& v, const json::Value* old) {
    if (dry_) {
      for (const auto& rule : n.rules) applies_ = applies_ || !rule.program.uses_old_self() || old;
      return;
    }
    const cel::Value self = cel::Value::from_json(v, n.schema);
    cel::Value old_self;
    if (old) old_self = cel::Value::from_json(*old, n.schema);
    for (const auto& rule : n.rules) {
      if (rule.program.uses_old_self() && !old) continue;
      const cel::RuleResult r = cel::evaluate_rule(rule.program, self, old ? &old_self : nullptr);
      if (r.verdict == cel::Verdict::Pass || r.verdict == cel::Verdict::Skipped) continue;
      if (!rule.program.uses_old_self() && old && *old == v) continue;  // ratcheting: unchanged since `old`
      std::string reason;
      if (r.verdict == cel::Verdict::Error) {
        reason = "the rule cannot be evaluated (" + r.detail + "): " + rule.program.text();
      } else {
        reason = rule.reason;
        if (rule.message_expression) {
          const cel::Value m = rule.message_expression->evaluate(self, old ? &old_self : nullptr);
          if (m.type() == cel::Type::String && !m.as_string().empty()) reason = std::string(m.as_string());
        }
      }
      std::string at = path();
      for (const auto& k : rule.field_path) at = key_path(at, k);
      out_.push_back({std::move(at), rule.name, source_, std::move(reason)});
    }
  }

  std::string path() const {
    std::string p;
    for (const auto& s : segs_) {
      if (const auto* key = std::get_if<std::string_view>(&s))
        p = key_path(p, std::string(*key));
      else
        p = index_path(p, std::get<std::size_t>(s));
    }
    return p;
  }

  const std::string& source_;
  FieldErrors& out_;
  bool dry_ = false;
  bool applies_ = false;
  std::vector<std::variant<std::string_view, std::size_t>> segs_;  // the path, rendered only for a finding
};

}  // namespace

bool cel_rules_apply(const PlanNode& plan, const json::Value& obj, const json::Value* old) {
  FieldErrors unused;
  CelWalker w("", unused);
  w.dry_run();
  w.walk(plan, obj, old);
  return w.applies();
}

void run_cel_rules(const PlanNode& plan, const json::Value& obj, const json::Value* old, const std::string& source,
                   FieldErrors& out) {
  CelWalker(source, out).walk(plan, obj, old);
}

}  // namespace cfo::validation::structural
