#include "core/yaml.hpp"

#include <yaml.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

namespace cfo::yaml {

namespace {

// --- scalar resolution (go-yaml v2 rules) -----------------------------------------------------------------

bool is_null_word(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::optional<bool> bool_word(std::string_view s) {
  static constexpr std::string_view yes[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static constexpr std::string_view no[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (auto w : yes)
    if (s == w) return true;
  for (auto w : no)
    if (s == w) return false;
  return std::nullopt;
}

// Whether plain scalar `s` can only be a string: longer than every null and bool word (5 characters at most) and not
// starting as a number does (a digit, a sign or a '.'). Most plain scalars of a manifest (names, images, commands)
// are told here with one look at their first character.
bool only_a_string(std::string_view s) {
  if (s.size() <= 5) return false;
  const char c = s.front();
  return !(c >= '0' && c <= '9') && c != '-' && c != '+' && c != '.';
}

// Plain scalars longer than this are never numbers (no int64 or double needs more characters).
constexpr std::size_t kMaxNumberLength = 64;

// Mappings with this many keys or more find a repeated key through an index; smaller ones by a linear search.
constexpr rapidjson::SizeType kIndexedFrom = 16;

bool is_digit_in(char c, int base) {
  if (base == 2) return c == '0' || c == '1';
  if (base == 8) return c >= '0' && c <= '7';
  if (base == 10) return c >= '0' && c <= '9';
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Digits of `base` with '_' separators, at least one digit. Returns the digits without separators, or nullopt.
std::optional<std::string> digits_of(std::string_view s, int base) {
  std::string out;
  for (char c : s) {
    if (c == '_') continue;
    if (!is_digit_in(c, base)) return std::nullopt;
    out += c;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// YAML 1.1 integers as go-yaml v2 resolves them: [-+]? then 0b.., 0x.., 0o.. or 0[0-7_]+ (octal), or decimal
// (0, or [1-9][0-9_]*). Like go-yaml v2 (strconv.ParseInt, then ParseUint), a value above the int64 range up to
// 2^64-1 is an unsigned integer; anything beyond that, or below -2^63, is not an integer.
std::optional<json::Value> int_word(std::string_view s) {
  if (s.empty() || s.size() > kMaxNumberLength) return std::nullopt;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int base = 10;
  std::string_view body = s;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'b' || s[1] == 'o')) {
    base = s[1] == 'x' ? 16 : s[1] == 'b' ? 2 : 8;
    body = s.substr(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    body = s.substr(1);
  } else if (s[0] == '_') {
    return std::nullopt;
  }
  auto digits = digits_of(body, base);
  if (!digits) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(digits->c_str(), &end, base);
  if (errno == ERANGE || *end != '\0') return std::nullopt;
  constexpr unsigned long long kMaxPos = static_cast<unsigned long long>(INT64_MAX);
  if (!neg && v > kMaxPos) return json::Value(static_cast<uint64_t>(v));
  if (neg && v > kMaxPos + 1) return std::nullopt;
  return json::Value(neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v));
}

// YAML 1.1 floats: [-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?, and .inf/.nan spellings.
std::optional<double> float_word(std::string_view s) {
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "+.Inf" || s == "+.INF") return HUGE_VAL;
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return -HUGE_VAL;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return NAN;
  if (s.empty() || s.size() > kMaxNumberLength) return std::nullopt;
  std::string clean;
  std::size_t i = 0;
  if (s[i] == '-' || s[i] == '+') clean += s[i++];
  bool int_digits = false, frac_digits = false;
  if (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_')) {
      if (s[i] != '_') clean += s[i];
      ++i;
    }
    int_digits = true;
  }
  if (i < s.size() && s[i] == '.') {
    clean += s[i++];
    while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || (int_digits && s[i] == '_'))) {
      if (s[i] != '_') clean += s[i], frac_digits = true;
      ++i;
    }
  }
  if (!int_digits && !frac_digits) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    clean += s[i++];
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) clean += s[i++];
    bool exp_digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') clean += s[i++], exp_digits = true;
    if (!exp_digits) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  return std::strtod(clean.c_str(), nullptr);
}

json::Value resolve_plain(std::string_view s, json::Allocator& a) {
  if (only_a_string(s)) return json::str(s, a);
  if (is_null_word(s)) return json::Value(rapidjson::kNullType);
  if (auto b = bool_word(s)) return json::Value(*b);
  if (auto i = int_word(s)) return std::move(*i);
  if (auto f = float_word(s)) {
    if (!std::isfinite(*f)) return json::str(s, a);  // JSON has no inf/nan: keep the text
    // kubectl turns YAML into JSON with Go's encoding/json, which prints a whole float64 below 1e21 without a
    // fraction ("2.0" and "1e3" are sent as 2 and 1000); the apiserver then reads such a number as an integer when
    // it fits int64. So a whole float in that range is an integer here too.
    if (std::trunc(*f) == *f && *f >= -9223372036854775808.0 && *f < 9223372036854775808.0)
      return json::Value(static_cast<int64_t>(*f));
    return json::Value(*f);
  }
  return json::str(s, a);
}

// --- parser ----------------------------------------------------------------------------------------------

std::string mib(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

struct Parser {
  std::string_view text;           // the whole input, for positions of byte-level errors
  std::size_t document_start = 0;  // byte offset of the current document's first event
  yaml_parser_t p{};
  yaml_event_t ev{};
  bool have_event = false;
  /// Anchored values, with their size in nodes (so that an alias is charged for what it copies).
  struct Anchored {
    json::Document value;
    std::size_t nodes = 0;
  };
  std::map<std::string, Anchored> anchors;
  /// Anchors of the collections being read (an alias to one of them is a cycle).
  std::multiset<std::string> open_anchors;
  /// Nodes copied by alias expansion in this stream; capped so that nested aliases ("billion laughs") cannot
  /// exhaust memory.
  std::size_t alias_nodes = 0;
  /// The count shared by the parts of a stream converted apart (for_each_document), or null.
  std::atomic<std::size_t>* stream_alias_nodes = nullptr;

  ~Parser() {
    if (have_event) yaml_event_delete(&ev);
    yaml_parser_delete(&p);
  }

  /// 1-based line and column (in characters) of byte `offset` of the input.
  Position position_of(std::size_t offset) const {
    offset = std::min(offset, text.size());
    Position at{1, 1};
    for (std::size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') {
        ++at.line;
        at.column = 1;
      } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
        ++at.column;  // count characters: skip UTF-8 continuation bytes
      }
    }
    return at;
  }

  static Position position_of(const yaml_mark_t& m) { return {m.line + 1, m.column + 1}; }
  static std::string text_of(const Position& at) {
    return "line " + std::to_string(at.line) + ", column " + std::to_string(at.column);
  }
  /// An error at `at`: `before` + " line L, column C" + `after` as its message, and the place in line and column.
  static std::unexpected<Error> fail_at(const Position& at, const std::string& before, const std::string& after = "") {
    Error e{before + text_of(at) + after};
    e.line = at.line;
    e.column = at.column;
    return std::unexpected<Error>(std::move(e));
  }
  /// fail_at for one of the size limits (Error::reason kLimitReason).
  static std::unexpected<Error> limit_at(const Position& at, const std::string& before, const std::string& after = "") {
    auto e = fail_at(at, before, after);
    e.error().reason = kLimitReason;
    return e;
  }

  std::unexpected<Error> error_here(const std::string& what) const {
    // LibYAML's reader (invalid UTF-8, control characters) reports a byte offset and leaves problem_mark unset.
    const Position at = p.error == YAML_READER_ERROR ? position_of(p.problem_offset) : position_of(p.problem_mark);
    std::string problem = p.problem ? std::string(": ") + p.problem : "";
    if (p.error == YAML_READER_ERROR && p.problem_value >= 0) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(p.problem_value));
      problem += std::string(" (") + hex + ")";
    }
    return fail_at(at, "YAML " + what + " at ", problem);
  }

  Result<void> next() {
    if (have_event) yaml_event_delete(&ev);
    have_event = false;
    if (!yaml_parser_parse(&p, &ev)) return error_here("syntax error");
    have_event = true;
    if (ev.end_mark.index - document_start > kMaxDocumentBytes)
      return limit_at(position_of(document_start), "YAML document starting at ",
                      " is larger than " + mib(kMaxDocumentBytes) + " (the limit per document)");
    return {};
  }

  /// Where the current event starts.
  Position here() const { return position_of(ev.start_mark); }

  static std::size_t count_nodes(const json::Value& v) {
    std::size_t n = 1;
    if (v.IsObject())
      for (const auto& m : v.GetObject()) n += count_nodes(m.value);
    else if (v.IsArray())
      for (const auto& item : v.GetArray()) n += count_nodes(item);
    return n;
  }

  void remember(const yaml_char_t* anchor, const json::Value& v) {
    if (!anchor) return;
    Anchored a;
    a.value.CopyFrom(v, a.value.GetAllocator());
    a.nodes = count_nodes(v);
    anchors[reinterpret_cast<const char*>(anchor)] = std::move(a);
  }

  // Parses the node whose start event is the current event into `out`.
  Result<void> node(json::Value& out, json::Allocator& a, int depth) {
    if (depth > kMaxDepth)
      return limit_at(here(), "YAML nesting deeper than " + std::to_string(kMaxDepth) + " levels at ",
                      " (the limit per document)");
    switch (ev.type) {
      case YAML_ALIAS_EVENT: {
        std::string name(reinterpret_cast<const char*>(ev.data.alias.anchor));
        auto it = anchors.find(name);
        if (it == anchors.end() && open_anchors.contains(name))
          return fail_at(here(), "YAML alias *" + name + " at ",
                         " refers to a node that contains it (a recursive structure, which JSON cannot hold)");
        if (it == anchors.end()) return fail_at(here(), "YAML alias *" + name + " has no anchor, at ");
        alias_nodes += it->second.nodes;
        const std::size_t counted =
            stream_alias_nodes ? stream_alias_nodes->fetch_add(it->second.nodes) + it->second.nodes : alias_nodes;
        if (counted > kMaxAliasNodes)
          return limit_at(here(), "YAML aliases expand to more than " + std::to_string(kMaxAliasNodes) + " nodes, at ",
                          "; refusing the document (nested aliases can multiply its size)");
        out.CopyFrom(it->second.value, a);
        return {};
      }
      case YAML_SCALAR_EVENT: {
        if (ev.data.scalar.length > kMaxScalarBytes)
          return limit_at(here(), "YAML scalar of " + std::to_string(ev.data.scalar.length) + " bytes at ",
                          " is larger than " + mib(kMaxScalarBytes) + " (the limit per string)");
        std::string_view text(reinterpret_cast<const char*>(ev.data.scalar.value), ev.data.scalar.length);
        const char* tag = reinterpret_cast<const char*>(ev.data.scalar.tag);
        std::string t = tag ? tag : "";
        // Resolved (null, bool, int, float or string): an untagged plain scalar, or one tagged with a core-schema type.
        // A string as written: a quoted or block scalar, the !!str and non-specific "!" tags, and any other tag.
        const bool core_type_tag = t == YAML_INT_TAG || t == YAML_FLOAT_TAG || t == YAML_BOOL_TAG || t == YAML_NULL_TAG;
        if (core_type_tag || (t.empty() && ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE)) {
          out = resolve_plain(text, a);
        } else {
          out = json::str(text, a);
        }
        remember(ev.data.scalar.anchor, out);
        return {};
      }
      case YAML_SEQUENCE_START_EVENT: {
        std::string anchor =
            ev.data.sequence_start.anchor ? reinterpret_cast<const char*>(ev.data.sequence_start.anchor) : "";
        out.SetArray();
        if (!anchor.empty()) {  // shadows an earlier node of that anchor from here on (YAML: the most recent)
          anchors.erase(anchor);
          open_anchors.insert(anchor);
        }
        for (;;) {
          if (auto r = next(); !r) return r;
          if (ev.type == YAML_SEQUENCE_END_EVENT) break;
          json::Value item;
          if (auto r = node(item, a, depth + 1); !r) return r;
          out.PushBack(std::move(item), a);
        }
        if (!anchor.empty()) {
          open_anchors.erase(open_anchors.find(anchor));
          remember(reinterpret_cast<const yaml_char_t*>(anchor.c_str()), out);
        }
        return {};
      }
      case YAML_MAPPING_START_EVENT: {
        std::string anchor =
            ev.data.mapping_start.anchor ? reinterpret_cast<const char*>(ev.data.mapping_start.anchor) : "";
        out.SetObject();
        if (!anchor.empty()) {  // shadows an earlier node of that anchor from here on (YAML: the most recent)
          anchors.erase(anchor);
          open_anchors.insert(anchor);
        }
        // A repeated key is looked for among the members written so far: by a linear search in a small mapping, by
        // an index of each key's member past kIndexedFrom members (a linear search per key made large mappings
        // quadratic). Members are never removed, so indexes stay valid.
        std::unordered_map<std::string_view, rapidjson::SizeType> index;  // views of the members' own names
        std::set<std::string, std::less<>> merged_keys;  // keys brought in by `<<`, which explicit keys may override
        auto member_of = [&](std::string_view key) -> json::Value* {
          if (!index.empty()) {
            const auto it = index.find(key);
            return it == index.end() ? nullptr : &(out.MemberBegin() + it->second)->value;
          }
          for (auto& m : out.GetObject())
            if (std::string_view(m.name.GetString(), m.name.GetStringLength()) == key) return &m.value;
          return nullptr;
        };
        auto add = [&](json::Value key, json::Value value) {
          out.AddMember(std::move(key), std::move(value), a);
          if (out.MemberCount() < kIndexedFrom) return;
          if (index.empty()) {
            rapidjson::SizeType i = 0;
            for (auto& m : out.GetObject())
              index.emplace(std::string_view(m.name.GetString(), m.name.GetStringLength()), i++);
            return;
          }
          const auto& m = *(out.MemberEnd() - 1);
          index.emplace(std::string_view(m.name.GetString(), m.name.GetStringLength()), out.MemberCount() - 1);
        };
        for (;;) {
          if (auto r = next(); !r) return r;
          if (ev.type == YAML_MAPPING_END_EVENT) break;
          if (ev.type != YAML_SCALAR_EVENT && ev.type != YAML_ALIAS_EVENT)
            return fail_at(here(), "YAML mapping key is not a scalar at ");
          // Keys keep their literal text (JSON object keys are strings), so `y:` or `on:` stay as written.
          json::Value key;
          bool merge = false;
          if (ev.type == YAML_SCALAR_EVENT) {
            const std::string_view text(reinterpret_cast<const char*>(ev.data.scalar.value), ev.data.scalar.length);
            key = json::str(text, a);
            merge = text == "<<" && ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
          } else {
            json::Value aliased;
            if (auto r = node(aliased, a, depth + 1); !r) return r;
            key = aliased.IsString() ? std::move(aliased) : json::str(json::dump(aliased), a);
          }
          const std::string_view key_text(key.GetString(), key.GetStringLength());
          const Position key_at = here();  // a repeated key is told where it is written
          if (auto r = next(); !r) return r;
          json::Value val;
          if (auto r = node(val, a, depth + 1); !r) return r;
          if (merge) {
            auto merge_one = [&](json::Value& src) {
              if (!src.IsObject()) return;
              for (auto& m : src.GetObject()) {
                const std::string_view name(m.name.GetString(), m.name.GetStringLength());
                if (member_of(name)) continue;
                merged_keys.emplace(name);
                add(json::str(name, a), json::Value(m.value, a));
              }
            };
            if (val.IsArray())
              for (auto& v : val.GetArray()) merge_one(v);
            else
              merge_one(val);
            continue;
          }
          // A repeated key is an error, as kubectl reports it ("mapping key already defined"): silently keeping one
          // of the two values would lose data.
          if (json::Value* existing = member_of(key_text)) {
            const auto merged = merged_keys.find(key_text);
            if (merged == merged_keys.end())
              return fail_at(key_at, "YAML mapping key \"" + std::string(key_text) + "\" is defined twice, at ");
            merged_keys.erase(merged);
            *existing = std::move(val);  // an explicit key overrides a merged one
            continue;
          }
          add(std::move(key), std::move(val));
        }
        if (!anchor.empty()) {
          open_anchors.erase(open_anchors.find(anchor));
          remember(reinterpret_cast<const yaml_char_t*>(anchor.c_str()), out);
        }
        return {};
      }
      default:
        return fail_at(here(), "unexpected YAML event at ");
    }
  }
};

// --- emitter ---------------------------------------------------------------------------------------------

struct Emitter {
  yaml_emitter_t e{};
  std::string out;
  bool ok = true;

  static int write(void* data, unsigned char* buf, size_t size) {
    static_cast<Emitter*>(data)->out.append(reinterpret_cast<char*>(buf), size);
    return 1;
  }

  void emit(yaml_event_t& ev) {
    if (ok && !yaml_emitter_emit(&e, &ev)) ok = false;
  }

  void scalar(std::string_view s, bool force_quote) {
    yaml_event_t ev;
    bool multiline = s.find('\n') != std::string_view::npos;
    yaml_scalar_style_t style = force_quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                : multiline ? YAML_LITERAL_SCALAR_STYLE
                                            : YAML_ANY_SCALAR_STYLE;
    yaml_scalar_event_initialize(&ev, nullptr, nullptr, reinterpret_cast<yaml_char_t*>(const_cast<char*>(s.data())),
                                 static_cast<int>(s.size()), force_quote ? 0 : 1, 1, style);
    emit(ev);
  }

  void value(const json::Value& v) {
    yaml_event_t ev;
    if (v.IsObject()) {
      yaml_mapping_start_event_initialize(&ev, nullptr, nullptr, 1,
                                          v.MemberCount() == 0 ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
      emit(ev);
      for (auto& m : v.GetObject()) {
        std::string_view k(m.name.GetString(), m.name.GetStringLength());
        json::Document probe;
        // A plain `<<` key would read back as a merge key.
        scalar(k, k == "<<" || !resolve_plain(k, probe.GetAllocator()).IsString());
        value(m.value);
      }
      yaml_mapping_end_event_initialize(&ev);
      emit(ev);
    } else if (v.IsArray()) {
      yaml_sequence_start_event_initialize(&ev, nullptr, nullptr, 1,
                                           v.Size() == 0 ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
      emit(ev);
      for (auto& item : v.GetArray()) value(item);
      yaml_sequence_end_event_initialize(&ev);
      emit(ev);
    } else if (v.IsString()) {
      std::string_view s(v.GetString(), v.GetStringLength());
      json::Document probe;
      bool ambiguous = !resolve_plain(s, probe.GetAllocator()).IsString();
      scalar(s, ambiguous);
    } else {
      std::string text = v.IsNull() ? "null" : json::dump(v);
      scalar(text, false);
    }
  }
};

}  // namespace

Result<std::vector<json::Document>> to_json(std::string_view text) {
  std::vector<json::Document> docs;
  auto done = for_each_document(text, [&](json::Document& d, const DocumentStart&) { docs.push_back(std::move(d)); });
  if (!done) return std::unexpected(done.error());
  return docs;
}

Result<void> for_each_document(std::string_view text,
                               const std::function<void(json::Document&, const DocumentStart&)>& each,
                               std::atomic<std::size_t>* stream_alias_nodes) {
  if (text.size() > kMaxStreamBytes) {
    Error e{"YAML text of " + std::to_string(text.size()) + " bytes is larger than " + mib(kMaxStreamBytes) +
            " (the limit per file)"};
    e.reason = kLimitReason;
    return std::unexpected<Error>(std::move(e));
  }
  Parser ps;
  ps.text = text;
  ps.stream_alias_nodes = stream_alias_nodes;
  if (!yaml_parser_initialize(&ps.p)) return fail("cannot initialise the YAML parser");
  yaml_parser_set_input_string(&ps.p, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  DocumentStart line_cursor;  // the start of a line at or before the next document's
  for (;;) {
    if (auto r = ps.next(); !r) return std::unexpected(r.error());
    if (ps.ev.type == YAML_STREAM_END_EVENT) break;
    if (ps.ev.type != YAML_DOCUMENT_START_EVENT) continue;
    ps.document_start = ps.ev.start_mark.index;
    // LibYAML's marks count characters, not bytes: the line's byte offset is found by counting lines, from where the
    // previous document's was (documents come in order, so the whole text is scanned once).
    DocumentStart start;
    start.line = ps.ev.start_mark.line + 1;
    while (line_cursor.line < start.line && line_cursor.line_offset < text.size()) {
      const std::size_t eol = text.find('\n', line_cursor.line_offset);
      if (eol == std::string_view::npos) break;
      line_cursor.line_offset = eol + 1;
      ++line_cursor.line;
    }
    start.line_offset = line_cursor.line_offset;
    if (auto r = ps.next(); !r) return std::unexpected(r.error());
    if (ps.ev.type == YAML_DOCUMENT_END_EVENT) continue;
    json::Document d;
    if (auto r = ps.node(d, d.GetAllocator(), 0); !r) return std::unexpected(r.error());
    if (auto r = ps.next(); !r) return std::unexpected(r.error());  // DOCUMENT_END
    ps.anchors.clear();
    ps.document_start = ps.ev.end_mark.index;
    if (!d.IsNull()) each(d, start);
  }
  return {};
}

std::string from_json(const json::Value& v) {
  Emitter em;
  yaml_emitter_initialize(&em.e);
  yaml_emitter_set_output(&em.e, &Emitter::write, &em);
  yaml_emitter_set_unicode(&em.e, 1);
  yaml_emitter_set_width(&em.e, -1);
  yaml_emitter_set_indent(&em.e, 2);
  yaml_event_t ev;
  yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
  em.emit(ev);
  yaml_document_start_event_initialize(&ev, nullptr, nullptr, nullptr, 1);
  em.emit(ev);
  em.value(v);
  yaml_document_end_event_initialize(&ev, 1);
  em.emit(ev);
  yaml_stream_end_event_initialize(&ev);
  em.emit(ev);
  yaml_emitter_delete(&em.e);
  return em.out;
}

}  // namespace cfo::yaml
