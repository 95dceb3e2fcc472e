#include "workload/field_reader.hpp"

#include "core/json_numbers.hpp"

namespace cfo::workload {

namespace {
std::string source_or_workload(std::string source, std::string_view rule) {
  if (!source.empty()) return source;
  return rule.starts_with("schema:") ? kWorkloadSource : kOperatorSource;
}
}  // namespace

void add_error(FieldErrors& errs, std::string path, std::string rule, std::string reason, std::string source) {
  source = source_or_workload(std::move(source), rule);
  errs.push_back(FieldError{std::move(path), std::move(rule), std::move(source), std::move(reason), Severity::Error});
}

void add_warning(FieldErrors& errs, std::string path, std::string rule, std::string reason, std::string source) {
  source = source_or_workload(std::move(source), rule);
  errs.push_back(FieldError{std::move(path), std::move(rule), std::move(source), std::move(reason), Severity::Warning});
}

std::string with_article(std::string_view noun) {
  bool vowel = !noun.empty() && std::string_view("aeiouAEIOU").find(noun.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(noun);
}

std::string a_type_name(const json::Value& v) { return v.IsNull() ? "null" : with_article(json::type_name(v)); }

namespace {
// What to write instead, for the common YAML slips: an unquoted yes/no/on/off/y/n/true/false is a boolean, an unquoted
// number a number; a fractional CPU goes in millicores, a fractional memory needs its unit.
std::string hint(const json::Value& v, std::string_view want, std::string_view path) {
  const bool wants_string = want.find("string") != std::string_view::npos;
  if (v.IsBool() && wants_string)
    return " (YAML reads an unquoted y, n, yes, no, on, off, true or false as a boolean: quote it)";
  if (v.IsNumber() && !v.IsInt64() && !v.IsUint64() && want.find("quantity") != std::string_view::npos) {
    const double d = v.GetDouble();
    const std::string text = json::dump(v);
    if (path.ends_with(".cpu") && d > 0 && d < 1e6 && d * 1000 == static_cast<double>(static_cast<int64_t>(d * 1000)))
      return " (write \"" + std::to_string(static_cast<int64_t>(d * 1000)) + "m\" for " + text + " CPU)";
    if (path.ends_with(".memory"))
      return " (write \"" + text + "G\" for " + text + " gigabytes: a quantity with a fraction is a quoted string)";
    return " (write it as a quoted quantity: \"" + text + "\")";
  }
  if (v.IsNumber() && wants_string) return " (quote it: \"" + json::dump(v) + "\")";
  // A whole number too large for 64 bits reads as a number, for the apiserver as here (the thirty-seventh user trial:
  // replicas 99999999999999999999 "must be an integer, not a number" said nothing of why).
  if (want.find("integer") != std::string_view::npos && json::is_whole_beyond_int64(v))
    return " (" + json::dump(v) + " is beyond the 64-bit integers a Kubernetes API field holds)";
  return "";
}
}  // namespace

bool expect_type(const json::Value& v, bool ok, const char* want, const std::string& path, FieldErrors& errs) {
  if (!ok)
    add_error(errs, path, "schema:type",
              std::string("must be ") + want + ", not " + a_type_name(v) + hint(v, want, path));
  return ok;
}

FieldReader::FieldReader(const json::Value& obj, std::string path, FieldErrors& errs)
    : path_(std::move(path)), errs_(errs) {
  if (expect_type(obj, obj.IsObject(), "an object", path_, errs_)) obj_ = &obj;
}

const json::Value* FieldReader::get(std::string_view key) {
  seen_.emplace(key);
  if (!obj_) return nullptr;
  const json::Value* v = json::find(*obj_, key);
  return v && !v->IsNull() ? v : nullptr;
}

bool FieldReader::check_type(std::string_view key, const json::Value& v, bool ok, const char* want) {
  return expect_type(v, ok, want, child(key), errs_);
}

std::optional<std::string> FieldReader::string(std::string_view key) {
  const json::Value* v = get(key);
  if (!v || !check_type(key, *v, v->IsString(), "a string")) return std::nullopt;
  return std::string(v->GetString(), v->GetStringLength());
}

std::optional<std::string> FieldReader::required_string(std::string_view key) {
  if (!obj_) return std::nullopt;
  if (!get(key)) {
    add_error(errs_, child(key), "schema:required", "is required");
    return std::nullopt;
  }
  auto s = string(key);
  if (s && s->empty()) {
    add_error(errs_, child(key), "schema:minLength", "must not be empty");
    return std::nullopt;
  }
  return s;
}

std::optional<int64_t> FieldReader::integer(std::string_view key, int64_t min, int64_t max) {
  const json::Value* v = get(key);
  if (!v || !check_type(key, *v, v->IsInt64(), "an integer")) return std::nullopt;
  int64_t n = v->GetInt64();
  if (n < min) {
    add_error(errs_, child(key), "schema:minimum", "must be greater than or equal to " + std::to_string(min));
    return std::nullopt;
  }
  if (n > max) {
    // The CRD declares no maximum where the bound is only the field's width (format: int32).
    if (max == INT32_MAX)
      add_error(errs_, child(key), "schema:format",
                "value " + std::to_string(n) + " does not fit format int32 (at most 2147483647)");
    else
      add_error(errs_, child(key), "schema:maximum", "must be less than or equal to " + std::to_string(max));
    return std::nullopt;
  }
  return n;
}

std::optional<bool> FieldReader::boolean(std::string_view key) {
  const json::Value* v = get(key);
  if (!v || !check_type(key, *v, v->IsBool(), "a boolean")) return std::nullopt;
  return v->GetBool();
}

const json::Value* FieldReader::object(std::string_view key) {
  const json::Value* v = get(key);
  if (!v || !check_type(key, *v, v->IsObject(), "an object")) return nullptr;
  return v;
}

const json::Value* FieldReader::array(std::string_view key) {
  const json::Value* v = get(key);
  if (!v || !check_type(key, *v, v->IsArray(), "a list")) return nullptr;
  return v;
}

void FieldReader::reject_unknown() {
  if (!obj_) return;
  for (auto it = obj_->MemberBegin(); it != obj_->MemberEnd(); ++it) {
    std::string_view k(it->name.GetString(), it->name.GetStringLength());
    if (!seen_.contains(k))
      add_error(errs_, child(k), "schema:unknownField", "unknown field \"" + std::string(k) + "\"");
  }
}

}  // namespace cfo::workload
