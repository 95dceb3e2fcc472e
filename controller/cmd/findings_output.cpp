#include "cmd/findings_output.hpp"

#include <cstdio>
#include <optional>

#include "core/yaml.hpp"

namespace cfo::cmd {

namespace {
std::string meta_field(const json::Value& doc, const char* field) {
  if (!doc.IsObject()) return {};
  const json::Value* meta = json::find(doc, "metadata");
  if (!meta || !meta->IsObject()) return {};
  return json::get_string(*meta, field).value_or("");
}
std::string top_field(const json::Value& doc, const char* field) {
  if (!doc.IsObject()) return {};
  return json::get_string(doc, field).value_or("");
}
// Control characters would break the one-finding-per-line text output: show them escaped.
std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}
std::string item_string(const InputDocument& in) {
  std::string out;
  for (std::size_t level = 0; level < in.item.size(); ++level) {
    if (level > 0) out += '.';
    out += std::to_string(in.item[level]);
  }
  return out;
}
// The fields every JSON entry has, up to (not including) path.
json::Value entry_head(json::Allocator& a, const InputDocument& in) {
  json::Value o(rapidjson::kObjectType);
  o.AddMember("file", json::str(in.file, a), a);
  if (in.whole_file)
    o.AddMember("document", json::Value(rapidjson::kNullType), a);
  else
    o.AddMember("document", json::Value(static_cast<uint64_t>(in.index)), a);
  if (!in.item.empty()) o.AddMember("item", json::str(item_string(in), a), a);
  o.AddMember("apiVersion", json::str(top_field(in.doc, "apiVersion"), a), a);
  o.AddMember("kind", json::str(top_field(in.doc, "kind"), a), a);
  o.AddMember("namespace", json::str(meta_field(in.doc, "namespace"), a), a);
  o.AddMember("name", json::str(meta_field(in.doc, "name"), a), a);
  return o;
}
// Where the field at `path` of `in` is written: yaml::locate on the document's text (inside its List for a List
// item); for a whole-file entry, where its YAML stopped parsing; nullopt when neither is known.
std::optional<yaml::Position> written_at(const InputDocument& in, const std::string& path) {
  if (in.whole_file) return in.syntax_error_at;
  if (!in.text || in.whole_file || in.start.line_offset > in.text->size()) return std::nullopt;
  std::string full;
  for (std::size_t k : in.item) full += "items[" + std::to_string(k) + "].";
  full += path;
  auto at = yaml::locate(std::string_view(*in.text).substr(in.start.line_offset), 0, full);
  if (at) at->line += in.start.line - 1;
  return at;
}
}  // namespace

std::string describe_object(const InputDocument& in) {
  std::string kind = top_field(in.doc, "kind");
  if (in.whole_file || kind.empty()) return position(in);
  std::string name = meta_field(in.doc, "name");
  std::string ns = meta_field(in.doc, "namespace");
  std::string out = kind + " " + (ns.empty() ? "" : ns + "/") + (name.empty() ? "<no name>" : name);
  if (!in.item.empty()) out += " (" + position(in) + ")";
  return out;
}

void print_findings_text(std::ostream& out, const InputDocument& in, const FieldErrors& errs) {
  for (const auto& e : errs) {
    if (in.whole_file) {
      // A file that does not parse, told as compilers tell a place: "file:line:column: error: ...".
      out << printable(in.file);
      if (in.syntax_error_at) out << ":" << in.syntax_error_at->line << ":" << in.syntax_error_at->column;
      out << ": " << (e.severity == Severity::Error ? "error" : "warning") << ": "
          << (e.path.empty() ? "" : printable(e.path) + ": ") << printable(e.reason) << " [" << e.rule << ", "
          << e.source << "]\n";
      continue;
    }
    // "file:line:column:" where the field is written (compilers' form, which editors and CI annotations link), else
    // the file alone.
    out << printable(in.file);
    if (auto at = written_at(in, e.path)) out << ":" << at->line << ":" << at->column;
    out << ": " << printable(describe_object(in)) << ": " << (e.severity == Severity::Error ? "error" : "warning")
        << ": " << (e.path.empty() ? "<object>" : printable(e.path)) << ": " << printable(e.reason) << " [" << e.rule
        << ", " << e.source << "]\n";
  }
}

void append_findings_json(json::Value& arr, json::Allocator& a, const InputDocument& in, const FieldErrors& errs) {
  for (const auto& e : errs) {
    json::Value o = entry_head(a, in);
    o.AddMember("path", json::str(e.path, a), a);
    if (auto at = written_at(in, e.path)) {
      o.AddMember("line", json::Value(static_cast<uint64_t>(at->line)), a);
      o.AddMember("column", json::Value(static_cast<uint64_t>(at->column)), a);
    }
    o.AddMember("rule", json::str(e.rule, a), a);
    o.AddMember("source", json::str(e.source, a), a);
    o.AddMember("reason", json::str(e.reason, a), a);
    o.AddMember("severity", json::str(e.severity == Severity::Error ? "error" : "warning", a), a);
    arr.PushBack(std::move(o), a);
  }
}

void print_skipped_text(std::ostream& out, const InputDocument& in, const std::string& reason) {
  const std::string api_version = top_field(in.doc, "apiVersion");
  out << printable(in.file) << ": skipped: " << (api_version.empty() ? "" : printable(api_version) + " ")
      << printable(describe_object(in)) << " (" << printable(reason) << ")\n";
}

void append_skipped_json(json::Value& arr, json::Allocator& a, const InputDocument& in, const std::string& reason) {
  json::Value o = entry_head(a, in);
  o.AddMember("path", json::str("", a), a);
  o.AddMember("rule", json::str(kSkippedRule, a), a);
  o.AddMember("source", json::str(kSkippedSource, a), a);
  o.AddMember("reason", json::str(reason, a), a);
  o.AddMember("severity", json::str("info", a), a);
  o.AddMember("skipped", json::Value(true), a);
  arr.PushBack(std::move(o), a);
}

}  // namespace cfo::cmd
