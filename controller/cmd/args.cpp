#include "cmd/args.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/ascii.hpp"

namespace cfo::cmd {

Result<Args> Args::parse(int argc, char** argv, int first, const std::map<std::string, bool>& known,
                         const std::map<std::string, std::string>& aliases) {
  Args out;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    std::string name, value;
    bool has_value = false;
    if (a.starts_with("--")) {
      name = a.substr(2);
    } else if (a.size() > 1 && a[0] == '-') {
      name = a.substr(1);
      auto al = aliases.find(name.substr(0, name.find('=')));
      if (al == aliases.end()) {
        // A one-letter flag with its value attached, as pflag (kubectl) takes it: "-lshard=a", "-nteam-a".
        auto one = aliases.find(name.substr(0, 1));
        auto takes_value = one == aliases.end() ? known.end() : known.find(one->second);
        if (takes_value == known.end() || !takes_value->second) return fail("unknown flag: " + a);
        out.values_[one->second].push_back(name.substr(1));
        continue;
      }
      name = al->second + (name.find('=') == std::string::npos ? "" : name.substr(name.find('=')));
    } else {
      // A bare file name is the most common slip (kubectl wants -f as well).
      return fail("unexpected argument: " + a +
                  (known.contains("filename") ? " (files are given with -f, as with kubectl: -f " + a + ")" : ""));
    }
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    auto k = known.find(name);
    if (k == known.end()) return fail("unknown flag: --" + name);
    if (k->second && !has_value) {
      if (i + 1 >= argc) return fail("flag --" + name + " needs a value");
      value = argv[++i];
    } else if (!k->second && !has_value) {
      value = "true";
    }
    out.values_[name].push_back(value);
  }
  return out;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

bool Args::flag(const std::string& name, bool fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const auto& v = it->second.back();
  return !(v == "false" || v == "0" || v == "no");
}

Result<long> Args::integer(const std::string& name, long fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const auto& v = it->second.back();
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') return fail("flag --" + name + " needs an integer, got \"" + v + "\"");
  return n;
}

Result<double> Args::number(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const auto& v = it->second.back();
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(d))
    return fail("flag --" + name + " needs a number, got \"" + v + "\"");
  return d;
}

Result<bool> Args::boolean(const std::string& name, bool fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const auto& v = it->second.back();
  if (v == "true" || v == "1" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "no") return false;
  return fail("flag --" + name + " needs true or false, got \"" + v + "\"");
}

std::string usage_hint(const char* command) {
  return std::string("See 'codeflare-operator ") + command + " --help' for usage.\n";
}

namespace {

// The column a long line of help continues at: its description's for a flag's line (past the flag spec: the
// tokens that start with '-' and the upper-case value names such as DURATION or [=false] after them, whatever the
// spaces after it), else its own indentation.
std::size_t hanging_indent(std::string_view line) {
  const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
  if (indent == line.size() || line[indent] != '-') return indent;
  auto spec_token = [](std::string_view t) {
    if (t.starts_with('-')) return true;
    bool upper = false;
    for (char c : t) {
      if (c >= 'A' && c <= 'Z')
        upper = true;
      else if (!(ascii::is_digit(c) || c == '_' || c == '[' || c == ']' || c == '=' || c == '|' || c == ',' ||
                 (c >= 'a' && c <= 'z' && !t.empty() && t.front() == '[')))
        return false;
    }
    return upper || t.starts_with('[');
  };
  std::size_t at = indent;
  while (at < line.size()) {
    const std::size_t end = std::min(line.find(' ', at), line.size());
    if (!spec_token(line.substr(at, end - at))) break;
    at = line.find_first_not_of(' ', end);
    if (at == std::string_view::npos) return indent;
  }
  return at < line.size() ? at : indent;
}

}  // namespace

std::string wrap_help(std::string_view text, std::size_t width) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t from = 0;;) {
    std::size_t to = text.find('\n', from);
    const bool last = to == std::string_view::npos;
    if (last) to = text.size();
    std::string_view rest = text.substr(from, to - from);
    const std::size_t indent = hanging_indent(rest);
    bool continued = false;
    for (;;) {
      const std::size_t lead = continued ? indent : 0;
      if (lead + rest.size() <= width || width <= lead) break;
      // The last space that fits, past the flag's column on the first piece, not in a run of spaces, and not the one
      // of "(default X)".
      const std::size_t after = continued ? 0 : indent;
      std::size_t cut = rest.rfind(' ', width - lead);
      while (cut != std::string_view::npos &&
             (cut <= after || rest[cut - 1] == ' ' || rest.substr(0, cut).ends_with("(default")))
        cut = cut <= after ? std::string_view::npos : rest.rfind(' ', cut - 1);
      // A word longer than the room is left whole: the cut is the first space after it.
      for (std::size_t at = width - lead; cut == std::string_view::npos && at < rest.size();) {
        at = rest.find(' ', at + 1);
        if (at != std::string_view::npos && at > after && rest[at - 1] != ' ' &&
            !rest.substr(0, at).ends_with("(default"))
          cut = at;
      }
      if (cut == std::string_view::npos) break;
      out.append(lead, ' ').append(rest.substr(0, cut)) += '\n';
      rest.remove_prefix(cut + 1);
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      continued = true;
    }
    if (continued) out.append(indent, ' ');
    out.append(rest);
    if (last) break;
    out += '\n';
    from = to + 1;
  }
  return out;
}

}  // namespace cfo::cmd
