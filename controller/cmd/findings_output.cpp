#include "cmd/findings_output.hpp"

#include <cstdio>

namespace cfo::cmd {

namespace {
std::string meta_field(const json::Value& doc, const char* field) {
  const json::Value* meta = json::find(doc, "metadata");
  if (!meta) return {};
  return json::get_string(*meta, field).value_or("");
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
}  // namespace

std::string describe_object(const InputDocument& in) {
  auto kind = json::get_string(in.doc, "kind");
  std::string name = meta_field(in.doc, "name");
  std::string ns = meta_field(in.doc, "namespace");
  if (!kind) return "document " + std::to_string(in.index);
  return *kind + " " + (ns.empty() ? "" : ns + "/") + (name.empty() ? "<no name>" : name);
}

void print_findings_text(std::ostream& out, const InputDocument& in, const FieldErrors& errs) {
  for (const auto& e : errs) {
    out << printable(in.file) << ": " << printable(describe_object(in)) << ": "
        << (e.severity == Severity::Error ? "error" : "warning") << ": "
        << (e.path.empty() ? "<object>" : printable(e.path)) << ": " << printable(e.reason) << " [" << e.rule << ", "
        << e.source << "]\n";
  }
}

void append_findings_json(json::Value& arr, json::Allocator& a, const InputDocument& in, const FieldErrors& errs) {
  for (const auto& e : errs) {
    json::Value o(rapidjson::kObjectType);
    o.AddMember("file", json::str(in.file, a), a);
    o.AddMember("document", json::Value(static_cast<uint64_t>(in.index)), a);
    o.AddMember("apiVersion", json::str(json::get_string(in.doc, "apiVersion").value_or(""), a), a);
    o.AddMember("kind", json::str(json::get_string(in.doc, "kind").value_or(""), a), a);
    o.AddMember("namespace", json::str(meta_field(in.doc, "namespace"), a), a);
    o.AddMember("name", json::str(meta_field(in.doc, "name"), a), a);
    o.AddMember("path", json::str(e.path, a), a);
    o.AddMember("rule", json::str(e.rule, a), a);
    o.AddMember("source", json::str(e.source, a), a);
    o.AddMember("reason", json::str(e.reason, a), a);
    o.AddMember("severity", json::str(e.severity == Severity::Error ? "error" : "warning", a), a);
    arr.PushBack(std::move(o), a);
  }
}

}  // namespace cfo::cmd
