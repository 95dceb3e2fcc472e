// core/v1 Pod validation, resources (kubernetes pkg/apis/core/validation/validation.go at 000f26050b9b, v1.33):
// ValidateContainerResourceRequirements / validateResourceRequirements and the rules they call
// (validateContainerResourceName, ValidateResourceQuantityValue, validateResourceQuantityHugePageValue,
// validateResourceClaimNames), pod-level resources (validatePodResources, validatePodResourceName,
// validatePodResourceConsistency; the PodLevelResources gate is treated as on, as in current Kubernetes),
// validateOverhead, and validatePodResourceClaims. Requests missing next to a limit are defaulted to it first, as
// the apiserver does on create.
#include <map>

#include "core/names.hpp"
#include "validation/rules/core_pod.hpp"
#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules::pod {

namespace {

// Resource-name classes of pkg/apis/core/helper.
bool is_native(std::string_view n) {
  return n.find('/') == std::string_view::npos || n.find("kubernetes.io/") != std::string_view::npos;
}
bool is_hugepages(std::string_view n) { return n.starts_with("hugepages-"); }
bool is_extended(std::string_view n) {
  return !is_native(n) && !n.starts_with("requests.") && names::qualified_name("requests." + std::string(n)).empty();
}
bool overcommit_allowed(std::string_view n) { return is_native(n) && !is_hugepages(n); }
bool is_standard_container_resource(std::string_view n) {
  return n == "cpu" || n == "memory" || n == "ephemeral-storage" || is_hugepages(n);
}

// core/v1 validateContainerResourceName: a qualified name; unprefixed names are cpu, memory, ephemeral-storage or
// hugepages-<size>; prefixed ones outside kubernetes.io follow the extended-resource grammar.
bool validateContainerResourceName(const std::string& name, const std::string& path, const Sink& sink) {
  if (auto msgs = names::qualified_name(name); !msgs.empty()) {
    sink.error(path, "validateContainerResourceName", kSource,
               "resource name " + dq(name) + " is not a qualified name: " + joined(msgs));
    return false;
  }
  if (name.find('/') == std::string::npos) {
    if (!is_standard_container_resource(name)) {
      sink.error(path, "validateContainerResourceName", kSource,
                 "resource " + dq(name) + " is not a container resource (cpu, memory, ephemeral-storage, hugepages-*)");
      return false;
    }
  } else if (!is_native(name) && !is_extended(name)) {
    sink.error(path, "validateContainerResourceName", kSource,
               "resource " + dq(name) + " does not follow the extended resource name standard");
    return false;
  }
  return true;
}

// core/v1 validatePodResourceName: pod-level resources are cpu or memory.
bool validatePodResourceName(const std::string& name, const std::string& path, const Sink& sink) {
  if (name == "cpu" || name == "memory") return true;
  sink.error(path, "validatePodResourceName", kSource,
             "resource " + dq(name) + " is not supported at pod level (cpu, memory)");
  return false;
}

// Quantity.UnmarshalJSON: a quantity the apiserver cannot parse makes the Pod undecodable.
std::optional<Quantity> ParseQuantity(const json::Value& v, const std::string& path, const Sink& sink) {
  if (auto q = quantity(v)) return q;
  sink.error(path, "ParseQuantity", kSource, "value " + brief(v) + " is not a quantity (e.g. 500m, 2, 8Gi, 8G)");
  return std::nullopt;
}

// core/v1 ValidateResourceQuantityValue: not negative, and a whole number for extended (integer) resources.
void ValidateResourceQuantityValue(const std::string& name, const Quantity& q, const std::string& path,
                                   const Sink& sink) {
  if (q.nanos() < 0)
    sink.error(path, "ValidateResourceQuantityValue", kSource, "quantity " + dq(q.text()) + " must not be negative");
  else if (is_extended(name) && !q.is_integer())
    sink.error(path, "ValidateResourceQuantityValue", kSource,
               "extended resource " + dq(name) + " must be a whole number, found " + dq(q.text()));
}

/// The page size of hugepages-<size>, or nullopt when <size> is no quantity.
std::optional<Quantity> page_size(const std::string& name) {
  auto q = Quantity::parse(name.substr(std::string_view("hugepages-").size()));
  if (!q || q->nanos() <= 0) return std::nullopt;
  return *q;
}

// core/v1 validateResourceQuantityHugePageValue: a huge-page quantity is a whole multiple of its page size.
void validateResourceQuantityHugePageValue(const std::string& name, const Quantity& q, const std::string& path,
                                           const Sink& sink) {
  if (!is_hugepages(name)) return;
  auto size = page_size(name);
  if (!size || q.nanos() % size->nanos() != 0)
    sink.error(path, "validateResourceQuantityHugePageValue", kSource,
               dq(q.text()) + " is not a whole multiple of the page size of " + dq(name));
}

// core/v1 validateResourceClaimNames: each claim has a name that is in spec.resourceClaims, is referenced once, and
// an optional request that is a DNS-1123 label.
void validateResourceClaimNames(const json::Value& res, const std::string& path, const PodCtx* ctx, const Sink& sink) {
  std::set<std::string> seen;
  each(res, "claims", path + ".claims", [&](const json::Value& c, rapidjson::SizeType, const std::string& at) {
    std::string name = str(c, "name"), request = str(c, "request");
    if (name.empty()) {
      sink.error(at, "validateResourceClaimNames", kSource, "a claim needs a name");
      return;
    }
    if (!request.empty())
      if (auto msgs = names::dns1123_label(request); !msgs.empty())
        sink.error(at + ".request", "validateResourceClaimNames", kSource,
                   "request " + dq(request) + " " + joined(msgs));
    std::string key = request.empty() ? name : name + "/" + request;
    bool dup = seen.contains(name) || seen.contains(key);
    if (request.empty())
      for (const auto& k : seen) dup = dup || k.starts_with(name + "/");
    if (dup) sink.error(at, "validateResourceClaimNames", kSource, "claim " + dq(key) + " is referenced twice");
    seen.insert(key);
    if (ctx && !ctx->claim_names.contains(name))
      sink.error(at, "validateResourceClaimNames", kSource,
                 "claim " + dq(name) + " is not one of the Pod's spec.resourceClaims");
  });
}

using ResourceMap = std::map<std::string, Quantity>;

// core/v1 validateResourceRequirements: names and quantities of requests and limits; a request within its limit,
// equal to it for resources that cannot be overcommitted (extended resources, huge pages), which also need a
// limit; huge pages only next to cpu or memory.
void validateResourceRequirements(const json::Value& res, const std::string& path, bool pod_level, const PodCtx* ctx,
                                  const Sink& sink, ResourceMap* requests_out = nullptr,
                                  ResourceMap* limits_out = nullptr) {
  ResourceMap parsed[2];
  bool cpu_mem = false, huge = false;
  const char* kinds[2] = {"limits", "requests"};
  for (int k = 0; k < 2; ++k) {
    const json::Value* m = object_at(res, kinds[k]);
    if (!m) continue;
    for (auto it = m->MemberBegin(); it != m->MemberEnd(); ++it) {
      const std::string name = text(it->name);
      const std::string at = key_path(path + "." + kinds[k], name);
      if (pod_level)
        validatePodResourceName(name, at, sink);
      else
        validateContainerResourceName(name, at, sink);
      auto q = ParseQuantity(it->value, at, sink);
      if (!q) continue;
      ValidateResourceQuantityValue(name, *q, at, sink);
      validateResourceQuantityHugePageValue(name, *q, at, sink);
      cpu_mem = cpu_mem || name == "cpu" || name == "memory";
      huge = huge || is_hugepages(name);
      parsed[k].emplace(name, *q);
    }
  }
  const ResourceMap& limits = parsed[0];
  const ResourceMap& requests = parsed[1];
  for (const auto& [name, request] : requests) {
    const std::string at = key_path(path + ".requests", name);
    auto lim = limits.find(name);
    if (lim == limits.end()) {
      if (!overcommit_allowed(name))  // the missing limit is the field at fault
        sink.error(key_path(path + ".limits", name), "validateResourceRequirements", kSource,
                   dq(name) + " cannot be overcommitted, so it needs a limit next to its request");
      continue;
    }
    if (!overcommit_allowed(name) && request != lim->second)
      sink.error(at, "validateResourceRequirements", kSource,
                 dq(name) + " cannot be overcommitted: request " + dq(request.text()) + " must equal limit " +
                     dq(lim->second.text()));
    else if (request > lim->second)
      sink.error(at, "validateResourceRequirements", kSource,
                 "request " + dq(request.text()) + " for " + dq(name) + " exceeds its limit " + dq(lim->second.text()));
  }
  if (huge && !cpu_mem)
    sink.error(path, "validateResourceRequirements", kSource, "huge pages need a cpu or memory request or limit");
  if (!pod_level) validateResourceClaimNames(res, path, ctx, sink);
  if (requests_out) {
    *requests_out = requests;
    for (const auto& [n, q] : limits) requests_out->emplace(n, q);  // requests default to limits
  }
  if (limits_out) *limits_out = limits;
}

/// Effective requests of a container (requests, defaulted from limits), quietly (no findings).
ResourceMap effective_requests(const json::Value& c) {
  ResourceMap out;
  const json::Value* res = object_at(c, "resources");
  if (!res) return out;
  for (const char* k : {"requests", "limits"})
    if (const json::Value* m = object_at(*res, k))
      for (auto it = m->MemberBegin(); it != m->MemberEnd(); ++it)
        if (auto q = quantity(it->value)) out.emplace(text(it->name), *q);
  return out;
}

void add(ResourceMap& into, const ResourceMap& from) {
  for (const auto& [n, q] : from) {
    auto it = into.find(n);
    if (it == into.end()) {
      into.emplace(n, q);
    } else {
      auto sum =
          Quantity::parse(std::to_string(static_cast<long long>((it->second.nanos() + q.nanos()) / 1000000)) + "m");
      if (sum) it->second = *sum;
    }
  }
}

// core/v1 validatePodResourceConsistency: pod-level requests cover the containers' aggregate requests, and no
// container limit exceeds the pod-level limit.
void validatePodResourceConsistency(const PodCtx& ctx, const ResourceMap& pod_requests, const ResourceMap& pod_limits,
                                    const std::string& path) {
  ResourceMap regular, sidecars, init_max;
  for (const auto& c : arr(ctx.spec, "containers").GetArray()) add(regular, effective_requests(c));
  for (const auto& c : arr(ctx.spec, "initContainers").GetArray()) {
    ResourceMap r = effective_requests(c);
    if (str(c, "restartPolicy") == "Always") {
      add(sidecars, r);
      continue;
    }
    ResourceMap with = sidecars;
    add(with, r);
    for (const auto& [n, q] : with) {
      auto it = init_max.find(n);
      if (it == init_max.end() || it->second < q) init_max.insert_or_assign(n, q);
    }
  }
  ResourceMap total = regular;
  add(total, sidecars);
  for (const auto& [n, q] : init_max) {
    auto it = total.find(n);
    if (it == total.end() || it->second < q) total.insert_or_assign(n, q);
  }
  for (const auto& [n, agg] : total) {
    if (n != "cpu" && n != "memory") continue;
    // Only resources the pod level names are compared: for the others the containers' values stand.
    auto it = pod_requests.find(n);
    if (it == pod_requests.end()) continue;
    if (agg.nanos() > it->second.nanos())
      ctx.sink.error(key_path(path + ".requests", n), "validatePodResourceConsistency", kSource,
                     "the pod-level " + n + " request must cover the containers' aggregate request " + dq(agg.text()));
  }
  each(ctx.spec, "containers", ctx.path + ".containers",
       [&](const json::Value& c, rapidjson::SizeType, const std::string& cp) {
         const json::Value* res = object_at(c, "resources");
         const json::Value* lim = res ? object_at(*res, "limits") : nullptr;
         if (!lim) return;
         for (auto it = lim->MemberBegin(); it != lim->MemberEnd(); ++it) {
           auto pl = pod_limits.find(text(it->name));
           auto q = quantity(it->value);
           if (pl != pod_limits.end() && q && *q > pl->second)
             ctx.sink.error(
                 key_path(cp + ".resources.limits", text(it->name)), "validatePodResourceConsistency", kSource,
                 "the container limit " + dq(q->text()) + " exceeds the pod-level limit " + dq(pl->second.text()));
         }
       });
}

// core/v1 validatePodResources: pod-level resources take no claims, then follow the requirement and consistency
// rules.
void validatePodResources(const PodCtx& ctx) {
  const json::Value* res = object_at(ctx.spec, "resources");
  if (!res) return;
  const std::string at = ctx.path + ".resources";
  if (has(*res, "claims"))
    ctx.sink.error(at + ".claims", "validatePodResources", kSource, "claims cannot be set at pod level");
  ResourceMap requests, limits;
  validateResourceRequirements(*res, at, true, &ctx, ctx.sink, &requests, &limits);
  validatePodResourceConsistency(ctx, requests, limits, at);
}

// core/v1 validateOverhead: overhead quantities follow the container limit rules.
void validateOverhead(const PodCtx& ctx) {
  const json::Value* o = object_at(ctx.spec, "overhead");
  if (!o) return;
  for (auto it = o->MemberBegin(); it != o->MemberEnd(); ++it) {
    const std::string name = text(it->name);
    const std::string at = key_path(ctx.path + ".overhead", name);
    validateContainerResourceName(name, at, ctx.sink);
    if (auto q = ParseQuantity(it->value, at, ctx.sink)) {
      ValidateResourceQuantityValue(name, *q, at, ctx.sink);
      validateResourceQuantityHugePageValue(name, *q, at, ctx.sink);
    }
  }
}

// core/v1 validatePodResourceClaims / validatePodResourceClaim: each claim has a unique DNS-1123 label name and
// exactly one of resourceClaimName and resourceClaimTemplateName, a DNS-1123 subdomain.
void validatePodResourceClaims(PodCtx& ctx) {
  std::set<std::string> seen;
  each(ctx.spec, "resourceClaims", ctx.path + ".resourceClaims",
       [&](const json::Value& c, rapidjson::SizeType, const std::string& at) {
         std::string name = str(c, "name");
         if (name.empty())
           ctx.sink.error(at + ".name", "validatePodResourceClaim", kSource, "a resource claim needs a name");
         else if (!seen.insert(name).second)
           ctx.sink.error(at + ".name", "validatePodResourceClaim", kSource,
                          "claim name " + dq(name) + " is used twice");
         else if (auto msgs = names::dns1123_label(name); !msgs.empty())
           ctx.sink.error(at + ".name", "validatePodResourceClaim", kSource,
                          "claim name " + dq(name) + " " + joined(msgs));
         if (!name.empty()) ctx.claim_names.insert(name);
         bool by_name = has(c, "resourceClaimName"), by_template = has(c, "resourceClaimTemplateName");
         if (by_name == by_template)
           ctx.sink.error(at, "validatePodResourceClaim", kSource,
                          "set exactly one of resourceClaimName and resourceClaimTemplateName");
         for (const char* f : {"resourceClaimName", "resourceClaimTemplateName"})
           if (has(c, f))
             if (auto msgs = names::dns1123_subdomain(str(c, f)); !msgs.empty())
               ctx.sink.error(at + "." + f, "validatePodResourceClaim", kSource,
                              std::string(f) + " " + dq(str(c, f)) + " " + joined(msgs));
       });
}

}  // namespace

void ValidateContainerResourceRequirements(const json::Value& res, const std::string& path, const PodCtx* ctx,
                                           const Sink& sink) {
  validateResourceRequirements(res, path, false, ctx, sink);
}

void validate_pod_level_resources(PodCtx& ctx) {
  validatePodResourceClaims(ctx);
  validatePodResources(ctx);
  validateOverhead(ctx);
}

}  // namespace cfo::validation::rules::pod
