#pragma once
// Regular expressions as kube-apiserver judges them: RE2 syntax (Go's regexp), matched in time linear in the input.
// Used by CEL's matches() and by CRD `pattern`s (through RapidJSON's schema validator, schema_regex.hpp).
#include <memory>
#include <string_view>

#include "core/error.hpp"

namespace re2 {
class RE2;
}

namespace cfo::validation {

/// A compiled RE2 pattern. Immutable after compile(); safe to share between threads.
class Regex {
 public:
  /// Compiles `pattern` (UTF-8 text, RE2 / Go regexp syntax: `(?i)`, `\p{L}`, `\d`, no back-references or
  /// look-around). RE2 refuses patterns whose automaton would exceed its memory budget (8 MiB) and repetition
  /// counts above 1000, so matching can never blow up. Errors: RE2's reason, e.g. "bad repetition operator: **".
  static Result<std::shared_ptr<const Regex>> compile(std::string_view pattern);

  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  /// True when the pattern matches somewhere in `text` (an unanchored search, as Go's MatchString); `text` is read
  /// as UTF-8 and may hold any bytes, NUL included. Time: linear in text.size(), no recursion.
  bool search(std::string_view text) const;

 private:
  explicit Regex(std::unique_ptr<re2::RE2> re);
  std::unique_ptr<re2::RE2> re_;
};

}  // namespace cfo::validation
