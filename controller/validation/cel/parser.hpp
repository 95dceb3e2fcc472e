#pragma once
// CEL parser: tokens -> syntax tree, by recursive descent over CEL's grammar (see cel.hpp for the subset).
// Macros are expanded here: has(a.f) becomes a test-only Select, and e.all/exists/exists_one/map/filter(x, ...)
// become Comprehension nodes. Names are not resolved here (checker.hpp does that).
#include <string_view>

#include "core/error.hpp"
#include "validation/cel/ast.hpp"

namespace cfo::validation::cel {

/// Deepest syntax tree accepted; deeper expressions are refused so that checking and evaluation, which recurse over
/// the tree, stay within a small stack.
inline constexpr int kMaxExprDepth = 128;

/// Parses one expression. Errors (with the byte offset): syntax errors, reserved words used as names, macros called
/// with the wrong shape, integer literals out of range, syntax outside the subset (message construction `T{...}`,
/// qualified names starting with `.`), and expressions nested deeper than kMaxExprDepth.
Result<ExprPtr> parse(std::string_view src);

}  // namespace cfo::validation::cel
