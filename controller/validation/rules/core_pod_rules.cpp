// core/v1 Pod validation (kubernetes pkg/apis/core/validation/validation.go: ValidatePodSpec, validateContainers,
// ValidateResourceRequirements, validateContainerPorts) as it applies to the pod templates inside RayCluster,
// RayJob and AppWrapper. The apiserver does not run it when those objects are created; it runs when their
// controllers create the Pods, so every finding here is a late failure.
#include <cctype>
#include <map>
#include <set>

#include "core/names.hpp"
#include "core/quantity.hpp"
#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

namespace {

constexpr std::string_view kPod = "core/v1:PodValidation";
constexpr const char* kContainerLists[] = {"initContainers", "containers", "ephemeralContainers"};

std::string joined(const std::vector<std::string>& msgs) {
  std::string s;
  for (const auto& m : msgs) s += (s.empty() ? "" : "; ") + m;
  return s;
}

// Resource-name classes of pkg/apis/core/helper.
bool is_native(std::string_view name) {
  return name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos;
}
bool is_hugepages(std::string_view name) { return name.starts_with("hugepages-"); }
bool is_extended(std::string_view name) { return !is_native(name) && !name.starts_with("requests."); }
/// Extended resources and huge pages cannot be overcommitted: a limit is needed and requests equal limits.
bool is_overcommit_forbidden(std::string_view name) { return is_extended(name) || is_hugepages(name); }
bool is_standard_container_resource(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" || is_hugepages(name);
}

/// The quantity of a requests/limits entry: strings and JSON numbers both parse as apimachinery does.
std::optional<Quantity> quantity_of(const json::Value& v) {
  if (!v.IsString() && !v.IsNumber()) return std::nullopt;
  auto q = Quantity::parse(v.IsString() ? text(v) : json::dump(v));
  if (!q) return std::nullopt;
  return *q;
}

// core/v1 validateContainers: every container name is a DNS-1123 label.
void DNS1123ContainerName(const json::Value& container, const std::string& path, const Sink& sink) {
  auto name = string_at(container, "name");
  if (!name || name->empty()) return;  // a missing name is a schema finding
  if (auto msgs = names::dns1123_label(*name); !msgs.empty())
    sink.error(path + ".name", "DNS1123ContainerName", kPod, "container name " + dq(*name) + " " + joined(msgs));
}

// core/v1 validateContainers: container names are unique across init, regular and ephemeral containers.
void UniqueContainerName(const json::Value& pod_spec, const std::string& path, const Sink& sink) {
  std::map<std::string, std::string> seen;
  for (const char* list : kContainerLists) {
    const json::Value* containers = array_at(pod_spec, list);
    if (!containers) continue;
    for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
      auto name = string_at((*containers)[i], "name");
      if (!name || name->empty()) continue;
      const std::string at = index_path(key_path(path, list), i);
      auto [it, fresh] = seen.emplace(*name, at);
      if (!fresh)
        sink.error(at + ".name", "UniqueContainerName", kPod,
                   "container name " + dq(*name) + " is already used by " + it->second);
    }
  }
}

// core/v1 validateContainerPorts: a port name is an IANA_SVC_NAME (at most 15 characters of [a-z0-9-], at least
// one letter, no leading, trailing or doubled '-').
void IANASvcPortName(const json::Value& container, const std::string& path, const Sink& sink) {
  const json::Value* ports = array_at(container, "ports");
  if (!ports) return;
  for (rapidjson::SizeType i = 0; i < ports->Size(); ++i) {
    auto name = string_at((*ports)[i], "name");
    if (!name || name->empty()) continue;
    const std::string& n = *name;
    bool chars_ok = true, letter = false;
    for (char c : n) {
      if (c >= 'a' && c <= 'z')
        letter = true;
      else if (!(c >= '0' && c <= '9') && c != '-')
        chars_ok = false;
    }
    std::string why;
    if (n.size() > 15)
      why = "is longer than 15 characters";
    else if (!chars_ok)
      why = "may hold only lower-case letters, digits and '-'";
    else if (!letter)
      why = "must contain at least one letter";
    else if (n.front() == '-' || n.back() == '-')
      why = "must not begin or end with '-'";
    else if (n.find("--") != std::string::npos)
      why = "must not contain '--'";
    if (!why.empty())
      sink.error(index_path(path + ".ports", i) + ".name", "IANASvcPortName", kPod, "port name " + dq(n) + " " + why);
  }
}

// core/v1 validateContainerResourceName: container resources are cpu, memory, ephemeral-storage, hugepages-* or
// extended resources (<domain>/<name>, not kubernetes.io).
void ContainerResourceName(const std::string& name, const std::string& path, const Sink& sink) {
  if (auto msgs = names::qualified_name(name); !msgs.empty()) {
    sink.error(path, "ContainerResourceName", kPod,
               "resource name " + dq(name) + " is not a qualified name: " + joined(msgs));
    return;
  }
  if (name.find('/') == std::string::npos) {
    if (!is_standard_container_resource(name))
      sink.error(path, "ContainerResourceName", kPod,
                 "resource " + dq(name) + " is not a container resource (cpu, memory, ephemeral-storage, hugepages-*)");
  } else if (!is_native(name) && !is_extended(name)) {
    sink.error(path, "ContainerResourceName", kPod, "resource " + dq(name) + " is not a valid extended resource name");
  }
}

// core/v1 ValidateResourceQuantityValue: every quantity parses.
bool QuantityFormat(const json::Value& v, const std::string& path, const Sink& sink) {
  if (quantity_of(v)) return true;
  sink.error(path, "QuantityFormat", kPod, "value " + brief(v) + " is not a quantity (e.g. 500m, 2, 8Gi, 8G)");
  return false;
}

// core/v1 ValidateNonnegativeQuantity: resource quantities are not negative.
void NonNegativeQuantity(const Quantity& q, const std::string& path, const Sink& sink) {
  if (q.nanos() < 0)
    sink.error(path, "NonNegativeQuantity", kPod, "quantity " + dq(q.text()) + " must not be negative");
}

// core/v1 ValidateResourceQuantityValue: extended resources are counted in whole units.
void ExtendedResourceWhole(const std::string& name, const Quantity& q, const std::string& path, const Sink& sink) {
  if (is_extended(name) && !q.is_integer())
    sink.error(path, "ExtendedResourceWhole", kPod,
               "extended resource " + dq(name) + " must be a whole number, found " + dq(q.text()));
}

// core/v1 ValidateResourceRequirements: a request never exceeds its limit.
void RequestsWithinLimits(const std::string& name, const Quantity& request, const Quantity& limit,
                          const std::string& path, const Sink& sink) {
  if (request > limit)
    sink.error(path, "RequestsWithinLimits", kPod,
               "request " + dq(request.text()) + " for " + dq(name) + " exceeds its limit " + dq(limit.text()));
}

// core/v1 ValidateResourceRequirements: a resource that cannot be overcommitted (extended, hugepages) needs a limit.
void ExtendedResourceLimitRequired(const std::string& name, bool has_limit, const std::string& path, const Sink& sink) {
  if (has_limit || !is_overcommit_forbidden(name)) return;
  sink.error(path, "ExtendedResourceLimitRequired", kPod,
             dq(name) + " cannot be overcommitted, so it needs a limit next to its request");
}

// core/v1 ValidateResourceRequirements: for such a resource the request equals the limit.
void ExtendedResourceRequestsEqualLimits(const std::string& name, const Quantity& request, const Quantity& limit,
                                         const std::string& path, const Sink& sink) {
  if (is_overcommit_forbidden(name) && request < limit)
    sink.error(
        path, "ExtendedResourceRequestsEqualLimits", kPod,
        dq(name) + " cannot be overcommitted: request " + dq(request.text()) + " must equal limit " + dq(limit.text()));
}

// core/v1 validateEnv (IsEnvVarName): an env var name is not empty and holds no '='. Clusters without the
// RelaxedEnvironmentVariableValidation gate (before Kubernetes 1.32) also require [-._a-zA-Z][-._a-zA-Z0-9]*:
// a name outside it is a warning, since the verdict depends on the cluster's version.
void EnvVarName(const json::Value& container, const std::string& path, const Sink& sink) {
  const json::Value* env = array_at(container, "env");
  if (!env) return;
  for (rapidjson::SizeType i = 0; i < env->Size(); ++i) {
    auto name = string_at((*env)[i], "name");
    if (!name) continue;
    const std::string at = index_path(path + ".env", i) + ".name";
    bool printable = !name->empty();
    for (char c : *name) printable = printable && c >= 0x20 && c < 0x7f && c != '=';
    if (!printable) {
      sink.error(at, "EnvVarName", kPod,
                 "env var name " + dq(*name) + " must be non-empty printable ASCII without '='");
      continue;
    }
    bool portable =
        (*name)[0] == '-' || (*name)[0] == '.' || (*name)[0] == '_' || std::isalpha((unsigned char)(*name)[0]);
    for (char c : *name) portable = portable && (std::isalnum((unsigned char)c) || c == '-' || c == '.' || c == '_');
    if (!portable)
      sink.warn(at, "EnvVarName", kPod,
                "env var name " + dq(*name) +
                    " is refused by clusters before Kubernetes 1.32 (allowed: letters, "
                    "digits, '-', '.', '_', not starting with a digit)");
  }
}

// core/v1 validateTolerations: an empty key needs operator Exists; operator Exists takes no value; operators are
// Equal or Exists; tolerationSeconds only goes with effect NoExecute.
void Tolerations(const json::Value& pod_spec, const std::string& path, const Sink& sink) {
  const json::Value* tolerations = array_at(pod_spec, "tolerations");
  if (!tolerations) return;
  for (rapidjson::SizeType i = 0; i < tolerations->Size(); ++i) {
    const json::Value& t = (*tolerations)[i];
    const std::string at = index_path(path + ".tolerations", i);
    std::string op = string_at(t, "operator").value_or("Equal");
    std::string key = string_at(t, "key").value_or("");
    std::string value = string_at(t, "value").value_or("");
    if (op != "Equal" && op != "Exists")
      sink.error(at + ".operator", "TolerationOperator", kPod, "operator " + dq(op) + " must be Equal or Exists");
    if (key.empty() && op != "Exists")
      sink.error(at + ".operator", "TolerationOperator", kPod, "a toleration without a key must use operator Exists");
    if (op == "Exists" && !value.empty())
      sink.error(at + ".value", "TolerationValue", kPod, "operator Exists matches any value; value must be empty");
    if (json::find(t, "tolerationSeconds") && string_at(t, "effect").value_or("") != "NoExecute")
      sink.error(at + ".tolerationSeconds", "TolerationSeconds", kPod, "tolerationSeconds needs effect NoExecute");
  }
}

}  // namespace

void validate_resources_late(const json::Value& resources, const std::string& path, const Sink& sink) {
  if (!resources.IsObject()) return;
  std::map<std::string, Quantity> parsed[2];
  const char* kinds[2] = {"requests", "limits"};
  for (int k = 0; k < 2; ++k) {
    const json::Value* map = object_at(resources, kinds[k]);
    if (!map) continue;
    for (auto it = map->MemberBegin(); it != map->MemberEnd(); ++it) {
      const std::string name = text(it->name);
      const std::string at = key_path(path + "." + kinds[k], name);
      ContainerResourceName(name, at, sink);
      if (!QuantityFormat(it->value, at, sink)) continue;
      Quantity q = *quantity_of(it->value);
      NonNegativeQuantity(q, at, sink);
      ExtendedResourceWhole(name, q, at, sink);
      parsed[k].emplace(name, q);
    }
  }
  for (const auto& [name, request] : parsed[0]) {
    const std::string at = key_path(path + ".requests", name);
    auto limit = parsed[1].find(name);
    ExtendedResourceLimitRequired(name, limit != parsed[1].end(), at, sink);
    if (limit == parsed[1].end()) continue;
    RequestsWithinLimits(name, request, limit->second, at, sink);
    ExtendedResourceRequestsEqualLimits(name, request, limit->second, at, sink);
  }
}

void validate_pod_spec_late(const json::Value& pod_spec, const std::string& path, const Sink& sink) {
  if (!pod_spec.IsObject()) return;
  UniqueContainerName(pod_spec, path, sink);
  Tolerations(pod_spec, path, sink);
  for (const char* list : kContainerLists) {
    const json::Value* containers = array_at(pod_spec, list);
    if (!containers) continue;
    for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
      const json::Value& c = (*containers)[i];
      if (!c.IsObject()) continue;
      const std::string at = index_path(key_path(path, list), i);
      DNS1123ContainerName(c, at, sink);
      IANASvcPortName(c, at, sink);
      EnvVarName(c, at, sink);
      if (const json::Value* res = object_at(c, "resources")) validate_resources_late(*res, at + ".resources", sink);
    }
  }
}

}  // namespace cfo::validation::rules
