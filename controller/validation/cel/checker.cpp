#include "validation/cel/checker.hpp"

#include <algorithm>
#include <vector>

#include "validation/cel/functions.hpp"

namespace cfo::validation::cel {

namespace {

/// Kubernetes exposes a property whose name is a CEL keyword or holds '.', '-', '/' or "__" under an escaped name
/// (`__namespace__`, `a__dash__b`, ...); this maps such a name back to the property name.
std::string unescape_field(const std::string& name) {
  static constexpr std::string_view kKeywords[] = {
      "true", "false",  "null", "in",   "as",      "break",     "const",  "continue", "else", "for",  "function",
      "if",   "import", "let",  "loop", "package", "namespace", "return", "var",      "void", "while"};
  if (name.size() > 4 && name.starts_with("__") && name.ends_with("__")) {
    const std::string_view inner = std::string_view(name).substr(2, name.size() - 4);
    for (auto k : kKeywords)
      if (inner == k) return std::string(inner);
  }
  if (name.find("__") == std::string::npos) return name;
  static constexpr std::pair<std::string_view, std::string_view> kEscapes[] = {
      {"__underscores__", "__"}, {"__dot__", "."}, {"__dash__", "-"}, {"__slash__", "/"}};
  std::string out;
  std::size_t i = 0;
  while (i < name.size()) {
    bool replaced = false;
    for (const auto& [from, to] : kEscapes)
      if (std::string_view(name).substr(i).starts_with(from)) {
        out += to;
        i += from.size();
        replaced = true;
        break;
      }
    if (!replaced) out += name[i++];
  }
  return out;
}

class Checker {
 public:
  Result<CheckInfo> run(Expr& root) {
    if (auto r = visit(root); !r) return std::unexpected(r.error());
    return info_;
  }

 private:
  static std::unexpected<Error> err(const Expr& e, const std::string& what) {
    return fail("at offset " + std::to_string(e.pos) + ": " + what);
  }

  Result<void> visit(Expr& e) {
    switch (e.kind) {
      case ExprKind::Literal:
        return {};
      case ExprKind::Ident:
        return ident(e);
      case ExprKind::Comprehension:
        return comprehension(e);
      case ExprKind::Call:
        if (auto r = children(e); !r) return r;
        return e.op == Op::None ? function(e) : Result<void>{};
      case ExprKind::CreateList:
        if (auto r = children(e); !r) return r;
        fold_list(e);
        return {};
      case ExprKind::Select:
        e.name = unescape_field(e.name);
        return children(e);
      case ExprKind::Index:
      case ExprKind::CreateMap:
        return children(e);
    }
    return {};
  }

  Result<void> children(Expr& e) {
    for (auto& a : e.args)
      if (auto r = visit(*a); !r) return r;
    return {};
  }

  Result<void> ident(Expr& e) {
    for (std::size_t i = scope_.size(); i-- > 0;)
      if (scope_[i] == e.name) {
        e.slot = static_cast<int>(2 + i);
        return {};
      }
    if (e.name == "self") {
      e.slot = 0;
      return {};
    }
    if (e.name == "oldSelf") {
      e.slot = 1;
      info_.uses_old_self = true;
      return {};
    }
    return err(e, "unknown name '" + e.name + "' (only self, oldSelf and macro variables are supported)");
  }

  Result<void> comprehension(Expr& e) {
    if (auto r = visit(*e.args[0]); !r) return r;
    if (e.name == "self" || e.name == "oldSelf") return err(e, "a macro variable cannot be named " + e.name);
    scope_.push_back(e.name);
    e.slot = static_cast<int>(2 + scope_.size() - 1);
    info_.slot_count = std::max(info_.slot_count, e.slot + 1);
    for (std::size_t k = 1; k < e.args.size(); ++k)
      if (auto r = visit(*e.args[k]); !r) return r;
    scope_.pop_back();
    return {};
  }

  Result<void> function(Expr& e) {
    const std::size_t arity = e.args.size() - (e.receiver_style ? 1 : 0);
    e.fn = find_builtin(e.name, e.receiver_style, arity);
    if (e.fn == Builtin::None)
      return err(e, "function '" + e.name + "' with " + std::to_string(arity) + " argument(s)" +
                        (e.receiver_style ? " (receiver style)" : "") + " is not in the supported subset");
    if (e.fn == Builtin::Matches) {
      const Expr& pattern = *e.args[1];
      if (pattern.kind == ExprKind::Literal && pattern.value.type() == Type::String) {
        auto re = compile_regex(pattern.value.as_string());
        if (!re)
          return err(pattern, "regular expression '" + std::string(pattern.value.as_string()) +
                                  "' is not a valid RE2 (Go regexp) pattern: " + re.error().message);
        e.regex = std::move(*re);
      }
    }
    return {};
  }

  /// [lit, lit, ...] -> one Literal holding the list.
  static void fold_list(Expr& e) {
    if (!std::all_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return a->kind == ExprKind::Literal; }))
      return;
    auto items = std::make_shared<ValueList>();
    items->reserve(e.args.size());
    for (const auto& a : e.args) items->push_back(a->value);
    e.kind = ExprKind::Literal;
    e.value = Value::list(std::move(items));
    e.args.clear();
  }

  std::vector<std::string> scope_;
  CheckInfo info_;
};

}  // namespace

Result<CheckInfo> check(Expr& root) { return Checker().run(root); }

}  // namespace cfo::validation::cel
