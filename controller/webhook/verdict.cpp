#include "webhook/verdict.hpp"

namespace cfo::webhook {

std::string truncate_utf8(std::string s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t cut = max_bytes < 3 ? 0 : max_bytes - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;  // not inside a sequence
  s.resize(cut);
  return s + "...";
}

std::vector<std::string> warnings_of(const FieldErrors& findings) {
  std::vector<std::string> out;
  std::size_t total = 0, left_out = 0;
  // Room kept for the closing "and N more warnings" entry.
  constexpr std::size_t kTail = 64;
  for (const auto& e : findings) {
    if (e.severity != Severity::Warning) continue;
    std::string w = truncate_utf8(describe_finding(e), kMaxWarningBytes);
    if (left_out > 0 || total + w.size() + kTail > kMaxWarningsBytes) {
      ++left_out;
      continue;
    }
    total += w.size();
    out.push_back(std::move(w));
  }
  if (left_out > 0) out.push_back("and " + std::to_string(left_out) + " more warning(s)");
  return out;
}

AdmissionResponse verdict(const FieldErrors& findings, const ObjectRef& object) {
  std::vector<std::string> warnings = warnings_of(findings);
  if (!has_errors(findings)) return allow(std::move(warnings));

  std::size_t errors = 0;
  for (const auto& e : findings)
    if (e.severity == Severity::Error) ++errors;
  const std::string group_kind = object.group.empty() ? object.kind : object.kind + "." + object.group;
  std::string message = group_kind + " \"" + object.name + "\" is invalid: ";
  if (errors > 1) message += "[";
  AdmissionResponse r = deny(422, "Invalid", "");
  r.details_name = object.name;
  r.details_group = object.group;
  r.details_kind = object.kind;
  std::size_t shown = 0;
  for (const auto& e : findings) {
    if (e.severity != Severity::Error) continue;
    std::string item = describe_finding(e);
    const std::string more = "and " + std::to_string(errors - shown) + " more";
    const std::size_t sep = shown ? 2 : 0;
    // Each item must leave room for a closing "..., and N more]".
    if (message.size() + sep + item.size() + 2 + more.size() + 1 > kMaxDenialMessageBytes) {
      if (shown == 0) {  // one long finding: cut it rather than show nothing
        const std::size_t used = message.size() + more.size() + 4;
        item = truncate_utf8(std::move(item), used + 3 < kMaxDenialMessageBytes ? kMaxDenialMessageBytes - used : 3);
      } else {
        message += ", " + more;
        break;
      }
    }
    message += (shown ? ", " : "") + item;
    // kubectl prints the causes of an Invalid status ("<field>: <message>" each) instead of its message.
    std::string cause = e.rule.empty() ? e.reason : e.reason + " [" + e.rule + "]";
    r.causes.push_back(StatusCause{"FieldValueInvalid", truncate_utf8(std::move(cause), kMaxWarningBytes), e.path});
    ++shown;
  }
  if (shown < errors)
    r.causes.push_back(StatusCause{
        "FieldValueInvalid",
        "and " + std::to_string(errors - shown) + " more (codeflare-operator validate -f <file> lists every finding)",
        "..."});
  if (errors > 1) message += "]";
  r.message = std::move(message);
  r.warnings = std::move(warnings);
  return r;
}

}  // namespace cfo::webhook
