#include "validation/cel/parser.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "validation/cel/lexer.hpp"

namespace cfo::validation::cel {

namespace {

constexpr std::array<std::string_view, 18> kReserved = {"as",        "break",  "const",  "continue", "else",  "for",
                                                        "function",  "if",     "import", "let",      "loop",  "package",
                                                        "namespace", "return", "var",    "void",     "while", "in"};

bool reserved(std::string_view w) { return std::find(kReserved.begin(), kReserved.end(), w) != kReserved.end(); }

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  Result<ExprPtr> run() {
    auto e = expr();
    if (!e) return e;
    if (peek().kind != TokenKind::End) return err(peek().pos, "unexpected " + describe(peek()));
    return e;
  }

 private:
  // ---- helpers --------------------------------------------------------------------------------------------------
  const Token& peek() const { return t_[i_]; }
  const Token& next() { return t_[i_ < t_.size() - 1 ? i_++ : i_]; }
  bool is_op(std::string_view o) const { return peek().kind == TokenKind::Op && peek().text == o; }
  bool accept(std::string_view o) {
    if (!is_op(o)) return false;
    ++i_;
    return true;
  }
  static std::unexpected<Error> err(std::size_t pos, const std::string& what) {
    return fail("at offset " + std::to_string(pos) + ": " + what);
  }
  static std::string describe(const Token& t) {
    if (t.kind == TokenKind::End) return "end of expression";
    return "'" + std::string(t.text) + "'";
  }
  Result<void> expect(std::string_view o) {
    if (accept(o)) return {};
    return err(peek().pos, "expected '" + std::string(o) + "', found " + describe(peek()));
  }

  static ExprPtr node(ExprKind kind, std::size_t pos) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    return e;
  }
  /// Sets the subtree height and refuses trees deeper than kMaxExprDepth.
  static Result<ExprPtr> done(ExprPtr e) {
    int d = 0;
    for (const auto& a : e->args) d = std::max(d, a->depth);
    e->depth = d + 1;
    if (e->depth > kMaxExprDepth)
      return err(e->pos, "expression nested deeper than " + std::to_string(kMaxExprDepth) + " levels");
    return e;
  }
  static Result<ExprPtr> call(Op op, std::size_t pos, std::vector<ExprPtr> args) {
    auto e = node(ExprKind::Call, pos);
    e->op = op;
    e->args = std::move(args);
    return done(std::move(e));
  }
  template <class... A>
  static std::vector<ExprPtr> list(A&&... a) {
    std::vector<ExprPtr> v;
    (v.push_back(std::move(a)), ...);
    return v;
  }

  /// Guards the parser's own recursion (parentheses, arguments, unary chains).
  struct Nest {
    explicit Nest(int& n) : n_(n) { ++n_; }
    ~Nest() { --n_; }
    int& n_;
  };

  // ---- grammar --------------------------------------------------------------------------------------------------
  // Expr = ConditionalOr ["?" ConditionalOr ":" Expr]
  Result<ExprPtr> expr() {
    Nest guard(nesting_);
    if (nesting_ > kMaxExprDepth) return err(peek().pos, "expression nested too deeply");
    auto c = logical_or();
    if (!c) return c;
    if (!is_op("?")) return c;
    const std::size_t pos = next().pos;
    auto a = logical_or();
    if (!a) return a;
    if (auto r = expect(":"); !r) return std::unexpected(r.error());
    auto b = expr();
    if (!b) return b;
    return call(Op::Cond, pos, list(std::move(*c), std::move(*a), std::move(*b)));
  }

  Result<ExprPtr> logical_or() {
    auto l = logical_and();
    if (!l) return l;
    while (is_op("||")) {
      const std::size_t pos = next().pos;
      auto r = logical_and();
      if (!r) return r;
      l = call(Op::Or, pos, list(std::move(*l), std::move(*r)));
      if (!l) return l;
    }
    return l;
  }

  Result<ExprPtr> logical_and() {
    auto l = relation();
    if (!l) return l;
    while (is_op("&&")) {
      const std::size_t pos = next().pos;
      auto r = relation();
      if (!r) return r;
      l = call(Op::And, pos, list(std::move(*l), std::move(*r)));
      if (!l) return l;
    }
    return l;
  }

  std::optional<Op> relation_op() const {
    const Token& t = peek();
    if (t.kind == TokenKind::Ident && t.text == "in") return Op::In;
    if (t.kind != TokenKind::Op) return std::nullopt;
    if (t.text == "==") return Op::Eq;
    if (t.text == "!=") return Op::Ne;
    if (t.text == "<") return Op::Lt;
    if (t.text == "<=") return Op::Le;
    if (t.text == ">") return Op::Gt;
    if (t.text == ">=") return Op::Ge;
    return std::nullopt;
  }

  Result<ExprPtr> relation() {
    auto l = addition();
    if (!l) return l;
    while (auto op = relation_op()) {
      const std::size_t pos = next().pos;
      auto r = addition();
      if (!r) return r;
      l = call(*op, pos, list(std::move(*l), std::move(*r)));
      if (!l) return l;
    }
    return l;
  }

  Result<ExprPtr> addition() {
    auto l = multiplication();
    if (!l) return l;
    while (is_op("+") || is_op("-")) {
      const Token& t = next();
      const Op op = t.text == "+" ? Op::Add : Op::Sub;
      auto r = multiplication();
      if (!r) return r;
      l = call(op, t.pos, list(std::move(*l), std::move(*r)));
      if (!l) return l;
    }
    return l;
  }

  Result<ExprPtr> multiplication() {
    auto l = unary();
    if (!l) return l;
    while (is_op("*") || is_op("/") || is_op("%")) {
      const Token& t = next();
      const Op op = t.text == "*" ? Op::Mul : (t.text == "/" ? Op::Div : Op::Mod);
      auto r = unary();
      if (!r) return r;
      l = call(op, t.pos, list(std::move(*l), std::move(*r)));
      if (!l) return l;
    }
    return l;
  }

  // Unary = Member | "!" {"!"} Member | "-" {"-"} Member; a "-" right before a number literal is its sign.
  Result<ExprPtr> unary() {
    if (is_op("!")) {
      std::vector<std::size_t> at;
      while (is_op("!")) at.push_back(next().pos);
      auto e = member();
      for (auto it = at.rbegin(); e && it != at.rend(); ++it) e = call(Op::Not, *it, list(std::move(*e)));
      return e;
    }
    if (is_op("-")) {
      std::vector<std::size_t> at;
      while (is_op("-")) at.push_back(next().pos);
      Result<ExprPtr> e = std::unexpected(Error{});
      const TokenKind k = peek().kind;
      if (k == TokenKind::Int || k == TokenKind::Double) {
        e = member(/*negative_literal=*/true);
        at.pop_back();
      } else {
        e = member();
      }
      for (auto it = at.rbegin(); e && it != at.rend(); ++it) e = call(Op::Neg, *it, list(std::move(*e)));
      return e;
    }
    return member();
  }

  Result<std::vector<ExprPtr>> arguments(std::string_view close) {
    std::vector<ExprPtr> args;
    if (accept(close)) return args;
    for (;;) {
      auto a = expr();
      if (!a) return std::unexpected(a.error());
      args.push_back(std::move(*a));
      if (accept(close)) return args;
      if (auto r = expect(","); !r) return std::unexpected(r.error());
      if (close == "]" && accept(close)) return args;  // a trailing comma in a list literal
    }
  }

  // Member = Primary {"." IDENT ["(" [ExprList] ")"] | "[" Expr "]"}
  Result<ExprPtr> member(bool negative_literal = false) {
    auto e = primary(negative_literal);
    if (!e) return e;
    for (;;) {
      if (is_op(".")) {
        next();
        const Token& id = peek();
        if (id.kind != TokenKind::Ident) return err(id.pos, "expected a field name after '.', found " + describe(id));
        if (reserved(id.text) || id.text == "true" || id.text == "false" || id.text == "null")
          return err(id.pos, "reserved word '" + std::string(id.text) + "' cannot be a field name");
        next();
        if (accept("(")) {
          auto args = arguments(")");
          if (!args) return std::unexpected(args.error());
          e = receiver_call(std::move(*e), id, std::move(*args));
        } else {
          auto s = node(ExprKind::Select, id.pos);
          s->name = std::string(id.text);
          s->args.push_back(std::move(*e));
          e = done(std::move(s));
        }
        if (!e) return e;
      } else if (is_op("[")) {
        const std::size_t pos = next().pos;
        auto idx = expr();
        if (!idx) return idx;
        if (auto r = expect("]"); !r) return std::unexpected(r.error());
        auto n = node(ExprKind::Index, pos);
        n->args = list(std::move(*e), std::move(*idx));
        e = done(std::move(n));
        if (!e) return e;
      } else {
        return e;
      }
    }
  }

  /// target.name(args): a comprehension macro or a receiver-style function call.
  Result<ExprPtr> receiver_call(ExprPtr target, const Token& id, std::vector<ExprPtr> args) {
    const std::string_view name = id.text;
    std::optional<Macro> macro;
    if (args.size() == 2 && name == "all") macro = Macro::All;
    if (args.size() == 2 && name == "exists") macro = Macro::Exists;
    if (args.size() == 2 && name == "exists_one") macro = Macro::ExistsOne;
    if (args.size() == 2 && name == "map") macro = Macro::Map;
    if (args.size() == 3 && name == "map") macro = Macro::MapFilter;
    if (args.size() == 2 && name == "filter") macro = Macro::Filter;
    if (macro) {
      if (args[0]->kind != ExprKind::Ident)
        return err(args[0]->pos, "the first argument of " + std::string(name) + "() must be a variable name");
      auto c = node(ExprKind::Comprehension, id.pos);
      c->macro = *macro;
      c->name = args[0]->name;
      c->args.push_back(std::move(target));
      for (std::size_t k = 1; k < args.size(); ++k) c->args.push_back(std::move(args[k]));
      return done(std::move(c));
    }
    if (args.size() == 3 && (name == "all" || name == "exists" || name == "exists_one"))
      return err(id.pos, "two-variable comprehensions are not in the supported subset");
    auto c = node(ExprKind::Call, id.pos);
    c->name = std::string(name);
    c->receiver_style = true;
    c->args.push_back(std::move(target));
    for (auto& a : args) c->args.push_back(std::move(a));
    return done(std::move(c));
  }

  Result<ExprPtr> primary(bool negative_literal) {
    Nest guard(nesting_);
    if (nesting_ > kMaxExprDepth) return err(peek().pos, "expression nested too deeply");
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::Int: {
        next();
        auto e = node(ExprKind::Literal, t.pos);
        constexpr std::uint64_t kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        if (negative_literal) {
          if (t.number > kMax + 1) return err(t.pos, "integer literal out of range");
          e->value = Value::integer(t.number == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                                         : -static_cast<std::int64_t>(t.number));
        } else {
          if (t.number > kMax) return err(t.pos, "integer literal out of range");
          e->value = Value::integer(static_cast<std::int64_t>(t.number));
        }
        return done(std::move(e));
      }
      case TokenKind::Uint: {
        next();
        auto e = node(ExprKind::Literal, t.pos);
        e->value = Value::uinteger(t.number);
        return done(std::move(e));
      }
      case TokenKind::Double: {
        next();
        auto e = node(ExprKind::Literal, t.pos);
        e->value = Value::dbl(negative_literal ? -t.dbl : t.dbl);
        return done(std::move(e));
      }
      case TokenKind::String: {
        next();
        auto e = node(ExprKind::Literal, t.pos);
        e->value = Value::owned_string(t.str);
        return done(std::move(e));
      }
      case TokenKind::Ident:
        return identifier();
      case TokenKind::End:
        return err(t.pos, "unexpected end of expression");
      case TokenKind::Op:
        break;
    }
    if (t.text == "(") {
      next();
      auto e = expr();
      if (!e) return e;
      if (auto r = expect(")"); !r) return std::unexpected(r.error());
      return e;
    }
    if (t.text == "[") {
      next();
      auto items = arguments("]");
      if (!items) return std::unexpected(items.error());
      auto e = node(ExprKind::CreateList, t.pos);
      e->args = std::move(*items);
      return done(std::move(e));
    }
    if (t.text == "{") {
      next();
      auto e = node(ExprKind::CreateMap, t.pos);
      while (!accept("}")) {
        auto k = expr();
        if (!k) return k;
        if (auto r = expect(":"); !r) return std::unexpected(r.error());
        auto v = expr();
        if (!v) return v;
        e->args.push_back(std::move(*k));
        e->args.push_back(std::move(*v));
        if (accept("}")) break;
        if (auto r = expect(","); !r) return std::unexpected(r.error());
      }
      return done(std::move(e));
    }
    if (t.text == ".") return err(t.pos, "names qualified with a leading '.' are not in the supported subset");
    return err(t.pos, "unexpected " + describe(t));
  }

  Result<ExprPtr> identifier() {
    const Token& t = next();
    if (t.text == "true" || t.text == "false") {
      auto e = node(ExprKind::Literal, t.pos);
      e->value = Value::boolean(t.text == "true");
      return done(std::move(e));
    }
    if (t.text == "null") return done(node(ExprKind::Literal, t.pos));
    if (reserved(t.text)) return err(t.pos, "reserved word '" + std::string(t.text) + "' cannot be used here");
    if (is_op("{")) return err(peek().pos, "message construction is not in the supported subset");
    if (!accept("(")) {
      auto e = node(ExprKind::Ident, t.pos);
      e->name = std::string(t.text);
      return done(std::move(e));
    }
    auto args = arguments(")");
    if (!args) return std::unexpected(args.error());
    if (t.text == "has") {
      if (args->size() != 1 || (*args)[0]->kind != ExprKind::Select || (*args)[0]->test_only)
        return err(t.pos, "has() takes one field selection, e.g. has(self.field)");
      (*args)[0]->test_only = true;
      return std::move((*args)[0]);
    }
    auto e = node(ExprKind::Call, t.pos);
    e->name = std::string(t.text);
    e->args = std::move(*args);
    return done(std::move(e));
  }

  std::vector<Token> t_;
  std::size_t i_ = 0;
  int nesting_ = 0;
};

}  // namespace

Result<ExprPtr> parse(std::string_view src) {
  auto toks = lex(src);
  if (!toks) return std::unexpected(toks.error());
  return Parser(std::move(*toks)).run();
}

}  // namespace cfo::validation::cel
