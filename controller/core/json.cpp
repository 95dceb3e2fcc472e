#include "core/json.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <charconv>

#include "core/ascii.hpp"
#include "core/field_error.hpp"

namespace cfo {

namespace {
bool plain_key(std::string_view k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!(ascii::is_alnum(c) || c == '_' || c == '-')) return false;
  return true;
}
}  // namespace

std::string key_path(const std::string& parent, const std::string& key) {
  if (plain_key(key)) return join_path(parent, key);
  return parent + "[" + key + "]";
}

void append_key(std::string& path, std::string_view key) {
  if (plain_key(key)) {
    if (!path.empty()) path += '.';
    path += key;
    return;
  }
  path += '[';
  path += key;
  path += ']';
}

void append_index(std::string& path, std::size_t i) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, i);
  path += '[';
  path.append(digits, end);
  path += ']';
}

namespace json {

std::string dump(const Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

std::string dump_pretty(const Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.SetIndent(' ', 2);
  v.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

Document clone(const Value& v) {
  Document d;
  d.CopyFrom(v, d.GetAllocator());
  return d;
}

const Value* find(const Value& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

Value* find(Value& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

const Value* find_path(const Value& obj, std::string_view dotted) {
  const Value* cur = &obj;
  while (cur && !dotted.empty()) {
    auto dot = dotted.find('.');
    cur = find(*cur, dotted.substr(0, dot));
    dotted = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot + 1);
  }
  return cur;
}

std::string string_at(const Value& obj, std::string_view dotted) {
  const Value* v = find_path(obj, dotted);
  return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::string();
}

std::optional<std::string> get_string(const Value& obj, std::string_view key) {
  const Value* v = find(obj, key);
  if (!v || !v->IsString()) return std::nullopt;
  return std::string(v->GetString(), v->GetStringLength());
}

std::optional<int64_t> get_int(const Value& obj, std::string_view key) {
  const Value* v = find(obj, key);
  if (!v || !v->IsInt64()) return std::nullopt;
  return v->GetInt64();
}

std::optional<bool> get_bool(const Value& obj, std::string_view key) {
  const Value* v = find(obj, key);
  if (!v || !v->IsBool()) return std::nullopt;
  return v->GetBool();
}

Value str(std::string_view s, Allocator& a) { return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a); }

void set(Value& obj, std::string_view key, Value v, Allocator& a) {
  if (Value* existing = find(obj, key)) {
    *existing = std::move(v);
    return;
  }
  obj.AddMember(str(key, a), std::move(v), a);
}

std::string pointer_to_path(std::string_view pointer) {
  std::string out;
  std::size_t i = pointer.empty() || pointer[0] != '/' ? 0 : 1;
  while (i <= pointer.size() && !pointer.empty()) {
    auto next = pointer.find('/', i);
    std::string_view raw = pointer.substr(i, next == std::string_view::npos ? std::string_view::npos : next - i);
    std::string seg;
    for (std::size_t j = 0; j < raw.size(); ++j) {
      if (raw[j] == '~' && j + 1 < raw.size()) {
        seg += raw[j + 1] == '1' ? '/' : '~';
        ++j;
      } else {
        seg += raw[j];
      }
    }
    bool numeric = !seg.empty();
    for (char c : seg) numeric = numeric && ascii::is_digit(c);
    if (numeric)
      out += "[" + seg + "]";
    else
      out = key_path(out, seg);
    if (next == std::string_view::npos) break;
    i = next + 1;
  }
  return out;
}

const char* type_name(const Value& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "boolean";
  if (v.IsInt64() || v.IsUint64()) return "integer";
  if (v.IsNumber()) return "number";
  if (v.IsString()) return "string";
  if (v.IsArray()) return "array";
  return "object";
}

namespace {
// Strings up to this many bytes are stored inside the value by RapidJSON (ShortString with the 48-bit pointer layout
// of x86-64); longer ones take their length + 1 from the pool.
constexpr rapidjson::SizeType kInlineStringBytes = 13;

std::size_t aligned(std::size_t bytes) { return (bytes + 7) & ~std::size_t{7}; }

// The bytes a CopyFrom of `v` takes from a MemoryPoolAllocator: member and element arrays and out-of-line strings,
// each rounded up to 8 bytes as the allocator does. A wrong guess costs only memory: the pool adds a block.
std::size_t copy_bytes(const Value& v) {
  if (v.IsObject()) {
    std::size_t n = aligned(std::size_t{v.MemberCount()} * sizeof(Value::Member));
    for (const auto& m : v.GetObject()) n += copy_bytes(m.name) + copy_bytes(m.value);
    return n;
  }
  if (v.IsArray()) {
    std::size_t n = aligned(std::size_t{v.Size()} * sizeof(Value));
    for (const auto& item : v.GetArray()) n += copy_bytes(item);
    return n;
  }
  if (v.IsString() && v.GetStringLength() > kInlineStringBytes) return aligned(std::size_t{v.GetStringLength()} + 1);
  return 0;
}
}  // namespace

Document compact_copy(const Value& v, std::unique_ptr<Pool>& pool) {
  pool = std::make_unique<Pool>(copy_bytes(v) + 64);
  Document out(pool.get());
  out.CopyFrom(v, *pool);
  return out;
}

}  // namespace json
}  // namespace cfo
