#include "validation/schema_plan.hpp"

#include <algorithm>

namespace cfo::validation::structural {

namespace {

std::string text_of(const json::Value* v) {
  return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::string();
}

bool true_at(const json::Value& obj, std::string_view key) {
  const json::Value* v = json::find(obj, key);
  return v && v->IsBool() && v->GetBool();
}

/// `fieldPath` (".spec.foo", ".labels['a.b/c']") as keys; nullopt when it is not of that form.
std::optional<std::vector<std::string>> parse_field_path(std::string_view p) {
  std::vector<std::string> keys;
  std::size_t i = 0;
  while (i < p.size()) {
    if (p[i] == '.') {
      std::size_t j = ++i;
      while (j < p.size() && p[j] != '.' && p[j] != '[') ++j;
      if (j == i) return std::nullopt;
      keys.emplace_back(p.substr(i, j - i));
      i = j;
    } else if (p[i] == '[' && i + 1 < p.size() && (p[i + 1] == '\'' || p[i + 1] == '"')) {
      const char q = p[i + 1];
      const std::size_t end = p.find(q, i + 2);
      if (end == std::string_view::npos || end + 1 >= p.size() || p[end + 1] != ']') return std::nullopt;
      keys.emplace_back(p.substr(i + 2, end - i - 2));
      i = end + 2;
    } else {
      return std::nullopt;
    }
  }
  return keys;
}

class Builder {
 public:
  Builder(const std::string& api_version, const std::string& kind, std::vector<CelRuleInfo>& infos)
      : api_version_(api_version), kind_(kind), infos_(infos) {}

  std::unique_ptr<PlanNode> node(const json::Value& schema, const std::string& location) {
    if (!schema.IsObject()) return nullptr;
    auto n = std::make_unique<PlanNode>();
    n->schema = &schema;
    if (const json::Value* rules = json::find(schema, "x-kubernetes-validations")) compile_rules(*rules, location, *n);

    const json::Value* props = json::find(schema, "properties");
    if (props && props->IsObject()) {
      n->declares_properties = true;
      for (auto it = props->MemberBegin(); it != props->MemberEnd(); ++it) {
        const std::string name(it->name.GetString(), it->name.GetStringLength());
        if (const json::Value* d = json::find(it->value, "default"))
          n->defaults.push_back({name, d, true_at(it->value, "nullable")});
        if (auto child = node(it->value, key_path(location, name))) n->properties.emplace_back(name, std::move(child));
      }
    }
    std::sort(n->properties.begin(), n->properties.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    if (const json::Value* add = json::find(schema, "additionalProperties"); add && add->IsObject())
      n->additional = node(*add, key_path(location, "*"));
    if (const json::Value* items = json::find(schema, "items"); items && items->IsObject()) {
      n->items = node(*items, location + "[*]");
      if (text_of(json::find(schema, "x-kubernetes-list-type")) == "map")
        if (const json::Value* keys = json::find(schema, "x-kubernetes-list-map-keys"); keys && keys->IsArray())
          for (auto k = keys->Begin(); k != keys->End(); ++k) n->list_map_keys.push_back(text_of(&*k));
    }
    for (const char* junctor : {"allOf", "anyOf", "oneOf", "not"}) refuse_rules_below(schema, junctor, location);

    n->rules_below = !n->rules.empty();
    n->defaults_below = !n->defaults.empty();
    auto absorb = [&](const std::unique_ptr<PlanNode>& c) {
      if (!c) return;
      n->rules_below = n->rules_below || c->rules_below;
      n->defaults_below = n->defaults_below || c->defaults_below;
    };
    for (const auto& [name, child] : n->properties) absorb(child);
    absorb(n->additional);
    absorb(n->items);
    if (!n->rules_below && !n->defaults_below) return nullptr;
    return n;
  }

 private:
  void compile_rules(const json::Value& list, const std::string& location, PlanNode& n) {
    if (!list.IsArray()) {
      infos_.push_back({api_version_, kind_, location, "", "", false, false, "x-kubernetes-validations is not a list"});
      return;
    }
    for (auto it = list.Begin(); it != list.End(); ++it) {
      CelRuleInfo info{
          api_version_, kind_, location, text_of(json::find(*it, "rule")), text_of(json::find(*it, "message")),
          true,         false, ""};
      auto rule = compile_rule(*it, info);
      if (rule) n.rules.push_back(std::move(*rule));
      infos_.push_back(std::move(info));
    }
  }

  /// One rule; on failure `info` says why it is unsupported.
  static std::optional<CelRule> compile_rule(const json::Value& entry, CelRuleInfo& info) {
    auto unsupported = [&](std::string why) {
      info.supported = false;
      info.why = std::move(why);
      return std::nullopt;
    };
    if (!entry.IsObject() || info.rule.empty()) return unsupported("the entry has no rule text");
    if (true_at(entry, "optionalOldSelf")) return unsupported("optionalOldSelf is not supported");
    auto program = cel::compile(info.rule);
    if (!program) return unsupported(program.error().message);
    info.transition = program->uses_old_self();

    CelRule r;
    r.program = std::move(*program);
    std::string label = info.message;
    r.reason = info.message.empty() ? info.rule : info.message;
    if (const json::Value* me = json::find(entry, "messageExpression"); me && me->IsString()) {
      if (auto m = cel::compile(text_of(me))) {
        if (m->is_string_literal()) {
          r.reason = std::string(m->evaluate(cel::Value(), nullptr).as_string());
          if (label.empty()) label = r.reason;
        } else {
          r.message_expression = std::move(*m);
        }
      }
    }
    r.name = "cel:" + (label.empty() ? info.rule : label);
    if (const json::Value* fp = json::find(entry, "fieldPath"); fp && fp->IsString())
      if (auto keys = parse_field_path(text_of(fp))) r.field_path = std::move(*keys);
    return r;
  }

  /// Kubernetes forbids x-kubernetes-validations inside allOf/anyOf/oneOf/not; any found there is listed as
  /// unsupported rather than ignored silently.
  void refuse_rules_below(const json::Value& schema, const char* junctor, const std::string& location, int depth = 0) {
    const json::Value* j = json::find(schema, junctor);
    if (!j || depth > 32) return;
    auto visit = [&](const json::Value& sub) {
      if (!sub.IsObject()) return;
      if (const json::Value* rules = json::find(sub, "x-kubernetes-validations"); rules && rules->IsArray())
        for (auto it = rules->Begin(); it != rules->End(); ++it)
          infos_.push_back({api_version_, kind_, location, text_of(json::find(*it, "rule")),
                            text_of(json::find(*it, "message")), false, false,
                            std::string("a rule inside ") + junctor + " (Kubernetes does not evaluate rules there)"});
      for (const char* k : {"allOf", "anyOf", "oneOf", "not"}) refuse_rules_below(sub, k, location, depth + 1);
    };
    if (j->IsArray()) {
      for (auto it = j->Begin(); it != j->End(); ++it) visit(*it);
    } else {
      visit(*j);
    }
  }

  const std::string& api_version_;
  const std::string& kind_;
  std::vector<CelRuleInfo>& infos_;
};

}  // namespace

const PlanNode* PlanNode::property(std::string_view name) const {
  auto it = std::lower_bound(properties.begin(), properties.end(), name,
                             [](const auto& p, std::string_view n) { return std::string_view(p.first) < n; });
  return it != properties.end() && it->first == name ? it->second.get() : nullptr;
}

const PlanNode* PlanNode::member(std::string_view name) const {
  if (const PlanNode* p = property(name)) return p;
  if (!additional) return nullptr;
  if (declares_properties && json::find(*json::find(*schema, "properties"), name)) return nullptr;
  return additional.get();
}

std::unique_ptr<PlanNode> build_plan(const json::Value& schema, const std::string& api_version, const std::string& kind,
                                     std::vector<CelRuleInfo>& rules) {
  return Builder(api_version, kind, rules).node(schema, "");
}

}  // namespace cfo::validation::structural
