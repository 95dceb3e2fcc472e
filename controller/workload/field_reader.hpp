#pragma once
// Strict reading of one JSON object of the CodeFlareWorkload API: typed getters that report wrong types as
// FieldErrors, and a final check that reports every member nobody asked for as an unknown field (what the
// apiserver's fieldValidation=Strict would report for a structural schema).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/field_error.hpp"
#include "core/json.hpp"

namespace cfo::workload {

/// The `source` of the CodeFlareWorkload's schema findings (rule `schema:...`): its CRD.
inline constexpr const char* kWorkloadSource = "crd:codeflare.dev/v1alpha1/CodeFlareWorkload";
/// The `source` of the operator's own rules on a CodeFlareWorkload (MemoryUnits, ElasticJobWithoutQueue, ...): no
/// upstream project has them.
inline constexpr const char* kOperatorSource = "codeflare-operator";

/// Appends an Error finding. An empty `source` is the workload's: kWorkloadSource for a `schema:` rule, else
/// kOperatorSource.
void add_error(FieldErrors& errs, std::string path, std::string rule, std::string reason, std::string source = "");
/// Appends a Warning finding (`source` as add_error's).
void add_warning(FieldErrors& errs, std::string path, std::string rule, std::string reason, std::string source = "");

/// Reads the members of one JSON object at field path `path`. If the value is not an object, one
/// `schema:type` error is reported and every getter returns nothing.
class FieldReader {
 public:
  FieldReader(const json::Value& obj, std::string path, FieldErrors& errs);
  FieldReader(const FieldReader&) = delete;
  FieldReader& operator=(const FieldReader&) = delete;

  bool is_object() const { return obj_ != nullptr; }
  const std::string& path() const { return path_; }
  std::string child(std::string_view key) const { return key_path(path_, std::string(key)); }

  /// The member, marked as known; nullptr when absent or null.
  const json::Value* get(std::string_view key);
  /// A string member; a non-string is a `schema:type` error.
  std::optional<std::string> string(std::string_view key);
  /// A string member that must be present and non-empty (`schema:required`, `schema:minLength`).
  std::optional<std::string> required_string(std::string_view key);
  /// An integer member within [min, max]; a non-integer is a `schema:type` error, out of range `schema:minimum`
  /// or `schema:maximum`.
  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max);
  /// A boolean member (no 0/1 or "true": booleans are strict).
  std::optional<bool> boolean(std::string_view key);
  /// An object member (for nested readers); a non-object is a `schema:type` error.
  const json::Value* object(std::string_view key);
  /// An array member; a non-array is a `schema:type` error.
  const json::Value* array(std::string_view key);

  /// Reports each member that no getter asked for as `schema:unknownField`. Call once, after reading.
  void reject_unknown();

 private:
  bool check_type(std::string_view key, const json::Value& v, bool ok, const char* want);

  const json::Value* obj_ = nullptr;
  std::string path_;
  FieldErrors& errs_;
  std::set<std::string, std::less<>> seen_;
};

/// Reports a `schema:type` error unless `v` has the wanted shape; returns whether it has. The reason reads
/// "must be <want>, not <what v is>", e.g. "must be a list, not an object".
bool expect_type(const json::Value& v, bool ok, const char* want, const std::string& path, FieldErrors& errs);

/// `noun` with its indefinite article: "a string", "an array", "an integer".
std::string with_article(std::string_view noun);

/// What a JSON value is, for messages: "null", or json::type_name with its article ("an object", "a boolean").
std::string a_type_name(const json::Value& v);

}  // namespace cfo::workload
