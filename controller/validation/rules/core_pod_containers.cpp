// core/v1 Pod validation, containers (kubernetes pkg/apis/core/validation/validation.go at 000f26050b9b, v1.33):
// validateContainers, validateInitContainers, validateEphemeralContainers, validateContainerCommon and everything
// they call for one container: ports, env and envFrom, volume mounts and devices, pull policy, resize policy, probes
// and lifecycle handlers, host-port conflicts, hostNetwork ports, and the Pod-only image check. Resources and the
// container security context are in core_pod_resources.cpp and core_pod_security.cpp.
#include <algorithm>
#include <cctype>

#include "core/names.hpp"
#include "validation/rules/core_pod.hpp"
#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules::pod {

namespace {

enum class Kind { Regular, Init, Ephemeral };

// ---- ports -------------------------------------------------------------------------------------------------------

// core/v1 validateContainerPorts: names are IANA service names and unique in the container; containerPort is
// 1..65535; hostPort, when set, too; protocol (defaulted to TCP) is TCP, UDP or SCTP.
void validateContainerPorts(const json::Value& c, const std::string& path, const Sink& sink) {
  std::set<std::string> names;
  each(c, "ports", path + ".ports", [&](const json::Value& p, rapidjson::SizeType, const std::string& at) {
    if (!p.IsObject()) return;
    std::string name = str(p, "name");
    if (!name.empty()) {
      if (auto msgs = is_valid_port_name(name); !msgs.empty())
        sink.error(at + ".name", "validateContainerPorts", kSource, "port name " + dq(name) + " " + joined(msgs));
      else if (!names.insert(name).second)
        sink.error(at + ".name", "validateContainerPorts", kSource, "port name " + dq(name) + " is used twice");
    }
    auto cp = as_int(member(p, "containerPort"));
    if (!cp || *cp == 0)
      sink.error(at + ".containerPort", "validateContainerPorts", kSource, "containerPort is required");
    else if (auto msgs = is_valid_port_num(*cp); !msgs.empty())
      sink.error(at + ".containerPort", "validateContainerPorts", kSource,
                 "containerPort " + std::to_string(*cp) + " " + joined(msgs));
    if (auto hp = as_int(member(p, "hostPort")); hp && *hp != 0)
      if (auto msgs = is_valid_port_num(*hp); !msgs.empty())
        sink.error(at + ".hostPort", "validateContainerPorts", kSource,
                   "hostPort " + std::to_string(*hp) + " " + joined(msgs));
    std::string proto = str(p, "protocol");
    if (!proto.empty() && proto != "TCP" && proto != "UDP" && proto != "SCTP")
      sink.error(at + ".protocol", "validateContainerPorts", kSource,
                 "protocol " + dq(proto) + " is not one of TCP, UDP, SCTP");
  });
}

// core/v1 AccumulateUniqueHostPorts (checkHostPortConflicts): a protocol/hostIP/hostPort triple is used once among
// the regular containers (each init container on its own).
void AccumulateUniqueHostPorts(const json::Value& list, const std::string& list_path, bool each_alone,
                               const Sink& sink) {
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; list.IsArray() && i < list.Size(); ++i) {
    if (each_alone) seen.clear();
    each(list[i], "ports", index_path(list_path, i) + ".ports",
         [&](const json::Value& p, rapidjson::SizeType, const std::string& at) {
           auto hp = as_int(member(p, "hostPort"));
           if (!hp || *hp == 0) return;
           std::string proto = str(p, "protocol");
           if (proto.empty()) proto = "TCP";
           std::string key = proto + "/" + str(p, "hostIP") + "/" + std::to_string(*hp);
           if (!seen.insert(key).second)
             sink.error(at + ".hostPort", "AccumulateUniqueHostPorts", kSource,
                        "host port " + key + " is already used by another container port");
         });
  }
}

// ---- env ---------------------------------------------------------------------------------------------------------

const std::set<std::string, std::less<>> kEnvFieldPaths = {
    "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
    "status.hostIP", "status.hostIPs",     "status.podIP", "status.podIPs"};
const std::set<std::string, std::less<>> kVolumeFieldPaths = {"metadata.name", "metadata.namespace", "metadata.labels",
                                                              "metadata.annotations", "metadata.uid"};
// Field paths ConvertDownwardAPIFieldLabel knows for v1 Pods.
const std::set<std::string, std::less<>> kConvertibleFieldPaths = {
    "metadata.annotations", "metadata.labels", "metadata.name",      "metadata.namespace",
    "metadata.uid",         "spec.nodeName",   "spec.restartPolicy", "spec.serviceAccountName",
    "spec.schedulerName",   "status.phase",    "status.hostIP",      "status.hostIPs",
    "status.podIP",         "status.podIPs"};
const std::set<std::string, std::less<>> kResourceFieldPaths = {
    "limits.cpu",   "limits.memory",   "limits.ephemeral-storage",
    "requests.cpu", "requests.memory", "requests.ephemeral-storage"};

}  // namespace

// core/v1 validateObjectFieldSelector: apiVersion v1 (defaulted), a fieldPath the downward API converts, and, for
// subscripted annotations and labels, a qualified key; otherwise one of the paths allowed where it is used.
void validateObjectFieldSelector(const json::Value& fs, bool for_volume, const std::string& path, const Sink& sink) {
  std::string api = str(fs, "apiVersion");
  if (api.empty()) api = "v1";
  std::string fp = str(fs, "fieldPath");
  if (fp.empty()) {
    sink.error(path + ".fieldPath", "validateObjectFieldSelector", kSource, "fieldPath is required");
    return;
  }
  if (api != "v1") {
    sink.error(path + ".fieldPath", "validateObjectFieldSelector", kSource,
               "apiVersion " + dq(api) + " is not supported for a Pod's downward API (use v1)");
    return;
  }
  std::string base = fp, subscript;
  bool subscripted = false;
  if (auto open = fp.find('['); open != std::string::npos && fp.size() >= open + 4 && fp.back() == ']' &&
                                (fp[open + 1] == '\'' || fp[open + 1] == '"') && fp[fp.size() - 2] == fp[open + 1]) {
    base = fp.substr(0, open);
    subscript = fp.substr(open + 2, fp.size() - open - 4);
    subscripted = true;
  }
  if (!kConvertibleFieldPaths.contains(base)) {
    sink.error(path + ".fieldPath", "validateObjectFieldSelector", kSource,
               "fieldPath " + dq(fp) + " is not a field the downward API can expose");
    return;
  }
  if (subscripted) {
    if (base == "metadata.annotations" || base == "metadata.labels") {
      std::string key = subscript;
      if (base == "metadata.annotations")
        std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
      if (auto msgs = names::qualified_name(key); !msgs.empty())
        sink.error(path, "validateObjectFieldSelector", kSource,
                   "key " + dq(subscript) + " is not a qualified name: " + joined(msgs));
    } else {
      sink.error(path, "validateObjectFieldSelector", kSource, dq(base) + " does not support a subscript");
    }
    return;
  }
  const auto& allowed = for_volume ? kVolumeFieldPaths : kEnvFieldPaths;
  if (!allowed.contains(base))
    sink.error(path + ".fieldPath", "validateObjectFieldSelector", kSource,
               "fieldPath " + dq(fp) + " is not supported " + (for_volume ? "in a volume" : "in an env var"));
}

// core/v1 validateContainerResourceFieldSelector (+ validateContainerResourceDivisor): containerName in volumes, a
// resource among limits/requests of cpu, memory, ephemeral-storage or hugepages-*, and a divisor its resource
// accepts.
void validateContainerResourceFieldSelector(const json::Value& fs, bool for_volume, const std::string& path,
                                            const Sink& sink) {
  std::string res = str(fs, "resource");
  if (for_volume && str(fs, "containerName").empty())
    sink.error(path + ".containerName", "validateContainerResourceFieldSelector", kSource, "containerName is required");
  else if (res.empty())
    sink.error(path + ".resource", "validateContainerResourceFieldSelector", kSource, "resource is required");
  else if (!kResourceFieldPaths.contains(res) && !res.starts_with("requests.hugepages-") &&
           !res.starts_with("limits.hugepages-"))
    sink.error(path + ".resource", "validateContainerResourceFieldSelector", kSource,
               "resource " + dq(res) + " is not one of limits/requests of cpu, memory, ephemeral-storage, hugepages-*");
  const json::Value* div = member(fs, "divisor");
  if (!div || div->IsNull()) return;
  auto q = quantity(*div);
  if (!q) return;  // a schema finding
  if (q->nanos() == 0) return;
  // divisor.String() is the canonical form; the accepted ones are exact small values.
  static const std::vector<std::pair<std::string, __int128>> kMem = {{"1", 1},
                                                                     {"1k", 1000},
                                                                     {"1M", 1000000},
                                                                     {"1G", 1000000000},
                                                                     {"1T", 1000000000000LL},
                                                                     {"1P", 1000000000000000LL},
                                                                     {"1E", 1000000000000000000LL},
                                                                     {"1Ki", 1LL << 10},
                                                                     {"1Mi", 1LL << 20},
                                                                     {"1Gi", 1LL << 30},
                                                                     {"1Ti", 1LL << 40},
                                                                     {"1Pi", 1LL << 50},
                                                                     {"1Ei", 1LL << 60}};
  auto in = [&](const std::vector<std::pair<std::string, __int128>>& set) {
    for (const auto& [name, units] : set)
      if (q->nanos() == units * 1000000000 && q->text() == name) return true;
    return false;
  };
  static const std::vector<std::pair<std::string, __int128>> kCpu = {{"1m", 0}, {"1", 1}};
  bool ok = true;
  std::string what;
  if (res == "limits.cpu" || res == "requests.cpu") {
    ok = (q->text() == "1m" && q->nanos() == 1000000) || (q->text() == "1" && q->nanos() == 1000000000);
    what = "1m and 1 (cpu)";
  } else if (res.ends_with(".memory") || res.ends_with(".ephemeral-storage") ||
             res.find(".hugepages-") != std::string::npos) {
    ok = in(kMem);
    what = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei";
  }
  if (!ok)
    sink.error(path + ".divisor", "validateContainerResourceFieldSelector", kSource,
               "divisor " + dq(q->text()) + " is not supported for " + res + "; use " + what);
}

namespace {

// core/v1 validateConfigMapKeySelector / validateSecretKeySelector: the name is a DNS-1123 subdomain and the key a
// config key.
void validateKeySelector(const json::Value& s, const std::string& path, std::string_view rule, const Sink& sink) {
  std::string name = str(s, "name");
  if (auto msgs = name_is_dns_subdomain(name, false); !msgs.empty())
    sink.error(path + ".name", rule, kSource, "name " + dq(name) + " " + joined(msgs));
  std::string key = str(s, "key");
  if (key.empty())
    sink.error(path + ".key", rule, kSource, "key is required");
  else if (auto msgs = is_config_map_key(key); !msgs.empty())
    sink.error(path + ".key", rule, kSource, "key " + dq(key) + " " + joined(msgs));
}

// core/v1 validateEnvVarValueFrom: exactly one of fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef, and
// not together with a value.
void validateEnvVarValueFrom(const json::Value& ev, const std::string& path, const Sink& sink) {
  const json::Value* vf = member(ev, "valueFrom");
  if (!vf || vf->IsNull() || !vf->IsObject()) return;
  const std::string at = path + ".valueFrom";
  int n = 0;
  if (const json::Value* f = object_at(*vf, "fieldRef")) {
    ++n;
    validateObjectFieldSelector(*f, false, at + ".fieldRef", sink);
  }
  if (const json::Value* f = object_at(*vf, "resourceFieldRef")) {
    ++n;
    validateContainerResourceFieldSelector(*f, false, at + ".resourceFieldRef", sink);
  }
  if (const json::Value* f = object_at(*vf, "configMapKeyRef")) {
    ++n;
    validateKeySelector(*f, at + ".configMapKeyRef", "validateConfigMapKeySelector", sink);
  }
  if (const json::Value* f = object_at(*vf, "secretKeyRef")) {
    ++n;
    validateKeySelector(*f, at + ".secretKeyRef", "validateSecretKeySelector", sink);
  }
  if (n == 0)
    sink.error(at, "validateEnvVarValueFrom", kSource,
               "valueFrom must name one of fieldRef, resourceFieldRef, configMapKeyRef or secretKeyRef");
  else if (!str(ev, "value").empty())
    sink.error(at, "validateEnvVarValueFrom", kSource, "valueFrom may not be set when value is not empty");
  else if (n > 1)
    sink.error(at, "validateEnvVarValueFrom", kSource, "valueFrom may name only one source");
}

// The first Kubernetes minor whose apiserver accepts any printable env var name: the
// RelaxedEnvironmentVariableValidation feature gate (KEP-4369) is on by default from 1.32 (beta).
constexpr int kRelaxedEnvNamesMinor = 32;

// An env var name (or envFrom prefix) that passes the relaxed check but not the strict one: an older cluster refuses
// the Pods (an Error when the cluster's version is known to be older, a Warning when it is unknown, nothing from
// kRelaxedEnvNamesMinor on).
void strict_env_name(const std::string& at, std::string_view rule, const std::string& what,
                     const std::vector<std::string>& strict, int kubernetes_minor, const Sink& sink) {
  const std::string from = "1." + std::to_string(kRelaxedEnvNamesMinor);
  if (kubernetes_minor >= kRelaxedEnvNamesMinor) return;
  if (kubernetes_minor > 0)
    sink.error(at, rule, kSource,
               what + " is refused by this cluster (Kubernetes 1." + std::to_string(kubernetes_minor) +
                   "; such names are accepted from " + from + "): " + joined(strict));
  else
    sink.warn(at, rule, kSource, what + " is refused by clusters before Kubernetes " + from + ": " + joined(strict));
}

// core/v1 ValidateEnv: each env var has a name of printable ASCII without '=' (the RelaxedEnvironmentVariableValidation
// gate is on by default from 1.32); names outside [-._a-zA-Z][-._a-zA-Z0-9]* are refused by clusters before it.
void ValidateEnv(const json::Value& c, const std::string& path, const PodCtx& ctx) {
  const Sink& sink = ctx.sink;
  each(c, "env", path + ".env", [&](const json::Value& ev, rapidjson::SizeType, const std::string& at) {
    if (!ev.IsObject()) return;
    std::string name = str(ev, "name");
    if (name.empty())
      sink.error(at + ".name", "ValidateEnv", kSource, "an env var needs a name");
    else if (auto msgs = is_relaxed_env_var_name(name); !msgs.empty())
      sink.error(at + ".name", "ValidateEnv", kSource, "env var name " + dq(name) + " " + joined(msgs));
    else if (auto strict = is_env_var_name(name); !strict.empty())
      strict_env_name(at + ".name", "ValidateEnv", "env var name " + dq(name), strict, ctx.kubernetes_minor, sink);
    validateEnvVarValueFrom(ev, at, sink);
  });
}

// core/v1 ValidateEnvFrom: a prefix is an env var name; exactly one of configMapRef and secretRef, whose name is a
// DNS-1123 subdomain (a trailing '-' allowed).
void ValidateEnvFrom(const json::Value& c, const std::string& path, const PodCtx& ctx) {
  const Sink& sink = ctx.sink;
  each(c, "envFrom", path + ".envFrom", [&](const json::Value& ev, rapidjson::SizeType, const std::string& at) {
    if (!ev.IsObject()) return;
    std::string prefix = str(ev, "prefix");
    if (!prefix.empty()) {
      if (auto msgs = is_relaxed_env_var_name(prefix); !msgs.empty())
        sink.error(at + ".prefix", "ValidateEnvFrom", kSource, "prefix " + dq(prefix) + " " + joined(msgs));
      else if (auto strict = is_env_var_name(prefix); !strict.empty())
        strict_env_name(at + ".prefix", "ValidateEnvFrom", "prefix " + dq(prefix), strict, ctx.kubernetes_minor, sink);
    }
    int n = 0;
    for (const char* ref : {"configMapRef", "secretRef"}) {
      const json::Value* r = object_at(ev, ref);
      if (!r) continue;
      ++n;
      std::string name = str(*r, "name");
      if (name.empty())
        sink.error(at + "." + ref + ".name", "ValidateEnvFrom", kSource, "name is required");
      else if (auto msgs = name_is_dns_subdomain(name, true); !msgs.empty())
        sink.error(at + "." + ref + ".name", "ValidateEnvFrom", kSource, "name " + dq(name) + " " + joined(msgs));
    }
    if (n == 0)
      sink.error(at, "ValidateEnvFrom", kSource, "envFrom must name one of configMapRef or secretRef");
    else if (n > 1)
      sink.error(at, "ValidateEnvFrom", kSource, "envFrom may name only one of configMapRef or secretRef");
  });
}

// ---- volume mounts and devices -----------------------------------------------------------------------------------

bool has_backstep(const std::string& p) {
  std::size_t i = 0;
  while (i <= p.size()) {
    std::size_t j = p.find_first_of("/\\", i);
    if (j == std::string::npos) j = p.size();
    if (p.substr(i, j - i) == "..") return true;
    i = j + 1;
  }
  return false;
}

}  // namespace

// core/v1 validateLocalDescendingPath: a relative path without '..' elements.
std::vector<std::string> local_descending_path(const std::string& p) {
  std::vector<std::string> out;
  if (!p.empty() && p.front() == '/') out.emplace_back("must be a relative path");
  if (has_backstep(p)) out.emplace_back("must not contain '..'");
  return out;
}

namespace {

bool privileged(const json::Value& c) {
  const json::Value* sc = object_at(c, "securityContext");
  return sc && true_at(*sc, "privileged");
}

// core/v1 validateMountPropagation: None, HostToContainer or Bidirectional; Bidirectional only in privileged
// containers.
void validateMountPropagation(const json::Value& m, const json::Value& c, const std::string& path, const Sink& sink) {
  auto mp = string_at(m, "mountPropagation");
  if (!mp) return;
  if (*mp != "None" && *mp != "HostToContainer" && *mp != "Bidirectional")
    sink.error(path, "validateMountPropagation", kSource,
               "mountPropagation " + dq(*mp) + " is not one of None, HostToContainer, Bidirectional");
  else if (*mp == "Bidirectional" && !privileged(c))
    sink.error(path, "validateMountPropagation", kSource,
               "Bidirectional mount propagation is available only to privileged containers");
}

// core/v1 validateMountRecursiveReadOnly: Disabled, IfPossible or Enabled; the latter two need readOnly true and no
// mount propagation other than None.
void validateMountRecursiveReadOnly(const json::Value& m, const std::string& path, const Sink& sink) {
  auto rro = string_at(m, "recursiveReadOnly");
  if (!rro || *rro == "Disabled") return;
  if (*rro != "IfPossible" && *rro != "Enabled") {
    sink.error(path, "validateMountRecursiveReadOnly", kSource,
               "recursiveReadOnly " + dq(*rro) + " is not one of Disabled, IfPossible, Enabled");
    return;
  }
  if (!true_at(m, "readOnly"))
    sink.error(path, "validateMountRecursiveReadOnly", kSource, "recursiveReadOnly needs readOnly: true");
  if (auto mp = string_at(m, "mountPropagation"); mp && *mp != "None")
    sink.error(path, "validateMountRecursiveReadOnly", kSource,
               "recursiveReadOnly needs mountPropagation None or unset");
}

// core/v1 ValidateVolumeMounts: each mount names a volume of the Pod, has a unique mountPath, does not clash with a
// volume device, and has a relative subPath or subPathExpr (not both).
void ValidateVolumeMounts(const json::Value& c, const std::string& path, const PodCtx& ctx) {
  std::set<std::string> paths;
  std::map<std::string, std::string> devices;  // name -> devicePath
  for (const auto& d : arr(c, "volumeDevices").GetArray()) devices[str(d, "name")] = str(d, "devicePath");
  each(c, "volumeMounts", path + ".volumeMounts",
       [&](const json::Value& m, rapidjson::SizeType, const std::string& at) {
         if (!m.IsObject()) return;
         const Sink& sink = ctx.sink;
         std::string name = str(m, "name"), mp = str(m, "mountPath");
         if (name.empty())
           sink.error(at + ".name", "ValidateVolumeMounts", kSource, "a volume mount needs a volume name");
         else if (!ctx.volumes.contains(name))
           sink.error(at + ".name", "ValidateVolumeMounts", kSource,
                      "volume " + dq(name) + " is not a volume of the Pod (spec.volumes)");
         if (mp.empty())
           sink.error(at + ".mountPath", "ValidateVolumeMounts", kSource, "mountPath is required");
         else if (!paths.insert(mp).second)
           sink.error(at + ".mountPath", "ValidateVolumeMounts", kSource, "mountPath " + dq(mp) + " is used twice");
         if (!name.empty() && devices.contains(name))
           sink.error(at + ".name", "ValidateVolumeMounts", kSource,
                      "volume " + dq(name) + " is also used as a volume device");
         for (const auto& [dn, dp] : devices)
           if (!mp.empty() && dp == mp)
             sink.error(at + ".mountPath", "ValidateVolumeMounts", kSource,
                        "mountPath " + dq(mp) + " is also a volume device path");
         std::string sub = str(m, "subPath"), expr = str(m, "subPathExpr");
         if (!sub.empty())
           if (auto msgs = local_descending_path(sub); !msgs.empty())
             sink.error(at + ".subPath", "ValidateVolumeMounts", kSource, "subPath " + dq(sub) + " " + joined(msgs));
         if (!expr.empty()) {
           if (!sub.empty())
             sink.error(at + ".subPathExpr", "ValidateVolumeMounts", kSource,
                        "subPathExpr and subPath exclude each other");
           if (auto msgs = local_descending_path(expr); !msgs.empty())
             sink.error(at + ".subPathExpr", "ValidateVolumeMounts", kSource,
                        "subPathExpr " + dq(expr) + " " + joined(msgs));
         }
         validateMountPropagation(m, c, at + ".mountPropagation", sink);
         validateMountRecursiveReadOnly(m, at + ".recursiveReadOnly", sink);
       });
}

// core/v1 ValidateVolumeDevices: each device names a PersistentVolumeClaim or ephemeral volume of the Pod, and has a
// unique devicePath without '..' that is not also a mount path.
void ValidateVolumeDevices(const json::Value& c, const std::string& path, const PodCtx& ctx) {
  std::set<std::string> dpaths, dnames;
  std::map<std::string, std::string> mounts;
  for (const auto& m : arr(c, "volumeMounts").GetArray()) mounts[str(m, "name")] = str(m, "mountPath");
  each(c, "volumeDevices", path + ".volumeDevices",
       [&](const json::Value& d, rapidjson::SizeType, const std::string& at) {
         if (!d.IsObject()) return;
         const Sink& sink = ctx.sink;
         std::string name = str(d, "name"), dp = str(d, "devicePath");
         auto vol = ctx.volumes.find(name);
         if (name.empty()) sink.error(at + ".name", "ValidateVolumeDevices", kSource, "a volume device needs a name");
         if (!name.empty() && !dnames.insert(name).second)
           sink.error(at + ".name", "ValidateVolumeDevices", kSource, "volume device " + dq(name) + " is listed twice");
         if (vol == ctx.volumes.end())
           sink.error(at + ".name", "ValidateVolumeDevices", kSource,
                      "volume " + dq(name) + " is not a volume of the Pod (spec.volumes)");
         else if (!has(*vol->second, "persistentVolumeClaim") && !has(*vol->second, "ephemeral"))
           sink.error(at + ".name", "ValidateVolumeDevices", kSource,
                      "a block device needs a persistentVolumeClaim or ephemeral volume");
         if (dp.empty())
           sink.error(at + ".devicePath", "ValidateVolumeDevices", kSource, "devicePath is required");
         else if (!dpaths.insert(dp).second)
           sink.error(at + ".devicePath", "ValidateVolumeDevices", kSource, "devicePath " + dq(dp) + " is used twice");
         if (has_backstep(dp))
           sink.error(at + ".devicePath", "ValidateVolumeDevices", kSource, "devicePath must not contain '..'");
         if (mounts.contains(name))
           sink.error(at + ".name", "ValidateVolumeDevices", kSource, "volume " + dq(name) + " is also mounted");
         for (const auto& [mn, mp] : mounts)
           if (mp == dp && !dp.empty())
             sink.error(at + ".devicePath", "ValidateVolumeDevices", kSource,
                        "devicePath " + dq(dp) + " is also a mount path");
       });
}

// ---- policies ----------------------------------------------------------------------------------------------------

// core/v1 validatePullPolicy: Always, IfNotPresent or Never (defaulted from the image tag).
void validatePullPolicy(const json::Value& c, const std::string& path, const Sink& sink) {
  auto p = string_at(c, "imagePullPolicy");
  if (!p || p->empty()) return;
  if (*p != "Always" && *p != "IfNotPresent" && *p != "Never")
    sink.error(path + ".imagePullPolicy", "validatePullPolicy", kSource,
               "imagePullPolicy " + dq(*p) + " is not one of Always, IfNotPresent, Never");
}

// core/v1 validateResizePolicy: resources cpu or memory, each once; policies NotRequired or RestartContainer, and
// NotRequired when the Pod's restartPolicy is Never.
void validateResizePolicy(const json::Value& c, const std::string& path, const PodCtx& ctx) {
  std::set<std::string> seen;
  each(c, "resizePolicy", path + ".resizePolicy",
       [&](const json::Value& p, rapidjson::SizeType, const std::string& at) {
         std::string r = str(p, "resourceName"), pol = str(p, "restartPolicy");
         if (!seen.insert(r).second)
           ctx.sink.error(at, "validateResizePolicy", kSource, "resource " + dq(r) + " is listed twice");
         if (r.empty())
           ctx.sink.error(at + ".resourceName", "validateResizePolicy", kSource, "resourceName is required");
         else if (r != "cpu" && r != "memory")
           ctx.sink.error(at + ".resourceName", "validateResizePolicy", kSource,
                          "resourceName " + dq(r) + " is not one of cpu, memory");
         if (pol.empty())
           ctx.sink.error(at + ".restartPolicy", "validateResizePolicy", kSource, "restartPolicy is required");
         else if (pol != "NotRequired" && pol != "RestartContainer")
           ctx.sink.error(at + ".restartPolicy", "validateResizePolicy", kSource,
                          "restartPolicy " + dq(pol) + " is not one of NotRequired, RestartContainer");
         if (ctx.restart_policy == "Never" && pol != "NotRequired")
           ctx.sink.error(at + ".restartPolicy", "validateResizePolicy", kSource,
                          "must be NotRequired when the Pod's restartPolicy is Never");
       });
}

// ---- probes and handlers -----------------------------------------------------------------------------------------

// core/v1 ValidatePortNumOrName: a port number 1..65535 or an IANA service name.
void ValidatePortNumOrName(const json::Value* port, const std::string& path, const Sink& sink) {
  if (!port) return;
  if (port->IsString()) {
    if (auto msgs = is_valid_port_name(text(*port)); !msgs.empty())
      sink.error(path, "ValidatePortNumOrName", kSource, "port " + dq(text(*port)) + " " + joined(msgs));
  } else if (auto n = as_int(port)) {
    if (auto msgs = is_valid_port_num(*n); !msgs.empty())
      sink.error(path, "ValidatePortNumOrName", kSource, "port " + std::to_string(*n) + " " + joined(msgs));
  }
}

// core/v1 validateExecAction: a command.
void validateExecAction(const json::Value& a, const std::string& path, const Sink& sink) {
  if (arr(a, "command").Empty()) sink.error(path + ".command", "validateExecAction", kSource, "command is required");
}

// core/v1 validateHTTPGetAction: path (defaulted to /), a valid port, scheme HTTP or HTTPS (defaulted), header names.
void validateHTTPGetAction(const json::Value& a, const std::string& path, const Sink& sink) {
  const json::Value* port = member(a, "port");
  if (!port || port->IsNull())
    sink.error(path + ".port", "validateHTTPGetAction", kSource, "port is required");
  else
    ValidatePortNumOrName(port, path + ".port", sink);
  std::string scheme = str(a, "scheme");
  if (!scheme.empty() && scheme != "HTTP" && scheme != "HTTPS")
    sink.error(path + ".scheme", "validateHTTPGetAction", kSource, "scheme " + dq(scheme) + " is not HTTP or HTTPS");
  each(a, "httpHeaders", path + ".httpHeaders", [&](const json::Value& h, rapidjson::SizeType, const std::string& at) {
    if (auto msgs = is_http_header_name(str(h, "name")); !msgs.empty())
      sink.error(at + ".name", "validateHTTPGetAction", kSource, "header " + dq(str(h, "name")) + " " + joined(msgs));
  });
}

// core/v1 validateSleepAction: 0 <= seconds <= terminationGracePeriodSeconds (PodLifecycleSleepActionAllowZero is on
// by default).
void validateSleepAction(const json::Value& a, const std::string& path, const PodCtx& ctx) {
  auto s = as_int(member(a, "seconds")).value_or(0);
  if (ctx.grace_period && (s < 0 || s > *ctx.grace_period))
    ctx.sink.error(path + ".seconds", "validateSleepAction", kSource,
                   "sleep seconds must be between 0 and terminationGracePeriodSeconds (" +
                       std::to_string(*ctx.grace_period) + "), found " + std::to_string(s));
}

// core/v1 validateHandler: exactly one handler (exec, httpGet, tcpSocket, and grpc for probes or sleep for
// lifecycle hooks).
void validateHandler(const json::Value& h, bool probe, const std::string& path, const PodCtx& ctx) {
  int n = 0;
  const char* kinds[] = {"exec", "httpGet", "tcpSocket", probe ? "grpc" : "sleep"};
  for (const char* k : kinds) {
    const json::Value* a = object_at(h, k);
    if (!a) continue;
    if (n++ > 0) {
      ctx.sink.error(path + "." + k, "validateHandler", kSource, "may not specify more than one handler type");
      continue;
    }
    const std::string at = path + "." + k;
    std::string_view kind = k;
    if (kind == "exec") validateExecAction(*a, at, ctx.sink);
    if (kind == "httpGet") validateHTTPGetAction(*a, at, ctx.sink);
    if (kind == "tcpSocket") ValidatePortNumOrName(member(*a, "port"), at + ".port", ctx.sink);
    if (kind == "grpc") ValidatePortNumOrName(member(*a, "port"), at + ".port", ctx.sink);
    if (kind == "sleep") validateSleepAction(*a, at, ctx);
  }
  if (n == 0) ctx.sink.error(path, "validateHandler", kSource, "must specify a handler type");
}

// core/v1 validateProbe: one handler, non-negative delays, timeouts, periods and thresholds, and a positive
// terminationGracePeriodSeconds when set.
void validateProbe(const json::Value& p, const std::string& path, const PodCtx& ctx) {
  validateHandler(p, true, path, ctx);
  for (const char* f :
       {"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"})
    if (auto v = as_int(member(p, f)); v && *v < 0)
      ctx.sink.error(path + "." + f, "validateProbe", kSource, std::string(f) + " must not be negative");
  if (auto v = as_int(member(p, "terminationGracePeriodSeconds")); v && *v <= 0)
    ctx.sink.error(path + ".terminationGracePeriodSeconds", "validateProbe", kSource, "must be greater than 0");
}

// core/v1 validateLivenessProbe / validateStartupProbe: successThreshold is 1 (0 is defaulted to 1).
void validateLivenessProbe(const json::Value& p, const std::string& path, const PodCtx& ctx, std::string_view rule) {
  validateProbe(p, path, ctx);
  auto st = as_int(member(p, "successThreshold")).value_or(0);
  if (st != 0 && st != 1 && st > 0)
    ctx.sink.error(path + ".successThreshold", rule, kSource, "successThreshold must be 1");
}

// core/v1 validateReadinessProbe: no terminationGracePeriodSeconds.
void validateReadinessProbe(const json::Value& p, const std::string& path, const PodCtx& ctx) {
  validateProbe(p, path, ctx);
  if (has(p, "terminationGracePeriodSeconds"))
    ctx.sink.error(path + ".terminationGracePeriodSeconds", "validateReadinessProbe", kSource,
                   "must not be set for readiness probes");
}

void probes_and_lifecycle(const json::Value& c, const std::string& path, const PodCtx& ctx) {
  if (const json::Value* lc = object_at(c, "lifecycle"))
    for (const char* hook : {"postStart", "preStop"})
      if (const json::Value* h = object_at(*lc, hook)) validateHandler(*h, false, path + ".lifecycle." + hook, ctx);
  if (const json::Value* p = object_at(c, "livenessProbe"))
    validateLivenessProbe(*p, path + ".livenessProbe", ctx, "validateLivenessProbe");
  if (const json::Value* p = object_at(c, "readinessProbe")) validateReadinessProbe(*p, path + ".readinessProbe", ctx);
  if (const json::Value* p = object_at(c, "startupProbe"))
    validateLivenessProbe(*p, path + ".startupProbe", ctx, "validateStartupProbe");
}

// ---- one container -----------------------------------------------------------------------------------------------

// core/v1 validateContainerOnlyForPod: the image has no leading or trailing whitespace (checked for Pods, not for
// templates; a template's Pods are Pods).
void validateContainerOnlyForPod(const json::Value& c, const std::string& path, const Sink& sink) {
  std::string image = str(c, "image");
  if (!image.empty() && (std::isspace(static_cast<unsigned char>(image.front())) ||
                         std::isspace(static_cast<unsigned char>(image.back()))))
    sink.error(path + ".image", "validateContainerOnlyForPod", kSource,
               "image " + dq(image) + " must not have leading or trailing whitespace");
}

// core/v1 validateContainerCommon: a DNS-1123 label name, an image, a terminationMessagePolicy of File or
// FallbackToLogsOnError (defaulted to File), and the rules of its ports, env, mounts, devices, pull policy,
// resources, resize policy and security context.
void validateContainerCommon(const json::Value& c, const std::string& path, const PodCtx& ctx) {
  std::string name = str(c, "name");
  if (name.empty())
    ctx.sink.error(path + ".name", "validateContainerCommon", kSource, "a container needs a name");
  else if (auto msgs = names::dns1123_label(name); !msgs.empty())
    ctx.sink.error(path + ".name", "validateContainerCommon", kSource,
                   "container name " + dq(name) + " " + joined(msgs));
  if (str(c, "image").empty())
    ctx.sink.error(path + ".image", "validateContainerCommon", kSource,
                   "a container needs an image (the Pods are refused without one)");
  std::string tmp = str(c, "terminationMessagePolicy");
  if (!tmp.empty() && tmp != "File" && tmp != "FallbackToLogsOnError")
    ctx.sink.error(path + ".terminationMessagePolicy", "validateContainerCommon", kSource,
                   "terminationMessagePolicy " + dq(tmp) + " is not one of File, FallbackToLogsOnError");
  validateContainerPorts(c, path, ctx.sink);
  ValidateEnv(c, path, ctx);
  ValidateEnvFrom(c, path, ctx);
  ValidateVolumeMounts(c, path, ctx);
  ValidateVolumeDevices(c, path, ctx);
  validatePullPolicy(c, path, ctx.sink);
  if (const json::Value* res = object_at(c, "resources"))
    ValidateContainerResourceRequirements(*res, path + ".resources", &ctx, ctx.sink);
  validateResizePolicy(c, path, ctx);
  if (const json::Value* sc = object_at(c, "securityContext"))
    ValidateSecurityContext(*sc, path + ".securityContext", ctx);
  validateContainerOnlyForPod(c, path, ctx.sink);
}

// core/v1 validateContainers: at least one container; unique names; lifecycle and probes; no restartPolicy on a
// regular container; host ports unique across the containers.
void validateContainers(const PodCtx& ctx) {
  const std::string lp = ctx.path + ".containers";
  const json::Value* list = array_at(ctx.spec, "containers");
  if (!list || list->Empty()) {
    ctx.sink.error(lp, "validateContainers", kSource, "a Pod needs at least one container");
    return;
  }
  std::set<std::string> seen;
  each(ctx.spec, "containers", lp, [&](const json::Value& c, rapidjson::SizeType, const std::string& at) {
    if (!c.IsObject()) return;
    validateContainerCommon(c, at, ctx);
    std::string name = str(c, "name");
    if (!seen.insert(name).second)
      ctx.sink.error(at + ".name", "validateContainers", kSource, "container name " + dq(name) + " is used twice");
    probes_and_lifecycle(c, at, ctx);
    if (has(c, "restartPolicy"))
      ctx.sink.error(at + ".restartPolicy", "validateContainers", kSource,
                     "restartPolicy may be set only on init containers (sidecars)");
  });
  AccumulateUniqueHostPorts(*list, lp, false, ctx.sink);
}

// core/v1 validateInitContainers: names unique across init and regular containers; restartPolicy Always only
// (validateInitContainerRestartPolicy); lifecycle and probes only on such sidecars.
void validateInitContainers(const PodCtx& ctx) {
  const std::string lp = ctx.path + ".initContainers";
  const json::Value* list = array_at(ctx.spec, "initContainers");
  if (!list) return;
  std::set<std::string> names;
  for (const auto& c : arr(ctx.spec, "containers").GetArray()) names.insert(str(c, "name"));
  each(ctx.spec, "initContainers", lp, [&](const json::Value& c, rapidjson::SizeType, const std::string& at) {
    if (!c.IsObject()) return;
    validateContainerCommon(c, at, ctx);
    bool sidecar = false;
    if (auto rp = string_at(c, "restartPolicy")) {
      if (*rp != "Always")
        ctx.sink.error(at + ".restartPolicy", "validateInitContainerRestartPolicy", kSource,
                       "an init container's restartPolicy may only be Always (a sidecar), found " + dq(*rp));
      sidecar = *rp == "Always";
    }
    std::string name = str(c, "name");
    if (names.contains(name))
      ctx.sink.error(at + ".name", "validateInitContainers", kSource, "container name " + dq(name) + " is used twice");
    else if (!name.empty())
      names.insert(name);
    if (sidecar) {
      probes_and_lifecycle(c, at, ctx);
    } else {
      for (const char* f : {"lifecycle", "livenessProbe", "readinessProbe", "startupProbe"})
        if (has(c, f))
          ctx.sink.error(at + "." + f, "validateInitContainers", kSource,
                         std::string(f) + " may be set on an init container only with restartPolicy Always");
    }
  });
  AccumulateUniqueHostPorts(*list, lp, true, ctx.sink);
}

// core/v1 validateEphemeralContainers: names unique across all containers, a targetContainerName that is a
// regular or init container, only the fields ephemeral containers may set, and no subPath or subPathExpr.
void validateEphemeralContainers(const PodCtx& ctx) {
  const json::Value* list = array_at(ctx.spec, "ephemeralContainers");
  if (!list || list->Empty()) return;
  std::set<std::string> others, all;
  for (const char* l : {"containers", "initContainers"})
    for (const auto& c : arr(ctx.spec, l).GetArray()) {
      others.insert(str(c, "name"));
      all.insert(str(c, "name"));
    }
  static const std::set<std::string, std::less<>> kForbidden = {"ports",          "resources",    "livenessProbe",
                                                                "readinessProbe", "startupProbe", "lifecycle",
                                                                "resizePolicy",   "restartPolicy"};
  each(ctx.spec, "ephemeralContainers", ctx.path + ".ephemeralContainers",
       [&](const json::Value& c, rapidjson::SizeType, const std::string& at) {
         if (!c.IsObject()) return;
         validateContainerCommon(c, at, ctx);
         std::string name = str(c, "name");
         if (!all.insert(name).second)
           ctx.sink.error(at + ".name", "validateEphemeralContainers", kSource,
                          "container name " + dq(name) + " is used twice");
         std::string target = str(c, "targetContainerName");
         if (!target.empty() && !others.contains(target))
           ctx.sink.error(at + ".targetContainerName", "validateEphemeralContainers", kSource,
                          "target container " + dq(target) + " is not a container of the Pod");
         for (auto it = c.MemberBegin(); it != c.MemberEnd(); ++it)
           if (kForbidden.contains(text(it->name)) && !it->value.IsNull())
             ctx.sink.error(at + "." + text(it->name), "validateEphemeralContainers", kSource,
                            "cannot be set for an ephemeral container");
         each(c, "volumeMounts", at + ".volumeMounts",
              [&](const json::Value& m, rapidjson::SizeType, const std::string& mp) {
                for (const char* f : {"subPath", "subPathExpr"})
                  if (!str(m, f).empty())
                    ctx.sink.error(mp + "." + f, "validateEphemeralContainers", kSource,
                                   "cannot be set for an ephemeral container");
              });
       });
}

// core/v1 validatePodHostNetworkDeps: with hostNetwork, a container's hostPort (defaulted to its containerPort)
// equals its containerPort.
void validatePodHostNetworkDeps(const PodCtx& ctx) {
  if (!ctx.host_network) return;
  each(ctx.spec, "containers", ctx.path + ".containers",
       [&](const json::Value& c, rapidjson::SizeType, const std::string& cp) {
         each(c, "ports", cp + ".ports", [&](const json::Value& p, rapidjson::SizeType, const std::string& at) {
           auto hp = as_int(member(p, "hostPort")).value_or(0);
           auto port = as_int(member(p, "containerPort")).value_or(0);
           if (hp != 0 && hp != port)
             ctx.sink.error(at + ".hostPort", "validatePodHostNetworkDeps", kSource,
                            "hostPort must equal containerPort when hostNetwork is true");
         });
       });
}

}  // namespace

void validate_all_containers(const PodCtx& ctx) {
  validateContainers(ctx);
  validateInitContainers(ctx);
  validateEphemeralContainers(ctx);
  validatePodHostNetworkDeps(ctx);
}

}  // namespace cfo::validation::rules::pod
