// The options of `ray start` (Ray python/ray/scripts/scripts.py, the click command `start`), as KubeRay v1.7.0 passes
// rayStartParams to it: common/pod.go generateRayStartCommand -> convertParamMap writes each entry as --key=value,
// except that a value "true" becomes the bare flag --key and "false" drops the entry, for every key but log-color,
// include-dashboard and include-log-monitor. The command runs in the Ray container under bash, and click refuses
// it when an option is unknown or its value is not of the option's type; the container then exits at start, again
// and again, long after the RayCluster was accepted.
//
// The option table is the union of the `ray start` options of recent Ray releases (2.x, through the 2.5x line) with
// their click types; options of older releases that recent ones still accept are kept, so that no key a supported
// Ray version accepts is refused. Values that the shell expands ($VAR, `cmd`) are not judged.
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

namespace {

constexpr std::string_view kRayStart = "ray:scripts.py start (click options)";

enum class Opt { Int, Float, Str, Bool, Flag, Choice };

struct Option {
  Opt type;
  const char* choices = nullptr;  // "a|b|c" for Opt::Choice
};

const std::map<std::string, Option, std::less<>>& options() {
  static const std::map<std::string, Option, std::less<>> kOptions = {
      {"address", {Opt::Str}},
      {"autoscaling-config", {Opt::Str}},
      {"block", {Opt::Flag}},
      {"cgroup-path", {Opt::Str}},
      {"dashboard-agent-grpc-port", {Opt::Int}},
      {"dashboard-agent-listen-port", {Opt::Int}},
      {"dashboard-grpc-port", {Opt::Int}},
      {"dashboard-host", {Opt::Str}},
      {"dashboard-port", {Opt::Int}},
      {"disable-usage-stats", {Opt::Flag}},
      {"enable-object-reconstruction", {Opt::Flag}},
      {"enable-resource-isolation", {Opt::Flag}},
      {"gcs-server-port", {Opt::Int}},
      {"head", {Opt::Flag}},
      {"include-dashboard", {Opt::Bool}},
      {"include-log-monitor", {Opt::Bool}},
      {"labels", {Opt::Str}},
      {"labels-file", {Opt::Str}},
      {"log-color", {Opt::Choice, "auto|false|true"}},
      {"log-style", {Opt::Choice, "auto|record|pretty"}},
      {"max-worker-port", {Opt::Int}},
      {"memory", {Opt::Int}},
      {"metrics-export-port", {Opt::Int}},
      {"min-worker-port", {Opt::Int}},
      {"no-monitor", {Opt::Flag}},
      {"no-redirect-output", {Opt::Flag}},
      {"node-ip-address", {Opt::Str}},
      {"node-manager-port", {Opt::Int}},
      {"node-name", {Opt::Str}},
      {"num-cpus", {Opt::Int}},
      {"num-gpus", {Opt::Int}},
      {"num-redis-shards", {Opt::Int}},
      {"object-manager-port", {Opt::Int}},
      {"object-spilling-directory", {Opt::Str}},
      {"object-store-memory", {Opt::Int}},
      {"plasma-directory", {Opt::Str}},
      {"plasma-store-socket-name", {Opt::Str}},
      {"port", {Opt::Int}},
      {"ray-client-server-port", {Opt::Int}},
      {"ray-debugger-external", {Opt::Flag}},
      {"raylet-socket-name", {Opt::Str}},
      {"redis-max-clients", {Opt::Int}},
      {"redis-password", {Opt::Str}},
      {"redis-shard-ports", {Opt::Str}},
      {"redis-username", {Opt::Str}},
      {"resources", {Opt::Str}},
      {"runtime-env-agent-port", {Opt::Int}},
      {"storage", {Opt::Str}},
      {"system-config", {Opt::Str}},
      {"system-reserved-cpu", {Opt::Float}},
      {"system-reserved-memory", {Opt::Int}},
      {"temp-dir", {Opt::Str}},
      {"tracing-startup-hook", {Opt::Str}},
      {"verbose", {Opt::Flag}},
      {"worker-port-list", {Opt::Str}},
  };
  return kOptions;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// Python int(str): optional sign, digits with single underscores between them, surrounding whitespace.
bool python_int(std::string_view s) {
  s = trim(s);
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front())) ||
      !std::isdigit(static_cast<unsigned char>(s.back())))
    return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) continue;
    if (s[i] == '_' && std::isdigit(static_cast<unsigned char>(s[i + 1]))) continue;
    return false;
  }
  return true;
}

/// Python float(str): a decimal or exponent number, inf, infinity or nan (any case), surrounding whitespace.
bool python_float(std::string_view s) {
  s = trim(s);
  std::string t(s);
  for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view u = t;
  if (!u.empty() && (u[0] == '+' || u[0] == '-')) u.remove_prefix(1);
  if (u == "inf" || u == "infinity" || u == "nan") return true;
  std::string digits;
  for (char c : u)
    if (c != '_') digits += c;
  if (digits.empty()) return false;
  char* end = nullptr;
  std::strtod(digits.c_str(), &end);
  return end && *end == '\0' && digits.find_first_of("0123456789") != std::string::npos &&
         digits.find_first_of("xp") == std::string::npos;
}

/// click's BOOL: 1/0, true/false, t/f, yes/no, y/n, on/off (any case).
bool click_bool(std::string_view s) {
  std::string t(trim(s));
  for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* v : {"1", "0", "true", "false", "t", "f", "yes", "no", "y", "n", "on", "off"})
    if (t == v) return true;
  return false;
}

const char* type_name(Opt t) {
  switch (t) {
    case Opt::Int:
      return "an integer";
    case Opt::Float:
      return "a number";
    case Opt::Bool:
      return "a boolean";
    default:
      return "a value";
  }
}

}  // namespace

// Ray scripts.py `start` (click): every rayStartParams key is a `ray start` option, and its value, as KubeRay passes
// it, is of the option's type: an integer for num-cpus, num-gpus, memory, object-store-memory and the ports; a number
// for system-reserved-cpu; a boolean for include-dashboard and include-log-monitor; one of the choices for log-style
// and log-color; and for the flags (block, disable-usage-stats, ...) only "true" or "false".
void RayStart(const json::Value& params, const std::string& path, const Sink& sink) {
  if (!params.IsObject()) return;
  static const std::set<std::string, std::less<>> kKeepsValue = {"log-color", "include-dashboard",
                                                                 "include-log-monitor"};
  for (auto it = params.MemberBegin(); it != params.MemberEnd(); ++it) {
    const std::string key = text(it->name);
    const std::string at = key_path(path, key);
    auto opt = options().find(key);
    if (opt == options().end()) {
      sink.error(at, "RayStart", kRayStart,
                 "ray start has no option --" + key + "; the Ray container would exit with \"No such option\"");
      continue;
    }
    if (!it->value.IsString()) continue;  // a schema finding
    const std::string value = text(it->value);
    if (value.find_first_of("$`") != std::string::npos) continue;  // expanded by the shell at start
    std::string lower = value;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const Opt type = opt->second.type;
    if ((lower == "true" || lower == "false") && !kKeepsValue.contains(key)) {
      // KubeRay turns "true" into the bare --key and drops "false".
      if (lower == "true" && type != Opt::Flag)
        sink.error(
            at, "RayStart", kRayStart,
            "\"true\" makes KubeRay pass --" + key + " without a value, but the option needs " + type_name(type));
      continue;
    }
    std::string why;
    switch (type) {
      case Opt::Flag:
        why = "--" + key + " is a flag and takes no value; use \"true\" or \"false\"";
        break;
      case Opt::Int:
        if (!python_int(value)) why = "--" + key + " takes an integer, found " + dq(value);
        break;
      case Opt::Float:
        if (!python_float(value)) why = "--" + key + " takes a number, found " + dq(value);
        break;
      case Opt::Bool:
        if (!click_bool(value)) why = "--" + key + " takes a boolean (true/false, yes/no, 1/0), found " + dq(value);
        break;
      case Opt::Choice: {
        std::string choices = opt->second.choices;
        bool ok = false;
        std::size_t i = 0;
        while (i <= choices.size()) {
          std::size_t j = choices.find('|', i);
          if (j == std::string::npos) j = choices.size();
          ok = ok || choices.substr(i, j - i) == value;
          i = j + 1;
        }
        for (auto& c : choices)
          if (c == '|') c = ',';
        if (!ok) why = "--" + key + " takes one of " + choices + ", found " + dq(value);
        break;
      }
      case Opt::Str:
        break;
    }
    if (!why.empty()) sink.error(at, "RayStart", kRayStart, why + "; ray start would refuse it and the container exit");
  }
}

}  // namespace cfo::validation::rules
