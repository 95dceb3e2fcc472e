// core/v1 Pod validation applied to the pod templates inside RayCluster, RayJob and AppWrapper components.
// The apiserver does not run it when those objects are created; it runs when their controllers create the Pods, so
// every finding here is a late failure (the object is stored, then its Pods are refused again and again).
//
// Source: kubernetes pkg/apis/core/validation/validation.go at commit 000f26050b9b (the v1.33 release line), entered
// the way a Pod create enters it: ValidatePodCreate -> validatePodMetadataAndSpec -> ValidatePodSpec, plus the
// template-only rules of ValidatePodTemplateSpec. This file holds the entry point, the shared helpers, the template
// metadata and pod annotations, and the scalar PodSpec fields; containers, volumes, resources, security and
// scheduling live in core_pod_*.cpp. validation/README.md lists every upstream rule and where it is (or why not).
#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "core/ascii.hpp"
#include "core/names.hpp"
#include "core/yaml.hpp"
#include "validation/rules/core_pod.hpp"
#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules {
namespace pod {

// ---- helpers -----------------------------------------------------------------------------------------------------

std::string joined(const std::vector<std::string>& msgs) {
  std::string s;
  for (const auto& m : msgs) s += (s.empty() ? "" : "; ") + m;
  return s;
}

std::optional<int64_t> as_int(const json::Value* v) {
  if (!v) return std::nullopt;
  if (v->IsInt64()) return v->GetInt64();
  if (v->IsUint64()) return std::numeric_limits<int64_t>::max();
  if (v->IsDouble()) {
    double d = v->GetDouble();
    if (d == static_cast<double>(static_cast<int64_t>(d))) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::string str(const json::Value& obj, std::string_view key) { return string_at(obj, key).value_or(""); }

bool has(const json::Value& obj, std::string_view key) {
  const json::Value* v = member(obj, key);
  return v && !v->IsNull();
}

const json::Value& arr(const json::Value& obj, std::string_view key) {
  static const json::Value empty(rapidjson::kArrayType);
  const json::Value* a = array_at(obj, key);
  return a ? *a : empty;
}

std::optional<Quantity> quantity(const json::Value& v) {
  if (!v.IsString() && !v.IsNumber()) return std::nullopt;
  auto q = Quantity::parse(v.IsString() ? text(v) : json::dump(v));
  if (!q) return std::nullopt;
  return *q;
}

std::vector<std::string> is_valid_port_name(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 15) out.emplace_back("must be no more than 15 characters");
  bool charset = !v.empty(), letter = false;
  for (char c : v) {
    if (c >= 'a' && c <= 'z') letter = true;
    if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-') charset = false;
  }
  if (!charset) out.emplace_back("must contain only lower-case letters, digits and '-'");
  if (!letter) out.emplace_back("must contain at least one letter (a-z)");
  if (v.find("--") != std::string_view::npos) out.emplace_back("must not contain consecutive hyphens");
  if (!v.empty() && (v.front() == '-' || v.back() == '-')) out.emplace_back("must not begin or end with a hyphen");
  return out;
}

std::vector<std::string> is_valid_port_num(int64_t v) {
  if (v >= 1 && v <= 65535) return {};
  return {"must be between 1 and 65535, inclusive"};
}

namespace {
std::vector<std::string> chdir_prefix(std::string_view v) {
  if (v == ".") return {"must not be '.'"};
  if (v == "..") return {"must not be '..'"};
  if (v.starts_with("..")) return {"must not start with '..'"};
  return {};
}
}  // namespace

std::vector<std::string> is_env_var_name(std::string_view v) {
  std::vector<std::string> out;
  bool ok = !v.empty() && !ascii::is_digit(v[0]);
  for (char c : v) ok = ok && (ascii::is_alnum(c) || c == '-' || c == '.' || c == '_');
  if (!ok) out.emplace_back("must consist of letters, digits, '_', '-' or '.', and must not start with a digit");
  auto more = chdir_prefix(v);
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

std::vector<std::string> is_relaxed_env_var_name(std::string_view v) {
  if (v.empty()) return {"must be non-empty"};
  for (char c : v)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e || c == '=')
      return {"must consist only of printable ASCII characters other than '='"};
  return {};
}

std::vector<std::string> is_config_map_key(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 253) out.emplace_back("must be no more than 253 characters");
  bool ok = !v.empty();
  for (char c : v) ok = ok && (ascii::is_alnum(c) || c == '-' || c == '.' || c == '_');
  if (!ok) out.emplace_back("a valid config key must consist of letters, digits, '-', '_' or '.'");
  auto more = chdir_prefix(v);
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

std::vector<std::string> is_http_header_name(std::string_view v) {
  bool ok = !v.empty();
  for (char c : v) ok = ok && (ascii::is_alnum(c) || c == '-');
  if (ok) return {};
  return {"a valid HTTP header name consists of letters, digits or '-'"};
}

std::vector<std::string> is_valid_ip(std::string_view v) {
  // ParseIPSloppy: dotted-quad IPv4 (leading zeros allowed), or IPv6.
  auto ipv4 = [](std::string_view s) {
    int parts = 0;
    std::size_t i = 0;
    while (i <= s.size()) {
      std::size_t j = s.find('.', i);
      if (j == std::string_view::npos) j = s.size();
      std::string_view part = s.substr(i, j - i);
      if (part.empty() || part.size() > 3) return false;
      int n = 0;
      for (char c : part) {
        if (!ascii::is_digit(c)) return false;
        n = n * 10 + (c - '0');
      }
      if (n > 255) return false;
      ++parts;
      i = j + 1;
      if (j == s.size()) break;
    }
    return parts == 4;
  };
  if (ipv4(v)) return {};
  unsigned char buf[16];
  std::string s(v);
  if (s.find(':') != std::string::npos && inet_pton(AF_INET6, s.c_str(), buf) == 1) return {};
  return {"must be a valid IP address (e.g. 10.9.8.7 or 2001:db8::ffff)"};
}

std::vector<std::string> is_dns1123_subdomain_with_underscore(std::string_view v) {
  std::vector<std::string> out;
  if (v.size() > 253) out.emplace_back("must be no more than 253 characters");
  auto label_ok = [](std::string_view l) {
    if (!l.empty() && l[0] == '_') l.remove_prefix(1);
    if (l.empty()) return false;
    auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!alnum(l.front()) || !alnum(l.back())) return false;
    for (char c : l)
      if (!alnum(c) && c != '-' && c != '_') return false;
    return true;
  };
  bool ok = !v.empty();
  std::size_t i = 0;
  while (ok) {
    std::size_t j = v.find('.', i);
    ok = label_ok(v.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  if (!ok)
    out.emplace_back("must be lower-case RFC 1123 subdomain labels (letters, digits, '-', '_'), separated by '.'");
  return out;
}

std::vector<std::string> name_is_dns_subdomain(std::string_view v, bool prefix) {
  std::string s(v);
  if (prefix && s.size() > 1 && s.back() == '-') s.back() = 'a';
  return names::dns1123_subdomain(s);
}

bool valid_id(int64_t id) { return id >= 0 && id <= 2147483647; }

// ---- template metadata and pod annotations ---------------------------------------------------------------------

namespace {

constexpr std::string_view kMirrorAnnotation = "kubernetes.io/config.mirror";
constexpr std::string_view kTolerationsAnnotation = "scheduler.alpha.kubernetes.io/tolerations";
constexpr std::string_view kDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost";
constexpr std::string_view kSeccompPodAnnotation = "seccomp.security.alpha.kubernetes.io/pod";
constexpr std::string_view kSeccompContainerPrefix = "container.seccomp.security.alpha.kubernetes.io/";
constexpr std::string_view kAppArmorContainerPrefix = "container.apparmor.security.beta.kubernetes.io/";

const json::Value* annotations(const PodCtx& ctx) { return ctx.meta ? object_at(*ctx.meta, "annotations") : nullptr; }
std::string ann_path(const PodCtx& ctx, std::string_view key) {
  return key_path(ctx.meta_path + ".annotations", std::string(key));
}

/// Calls f(container, path) for init, regular and ephemeral containers (podshelper.VisitContainersWithPath).
template <class F>
void visit_containers(const PodCtx& ctx, F f) {
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"})
    each(ctx.spec, list, key_path(ctx.path, list),
         [&](const json::Value& c, rapidjson::SizeType, const std::string& p) {
           if (c.IsObject()) f(c, p);
         });
}

bool has_container(const PodCtx& ctx, const std::string& name) {
  bool found = false;
  visit_containers(ctx, [&](const json::Value& c, const std::string&) { found = found || str(c, "name") == name; });
  return found;
}

// core/v1 ValidateAnnotations (apimachinery): annotation keys are qualified names (lower-cased) and keys and values
// together stay within 256 KiB.
void ValidateAnnotations(const PodCtx& ctx) {
  const json::Value* a = annotations(ctx);
  if (!a) return;
  std::size_t total = 0;
  for (auto it = a->MemberBegin(); it != a->MemberEnd(); ++it) {
    std::string key = text(it->name), lower = key;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (auto msgs = names::qualified_name(lower); !msgs.empty())
      ctx.sink.error(ann_path(ctx, key), "ValidateAnnotations", kSource,
                     "annotation key " + dq(key) + " is not a qualified name: " + joined(msgs));
    total += key.size() + (it->value.IsString() ? it->value.GetStringLength() : 0);
  }
  if (total > names::kTotalAnnotationSizeLimitBytes)
    ctx.sink.error(ctx.meta_path + ".annotations", "ValidateAnnotations", kSource,
                   "annotations take " + std::to_string(total) + " bytes; at most 262144 are allowed");
}

// core/v1 ValidateSeccompProfile: a seccomp annotation value is runtime/default, docker/default, unconfined or
// localhost/<relative path without '..'>.
void ValidateSeccompProfile(const std::string& value, const std::string& path, const Sink& sink) {
  if (value == "runtime/default" || value == "docker/default" || value == "unconfined") return;
  if (value.starts_with("localhost/")) {
    std::string rel = value.substr(10);
    bool backstep = false;
    std::size_t i = 0;
    while (i <= rel.size()) {
      std::size_t j = rel.find('/', i);
      if (j == std::string::npos) j = rel.size();
      backstep = backstep || rel.substr(i, j - i) == "..";
      i = j + 1;
    }
    if (!rel.empty() && rel.front() == '/')
      sink.error(path, "ValidateSeccompProfile", kSource, "the localhost profile must be a relative path");
    else if (backstep)
      sink.error(path, "ValidateSeccompProfile", kSource, "the localhost profile must not contain '..'");
    return;
  }
  sink.error(path, "ValidateSeccompProfile", kSource,
             "seccomp profile " + dq(value) + " must be runtime/default, unconfined or localhost/<path>");
}

// core/v1 ValidateSeccompPodAnnotations: the pod and per-container seccomp annotations hold valid profiles.
void ValidateSeccompPodAnnotations(const PodCtx& ctx) {
  const json::Value* a = annotations(ctx);
  if (!a) return;
  for (auto it = a->MemberBegin(); it != a->MemberEnd(); ++it) {
    std::string key = text(it->name);
    if (key == kSeccompPodAnnotation || key.starts_with(kSeccompContainerPrefix))
      ValidateSeccompProfile(text(it->value), ann_path(ctx, key), ctx.sink);
  }
}

// core/v1 ValidateAppArmorPodAnnotations: each container AppArmor annotation names a container of the Pod and holds
// runtime/default, unconfined, localhost/<name> or nothing.
void ValidateAppArmorPodAnnotations(const PodCtx& ctx) {
  const json::Value* a = annotations(ctx);
  if (!a) return;
  for (auto it = a->MemberBegin(); it != a->MemberEnd(); ++it) {
    std::string key = text(it->name);
    if (!key.starts_with(kAppArmorContainerPrefix)) continue;
    std::string container = key.substr(kAppArmorContainerPrefix.size());
    if (!has_container(ctx, container))
      ctx.sink.error(ann_path(ctx, key), "ValidateAppArmorPodAnnotations", kSource,
                     "the AppArmor annotation names container " + dq(container) + ", which the Pod does not have");
    std::string v = text(it->value);
    if (!v.empty() && v != "runtime/default" && v != "unconfined" && !v.starts_with("localhost/"))
      ctx.sink.error(ann_path(ctx, key), "ValidateAppArmorPodAnnotations", kSource,
                     "AppArmor profile " + dq(v) + " must be runtime/default, unconfined or localhost/<name>");
  }
}

// core/v1 ValidatePodSpecificAnnotations: the mirror-pod annotation needs spec.nodeName; the tolerations annotation
// parses and holds valid tolerations; the deletion-cost annotation is a 32-bit integer.
void ValidatePodSpecificAnnotations(const PodCtx& ctx) {
  const json::Value* a = annotations(ctx);
  if (!a) return;
  if (member(*a, kMirrorAnnotation) && str(ctx.spec, "nodeName").empty())
    ctx.sink.error(ann_path(ctx, kMirrorAnnotation), "ValidatePodSpecificAnnotations", kSource,
                   "the mirror-pod annotation needs spec.nodeName");
  if (auto t = string_at(*a, kTolerationsAnnotation); t && !t->empty()) {
    auto doc = json::parse(*t);
    if (!doc || !doc->IsArray())
      ctx.sink.error(ann_path(ctx, kTolerationsAnnotation), "ValidatePodSpecificAnnotations", kSource,
                     "the tolerations annotation must be a JSON list of tolerations");
    else
      ValidateTolerations(*doc, ann_path(ctx, kTolerationsAnnotation), ctx.sink);
  }
  if (const json::Value* cost = member(*a, kDeletionCostAnnotation)) {
    auto n = parse_int(text(*cost));
    if (!n || *n < std::numeric_limits<int32_t>::min() || *n > std::numeric_limits<int32_t>::max())
      ctx.sink.error(ann_path(ctx, kDeletionCostAnnotation), "ValidatePodSpecificAnnotations", kSource,
                     "the pod deletion cost must be a 32-bit integer, found " + dq(text(*cost)));
  }
  ValidateSeccompPodAnnotations(ctx);
  ValidateAppArmorPodAnnotations(ctx);
}

// core/v1 ValidateObjectMeta (on the Pod): a name the template sets is a DNS-1123 subdomain and finalizers are
// qualified names, or standard ones ("kubernetes", "orphan", "foregroundDeletion") when they have no '/'.
void ValidateObjectMeta(const PodCtx& ctx) {
  if (!ctx.meta) return;
  if (auto name = string_at(*ctx.meta, "name"); name && !name->empty())
    if (auto msgs = names::dns1123_subdomain(*name); !msgs.empty())
      ctx.sink.error(ctx.meta_path + ".name", "ValidateObjectMeta", kSource,
                     "the Pod name " + dq(*name) + " " + joined(msgs));
  each(*ctx.meta, "finalizers", ctx.meta_path + ".finalizers",
       [&](const json::Value& f, rapidjson::SizeType, const std::string& p) {
         std::string name = text(f);
         if (auto msgs = names::qualified_name(name); !msgs.empty())
           ctx.sink.error(p, "ValidateObjectMeta", kSource, "finalizer " + dq(name) + ": " + joined(msgs));
         else if (name.find('/') == std::string::npos && name != "kubernetes" && name != "orphan" &&
                  name != "foregroundDeletion")
           ctx.sink.error(p, "ValidateObjectMeta", kSource,
                          "finalizer " + dq(name) + " is neither a standard finalizer nor fully qualified");
       });
}

// core/v1 ValidatePodTemplateSpec: template labels and annotations; no ephemeral containers in a template.
void ValidatePodTemplateSpec(const PodCtx& ctx) {
  if (ctx.meta)
    if (const json::Value* labels = object_at(*ctx.meta, "labels"))
      validate_label_map(*labels, ctx.meta_path + ".labels", kMetaSource, ctx.sink);
  ValidateAnnotations(ctx);
  ValidatePodSpecificAnnotations(ctx);
  if (!arr(ctx.spec, "ephemeralContainers").Empty())
    ctx.sink.error(ctx.path + ".ephemeralContainers", "ValidatePodTemplateSpec", kSource,
                   "ephemeral containers are not allowed in a pod template (nor when a Pod is created)");
}

// ---- scalar PodSpec fields -------------------------------------------------------------------------------------

// core/v1 validateRestartPolicy: Always, OnFailure or Never (defaulted to Always).
void validateRestartPolicy(const PodCtx& ctx) {
  const std::string& p = ctx.restart_policy;
  if (p != "Always" && p != "OnFailure" && p != "Never")
    ctx.sink.error(ctx.path + ".restartPolicy", "validateRestartPolicy", kSource,
                   "restartPolicy " + dq(p) + " is not one of Always, OnFailure, Never");
}

// core/v1 validateDNSPolicy: ClusterFirstWithHostNet, ClusterFirst, Default or None (defaulted to ClusterFirst).
void validateDNSPolicy(const PodCtx& ctx) {
  std::string p = str(ctx.spec, "dnsPolicy");
  if (p.empty()) return;
  if (p != "ClusterFirstWithHostNet" && p != "ClusterFirst" && p != "Default" && p != "None")
    ctx.sink.error(ctx.path + ".dnsPolicy", "validateDNSPolicy", kSource,
                   "dnsPolicy " + dq(p) + " is not one of ClusterFirstWithHostNet, ClusterFirst, Default, None");
}

// core/v1 validatePodDNSConfig: dnsPolicy None needs a dnsConfig with a nameserver; at most 3 nameservers, each an
// IP; at most 32 search domains of at most 2048 characters in all, each a DNS subdomain (underscores allowed, as the
// RelaxedDNSSearchValidation gate is on by default); options have names.
void validatePodDNSConfig(const PodCtx& ctx) {
  const json::Value* cfg = object_at(ctx.spec, "dnsConfig");
  const std::string at = ctx.path + ".dnsConfig";
  if (str(ctx.spec, "dnsPolicy") == "None") {
    if (!cfg) {
      ctx.sink.error(at, "validatePodDNSConfig", kSource, "dnsPolicy None needs a dnsConfig");
      return;
    }
    if (arr(*cfg, "nameservers").Empty()) {
      ctx.sink.error(at + ".nameservers", "validatePodDNSConfig", kSource,
                     "dnsPolicy None needs at least one nameserver");
      return;
    }
  }
  if (!cfg) return;
  const json::Value& ns = arr(*cfg, "nameservers");
  if (ns.Size() > 3)
    ctx.sink.error(at + ".nameservers", "validatePodDNSConfig", kSource,
                   std::to_string(ns.Size()) + " nameservers; at most 3 are allowed");
  each(*cfg, "nameservers", at + ".nameservers", [&](const json::Value& v, rapidjson::SizeType, const std::string& p) {
    if (auto msgs = is_valid_ip(text(v)); !msgs.empty())
      ctx.sink.error(p, "validatePodDNSConfig", kSource, "nameserver " + dq(text(v)) + " " + joined(msgs));
  });
  const json::Value& searches = arr(*cfg, "searches");
  if (searches.Size() > 32)
    ctx.sink.error(at + ".searches", "validatePodDNSConfig", kSource,
                   std::to_string(searches.Size()) + " search domains; at most 32 are allowed");
  std::size_t chars = 0;
  for (rapidjson::SizeType i = 0; i < searches.Size(); ++i) chars += text(searches[i]).size() + (i ? 1 : 0);
  if (chars > 2048)
    ctx.sink.error(at + ".searches", "validatePodDNSConfig", kSource,
                   "the search list takes " + std::to_string(chars) + " characters; at most 2048 are allowed");
  each(*cfg, "searches", at + ".searches", [&](const json::Value& v, rapidjson::SizeType, const std::string& p) {
    std::string s = text(v);
    if (s == ".") return;
    if (!s.empty() && s.back() == '.') s.pop_back();
    if (auto msgs = is_dns1123_subdomain_with_underscore(s); !msgs.empty())
      ctx.sink.error(p, "validatePodDNSConfig", kSource, "search domain " + dq(text(v)) + " " + joined(msgs));
  });
  each(*cfg, "options", at + ".options", [&](const json::Value& o, rapidjson::SizeType, const std::string& p) {
    if (str(o, "name").empty()) ctx.sink.error(p, "validatePodDNSConfig", kSource, "a DNS option needs a name");
  });
}

// core/v1 ValidateHostAliases: each host alias has an IP and DNS-subdomain host names.
void ValidateHostAliases(const PodCtx& ctx) {
  each(ctx.spec, "hostAliases", ctx.path + ".hostAliases",
       [&](const json::Value& h, rapidjson::SizeType, const std::string& p) {
         if (auto msgs = is_valid_ip(str(h, "ip")); !msgs.empty())
           ctx.sink.error(p + ".ip", "ValidateHostAliases", kSource, "ip " + dq(str(h, "ip")) + " " + joined(msgs));
         each(h, "hostnames", p + ".hostnames", [&](const json::Value& n, rapidjson::SizeType, const std::string& np) {
           if (auto msgs = names::dns1123_subdomain(text(n)); !msgs.empty())
             ctx.sink.error(np, "ValidateHostAliases", kSource, "host name " + dq(text(n)) + " " + joined(msgs));
         });
       });
}

// core/v1 ValidatePreemptionPolicy: PreemptLowerPriority or Never.
void ValidatePreemptionPolicy(const PodCtx& ctx) {
  auto p = string_at(ctx.spec, "preemptionPolicy");
  if (p && *p != "PreemptLowerPriority" && *p != "Never")
    ctx.sink.error(ctx.path + ".preemptionPolicy", "ValidatePreemptionPolicy", kSource,
                   "preemptionPolicy " + dq(*p) + " is not one of PreemptLowerPriority, Never");
}

// core/v1 ValidateRuntimeClassName: a DNS-1123 subdomain.
void ValidateRuntimeClassName(const PodCtx& ctx) {
  auto n = string_at(ctx.spec, "runtimeClassName");
  if (!n) return;
  if (auto msgs = names::dns1123_subdomain(*n); !msgs.empty())
    ctx.sink.error(ctx.path + ".runtimeClassName", "ValidateRuntimeClassName", kSource,
                   "runtimeClassName " + dq(*n) + " " + joined(msgs));
}

// core/v1 validateReadinessGates: each conditionType is a qualified name.
void validateReadinessGates(const PodCtx& ctx) {
  each(ctx.spec, "readinessGates", ctx.path + ".readinessGates",
       [&](const json::Value& g, rapidjson::SizeType, const std::string& p) {
         if (auto msgs = names::qualified_name(str(g, "conditionType")); !msgs.empty())
           ctx.sink.error(p + ".conditionType", "validateReadinessGates", kSource,
                          "conditionType " + dq(str(g, "conditionType")) + " is not a qualified name: " + joined(msgs));
       });
}

// core/v1 validateSchedulingGates: gate names are qualified names and unique.
void validateSchedulingGates(const PodCtx& ctx) {
  std::set<std::string> seen;
  each(ctx.spec, "schedulingGates", ctx.path + ".schedulingGates",
       [&](const json::Value& g, rapidjson::SizeType, const std::string& p) {
         std::string n = str(g, "name");
         if (auto msgs = names::qualified_name(n); !msgs.empty())
           ctx.sink.error(p, "validateSchedulingGates", kSource,
                          "scheduling gate " + dq(n) + " is not a qualified name: " + joined(msgs));
         if (!seen.insert(n).second)
           ctx.sink.error(p, "validateSchedulingGates", kSource, "scheduling gate " + dq(n) + " is listed twice");
       });
}

// core/v1 ValidatePodSpec (its own checks): serviceAccountName, nodeName and priorityClassName are DNS-1123
// subdomains, activeDeadlineSeconds lies in 1..2147483647, hostname and subdomain are DNS-1123 labels.
void ValidatePodSpec(const PodCtx& ctx) {
  for (const char* f : {"serviceAccountName", "serviceAccount", "nodeName", "priorityClassName"}) {
    auto v = string_at(ctx.spec, f);
    if (!v || v->empty()) continue;
    if (std::string_view(f) == "serviceAccount" && has(ctx.spec, "serviceAccountName")) continue;
    if (auto msgs = names::dns1123_subdomain(*v); !msgs.empty())
      ctx.sink.error(ctx.path + "." + f, "ValidatePodSpec", kSource,
                     std::string(f) + " " + dq(*v) + " " + joined(msgs));
  }
  if (auto v = as_int(member(ctx.spec, "activeDeadlineSeconds")); v && (*v < 1 || *v > 2147483647))
    ctx.sink.error(ctx.path + ".activeDeadlineSeconds", "ValidatePodSpec", kSource,
                   "activeDeadlineSeconds must be between 1 and 2147483647, found " + std::to_string(*v));
  for (const char* f : {"hostname", "subdomain"}) {
    auto v = string_at(ctx.spec, f);
    if (!v || v->empty()) continue;
    if (auto msgs = names::dns1123_label(*v); !msgs.empty())
      ctx.sink.error(ctx.path + "." + f, "ValidatePodSpec", kSource,
                     std::string(f) + " " + dq(*v) + " " + joined(msgs));
  }
}

// core/v1 ValidatePodCreate: ephemeral containers are set only through their subresource, and a Pod with scheduling
// gates cannot name its node.
void ValidatePodCreate(const PodCtx& ctx) {
  if (!str(ctx.spec, "nodeName").empty() && !arr(ctx.spec, "schedulingGates").Empty())
    ctx.sink.error(ctx.path + ".nodeName", "ValidatePodCreate", kSource,
                   "nodeName cannot be set while the Pod has scheduling gates");
}

}  // namespace

// ---- entry -------------------------------------------------------------------------------------------------------

void validate_pod(const json::Value* meta, const std::string& meta_path, const json::Value& spec,
                  const std::string& spec_path, const Sink& sink, int kubernetes_minor) {
  PodCtx ctx{spec, meta, spec_path, meta_path, sink};
  ctx.kubernetes_minor = kubernetes_minor;
  ctx.grace_period = as_int(member(spec, "terminationGracePeriodSeconds"));
  if (!ctx.grace_period) ctx.grace_period = 30;
  ctx.restart_policy = str(spec, "restartPolicy");
  if (ctx.restart_policy.empty()) ctx.restart_policy = "Always";
  if (const json::Value* hu = member(spec, "hostUsers"); hu && hu->IsBool()) ctx.host_users = hu->GetBool();
  ctx.host_network = true_at(spec, "hostNetwork");
  ctx.host_pid = true_at(spec, "hostPID");
  ctx.host_ipc = true_at(spec, "hostIPC");

  ValidatePodTemplateSpec(ctx);
  ValidateObjectMeta(ctx);
  ValidateVolumes(ctx);
  validate_pod_level_resources(ctx);
  validate_all_containers(ctx);
  validateRestartPolicy(ctx);
  validateDNSPolicy(ctx);
  validate_pod_security(ctx);
  validatePodDNSConfig(ctx);
  validateReadinessGates(ctx);
  validateSchedulingGates(ctx);
  validate_pod_scheduling(ctx);
  ValidatePodSpec(ctx);
  ValidateHostAliases(ctx);
  ValidateRuntimeClassName(ctx);
  ValidatePreemptionPolicy(ctx);
  ValidatePodCreate(ctx);
}

}  // namespace pod

void validate_pod_template(const json::Value& pod_template, const std::string& path, const Sink& sink,
                           int kubernetes_minor) {
  if (!pod_template.IsObject()) return;
  const json::Value* spec = object_at(pod_template, "spec");
  if (!spec) return;
  pod::validate_pod(object_at(pod_template, "metadata"), key_path(path, "metadata"), *spec, key_path(path, "spec"),
                    sink, kubernetes_minor);
  validate_container_images(*spec, key_path(path, "spec"), sink);  // the kubelet's, once the Pods exist
}

void validate_pod_spec_late(const json::Value& pod_spec, const std::string& path, const Sink& sink,
                            int kubernetes_minor) {
  if (!pod_spec.IsObject()) return;
  pod::validate_pod(nullptr, path + "[metadata]", pod_spec, path, sink, kubernetes_minor);
  validate_container_images(pod_spec, path, sink);
}

void validate_resources_late(const json::Value& resources, const std::string& path, const Sink& sink) {
  if (!resources.IsObject()) return;
  pod::ValidateContainerResourceRequirements(resources, path, nullptr, sink);
}

}  // namespace cfo::validation::rules
