#pragma once
// The syntax tree of one CEL expression. The parser builds it with names; the checker then resolves every name to
// a variable slot or a builtin and precomputes constants, so that evaluation does no lookups by name.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "validation/cel/value.hpp"
#include "validation/regex.hpp"

namespace cfo::validation::cel {

enum class ExprKind : std::uint8_t {
  Literal,        ///< `value`
  Ident,          ///< `name`; `slot` after checking
  Select,         ///< args[0].name; `test_only` for has(args[0].name)
  Index,          ///< args[0][args[1]]
  Call,           ///< an operator (`op`) or a function (`name`, `fn`); receiver-style calls hold the target in args[0]
  CreateList,     ///< [args...]
  CreateMap,      ///< {args[0]: args[1], args[2]: args[3], ...}
  Comprehension,  ///< a macro over args[0] with variable `name` (`slot`); see Macro for the other args
};

/// Operators, by CEL precedence from low to high: ?: || && relations (== != < <= > >= in) + - * / % ! and unary -.
enum class Op : std::uint8_t { None, Cond, Or, And, Eq, Ne, Lt, Le, Gt, Ge, In, Add, Sub, Mul, Div, Mod, Not, Neg };

/// The comprehension macros. args: All/Exists/ExistsOne/Filter {range, predicate}; Map {range, transform};
/// MapFilter {range, predicate, transform} (the three-argument map).
enum class Macro : std::uint8_t { All, Exists, ExistsOne, Map, MapFilter, Filter };

/// The functions of the subset (see cel.hpp for their signatures).
enum class Builtin : std::uint8_t {
  None,
  Size,
  StartsWith,
  EndsWith,
  Contains,
  Matches,
  LowerAscii,
  UpperAscii,
  Trim,
  Join,
  ToInt,
  ToUint,
  ToDouble,
  ToString,
  ToBool,
  Dyn,
};

struct Expr {
  ExprKind kind = ExprKind::Literal;
  std::size_t pos = 0;  ///< byte offset in the rule text
  int depth = 1;        ///< height of this subtree (bounded by the parser)
  Value value;          ///< Literal
  std::string name;     ///< Ident, Select field, Call function name, Comprehension variable
  bool test_only = false;
  bool receiver_style = false;
  Op op = Op::None;
  Macro macro = Macro::All;
  std::vector<std::unique_ptr<Expr>> args;

  // Set by the checker.
  int slot = -1;
  Builtin fn = Builtin::None;
  std::shared_ptr<const Regex> regex;  ///< matches() with a literal pattern, compiled once (RE2)
};

using ExprPtr = std::unique_ptr<Expr>;

}  // namespace cfo::validation::cel
