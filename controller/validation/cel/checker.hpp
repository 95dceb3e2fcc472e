#pragma once
// CEL checker: resolves the names of a parsed expression and prepares it for evaluation.
//   - `self` gets slot 0, `oldSelf` slot 1, each comprehension variable the next free slot of its scope;
//   - functions resolve to a Builtin by name, call style and arity;
//   - a list literal made only of literals becomes one Literal (built once, not at every evaluation);
//   - matches() with a literal pattern compiles its regular expression once.
// Anything else (an unknown name or function, a pattern std::regex cannot honour) is outside the subset.
#include <string>

#include "core/error.hpp"
#include "validation/cel/ast.hpp"

namespace cfo::validation::cel {

/// What the checker learned about an expression.
struct CheckInfo {
  int slot_count = 2;          ///< variable slots evaluation needs (self, oldSelf, comprehension variables)
  bool uses_old_self = false;  ///< the expression mentions oldSelf (a transition rule)
};

/// Checks `root` in place. Errors name the offending construct and its byte offset.
Result<CheckInfo> check(Expr& root);

}  // namespace cfo::validation::cel
