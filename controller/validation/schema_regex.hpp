#pragma once
// RE2 as the regex engine of RapidJSON 1.1.0's JSON Schema validator, so that every CRD `pattern` is judged as
// kube-apiserver judges it (Go regexp syntax) and in linear time. Include this header instead of
// <rapidjson/schema.h>.
//
// RapidJSON 1.1.0 has no template parameter for the regex type: schema.h uses internal::GenericRegex (its own
// engine, from internal/regex.h) unless RAPIDJSON_SCHEMA_USE_INTERNALREGEX is defined, and std::regex otherwise
// (exponential backtracking, recursive, ECMAScript syntax). So:
//   1. internal/regex.h is kept out (its include guard is defined here) and GenericRegex below, backed by
//      cfo::validation::Regex, takes its place; RAPIDJSON_SCHEMA_USE_INTERNALREGEX must stay undefined;
//   2. Schema<SchemaDocument>::CreatePattern and IsPatternMatch are specialised so that the pattern and the checked
//      string are passed with their lengths (RapidJSON's internal path passes C strings, which would cut both at an
//      embedded NUL).
// schema_set.cpp compiles every pattern with Regex::compile before RapidJSON sees it (a pattern RE2 refuses makes
// add_crd fail), so CreatePattern never meets an invalid one; should it, the pattern would be dropped as RapidJSON
// drops invalid ones.
#ifdef RAPIDJSON_SCHEMA_H_
#error "validation/schema_regex.hpp must be included before <rapidjson/schema.h>"
#endif
#ifdef RAPIDJSON_SCHEMA_USE_INTERNALREGEX
#error "RAPIDJSON_SCHEMA_USE_INTERNALREGEX must not be defined: RapidJSON would fall back to std::regex"
#endif
#define RAPIDJSON_INTERNAL_REGEX_H_  // keep RapidJSON's own regex engine out

#include <rapidjson/allocators.h>
#include <rapidjson/encodings.h>

#include <cstring>
#include <memory>
#include <string_view>

#include "validation/regex.hpp"

namespace rapidjson::internal {

/// What schema.h needs of its regex type: construction from the pattern, IsValid(), Search().
template <typename Encoding, typename Allocator = CrtAllocator>
class GenericRegex {
 public:
  using Ch = typename Encoding::Ch;
  explicit GenericRegex(const Ch* source, std::size_t length) {
    if (auto r = cfo::validation::Regex::compile(std::string_view(source, length))) re_ = std::move(*r);
  }
  explicit GenericRegex(const Ch* source, Allocator* = nullptr) : GenericRegex(source, std::strlen(source)) {}
  bool IsValid() const { return re_ != nullptr; }
  bool Search(const Ch* s, std::size_t length) const { return re_->search(std::string_view(s, length)); }
  bool Search(const Ch* s) const { return Search(s, std::strlen(s)); }

 private:
  std::shared_ptr<const cfo::validation::Regex> re_;
};

}  // namespace rapidjson::internal

#include <rapidjson/schema.h>
static_assert(RAPIDJSON_SCHEMA_HAS_REGEX && RAPIDJSON_SCHEMA_USE_INTERNALREGEX && !RAPIDJSON_SCHEMA_USE_STDREGEX,
              "RapidJSON's schema validator must check patterns with GenericRegex (RE2)");

namespace rapidjson::internal {

template <>
template <>
inline Schema<SchemaDocument>::RegexType* Schema<SchemaDocument>::CreatePattern<Value>(const Value& value) {
  if (!value.IsString()) return nullptr;
  RegexType* r = new (allocator_->Malloc(sizeof(RegexType))) RegexType(value.GetString(), value.GetStringLength());
  if (!r->IsValid()) {
    r->~RegexType();
    AllocatorType::Free(r);
    r = nullptr;
  }
  return r;
}

template <>
inline bool Schema<SchemaDocument>::IsPatternMatch(const RegexType* pattern, const Ch* str, SizeType length) {
  return pattern->Search(str, length);
}

}  // namespace rapidjson::internal
