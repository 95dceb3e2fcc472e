#pragma once
// Internal to the core/v1 Pod rules (core_pod_*.cpp): what the rule files share.
//
// The port follows kubernetes pkg/apis/core/validation/validation.go as read at the commit recorded in kSource
// (the stored snapshot of kubernetes/kubernetes; its feature set is that of the v1.33 release line). Every upstream
// function that holds a rule is one C++ function of the same name, and its name is the `rule` of the findings it
// reports. The Pod is judged as it is created from the template: after the apiserver's defaulting (so a field that
// defaulting always fills is never "required"), with the validation options of a create (no ratcheting).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/quantity.hpp"
#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules::pod {

/// The upstream source every core/v1 Pod finding names.
inline constexpr std::string_view kSource = "k8s:core/validation@000f2605 (v1.33)";
/// apimachinery helpers called by the core rules (label and selector grammars).
inline constexpr std::string_view kMetaSource = "k8s:apimachinery/meta/v1/validation";

/// Everything the rules of one Pod need besides the field they judge.
struct PodCtx {
  const json::Value& spec;  ///< the PodSpec
  const json::Value* meta;  ///< the template's metadata (nullptr when absent)
  std::string path;         ///< path of the PodSpec ("spec.headGroupSpec.template.spec")
  std::string meta_path;    ///< path of the template metadata
  const Sink& sink;
  /// Volumes by name (only the well-formed ones, as ValidateVolumes keeps them) -> the Volume object.
  std::map<std::string, const json::Value*> volumes;
  /// spec.resourceClaims names.
  std::set<std::string> claim_names;
  std::optional<int64_t> grace_period;  ///< terminationGracePeriodSeconds (defaulted to 30)
  std::string restart_policy;           ///< spec.restartPolicy, defaulted to Always
  bool host_users = true;               ///< spec.hostUsers, default true
  bool host_network = false;
  bool host_pid = false;
  bool host_ipc = false;
  int kubernetes_minor = 0;  ///< ClusterProfile::kubernetes_minor (0: unknown)
};

// ---- helpers (core_pod_rules.cpp) ------------------------------------------------------------------------------
std::string joined(const std::vector<std::string>& msgs);
/// A JSON integer (int64), or nullopt for anything else.
std::optional<int64_t> as_int(const json::Value* v);
/// The string member, "" when absent or not a string.
std::string str(const json::Value& obj, std::string_view key);
/// True when `obj` has a member `key` that is not null.
bool has(const json::Value& obj, std::string_view key);
/// The array member, or an empty static array.
const json::Value& arr(const json::Value& obj, std::string_view key);
/// Calls f(item, index, item_path) for each element of obj[key] (when an array).
template <class F>
void each(const json::Value& obj, std::string_view key, const std::string& path, F f) {
  const json::Value* a = array_at(obj, key);
  if (!a) return;
  for (rapidjson::SizeType i = 0; i < a->Size(); ++i) f((*a)[i], i, index_path(path, i));
}
/// A quantity written as a string or a JSON number.
std::optional<Quantity> quantity(const json::Value& v);

// Grammars of k8s.io/apimachinery/pkg/util/validation not in core/names.hpp (empty = valid).
std::vector<std::string> is_valid_port_name(std::string_view v);
std::vector<std::string> is_valid_port_num(int64_t v);
std::vector<std::string> is_env_var_name(std::string_view v);
std::vector<std::string> is_relaxed_env_var_name(std::string_view v);
std::vector<std::string> is_config_map_key(std::string_view v);
std::vector<std::string> is_http_header_name(std::string_view v);
std::vector<std::string> is_valid_ip(std::string_view v);
std::vector<std::string> is_dns1123_subdomain_with_underscore(std::string_view v);
/// NameIsDNSSubdomain(name, prefix): a prefix may end in '-'.
std::vector<std::string> name_is_dns_subdomain(std::string_view v, bool prefix);
bool valid_id(int64_t id);  ///< IsValidUserID / IsValidGroupID: 0..2147483647

/// core_pod_containers.cpp: the downward-API selectors (env vars and downwardAPI volumes).
void validateObjectFieldSelector(const json::Value& fs, bool for_volume, const std::string& path, const Sink& sink);
void validateContainerResourceFieldSelector(const json::Value& fs, bool for_volume, const std::string& path,
                                            const Sink& sink);
/// validateLocalDescendingPath's messages for `p` (a relative path without '..').
std::vector<std::string> local_descending_path(const std::string& p);

/// The Tolerations rule (scheduling file), also called for the tolerations annotation.
void ValidateTolerations(const json::Value& list, const std::string& path, const Sink& sink);
/// apimachinery ValidateLabelSelector, reported under kMetaSource.
void label_selector(const json::Value& sel, const std::string& path, const Sink& sink);

// ---- the rule files' entry points -------------------------------------------------------------------------------
/// core_pod_volumes.cpp: ValidateVolumes (fills ctx.volumes).
void ValidateVolumes(PodCtx& ctx);
/// core_pod_containers.cpp: containers, init containers, ephemeral containers and what they call.
void validate_all_containers(const PodCtx& ctx);
/// core_pod_resources.cpp: container ResourceRequirements (ValidateContainerResourceRequirements).
void ValidateContainerResourceRequirements(const json::Value& res, const std::string& path, const PodCtx* ctx,
                                           const Sink& sink);
/// core_pod_resources.cpp: pod-level resources, overhead, resource claims.
void validate_pod_level_resources(PodCtx& ctx);
/// core_pod_security.cpp: pod and container security contexts, OS-specific rules, host namespaces.
void validate_pod_security(const PodCtx& ctx);
void ValidateSecurityContext(const json::Value& sc, const std::string& path, const PodCtx& ctx);
/// core_pod_scheduling.cpp: affinity, tolerations, topology spread, scheduling and readiness gates, node selector.
void validate_pod_scheduling(const PodCtx& ctx);

}  // namespace cfo::validation::rules::pod
