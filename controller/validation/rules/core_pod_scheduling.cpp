// core/v1 Pod validation, scheduling (kubernetes pkg/apis/core/validation/validation.go at 000f26050b9b, v1.33):
// spec.nodeSelector (ValidateLabels), validateAffinity (node affinity: ValidateNodeSelector,
// ValidateNodeSelectorTerm, ValidateNodeSelectorRequirement, ValidateNodeFieldSelectorRequirement,
// ValidatePreferredSchedulingTerms; pod affinity and anti-affinity: validatePodAffinityTerm,
// validateWeightedPodAffinityTerms, validateMatchLabelKeysAndMismatchLabelKeys), ValidateTolerations, and
// validateTopologySpreadConstraints with the functions it calls.
#include <algorithm>

#include "core/names.hpp"
#include "validation/rules/core_pod.hpp"
#include "validation/rules/rule_util.hpp"

namespace cfo::validation::rules::pod {

void label_selector(const json::Value& sel, const std::string& path, const Sink& sink) {
  validate_label_selector(sel, path, kMetaSource, sink);
}

// core/v1 ValidateTolerations: a key is a label name; an empty key goes with operator Exists; tolerationSeconds
// goes with effect NoExecute; Equal (or empty) takes a label value, Exists no value; other operators are refused;
// an effect is NoSchedule, PreferNoSchedule or NoExecute.
void ValidateTolerations(const json::Value& list, const std::string& path, const Sink& sink) {
  for (rapidjson::SizeType i = 0; list.IsArray() && i < list.Size(); ++i) {
    const json::Value& t = list[i];
    const std::string at = index_path(path, i);
    if (!t.IsObject()) continue;
    std::string key = str(t, "key"), op = str(t, "operator"), value = str(t, "value"), effect = str(t, "effect");
    if (!key.empty())
      if (auto msgs = names::qualified_name(key); !msgs.empty())
        sink.error(at + ".key", "ValidateTolerations", kSource,
                   "key " + dq(key) + " is not a label name: " + joined(msgs));
    if (key.empty() && op != "Exists")
      sink.error(at + ".operator", "ValidateTolerations", kSource,
                 "operator must be Exists when key is empty (which matches all keys and values)");
    if (has(t, "tolerationSeconds") && effect != "NoExecute")
      sink.error(at + ".effect", "ValidateTolerations", kSource,
                 "effect must be NoExecute when tolerationSeconds is set");
    if (op.empty() || op == "Equal") {
      if (auto msgs = names::label_value(value); !msgs.empty())
        sink.error(at + ".value", "ValidateTolerations", kSource, "value " + dq(value) + " " + joined(msgs));
    } else if (op == "Exists") {
      if (!value.empty())
        sink.error(at + ".value", "ValidateTolerations", kSource, "value must be empty when operator is Exists");
    } else {
      sink.error(at + ".operator", "ValidateTolerations", kSource, "operator " + dq(op) + " is not Equal or Exists");
    }
    if (!effect.empty() && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")
      sink.error(at + ".effect", "ValidateTolerations", kSource,
                 "effect " + dq(effect) + " is not one of NoSchedule, PreferNoSchedule, NoExecute");
  }
}

namespace {

// core/v1 ValidateNodeSelectorRequirement: In/NotIn need values, Exists/DoesNotExist take none, Gt/Lt take one; the
// key is a label name; values are label values unless `allow_invalid_values` (preferred terms).
void ValidateNodeSelectorRequirement(const json::Value& r, bool allow_invalid_values, const std::string& at,
                                     const Sink& sink) {
  std::string op = str(r, "operator");
  std::size_t n = arr(r, "values").Size();
  if (op == "In" || op == "NotIn") {
    if (n == 0)
      sink.error(at + ".values", "ValidateNodeSelectorRequirement", kSource, "values are required with " + op);
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (n > 0)
      sink.error(at + ".values", "ValidateNodeSelectorRequirement", kSource, "values may not be set with " + op);
  } else if (op == "Gt" || op == "Lt") {
    if (n != 1) sink.error(at + ".values", "ValidateNodeSelectorRequirement", kSource, op + " takes exactly one value");
  } else {
    sink.error(at + ".operator", "ValidateNodeSelectorRequirement", kSource,
               "operator " + dq(op) + " is not a selector operator");
  }
  if (auto msgs = names::qualified_name(str(r, "key")); !msgs.empty())
    sink.error(at + ".key", "ValidateNodeSelectorRequirement", kSource,
               "key " + dq(str(r, "key")) + " " + joined(msgs));
  if (allow_invalid_values) return;
  each(r, "values", at + ".values", [&](const json::Value& v, rapidjson::SizeType, const std::string& vp) {
    if (auto msgs = names::label_value(text(v)); !msgs.empty())
      sink.error(vp, "ValidateNodeSelectorRequirement", kSource, "value " + dq(text(v)) + " " + joined(msgs));
  });
}

// core/v1 ValidateNodeFieldSelectorRequirement: only metadata.name, with In or NotIn and one node-name value.
void ValidateNodeFieldSelectorRequirement(const json::Value& r, const std::string& at, const Sink& sink) {
  std::string op = str(r, "operator");
  if (op == "In" || op == "NotIn") {
    if (arr(r, "values").Size() != 1)
      sink.error(at + ".values", "ValidateNodeFieldSelectorRequirement", kSource,
                 "a field selector takes exactly one value");
  } else {
    sink.error(at + ".operator", "ValidateNodeFieldSelectorRequirement", kSource,
               "operator " + dq(op) + " is not In or NotIn for a node field selector");
  }
  if (str(r, "key") != "metadata.name") {
    sink.error(at + ".key", "ValidateNodeFieldSelectorRequirement", kSource,
               "key " + dq(str(r, "key")) + " is not a node field selector key (metadata.name)");
    return;
  }
  each(r, "values", at + ".values", [&](const json::Value& v, rapidjson::SizeType, const std::string& vp) {
    if (auto msgs = names::dns1123_subdomain(text(v)); !msgs.empty())
      sink.error(vp, "ValidateNodeFieldSelectorRequirement", kSource, "node name " + dq(text(v)) + " " + joined(msgs));
  });
}

void ValidateNodeSelectorTerm(const json::Value& term, bool allow_invalid_values, const std::string& at,
                              const Sink& sink) {
  each(term, "matchExpressions", at + ".matchExpressions",
       [&](const json::Value& r, rapidjson::SizeType, const std::string& rp) {
         ValidateNodeSelectorRequirement(r, allow_invalid_values, rp, sink);
       });
  each(term, "matchFields", at + ".matchFields", [&](const json::Value& r, rapidjson::SizeType, const std::string& rp) {
    ValidateNodeFieldSelectorRequirement(r, rp, sink);
  });
}

// core/v1 validateNodeAffinity (ValidateNodeSelector, ValidatePreferredSchedulingTerms): a required node selector
// has at least one term; preferred terms weigh 1..100.
void validateNodeAffinity(const json::Value& na, const std::string& at, const Sink& sink) {
  if (const json::Value* req = object_at(na, "requiredDuringSchedulingIgnoredDuringExecution")) {
    const std::string rp = at + ".requiredDuringSchedulingIgnoredDuringExecution";
    if (arr(*req, "nodeSelectorTerms").Empty())
      sink.error(rp + ".nodeSelectorTerms", "ValidateNodeSelector", kSource,
                 "at least one node selector term is required");
    each(*req, "nodeSelectorTerms", rp + ".nodeSelectorTerms",
         [&](const json::Value& t, rapidjson::SizeType, const std::string& tp) {
           ValidateNodeSelectorTerm(t, false, tp, sink);
         });
  }
  each(na, "preferredDuringSchedulingIgnoredDuringExecution", at + ".preferredDuringSchedulingIgnoredDuringExecution",
       [&](const json::Value& t, rapidjson::SizeType, const std::string& tp) {
         auto w = as_int(member(t, "weight")).value_or(0);
         if (w <= 0 || w > 100)
           sink.error(tp + ".weight", "ValidatePreferredSchedulingTerms", kSource, "weight must be in the range 1-100");
         if (const json::Value* pref = object_at(t, "preference"))
           ValidateNodeSelectorTerm(*pref, true, tp + ".preference", sink);
       });
}

/// Keys of a label selector (matchLabels and matchExpressions).
std::set<std::string> selector_keys(const json::Value* sel) {
  std::set<std::string> keys;
  if (!sel) return keys;
  if (const json::Value* ml = object_at(*sel, "matchLabels"))
    for (auto it = ml->MemberBegin(); it != ml->MemberEnd(); ++it) keys.insert(text(it->name));
  for (const auto& e : arr(*sel, "matchExpressions").GetArray()) keys.insert(str(e, "key"));
  return keys;
}

// core/v1 validateMatchLabelKeysAndMismatchLabelKeys: label-name keys, only with a labelSelector, not in both lists,
// and matchLabelKeys not also a labelSelector key.
void validateMatchLabelKeysAndMismatchLabelKeys(const json::Value& term, const std::string& at, const Sink& sink) {
  const json::Value* sel = object_at(term, "labelSelector");
  std::set<std::string> mismatch;
  for (const char* f : {"matchLabelKeys", "mismatchLabelKeys"}) {
    const json::Value& keys = arr(term, f);
    if (keys.Empty()) continue;
    if (!sel) {
      sink.error(at + "." + f, "validateMatchLabelKeysAndMismatchLabelKeys", kSource,
                 std::string(f) + " may not be set without a labelSelector");
      continue;
    }
    each(term, f, at + "." + f, [&](const json::Value& k, rapidjson::SizeType, const std::string& kp) {
      if (auto msgs = names::qualified_name(text(k)); !msgs.empty())
        sink.error(kp, "validateMatchLabelKeysAndMismatchLabelKeys", kSource,
                   "key " + dq(text(k)) + " " + joined(msgs));
      if (std::string_view(f) == "mismatchLabelKeys") mismatch.insert(text(k));
    });
  }
  if (sel) {
    std::set<std::string> sel_keys = selector_keys(sel);
    each(term, "matchLabelKeys", at + ".matchLabelKeys",
         [&](const json::Value& k, rapidjson::SizeType, const std::string& kp) {
           if (sel_keys.contains(text(k)))
             sink.error(kp, "validateMatchLabelKeysAndMismatchLabelKeys", kSource,
                        "key " + dq(text(k)) + " is in both matchLabelKeys and labelSelector");
         });
  }
  for (const auto& k : arr(term, "mismatchLabelKeys").GetArray()) mismatch.insert(text(k));
  each(term, "matchLabelKeys", at + ".matchLabelKeys",
       [&](const json::Value& k, rapidjson::SizeType, const std::string& kp) {
         if (mismatch.contains(text(k)))
           sink.error(kp, "validateMatchLabelKeysAndMismatchLabelKeys", kSource,
                      "key " + dq(text(k)) + " is in both matchLabelKeys and mismatchLabelKeys");
       });
}

// core/v1 validatePodAffinityTerm: valid label and namespace selectors, DNS-1123 label namespaces, match/mismatch
// label keys, and a topologyKey that is a label name.
void validatePodAffinityTerm(const json::Value& term, const std::string& at, const Sink& sink) {
  for (const char* f : {"labelSelector", "namespaceSelector"})
    if (const json::Value* sel = object_at(term, f)) label_selector(*sel, at + "." + f, sink);
  each(term, "namespaces", at + ".namespaces", [&](const json::Value& n, rapidjson::SizeType, const std::string& np) {
    if (auto msgs = names::dns1123_label(text(n)); !msgs.empty())
      sink.error(np, "validatePodAffinityTerm", kSource, "namespace " + dq(text(n)) + " " + joined(msgs));
  });
  validateMatchLabelKeysAndMismatchLabelKeys(term, at, sink);
  std::string tk = str(term, "topologyKey");
  if (tk.empty())
    sink.error(at + ".topologyKey", "validatePodAffinityTerm", kSource, "topologyKey can not be empty");
  else if (auto msgs = names::qualified_name(tk); !msgs.empty())
    sink.error(at + ".topologyKey", "validatePodAffinityTerm", kSource, "topologyKey " + dq(tk) + " " + joined(msgs));
}

// core/v1 validatePodAffinity / validatePodAntiAffinity (validatePodAffinityTerms, validateWeightedPodAffinityTerms):
// required terms, and preferred terms that weigh 1..100.
void validatePodAffinity(const json::Value& pa, const std::string& at, const Sink& sink) {
  each(pa, "requiredDuringSchedulingIgnoredDuringExecution", at + ".requiredDuringSchedulingIgnoredDuringExecution",
       [&](const json::Value& t, rapidjson::SizeType, const std::string& tp) { validatePodAffinityTerm(t, tp, sink); });
  each(pa, "preferredDuringSchedulingIgnoredDuringExecution", at + ".preferredDuringSchedulingIgnoredDuringExecution",
       [&](const json::Value& t, rapidjson::SizeType, const std::string& tp) {
         auto w = as_int(member(t, "weight")).value_or(0);
         if (w <= 0 || w > 100)
           sink.error(tp + ".weight", "validateWeightedPodAffinityTerms", kSource, "weight must be in the range 1-100");
         if (const json::Value* term = object_at(t, "podAffinityTerm"))
           validatePodAffinityTerm(*term, tp + ".podAffinityTerm", sink);
         else
           sink.error(tp + ".podAffinityTerm.topologyKey", "validatePodAffinityTerm", kSource,
                      "topologyKey can not be empty");
       });
}

// core/v1 validateTopologySpreadConstraints (ValidateMaxSkew, ValidateTopologyKey, ValidateWhenUnsatisfiable,
// ValidateSpreadConstraintNotRepeat, validateMinDomains, validateNodeInclusionPolicy,
// validateMatchLabelKeysInTopologySpread): a positive maxSkew, a topologyKey, DoNotSchedule or ScheduleAnyway, no
// repeated {topologyKey, whenUnsatisfiable}, a positive minDomains only with DoNotSchedule, Honor/Ignore policies,
// matchLabelKeys only with a labelSelector and not among its keys, and a valid labelSelector.
void validateTopologySpreadConstraints(const PodCtx& ctx) {
  const json::Value& list = arr(ctx.spec, "topologySpreadConstraints");
  each(ctx.spec, "topologySpreadConstraints", ctx.path + ".topologySpreadConstraints",
       [&](const json::Value& c, rapidjson::SizeType i, const std::string& at) {
         const Sink& sink = ctx.sink;
         if (as_int(member(c, "maxSkew")).value_or(0) <= 0)
           sink.error(at + ".maxSkew", "ValidateMaxSkew", kSource, "maxSkew must be greater than zero");
         std::string tk = str(c, "topologyKey"), wu = str(c, "whenUnsatisfiable");
         if (tk.empty())
           sink.error(at + ".topologyKey", "ValidateTopologyKey", kSource, "topologyKey can not be empty");
         if (wu != "DoNotSchedule" && wu != "ScheduleAnyway")
           sink.error(at + ".whenUnsatisfiable", "ValidateWhenUnsatisfiable", kSource,
                      "whenUnsatisfiable " + dq(wu) + " is not DoNotSchedule or ScheduleAnyway");
         for (rapidjson::SizeType j = i + 1; j < list.Size(); ++j)
           if (str(list[j], "topologyKey") == tk && str(list[j], "whenUnsatisfiable") == wu) {
             sink.error(at, "ValidateSpreadConstraintNotRepeat", kSource,
                        "{" + tk + ", " + wu + "} is repeated by topologySpreadConstraints[" + std::to_string(j) + "]");
             break;
           }
         if (const json::Value* md = member(c, "minDomains"); md && !md->IsNull()) {
           if (as_int(md).value_or(0) <= 0)
             sink.error(at + ".minDomains", "validateMinDomains", kSource, "minDomains must be greater than zero");
           if (wu != "DoNotSchedule")
             sink.error(at + ".minDomains", "validateMinDomains", kSource,
                        "minDomains needs whenUnsatisfiable DoNotSchedule");
         }
         for (const char* f : {"nodeAffinityPolicy", "nodeTaintsPolicy"})
           if (auto p = string_at(c, f); p && *p != "Honor" && *p != "Ignore")
             sink.error(at + "." + f, "validateNodeInclusionPolicy", kSource, dq(*p) + " is not Honor or Ignore");
         const json::Value* sel = object_at(c, "labelSelector");
         const json::Value& keys = arr(c, "matchLabelKeys");
         if (!keys.Empty()) {
           if (!sel)
             sink.error(at + ".matchLabelKeys", "validateMatchLabelKeysInTopologySpread", kSource,
                        "matchLabelKeys may not be set without a labelSelector");
           std::set<std::string> sel_keys = selector_keys(sel);
           each(c, "matchLabelKeys", at + ".matchLabelKeys",
                [&](const json::Value& k, rapidjson::SizeType, const std::string& kp) {
                  if (auto msgs = names::qualified_name(text(k)); !msgs.empty())
                    sink.error(kp, "validateMatchLabelKeysInTopologySpread", kSource,
                               "key " + dq(text(k)) + " " + joined(msgs));
                  if (sel_keys.contains(text(k)))
                    sink.error(kp, "validateMatchLabelKeysInTopologySpread", kSource,
                               "key " + dq(text(k)) + " is in both matchLabelKeys and labelSelector");
                });
         }
         if (sel) label_selector(*sel, at + ".labelSelector", sink);
       });
}

}  // namespace

void validate_pod_scheduling(const PodCtx& ctx) {
  if (const json::Value* ns = object_at(ctx.spec, "nodeSelector"))
    validate_label_map(*ns, ctx.path + ".nodeSelector", kMetaSource, ctx.sink);
  if (const json::Value* aff = object_at(ctx.spec, "affinity")) {
    const std::string at = ctx.path + ".affinity";
    if (const json::Value* na = object_at(*aff, "nodeAffinity"))
      validateNodeAffinity(*na, at + ".nodeAffinity", ctx.sink);
    if (const json::Value* pa = object_at(*aff, "podAffinity")) validatePodAffinity(*pa, at + ".podAffinity", ctx.sink);
    if (const json::Value* pa = object_at(*aff, "podAntiAffinity"))
      validatePodAffinity(*pa, at + ".podAntiAffinity", ctx.sink);
  }
  if (const json::Value* t = array_at(ctx.spec, "tolerations"))
    ValidateTolerations(*t, ctx.path + ".tolerations", ctx.sink);
  validateTopologySpreadConstraints(ctx);
}

}  // namespace cfo::validation::rules::pod
