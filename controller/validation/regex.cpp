#include "validation/regex.hpp"

#include <re2/re2.h>

namespace cfo::validation {

Regex::Regex(std::unique_ptr<re2::RE2> re) : re_(std::move(re)) {}
Regex::~Regex() = default;

Result<std::shared_ptr<const Regex>> Regex::compile(std::string_view pattern) {
  re2::RE2::Options options;  // UTF-8, Perl classes and \b, leftmost-first: Go's regexp.Compile
  options.set_log_errors(false);
  auto re = std::make_unique<re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) return fail(re->error());
  return std::shared_ptr<const Regex>(new Regex(std::move(re)));
}

bool Regex::search(std::string_view text) const {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace cfo::validation
