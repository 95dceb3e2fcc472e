#pragma once
// CEL evaluator: walks a checked syntax tree over values that view the object (see value.hpp).
#include "validation/cel/ast.hpp"
#include "validation/cel/value.hpp"

namespace cfo::validation::cel {

/// Evaluates a checked expression. `slots` holds one value per variable slot (checker.hpp): slot 0 self, slot 1
/// oldSelf, then the comprehension variables, which evaluation overwrites. Never throws; a missing field, an index
/// out of range, a wrong operand type or an overflow yields an Error value, which propagates as CEL specifies:
/// `false && e`, `e && false` are false; `true || e`, `e || true` are true; `all` is false when any element is
/// false and `exists` true when any element is true, whatever errors the other elements gave.
Value evaluate(const Expr& e, Value* slots);

}  // namespace cfo::validation::cel
