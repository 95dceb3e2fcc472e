#include "validation/rules/rule_util.hpp"

#include <cctype>
#include <charconv>

#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

// ---- Sink and Scope (declared in rules.hpp) --------------------------------------------------------------

std::string Sink::full(const std::string& path) const {
  if (prefix_.empty()) return path;
  if (path.empty()) return prefix_;
  if (path.front() == '[') return prefix_ + path;
  return prefix_ + "." + path;
}

void Sink::add(const std::string& path, std::string_view rule, std::string_view source, std::string reason,
               Severity severity) const {
  out_->push_back({full(path), std::string(rule), std::string(source), std::move(reason), severity});
}

void Sink::append(FieldErrors found) const {
  for (auto& f : found) {
    f.path = full(f.path);
    out_->push_back(std::move(f));
  }
}

bool Scope::wrapper_queued() const { return wrapper && has_queue_label(*wrapper); }

// ---- accessors -------------------------------------------------------------------------------------------

std::string dq(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string brief(const json::Value& v) {
  std::string s = json::dump(v);
  if (s.size() <= 60) return s;
  std::size_t cut = 57;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return s.substr(0, cut) + "...";
}

const json::Value* member(const json::Value& obj, std::string_view key) { return json::find(obj, key); }

const json::Value* object_at(const json::Value& obj, std::string_view key) {
  const json::Value* v = json::find(obj, key);
  return v && v->IsObject() ? v : nullptr;
}

const json::Value* array_at(const json::Value& obj, std::string_view key) {
  const json::Value* v = json::find(obj, key);
  return v && v->IsArray() ? v : nullptr;
}

std::optional<std::string> string_at(const json::Value& obj, std::string_view key) {
  return json::get_string(obj, key);
}

std::optional<int64_t> int_at(const json::Value& obj, std::string_view key) { return json::get_int(obj, key); }

bool true_at(const json::Value& obj, std::string_view key) { return json::get_bool(obj, key).value_or(false); }

std::string text(const json::Value& v) { return v.IsString() ? std::string(v.GetString(), v.GetStringLength()) : ""; }

std::optional<std::string> label_of(const json::Value& obj, std::string_view key) {
  const json::Value* meta = object_at(obj, "metadata");
  const json::Value* labels = meta ? object_at(*meta, "labels") : nullptr;
  return labels ? json::get_string(*labels, key) : std::nullopt;
}

std::optional<std::string> annotation_of(const json::Value& obj, std::string_view key) {
  const json::Value* meta = object_at(obj, "metadata");
  const json::Value* annotations = meta ? object_at(*meta, "annotations") : nullptr;
  return annotations ? json::get_string(*annotations, key) : std::nullopt;
}

bool has_queue_label(const json::Value& obj) { return !label_of(obj, kQueueNameLabel).value_or("").empty(); }

const json::Value* env_entry(const json::Value& container, std::string_view name) {
  const json::Value* env = array_at(container, "env");
  if (!env) return nullptr;
  for (auto it = env->Begin(); it != env->End(); ++it)
    if (json::get_string(*it, "name") == name) return &*it;
  return nullptr;
}

const json::Value* first_container(const json::Value& pod_template) {
  const json::Value* spec = object_at(pod_template, "spec");
  const json::Value* containers = spec ? array_at(*spec, "containers") : nullptr;
  if (!containers || containers->Empty() || !(*containers)[0].IsObject()) return nullptr;
  return &(*containers)[0];
}

// ---- parsers ---------------------------------------------------------------------------------------------

std::optional<std::array<long, 3>> parse_version(std::string_view s) {
  if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.remove_prefix(1);
  std::array<long, 3> out{0, 0, 0};
  int parts = 0;
  std::size_t i = 0;
  while (parts < 3) {
    std::size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start || i - start > 9) break;
    std::from_chars(s.data() + start, s.data() + i, out[parts]);
    ++parts;
    if (i < s.size() && s[i] == '.' && parts < 3) {
      ++i;
      continue;
    }
    break;
  }
  if (parts < 2) return std::nullopt;
  return out;
}

bool is_go_duration(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s == "0") return true;
  if (s.empty()) return false;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    bool digits = i > start;
    if (i < s.size() && s[i] == '.') {
      ++i;
      std::size_t frac = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      digits = digits || i > frac;
    }
    if (!digits) return false;
    std::size_t unit_start = i;
    while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i])) && s[i] != '.') ++i;
    std::string_view unit = s.substr(unit_start, i - unit_start);
    if (unit != "ns" && unit != "us" && unit != "\xC2\xB5s" && unit != "\xCE\xBCs" && unit != "ms" && unit != "s" &&
        unit != "m" && unit != "h")
      return false;
  }
  return true;
}

std::optional<int64_t> parse_int(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace cfo::validation::rules
