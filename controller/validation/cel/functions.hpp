#pragma once
// The builtin functions of the CEL subset: their names and arities (for the checker) and their implementations
// (for the evaluator). Operators live in operators.hpp.
#include <memory>
#include <regex>
#include <span>
#include <string_view>

#include "core/error.hpp"
#include "validation/cel/ast.hpp"
#include "validation/cel/value.hpp"

namespace cfo::validation::cel {

/// The builtin called as `name(args)` (receiver_style false) or `target.name(args)` (true) with `arity` arguments
/// besides the target; Builtin::None when the subset has no such function.
Builtin find_builtin(std::string_view name, bool receiver_style, std::size_t arity);

/// Longest string matches() runs std::regex on. libstdc++ matches recursively, so much longer inputs could exhaust
/// the stack; for them matches() returns an unsupported value and the rule is skipped.
inline constexpr std::size_t kMaxRegexInput = 4096;

/// Compiles a CEL (RE2) pattern with std::regex (ECMAScript), refusing the constructs whose meaning differs or that
/// ECMAScript lacks: inline flags and named groups `(?...)` other than `(?:`, `\p{..}`/`\P`, `\A`, `\z`, `\C`, `\Q`,
/// `\x{..}`, back-references, and non-ASCII pattern text. Errors say which construct.
Result<std::shared_ptr<const std::regex>> compile_regex(std::string_view pattern);

/// Calls builtin `fn`. `args` holds the target first for receiver-style calls; no element is an error (the caller
/// propagates those). `regex` is the precompiled pattern of matches() when its pattern is a literal.
/// Returns the result, or an error value for a wrong argument type or a failed conversion.
Value call_builtin(Builtin fn, std::span<const Value> args, const std::regex* regex);

}  // namespace cfo::validation::cel
