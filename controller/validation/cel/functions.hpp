#pragma once
// The builtin functions of the CEL subset: their names and arities (for the checker) and their implementations
// (for the evaluator). Operators live in operators.hpp.
#include <memory>
#include <span>
#include <string_view>

#include "core/error.hpp"
#include "validation/cel/ast.hpp"
#include "validation/cel/value.hpp"
#include "validation/regex.hpp"

namespace cfo::validation::cel {

/// The builtin called as `name(args)` (receiver_style false) or `target.name(args)` (true) with `arity` arguments
/// besides the target; Builtin::None when the subset has no such function.
Builtin find_builtin(std::string_view name, bool receiver_style, std::size_t arity);

/// Compiles a CEL matches() pattern: RE2 syntax, as cel-go (Go's regexp) reads it. Errors: RE2's reason.
Result<std::shared_ptr<const Regex>> compile_regex(std::string_view pattern);

/// Calls builtin `fn`. `args` holds the target first for receiver-style calls; no element is an error (the caller
/// propagates those). `regex` is the precompiled pattern of matches() when its pattern is a literal.
/// Returns the result, or an error value for a wrong argument type or a failed conversion.
Value call_builtin(Builtin fn, std::span<const Value> args, const Regex* regex);

}  // namespace cfo::validation::cel
