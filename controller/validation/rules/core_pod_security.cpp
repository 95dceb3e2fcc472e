// core/v1 Pod validation, security (kubernetes pkg/apis/core/validation/validation.go at 000f26050b9b, v1.33):
// validatePodSpecSecurityContext (ids, sysctls, fsGroupChangePolicy, seccomp, AppArmor, Windows options,
// supplementalGroupsPolicy, seLinuxChangePolicy), ValidateSecurityContext (containers), validateHostUsers,
// validateWindowsHostProcessPod, validateOS with validateLinux / validateWindows, and the annotation/field
// consistency of seccomp and AppArmor on create. Not ported: privileged containers refused by a cluster started
// without --allow-privileged (cluster configuration), see validation/README.md.
#include <algorithm>
#include <cctype>

#include "core/names.hpp"
#include "validation/rules/core_pod.hpp"
#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules::pod {

namespace {

void id_range(const json::Value& o, const char* key, const std::string& path, std::string_view rule, const Sink& sink) {
  if (auto v = as_int(member(o, key)); v && !valid_id(*v))
    sink.error(path + "." + key, rule, kSource,
               std::string(key) + " must be between 0 and 2147483647, found " + std::to_string(*v));
}

// core/v1 validateSeccompProfileField: type Localhost, RuntimeDefault or Unconfined; localhostProfile exactly for
// Localhost, as a relative path without '..'.
void validateSeccompProfileField(const json::Value& sc, const std::string& path, const Sink& sink) {
  const json::Value* sp = object_at(sc, "seccompProfile");
  if (!sp) return;
  const std::string at = path + ".seccompProfile";
  std::string type = str(*sp, "type");
  if (type.empty())
    sink.error(at + ".type", "validateSeccompProfileField", kSource, "type is required when seccompProfile is set");
  else if (type != "Localhost" && type != "RuntimeDefault" && type != "Unconfined")
    sink.error(at + ".type", "validateSeccompProfileField", kSource,
               "type " + dq(type) + " is not one of Localhost, RuntimeDefault, Unconfined");
  bool lp = has(*sp, "localhostProfile");
  if (type == "Localhost") {
    if (!lp)
      sink.error(at + ".localhostProfile", "validateSeccompProfileField", kSource, "required when type is Localhost");
    else if (auto msgs = local_descending_path(str(*sp, "localhostProfile")); !msgs.empty())
      sink.error(at + ".localhostProfile", "validateSeccompProfileField", kSource, joined(msgs));
  } else if (lp) {
    sink.error(at + ".localhostProfile", "validateSeccompProfileField", kSource,
               "may be set only when type is Localhost");
  }
}

// core/v1 ValidateAppArmorProfileField: type Localhost (with a non-empty, unpadded localhostProfile of at most 4095
// characters), RuntimeDefault or Unconfined (without one).
void ValidateAppArmorProfileField(const json::Value& sc, const std::string& path, const Sink& sink) {
  const json::Value* ap = object_at(sc, "appArmorProfile");
  if (!ap) return;
  const std::string at = path + ".appArmorProfile";
  std::string type = str(*ap, "type");
  const json::Value* lp = member(*ap, "localhostProfile");
  bool has_lp = lp && !lp->IsNull();
  if (type == "Localhost") {
    std::string v = has_lp ? text(*lp) : "";
    bool padded = !v.empty() && (std::isspace(static_cast<unsigned char>(v.front())) ||
                                 std::isspace(static_cast<unsigned char>(v.back())));
    if (!has_lp || v.empty() || std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isspace(c); }))
      sink.error(at + ".localhostProfile", "ValidateAppArmorProfileField", kSource, "required when type is Localhost");
    else if (padded)
      sink.error(at + ".localhostProfile", "ValidateAppArmorProfileField", kSource,
                 "must not be padded with whitespace");
    if (v.size() > 4095)
      sink.error(at + ".localhostProfile", "ValidateAppArmorProfileField", kSource, "may not exceed 4095 characters");
  } else if (type == "RuntimeDefault" || type == "Unconfined") {
    if (has_lp)
      sink.error(at + ".localhostProfile", "ValidateAppArmorProfileField", kSource,
                 "may be set only when type is Localhost");
  } else if (type.empty()) {
    sink.error(at + ".type", "ValidateAppArmorProfileField", kSource, "type is required when appArmorProfile is set");
  } else {
    sink.error(at + ".type", "ValidateAppArmorProfileField", kSource,
               "type " + dq(type) + " is not one of Localhost, RuntimeDefault, Unconfined");
  }
}

// core/v1 validateWindowsSecurityContextOptions: gmsaCredentialSpecName a DNS subdomain; gmsaCredentialSpec
// non-empty and under 64 KiB; runAsUserName a DOMAIN\USER of the allowed lengths and characters.
void validateWindowsSecurityContextOptions(const json::Value& sc, const std::string& path, const Sink& sink) {
  const json::Value* w = object_at(sc, "windowsOptions");
  if (!w) return;
  const std::string at = path + ".windowsOptions";
  constexpr std::string_view rule = "validateWindowsSecurityContextOptions";
  if (auto n = string_at(*w, "gmsaCredentialSpecName"))
    if (auto msgs = names::dns1123_subdomain(*n); !msgs.empty())
      sink.error(at + ".gmsaCredentialSpecName", rule, kSource, joined(msgs));
  if (auto s = string_at(*w, "gmsaCredentialSpec")) {
    if (s->empty())
      sink.error(at + ".gmsaCredentialSpec", rule, kSource, "gmsaCredentialSpec cannot be an empty string");
    else if (s->size() > std::size_t{64} * 1024)
      sink.error(at + ".gmsaCredentialSpec", rule, kSource, "gmsaCredentialSpec must be under 64 KiB");
  }
  auto u = string_at(*w, "runAsUserName");
  if (!u) return;
  const std::string up = at + ".runAsUserName";
  if (u->empty()) {
    sink.error(up, rule, kSource, "runAsUserName cannot be an empty string");
    return;
  }
  for (char c : *u)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      sink.error(up, rule, kSource, "runAsUserName cannot contain control characters");
      return;
    }
  std::size_t bs = u->find('\\');
  if (bs != std::string::npos && u->find('\\', bs + 1) != std::string::npos) {
    sink.error(up, rule, kSource, "runAsUserName cannot contain more than one backslash");
    return;
  }
  std::string domain = bs == std::string::npos ? "" : u->substr(0, bs);
  std::string user = bs == std::string::npos ? *u : u->substr(bs + 1);
  if (domain.size() >= 256) sink.error(up, rule, kSource, "the domain must be under 256 characters");
  if (bs != std::string::npos) {
    auto netbios = [&] {
      if (domain.empty() || domain.size() > 15 || domain.front() == '.') return false;
      return domain.find_first_of("\\/:*?\"<>|") == std::string::npos;
    }();
    bool dns = !domain.empty();
    for (char c : domain) dns = dns && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.');
    if (dns) {  // labels of [a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?
      std::size_t i = 0;
      while (dns && i <= domain.size()) {
        std::size_t j = domain.find('.', i);
        if (j == std::string::npos) j = domain.size();
        std::string l = domain.substr(i, j - i);
        dns = !l.empty() && l.size() <= 63 && l.front() != '-' && l.back() != '-';
        i = j + 1;
      }
    }
    if (!netbios && !dns) sink.error(up, rule, kSource, "the domain matches neither the NetBios nor the DNS format");
  }
  if (user.empty())
    sink.error(up, rule, kSource, "the user cannot be empty");
  else if (user.size() > 104)
    sink.error(up, rule, kSource, "the user may not be longer than 104 characters");
  if (!user.empty() && user.find_first_not_of(". ") == std::string::npos)
    sink.error(up, rule, kSource, "the user cannot hold only periods or spaces");
  if (user.find_first_of("\"/\\:;|=,+*?<>@[]") != std::string::npos)
    sink.error(up, rule, kSource, "the user cannot contain \"/\\:;|=,+*?<>@[]");
}

// utilsysctl.GetNamespace: "net" for net.*, "ipc" for kernel.shm*, kernel.msg*, kernel.sem and fs.mqueue.*.
std::string sysctl_namespace(std::string name) {
  for (auto& c : name)
    if (c == '/') c = '.';
  if (name.starts_with("net.")) return "net";
  if (name.starts_with("kernel.shm") || name.starts_with("kernel.msg") || name == "kernel.sem" ||
      name.starts_with("fs.mqueue."))
    return "ipc";
  return "";
}

bool sysctl_name_ok(const std::string& n) {
  if (n.empty() || n.size() > 253) return false;
  std::size_t i = 0;
  while (i <= n.size()) {
    std::size_t j = n.find_first_of("./", i);
    if (j == std::string::npos) j = n.size();
    std::string seg = n.substr(i, j - i);
    if (seg.empty()) return false;
    auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!ok(seg.front()) || !ok(seg.back())) return false;
    for (char c : seg)
      if (!ok(c) && c != '-' && c != '_') return false;
    i = j + 1;
  }
  return true;
}

// core/v1 validateSysctls (+ ValidateHostSysctl): named, well-formed, unique sysctls; no net.* sysctls with
// hostNetwork and no IPC sysctls with hostIPC.
void validateSysctls(const json::Value& sc, const std::string& path, const PodCtx& ctx) {
  std::set<std::string> seen;
  each(sc, "sysctls", path + ".sysctls", [&](const json::Value& s, rapidjson::SizeType, const std::string& at) {
    std::string n = str(s, "name");
    if (n.empty())
      ctx.sink.error(at + ".name", "validateSysctls", kSource, "a sysctl needs a name");
    else if (!sysctl_name_ok(n))
      ctx.sink.error(at + ".name", "validateSysctls", kSource,
                     "sysctl " + dq(n) + " must be at most 253 characters of dot- or slash-separated segments");
    else if (!seen.insert(n).second)
      ctx.sink.error(at + ".name", "validateSysctls", kSource, "sysctl " + dq(n) + " is set twice");
    std::string ns = sysctl_namespace(n);
    if (ctx.host_network && ns == "net")
      ctx.sink.error(at + ".name", "ValidateHostSysctl", kSource,
                     "sysctl " + dq(n) + " may not be set with hostNetwork");
    if (ctx.host_ipc && ns == "ipc")
      ctx.sink.error(at + ".name", "ValidateHostSysctl", kSource, "sysctl " + dq(n) + " may not be set with hostIPC");
  });
}

// core/v1 validatePodSpecSecurityContext: user and group ids in range, shareProcessNamespace without hostPID,
// sysctls, fsGroupChangePolicy (OnRootMismatch, Always), seccomp and AppArmor profiles, Windows options,
// supplementalGroupsPolicy (Merge, Strict) and seLinuxChangePolicy (Recursive; MountOption only with SELinuxMount).
void validatePodSpecSecurityContext(const PodCtx& ctx) {
  constexpr std::string_view rule = "validatePodSpecSecurityContext";
  // The apiserver defaults an absent securityContext to {}, and keeps shareProcessNamespace and the host namespaces
  // in it internally: this check runs for every Pod.
  if (true_at(ctx.spec, "shareProcessNamespace") && ctx.host_pid)
    ctx.sink.error(ctx.path + ".shareProcessNamespace", rule, kSource,
                   "shareProcessNamespace and hostPID exclude each other");
  const json::Value* sc = object_at(ctx.spec, "securityContext");
  if (!sc) return;
  const std::string at = ctx.path + ".securityContext";
  for (const char* k : {"fsGroup", "runAsUser", "runAsGroup"}) id_range(*sc, k, at, rule, ctx.sink);
  each(*sc, "supplementalGroups", at + ".supplementalGroups",
       [&](const json::Value& g, rapidjson::SizeType, const std::string& gp) {
         if (auto v = as_int(&g); v && !valid_id(*v))
           ctx.sink.error(gp, rule, kSource, "group id must be between 0 and 2147483647");
       });
  validateSysctls(*sc, at, ctx);
  if (auto p = string_at(*sc, "fsGroupChangePolicy"); p && *p != "OnRootMismatch" && *p != "Always")
    ctx.sink.error(at + ".fsGroupChangePolicy", "validateFSGroupChangePolicy", kSource,
                   "fsGroupChangePolicy " + dq(*p) + " is not OnRootMismatch or Always");
  validateSeccompProfileField(*sc, at, ctx.sink);
  validateWindowsSecurityContextOptions(*sc, at, ctx.sink);
  ValidateAppArmorProfileField(*sc, at, ctx.sink);
  if (auto p = string_at(*sc, "supplementalGroupsPolicy"); p && *p != "Merge" && *p != "Strict")
    ctx.sink.error(at + ".supplementalGroupsPolicy", "validateSupplementalGroupsPolicy", kSource,
                   "supplementalGroupsPolicy " + dq(*p) + " is not Merge or Strict");
  // A new Pod may use only Recursive while the SELinuxMount gate is off (its default at this version).
  if (auto p = string_at(*sc, "seLinuxChangePolicy"); p && *p != "Recursive")
    ctx.sink.error(at + ".seLinuxChangePolicy", "validateSELinuxChangePolicy", kSource,
                   "seLinuxChangePolicy " + dq(*p) +
                       " is not supported: only Recursive (MountOption needs the SELinuxMount feature gate, off by "
                       "default)");
}

// core/v1 validateHostUsers: hostUsers false excludes hostNetwork, hostPID and hostIPC.
void validateHostUsers(const PodCtx& ctx) {
  if (ctx.host_users) return;
  for (const char* f : {"hostNetwork", "hostPID", "hostIPC"})
    if (true_at(ctx.spec, f))
      ctx.sink.error(ctx.path + "." + f, "validateHostUsers", kSource,
                     std::string(f) + " may not be set when hostUsers is false");
}

/// Calls f(container, path) for init, regular and ephemeral containers.
template <class F>
void visit(const PodCtx& ctx, F f) {
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"})
    each(ctx.spec, list, ctx.path + "." + list, [&](const json::Value& c, rapidjson::SizeType, const std::string& p) {
      if (c.IsObject()) f(c, p);
    });
}

std::optional<bool> host_process(const json::Value* sc) {
  const json::Value* w = sc ? object_at(*sc, "windowsOptions") : nullptr;
  const json::Value* hp = w ? member(*w, "hostProcess") : nullptr;
  if (!hp || !hp->IsBool()) return std::nullopt;
  return hp->GetBool();
}

// core/v1 validateWindowsHostProcessPod: container and pod hostProcess agree; with any hostProcess container all are,
// and the Pod uses hostNetwork.
void validateWindowsHostProcessPod(const PodCtx& ctx) {
  auto pod_hp = host_process(object_at(ctx.spec, "securityContext"));
  int containers = 0, hp_containers = 0;
  visit(ctx, [&](const json::Value& c, const std::string& cp) {
    ++containers;
    auto c_hp = host_process(object_at(c, "securityContext"));
    if (pod_hp && c_hp && *pod_hp != *c_hp)
      ctx.sink.error(cp + ".securityContext.windowsOptions.hostProcess", "validateWindowsHostProcessPod", kSource,
                     "must match the pod's hostProcess when both are set");
    if ((c_hp && *c_hp) || (!c_hp && pod_hp && *pod_hp)) ++hp_containers;
  });
  if (hp_containers == 0) return;
  if (hp_containers != containers)
    ctx.sink.error(ctx.path, "validateWindowsHostProcessPod", kSource,
                   "when any container is a hostProcess container, all must be");
  if (!ctx.host_network)
    ctx.sink.error(ctx.path + ".hostNetwork", "validateWindowsHostProcessPod", kSource,
                   "hostProcess containers need hostNetwork: true");
}

// core/v1 validateOS (+ validateLinux, validateWindows): os.name is linux or windows; a linux Pod sets no Windows
// options; a windows Pod sets none of the Linux-only security fields.
void validateOS(const PodCtx& ctx) {
  const json::Value* os = object_at(ctx.spec, "os");
  if (!os) return;
  const std::string at = ctx.path + ".os";
  std::string name = str(*os, "name");
  if (name.empty()) {
    ctx.sink.error(at + ".name", "validateOS", kSource, "os.name is required");
    return;
  }
  if (name != "linux" && name != "windows") {
    ctx.sink.error(at + ".name", "validateOS", kSource, "os.name " + dq(name) + " is not linux or windows");
    return;
  }
  const json::Value* psc = object_at(ctx.spec, "securityContext");
  const std::string psp = ctx.path + ".securityContext";
  if (name == "linux") {
    if (psc && has(*psc, "windowsOptions"))
      ctx.sink.error(psp + ".windowsOptions", "validateLinux", kSource,
                     "windows options cannot be set for a linux pod");
    visit(ctx, [&](const json::Value& c, const std::string& cp) {
      const json::Value* sc = object_at(c, "securityContext");
      if (sc && has(*sc, "windowsOptions"))
        ctx.sink.error(cp + ".securityContext.windowsOptions", "validateLinux", kSource,
                       "windows options cannot be set for a linux pod");
    });
    return;
  }
  if (psc)
    for (const char* f :
         {"appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup", "fsGroupChangePolicy", "sysctls",
          "runAsUser", "runAsGroup", "supplementalGroups", "supplementalGroupsPolicy", "seLinuxChangePolicy"})
      if (has(*psc, f)) ctx.sink.error(psp + "." + f, "validateWindows", kSource, "cannot be set for a windows pod");
  for (const char* f : {"hostUsers", "hostPID", "hostIPC", "shareProcessNamespace"}) {
    const json::Value* v = member(ctx.spec, f);
    bool set = std::string_view(f) == "hostUsers" || std::string_view(f) == "shareProcessNamespace"
                   ? (v && !v->IsNull())
                   : true_at(ctx.spec, f);
    if (set) ctx.sink.error(ctx.path + "." + f, "validateWindows", kSource, "cannot be set for a windows pod");
  }
  visit(ctx, [&](const json::Value& c, const std::string& cp) {
    const json::Value* sc = object_at(c, "securityContext");
    if (!sc) return;
    for (const char* f :
         {"appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities", "readOnlyRootFilesystem", "privileged",
          "allowPrivilegeEscalation", "procMount", "runAsUser", "runAsGroup"})
      if (has(*sc, f))
        ctx.sink.error(cp + ".securityContext." + f, "validateWindows", kSource, "cannot be set for a windows pod");
  });
}

constexpr std::string_view kSeccompPod = "seccomp.security.alpha.kubernetes.io/pod";
constexpr std::string_view kSeccompContainer = "container.seccomp.security.alpha.kubernetes.io/";
constexpr std::string_view kAppArmorContainer = "container.apparmor.security.beta.kubernetes.io/";

// core/v1 validateSeccompAnnotationsAndFieldsMatch: an annotation and a seccompProfile field that are both set
// agree.
void seccomp_match(const std::string& ann, const json::Value& sp, const std::string& path, const Sink& sink) {
  std::string type = str(sp, "type");
  bool ok = true;
  bool profile_mismatch = false;
  if (type == "Unconfined") ok = ann == "unconfined";
  if (type == "RuntimeDefault") ok = ann == "runtime/default" || ann == "docker/default";
  if (type == "Localhost") {
    ok = ann.starts_with("localhost/");
    profile_mismatch = ok && ann.substr(10) != str(sp, "localhostProfile");
  }
  if (!ok)
    sink.error(path + ".type", "validateSeccompAnnotationsAndFields", kSource,
               "the seccomp annotation and seccompProfile.type disagree");
  else if (profile_mismatch)
    sink.error(path + ".localhostProfile", "validateSeccompAnnotationsAndFields", kSource,
               "the seccomp annotation and seccompProfile.localhostProfile disagree");
}

// core/v1 validateSeccompAnnotationsAndFields: seccomp annotations and fields that are both set agree.
void validateSeccompAnnotationsAndFields(const PodCtx& ctx) {
  const json::Value* ann = ctx.meta ? object_at(*ctx.meta, "annotations") : nullptr;
  if (!ann) return;
  const json::Value* psc = object_at(ctx.spec, "securityContext");
  if (psc)
    if (const json::Value* sp = object_at(*psc, "seccompProfile"))
      if (auto a = string_at(*ann, kSeccompPod))
        seccomp_match(*a, *sp, ctx.path + ".securityContext.seccompProfile", ctx.sink);
  visit(ctx, [&](const json::Value& c, const std::string& cp) {
    const json::Value* sc = object_at(c, "securityContext");
    const json::Value* sp = sc ? object_at(*sc, "seccompProfile") : nullptr;
    if (!sp) return;
    if (auto a = string_at(*ann, std::string(kSeccompContainer) + str(c, "name")))
      seccomp_match(*a, *sp, cp + ".securityContext.seccompProfile", ctx.sink);
  });
}

// core/v1 validateAppArmorAnnotationsAndFieldsMatchOnCreate: a container's AppArmor annotation agrees with its
// effective appArmorProfile (the container's, else the pod's); skipped for windows Pods.
void validateAppArmorAnnotationsAndFieldsMatchOnCreate(const PodCtx& ctx) {
  const json::Value* ann = ctx.meta ? object_at(*ctx.meta, "annotations") : nullptr;
  if (!ann) return;
  if (const json::Value* os = object_at(ctx.spec, "os"); os && str(*os, "name") == "windows") return;
  const json::Value* psc = object_at(ctx.spec, "securityContext");
  const json::Value* pod_profile = psc ? object_at(*psc, "appArmorProfile") : nullptr;
  visit(ctx, [&](const json::Value& c, const std::string& cp) {
    const json::Value* sc = object_at(c, "securityContext");
    const json::Value* profile =
        sc && object_at(*sc, "appArmorProfile") ? object_at(*sc, "appArmorProfile") : pod_profile;
    if (!profile) return;
    auto a = string_at(*ann, std::string(kAppArmorContainer) + str(c, "name"));
    if (!a) return;
    const std::string at = cp + ".securityContext.appArmorProfile";
    std::string type = str(*profile, "type");
    if (type == "Unconfined" && *a != "unconfined")
      ctx.sink.error(at + ".type", "validateAppArmorAnnotationsAndFieldsMatchOnCreate", kSource,
                     "the AppArmor annotation and appArmorProfile.type disagree");
    if (type == "RuntimeDefault" && *a != "runtime/default")
      ctx.sink.error(at + ".type", "validateAppArmorAnnotationsAndFieldsMatchOnCreate", kSource,
                     "the AppArmor annotation and appArmorProfile.type disagree");
    if (type == "Localhost") {
      if (!a->starts_with("localhost/"))
        ctx.sink.error(at + ".type", "validateAppArmorAnnotationsAndFieldsMatchOnCreate", kSource,
                       "the AppArmor annotation and appArmorProfile.type disagree");
      else if (a->substr(10) != str(*profile, "localhostProfile"))
        ctx.sink.error(at + ".localhostProfile", "validateAppArmorAnnotationsAndFieldsMatchOnCreate", kSource,
                       "the AppArmor annotation and appArmorProfile.localhostProfile disagree");
    }
  });
}

}  // namespace

// core/v1 ValidateSecurityContext (containers): ids in range, procMount Default or Unmasked (Unmasked only with
// hostUsers false), seccomp and AppArmor profiles, allowPrivilegeEscalation false excluding privileged and
// CAP_SYS_ADMIN, and Windows options.
void ValidateSecurityContext(const json::Value& sc, const std::string& path, const PodCtx& ctx) {
  constexpr std::string_view rule = "ValidateSecurityContext";
  id_range(sc, "runAsUser", path, rule, ctx.sink);
  id_range(sc, "runAsGroup", path, rule, ctx.sink);
  if (auto pm = string_at(sc, "procMount")) {
    if (*pm != "Default" && *pm != "Unmasked")
      ctx.sink.error(path + ".procMount", "ValidateProcMountType", kSource,
                     "procMount " + dq(*pm) + " is not Default or Unmasked");
    else if (*pm == "Unmasked" && ctx.host_users)
      ctx.sink.error(path + ".procMount", rule, kSource, "procMount Unmasked needs hostUsers: false");
  }
  validateSeccompProfileField(sc, path, ctx.sink);
  if (const json::Value* ape = member(sc, "allowPrivilegeEscalation"); ape && ape->IsBool() && !ape->GetBool()) {
    if (true_at(sc, "privileged"))
      ctx.sink.error(path, rule, kSource, "allowPrivilegeEscalation false and privileged true exclude each other");
    if (const json::Value* caps = object_at(sc, "capabilities"))
      for (const auto& cap : arr(*caps, "add").GetArray())
        if (text(cap) == "CAP_SYS_ADMIN")
          ctx.sink.error(path, rule, kSource,
                         "allowPrivilegeEscalation false and capability CAP_SYS_ADMIN exclude each other");
  }
  validateWindowsSecurityContextOptions(sc, path, ctx.sink);
  ValidateAppArmorProfileField(sc, path, ctx.sink);
}

void validate_pod_security(const PodCtx& ctx) {
  validatePodSpecSecurityContext(ctx);
  validateWindowsHostProcessPod(ctx);
  validateHostUsers(ctx);
  validateOS(ctx);
  validateSeccompAnnotationsAndFields(ctx);
  validateAppArmorAnnotationsAndFieldsMatchOnCreate(ctx);
}

}  // namespace cfo::validation::rules::pod
