#pragma once
// A small CEL (Common Expression Language) implementation for the `x-kubernetes-validations` rules of the CRDs we
// validate against. It evaluates rules on the client with the semantics kube-apiserver gives them; it is not a
// general CEL engine. Rules outside the subset below fail to compile, with the reason, and are reported as
// unsupported by the caller (never silently skipped).
//
// SUPPORTED SUBSET
//
// Grammar (CEL's, minus what is marked "not supported"):
//   Expr     = Or ["?" Or ":" Expr]
//   Or       = And {"||" And}
//   And      = Rel {"&&" Rel}
//   Rel      = Add {("==" | "!=" | "<" | "<=" | ">" | ">=" | "in") Add}
//   Add      = Mul {("+" | "-") Mul}
//   Mul      = Unary {("*" | "/" | "%") Unary}
//   Unary    = Member | "!" {"!"} Member | "-" {"-"} Member
//   Member   = Primary {"." IDENT | "." IDENT "(" [Args] ")" | "[" Expr "]"}
//   Primary  = IDENT | IDENT "(" [Args] ")" | "(" Expr ")" | "[" [Args] [","] "]" | "{" [Entries] [","] "}" | Literal
//   Literal  = int (decimal, 0x hex) | uint (suffix u) | double (fraction and/or exponent) | string ('..', "..",
//              '''..''', """..""", raw r'..', with CEL's escapes) | true | false | null
//   Comments `// ...` are allowed. Not supported: bytes literals, message construction `T{f: v}`, names with a
//   leading ".", optional syntax `.?f` / `[?i]`, two-variable comprehensions.
//
// Names: `self` (the value at the rule's schema location), `oldSelf` (the same location in the old object; only on
//   updates, see below), and the variables bound by the macros. Fields whose names Kubernetes escapes are reached by
//   the escaped name (`self.__namespace__`, `self.a__dash__b`).
//
// Macros: has(e.f); e.all(x, p); e.exists(x, p); e.exists_one(x, p); e.map(x, t); e.map(x, p, t); e.filter(x, p).
//   Over a list they bind the elements, over a map its keys.
//
// Functions:
//   size(string|list|map) and x.size()                   -> int (strings count code points)
//   s.startsWith(t), s.endsWith(t), s.contains(t)        -> bool
//   s.matches(re), matches(s, re)                        -> bool; RE2 (Go regexp) syntax, unanchored, linear
//                                                           time; a literal pattern RE2 refuses fails the compile
//   s.lowerAscii(), s.upperAscii(), s.trim()             -> string
//   list.join(), list.join(sep)                          -> string
//   int(x), uint(x), double(x), string(x), bool(x), dyn(x) -> conversions between int, uint, double, string, bool
//
// Operators: == != (heterogeneous equality; numbers across int/uint/double; lists of x-kubernetes-list-type set or
//   map compare without order), < <= > >= (numbers across types, strings, bools), in (list element, map key),
//   + - * / % (int, uint, double; + also on strings and lists), unary - and !, && || with CEL's error absorption,
//   ?: .
//
// Values: JSON values of the object are read in place. A JSON integer is an int (a double when the schema says
//   `type: number`); objects are maps with string keys. Errors are values: a field that is absent ("no such key"),
//   an index out of range, an operand of the wrong type, an overflow, division by zero.
//
// Outside the subset: every other function (quantity(), url(), isSorted(), indexOf(), format(), ...), optionals,
//   timestamps and durations, type() and type names, bytes.
#include <memory>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "validation/cel/value.hpp"

namespace cfo::validation::cel {

struct Expr;

/// One compiled expression: parsed and checked once, then evaluated any number of times, from any number of threads
/// at once (evaluation does not modify the program).
class Program {
 public:
  Program();
  ~Program();
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;

  /// The source text.
  const std::string& text() const { return text_; }
  /// True when the expression mentions oldSelf (a transition rule: Kubernetes runs it on updates only).
  bool uses_old_self() const { return uses_old_self_; }
  /// True when the whole expression is one string literal (e.g. a constant messageExpression).
  bool is_string_literal() const;

  /// Evaluates with `self` and, when given, `old_self`. Without `old_self` a reference to oldSelf is an error.
  /// The values must stay valid during the call. Never throws: failures are Error values.
  Value evaluate(const Value& self, const Value* old_self) const;

 private:
  friend Result<Program> compile(std::string_view text);
  std::string text_;
  std::unique_ptr<Expr> root_;
  int slot_count_ = 2;
  bool uses_old_self_ = false;
};

/// Parses and checks `text`. The error says why the expression is outside the subset (or is not CEL at all), with
/// the byte offset.
Result<Program> compile(std::string_view text);

/// The verdict of a validation rule on one value.
enum class Verdict {
  Pass,     ///< the rule evaluated to true
  Fail,     ///< the rule evaluated to false
  Error,    ///< evaluation failed (e.g. "no such key: x") or gave a non-bool; the apiserver rejects the object too
  Skipped,  ///< this evaluator could not decide (an input beyond its limits); nothing is reported
};

struct RuleResult {
  Verdict verdict = Verdict::Pass;
  std::string detail;  ///< the error message for Error and Skipped
};

/// Runs a validation rule: evaluate(), then maps the value to a verdict.
RuleResult evaluate_rule(const Program& program, const Value& self, const Value* old_self);

}  // namespace cfo::validation::cel
