#include "cmd/args.hpp"

#include <cmath>
#include <cstdlib>

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

}  // namespace cfo::cmd
