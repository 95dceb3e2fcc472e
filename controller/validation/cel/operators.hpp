#pragma once
// CEL's operators on values: equality, ordering, membership and arithmetic. The logical operators and the
// conditional are in the evaluator, because they decide which operands are evaluated at all.
#include "validation/cel/ast.hpp"
#include "validation/cel/value.hpp"

namespace cfo::validation::cel {

/// a == b with CEL's heterogeneous equality: numbers compare by value across int, uint and double; values of
/// different types are unequal; lists compare element-wise (ignoring order when the schema marks the list as an
/// `x-kubernetes-list-type` set or map, as Kubernetes does); maps compare by key set and values. An error operand is
/// returned as the result. Returns a Bool or an Error.
Value equals(const Value& a, const Value& b);

/// Op::Lt / Le / Gt / Ge: numbers across int, uint and double (CEL's cross-type numeric comparison), strings
/// (byte order, which is code-point order for UTF-8), booleans (false < true). Other operands: an Error.
Value compare(Op op, const Value& a, const Value& b);

/// `a in b`: membership in a list (by equals()) or among the keys of a map. Other right operands: an Error.
Value contains(const Value& a, const Value& b);

/// Op::Add / Sub / Mul / Div / Mod on int, uint and double (same type on both sides; int and uint overflow,
/// division or modulus by zero are Errors), `+` on strings and lists (concatenation). Other operands: an Error.
Value arithmetic(Op op, const Value& a, const Value& b);

/// Unary minus on int (overflow is an Error) and double.
Value negate(const Value& a);

}  // namespace cfo::validation::cel
