// The Pod Security Standards checks (pod-security-admission policy/check_*.go, policy version 1.36: the newest of a
// released Kubernetes); see pod_security_checks.hpp. Messages are our own; each names the level whose check refuses the
// field.
#include "validation/rules/pod_security_checks.hpp"

#include <algorithm>
#include <array>

#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules::pss {

namespace {

constexpr std::string_view kBaseline = " (Pod Security \"baseline\")";
constexpr std::string_view kRestricted = " (Pod Security \"restricted\")";

const json::Value* object_at_or_null(const json::Value* o, std::string_view key) {
  return o ? object_at(*o, key) : nullptr;
}
const json::Value* array_at_or_null(const json::Value* o, std::string_view key) {
  return o ? array_at(*o, key) : nullptr;
}
const json::Value* sc_of(const json::Value* o) { return object_at_or_null(o, "securityContext"); }
const json::Value* pod_sc(const PodView& pod) { return sc_of(pod.spec); }
std::string sc_path(const std::string& path) { return path + ".securityContext"; }

// A JSON boolean member: its value, or std::nullopt when absent or not a boolean.
std::optional<bool> flag(const json::Value* o, std::string_view key) {
  const json::Value* v = o ? member(*o, key) : nullptr;
  if (!v || !v->IsBool()) return std::nullopt;
  return v->GetBool();
}

std::string str_at(const json::Value* o, std::string_view key) {
  return o ? string_at(*o, key).value_or("") : std::string();
}

void error(const Sink& sink, const std::string& path, std::string_view rule, const std::string& reason,
           std::string_view level) {
  sink.error(path, rule, kSource, reason + std::string(level));
}

template <std::size_t N>
bool one_of(std::string_view v, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

// The capabilities every container runtime grants by default (check_capabilities_baseline.go).
constexpr std::array<std::string_view, 13> kDefaultCapabilities = {
    "AUDIT_WRITE",      "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",      "MKNOD",
    "NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT"};

// The safe sysctls of policy 1.36 (check_sysctls.go: the 1.0 set, ip_local_reserved_ports from 1.27, the TCP
// keepalive and fin timeout settings from 1.29, tcp_rmem and tcp_wmem from 1.32; the 1.37 additions,
// tcp_slow_start_after_idle and tcp_notsent_lowat, are not in a released Kubernetes yet).
constexpr std::array<std::string_view, 12> kSafeSysctls = {"kernel.shm_rmid_forced",
                                                           "net.ipv4.ip_local_port_range",
                                                           "net.ipv4.tcp_syncookies",
                                                           "net.ipv4.ping_group_range",
                                                           "net.ipv4.ip_unprivileged_port_start",
                                                           "net.ipv4.ip_local_reserved_ports",
                                                           "net.ipv4.tcp_keepalive_time",
                                                           "net.ipv4.tcp_fin_timeout",
                                                           "net.ipv4.tcp_keepalive_intvl",
                                                           "net.ipv4.tcp_keepalive_probes",
                                                           "net.ipv4.tcp_rmem",
                                                           "net.ipv4.tcp_wmem"};

// SELinux types a Pod may ask for (check_seLinuxOptions.go; "" = unset; container_engine_t from policy 1.31).
constexpr std::array<std::string_view, 5> kSELinuxTypes = {"", "container_t", "container_init_t", "container_kvm_t",
                                                           "container_engine_t"};

// The volume sources the restricted level allows (check_restrictedVolumes.go); a volume with no source is defaulted
// to an emptyDir before admission.
constexpr std::array<std::string_view, 9> kRestrictedVolumeSources = {
    "configMap", "csi",   "downwardAPI", "emptyDir", "ephemeral", "image", "persistentVolumeClaim",
    "projected", "secret"};

// Calls f(securityContext or null, path of that securityContext, container name) for the pod and every container.
template <class F>
void each_security_context(const PodView& pod, F f) {
  f(pod_sc(pod), sc_path(pod.spec_path), std::string("the pod"));
  for (const auto& c : pod.containers) f(sc_of(c.container), sc_path(c.path), "container " + dq(c.name));
}

// runAsNonRoot / seccompProfile of the restricted level: the pod's setting counts for every container that leaves
// the field unset; `ok` says whether a value passes; `set_hint` what to set.
template <class Ok>
void pod_or_containers(const PodView& pod, const Sink& sink, std::string_view rule, std::string_view field, Ok ok,
                       const std::string& set_hint) {
  const json::Value* psc = pod_sc(pod);
  const json::Value* pv = psc ? member(*psc, field) : nullptr;
  bool pod_sets = pv && !pv->IsNull();
  if (pod_sets && !ok(*pv))
    error(sink, sc_path(pod.spec_path) + "." + std::string(field), rule,
          "the pod's securityContext." + std::string(field) + " is " + brief(*pv) + "; " + set_hint, kRestricted);
  for (const auto& c : pod.containers) {
    const json::Value* csc = sc_of(c.container);
    const json::Value* cv = csc ? member(*csc, field) : nullptr;
    const std::string at = sc_path(c.path) + "." + std::string(field);
    if (cv && !cv->IsNull()) {
      if (!ok(*cv))
        error(sink, at, rule, "container " + dq(c.name) + " sets it to " + brief(*cv) + "; " + set_hint, kRestricted);
    } else if (!pod_sets) {
      error(sink, at, rule,
            "container " + dq(c.name) + " leaves it unset and the pod's securityContext does not set it either; " +
                set_hint,
            kRestricted);
    }
  }
}

bool is_true(const json::Value& v) { return v.IsBool() && v.GetBool(); }

// A Pod in a user namespace (spec.hostUsers: false): from policy 1.35 runAsNonRoot and runAsUser do not apply to it,
// and the baseline procMount check allows any value (helpers.go relaxPolicyForUserNamespacePod).
bool in_user_namespace(const PodView& pod) { return flag(pod.spec, "hostUsers") == false; }

// A Windows Pod (spec.os.name: windows): from policy 1.25 the restricted allowPrivilegeEscalation, seccompProfile and
// capabilities checks do not apply (Pod validation forbids those fields on Windows).
bool is_windows(const PodView& pod) { return str_at(object_at_or_null(pod.spec, "os"), "name") == "windows"; }

bool good_seccomp(const json::Value& v) {
  const std::string type = v.IsObject() ? str_at(&v, "type") : "";
  return type == "RuntimeDefault" || type == "Localhost";
}

// Calls f(probe-or-handler, its path) for each probe and lifecycle handler of a container.
template <class F>
void each_handler(const ContainerView& c, F f) {
  if (!c.container) return;
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"})
    if (const json::Value* p = object_at(*c.container, probe)) f(*p, c.path + "." + probe);
  if (const json::Value* lc = object_at(*c.container, "lifecycle"))
    for (const char* h : {"postStart", "preStop"})
      if (const json::Value* p = object_at(*lc, h)) f(*p, c.path + ".lifecycle." + h);
}

void proc_mount(const PodView& pod, const Sink& sink, std::string_view rule, std::string_view level) {
  for (const auto& c : pod.containers) {
    const json::Value* sc = sc_of(c.container);
    const json::Value* v = sc ? member(*sc, "procMount") : nullptr;
    if (!v || v->IsNull()) continue;
    const std::string mount = text(*v);
    if (mount != "Default")
      error(sink, sc_path(c.path) + ".procMount", rule,
            "container " + dq(c.name) + " asks for procMount " + dq(mount) + "; only \"Default\" is allowed", level);
  }
}

}  // namespace

PodView pod_view(const json::Value* spec, const json::Value* meta, std::string spec_path, std::string meta_path) {
  PodView pod{spec, meta, std::move(spec_path), std::move(meta_path), {}};
  if (!spec) return pod;
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    const json::Value* a = array_at(*spec, list);
    if (!a) continue;
    for (rapidjson::SizeType i = 0; i < a->Size(); ++i) {
      const json::Value& c = (*a)[i];
      pod.containers.push_back({c.IsObject() ? &c : nullptr, index_path(pod.spec_path + "." + list, i),
                                c.IsObject() ? str_at(&c, "name") : ""});
    }
  }
  return pod;
}

// ---- baseline ----------------------------------------------------------------------------------------------------

// check_hostNamespaces.go: the Pod must not share the node's network, PID or IPC namespace.
void CheckHostNamespaces(const PodView& pod, const Sink& sink) {
  for (const char* field : {"hostNetwork", "hostPID", "hostIPC"})
    if (flag(pod.spec, field).value_or(false))
      error(sink, pod.spec_path + "." + field, "CheckHostNamespaces",
            std::string(field) + ": true shares a namespace of the node; it must be unset or false", kBaseline);
}

// check_privileged.go: no privileged container.
void CheckPrivileged(const PodView& pod, const Sink& sink) {
  for (const auto& c : pod.containers)
    if (flag(sc_of(c.container), "privileged").value_or(false))
      error(sink, sc_path(c.path) + ".privileged", "CheckPrivileged",
            "container " + dq(c.name) + " is privileged; privileged must be unset or false", kBaseline);
}

// check_capabilities_baseline.go: capabilities.add only from the runtime's default set.
void CheckCapabilitiesBaseline(const PodView& pod, const Sink& sink) {
  for (const auto& c : pod.containers) {
    const json::Value* caps = object_at_or_null(sc_of(c.container), "capabilities");
    const json::Value* add = caps ? array_at(*caps, "add") : nullptr;
    if (!add) continue;
    for (rapidjson::SizeType i = 0; i < add->Size(); ++i)
      if (!one_of(text((*add)[i]), kDefaultCapabilities))
        error(sink, index_path(sc_path(c.path) + ".capabilities.add", i), "CheckCapabilitiesBaseline",
              "container " + dq(c.name) + " adds capability " + brief((*add)[i]) +
                  ", which is outside the default set (AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD, "
                  "NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT)",
              kBaseline);
  }
}

// check_hostPathVolumes.go: no hostPath volume.
void CheckHostPathVolumes(const PodView& pod, const Sink& sink) {
  const json::Value* vols = pod.spec ? array_at(*pod.spec, "volumes") : nullptr;
  if (!vols) return;
  for (rapidjson::SizeType i = 0; i < vols->Size(); ++i)
    if ((*vols)[i].IsObject() && object_at((*vols)[i], "hostPath"))
      error(sink, index_path(pod.spec_path + ".volumes", i) + ".hostPath", "CheckHostPathVolumes",
            "volume " + dq(str_at(&(*vols)[i], "name")) + " mounts a path of the node (hostPath)", kBaseline);
}

// check_hostPorts.go: no container port bound on the node.
void CheckHostPorts(const PodView& pod, const Sink& sink) {
  for (const auto& c : pod.containers) {
    const json::Value* ports = c.container ? array_at(*c.container, "ports") : nullptr;
    if (!ports) continue;
    for (rapidjson::SizeType i = 0; i < ports->Size(); ++i) {
      auto hp = (*ports)[i].IsObject() ? int_at((*ports)[i], "hostPort") : std::nullopt;
      if (hp && *hp != 0)
        error(sink, index_path(c.path + ".ports", i) + ".hostPort", "CheckHostPorts",
              "container " + dq(c.name) + " binds host port " + std::to_string(*hp) + "; hostPort must be unset or 0",
              kBaseline);
    }
  }
}

// check_appArmorProfile.go: appArmorProfile.type (pod, containers) RuntimeDefault or Localhost; the per-container
// annotation container.apparmor.security.beta.kubernetes.io/<name> "runtime/default" or "localhost/...".
void CheckAppArmorProfile(const PodView& pod, const Sink& sink) {
  each_security_context(pod, [&](const json::Value* sc, const std::string& at, const std::string& who) {
    const json::Value* ap = object_at_or_null(sc, "appArmorProfile");
    const std::string type = str_at(ap, "type");
    if (ap && type != "RuntimeDefault" && type != "Localhost")
      error(sink, at + ".appArmorProfile.type", "CheckAppArmorProfile",
            who + " sets AppArmor profile type " + dq(type) + "; only RuntimeDefault or Localhost are allowed",
            kBaseline);
  });
  const json::Value* ann = object_at_or_null(pod.meta, "annotations");
  if (!ann) return;
  constexpr std::string_view kPrefix = "container.apparmor.security.beta.kubernetes.io/";
  for (auto it = ann->MemberBegin(); it != ann->MemberEnd(); ++it) {
    const std::string key = text(it->name), value = text(it->value);
    if (!key.starts_with(kPrefix)) continue;
    if (value.empty() || value == "runtime/default" || value.starts_with("localhost/")) continue;
    error(sink, key_path(pod.meta_path + ".annotations", key), "CheckAppArmorProfile",
          "AppArmor profile " + dq(value) + "; only \"runtime/default\" or \"localhost/<profile>\" are allowed",
          kBaseline);
  }
}

// check_seLinuxOptions.go: seLinuxOptions.type among the container types; user and role unset.
void CheckSELinuxOptions(const PodView& pod, const Sink& sink) {
  each_security_context(pod, [&](const json::Value* sc, const std::string& at, const std::string& who) {
    const json::Value* se = object_at_or_null(sc, "seLinuxOptions");
    if (!se) return;
    const std::string type = str_at(se, "type");
    if (!one_of(type, kSELinuxTypes))
      error(sink, at + ".seLinuxOptions.type", "CheckSELinuxOptions",
            who + " asks for SELinux type " + dq(type) +
                "; only container_t, container_init_t, container_kvm_t or container_engine_t are allowed",
            kBaseline);
    for (const char* field : {"user", "role"})
      if (!str_at(se, field).empty())
        error(sink, at + ".seLinuxOptions." + field, "CheckSELinuxOptions",
              who + " sets an SELinux " + field + "; it must be left empty", kBaseline);
  });
}

// check_procMount_baseline.go (1.35): procMount Default, any value in a user namespace (hostUsers: false).
void CheckProcMountBaseline(const PodView& pod, const Sink& sink) {
  if (in_user_namespace(pod)) return;
  proc_mount(pod, sink, "CheckProcMountBaseline", kBaseline);
}

// check_seccompProfile_baseline.go (policy 1.19+): a seccompProfile (pod, containers), when set, has type
// RuntimeDefault or Localhost (Unconfined is the one other value Pod validation lets through).
void CheckSeccompBaseline(const PodView& pod, const Sink& sink) {
  each_security_context(pod, [&](const json::Value* sc, const std::string& at, const std::string& who) {
    const json::Value* sp = object_at_or_null(sc, "seccompProfile");
    if (sp && !good_seccomp(*sp))
      error(sink, at + ".seccompProfile.type", "CheckSeccompBaseline",
            who + " sets seccomp profile type " + dq(str_at(sp, "type")) +
                "; only RuntimeDefault or Localhost are allowed (Unconfined runs without a profile)",
            kBaseline);
  });
}

// check_sysctls.go: only the safe sysctls.
void CheckSysctls(const PodView& pod, const Sink& sink) {
  const json::Value* list = array_at_or_null(pod_sc(pod), "sysctls");
  if (!list) return;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const std::string name = (*list)[i].IsObject() ? str_at(&(*list)[i], "name") : "";
    if (!one_of(name, kSafeSysctls))
      error(sink, index_path(sc_path(pod.spec_path) + ".sysctls", i) + ".name", "CheckSysctls",
            "sysctl " + dq(name) + " is not one of the safe sysctls", kBaseline);
  }
}

// check_windowsHostProcess.go: no Windows HostProcess pod or container.
void CheckWindowsHostProcess(const PodView& pod, const Sink& sink) {
  each_security_context(pod, [&](const json::Value* sc, const std::string& at, const std::string& who) {
    if (flag(object_at_or_null(sc, "windowsOptions"), "hostProcess").value_or(false))
      error(sink, at + ".windowsOptions.hostProcess", "CheckWindowsHostProcess",
            who + " asks to run as a Windows HostProcess", kBaseline);
  });
}

// check_hostProbesAndhostLifecycle.go (1.34): httpGet.host and tcpSocket.host of probes and lifecycle handlers empty.
void CheckHostProbesAndHostLifecycle(const PodView& pod, const Sink& sink) {
  for (const auto& c : pod.containers)
    each_handler(c, [&](const json::Value& h, const std::string& at) {
      for (const char* action : {"httpGet", "tcpSocket"})
        if (const json::Value* a = object_at(h, action); a && !str_at(a, "host").empty())
          error(sink, at + "." + action + ".host", "CheckHostProbesAndHostLifecycle",
                "container " + dq(c.name) + " probes or calls host " + dq(str_at(a, "host")) +
                    "; the host must be left empty (the Pod's own IP)",
                kBaseline);
    });
}

// ---- restricted --------------------------------------------------------------------------------------------------

// check_restrictedVolumes.go: only configMap, csi, downwardAPI, emptyDir, ephemeral, persistentVolumeClaim,
// projected and secret volumes.
void CheckRestrictedVolumes(const PodView& pod, const Sink& sink) {
  const json::Value* vols = pod.spec ? array_at(*pod.spec, "volumes") : nullptr;
  if (!vols) return;
  for (rapidjson::SizeType i = 0; i < vols->Size(); ++i) {
    const json::Value& v = (*vols)[i];
    if (!v.IsObject()) continue;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      const std::string source = text(it->name);
      if (source == "name" || it->value.IsNull() || one_of(source, kRestrictedVolumeSources)) continue;
      error(sink, index_path(pod.spec_path + ".volumes", i) + "." + source, "CheckRestrictedVolumes",
            "volume " + dq(str_at(&v, "name")) + " is of type " + source +
                "; only configMap, csi, downwardAPI, emptyDir, ephemeral, persistentVolumeClaim, projected and "
                "secret volumes are allowed",
            kRestricted);
    }
  }
}

// check_allowPrivilegeEscalation.go: every container sets allowPrivilegeEscalation: false.
void CheckAllowPrivilegeEscalation(const PodView& pod, const Sink& sink) {
  if (is_windows(pod)) return;
  for (const auto& c : pod.containers)
    if (flag(sc_of(c.container), "allowPrivilegeEscalation") != false)
      error(sink, sc_path(c.path) + ".allowPrivilegeEscalation", "CheckAllowPrivilegeEscalation",
            "container " + dq(c.name) + " must set allowPrivilegeEscalation: false", kRestricted);
}

// check_runAsNonRoot.go: runAsNonRoot true on the pod, or on every container; false nowhere.
void CheckRunAsNonRoot(const PodView& pod, const Sink& sink) {
  if (in_user_namespace(pod)) return;
  pod_or_containers(pod, sink, "CheckRunAsNonRoot", "runAsNonRoot", is_true,
                    "set runAsNonRoot: true here or in the pod's securityContext (the Pods would run as root "
                    "otherwise)");
}

// check_runAsUser.go: runAsUser (pod, containers) not 0.
void CheckRunAsUser(const PodView& pod, const Sink& sink) {
  if (in_user_namespace(pod)) return;
  each_security_context(pod, [&](const json::Value* sc, const std::string& at, const std::string& who) {
    if (sc && int_at(*sc, "runAsUser") == 0)
      error(sink, at + ".runAsUser", "CheckRunAsUser", who + " runs as user 0 (root); runAsUser must not be 0",
            kRestricted);
  });
}

// check_seccompProfile_restricted.go: seccompProfile.type RuntimeDefault or Localhost on the pod, or on every
// container.
void CheckSeccompProfileRestricted(const PodView& pod, const Sink& sink) {
  if (is_windows(pod)) return;
  pod_or_containers(pod, sink, "CheckSeccompProfileRestricted", "seccompProfile", good_seccomp,
                    "set seccompProfile.type to RuntimeDefault or Localhost here or in the pod's securityContext");
}

// check_capabilities_restricted.go: every container drops ALL and adds nothing but NET_BIND_SERVICE.
void CheckCapabilitiesRestricted(const PodView& pod, const Sink& sink) {
  if (is_windows(pod)) return;
  for (const auto& c : pod.containers) {
    const json::Value* caps = object_at_or_null(sc_of(c.container), "capabilities");
    const json::Value* drop = caps ? array_at(*caps, "drop") : nullptr;
    bool drops_all = false;
    if (drop)
      for (const auto& d : drop->GetArray()) drops_all = drops_all || text(d) == "ALL";
    if (!drops_all)
      error(sink, sc_path(c.path) + ".capabilities.drop", "CheckCapabilitiesRestricted",
            "container " + dq(c.name) + " must drop ALL capabilities (capabilities.drop: [\"ALL\"])", kRestricted);
    const json::Value* add = caps ? array_at(*caps, "add") : nullptr;
    if (!add) continue;
    for (rapidjson::SizeType i = 0; i < add->Size(); ++i)
      if (text((*add)[i]) != "NET_BIND_SERVICE")
        error(
            sink, index_path(sc_path(c.path) + ".capabilities.add", i), "CheckCapabilitiesRestricted",
            "container " + dq(c.name) + " adds capability " + brief((*add)[i]) + "; only NET_BIND_SERVICE may be added",
            kRestricted);
  }
}

// check_procMount_restricted.go (1.35): procMount Default, user namespace or not.
void CheckProcMountRestricted(const PodView& pod, const Sink& sink) {
  proc_mount(pod, sink, "CheckProcMountRestricted", kRestricted);
}

void check_pod(const PodView& pod, PodSecurityLevel level, const Sink& sink) {
  if (level == PodSecurityLevel::kPrivileged) return;
  const bool restricted = level == PodSecurityLevel::kRestricted;
  CheckHostNamespaces(pod, sink);
  CheckPrivileged(pod, sink);
  if (!restricted) CheckCapabilitiesBaseline(pod, sink);
  if (!restricted) CheckHostPathVolumes(pod, sink);
  CheckHostPorts(pod, sink);
  CheckAppArmorProfile(pod, sink);
  CheckSELinuxOptions(pod, sink);
  if (!restricted) CheckProcMountBaseline(pod, sink);
  if (!restricted) CheckSeccompBaseline(pod, sink);
  CheckSysctls(pod, sink);
  CheckWindowsHostProcess(pod, sink);
  CheckHostProbesAndHostLifecycle(pod, sink);
  if (!restricted) return;
  CheckRestrictedVolumes(pod, sink);
  CheckAllowPrivilegeEscalation(pod, sink);
  CheckRunAsNonRoot(pod, sink);
  CheckRunAsUser(pod, sink);
  CheckSeccompProfileRestricted(pod, sink);
  CheckCapabilitiesRestricted(pod, sink);
  CheckProcMountRestricted(pod, sink);
}

}  // namespace cfo::validation::rules::pss
