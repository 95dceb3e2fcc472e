#pragma once
// Internal to cfo_validation: matching labels, node selectors and taints as the apimachinery label selectors, the
// scheduler's node affinity (component-helpers nodeaffinity) and taint toleration (component-helpers
// FindMatchingUntoleratedTaint / Toleration.ToleratesTaint) do, for the Kueue admissibility judgement.
#include <functional>
#include <map>
#include <string>

#include "core/json.hpp"

namespace cfo::validation::rules {

using Labels = std::map<std::string, std::string>;

/// A three-valued verdict: the answer may depend on labels that are not known.
enum class Match { kNo, kYes, kUnknown };

/// metav1.LabelSelectorAsSelector(selector).Matches(labels): a null or absent selector selects nothing, `{}`
/// everything; matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist) are ANDed. `known(key)` says
/// whether `labels` is authoritative for a key; a requirement on a key it is not gives kUnknown (unless another
/// requirement already fails). A malformed selector (the webhook rules report it) gives kUnknown.
Match label_selector_matches(const json::Value* selector, const Labels& labels,
                             const std::function<bool(const std::string&)>& known);

/// True when the node labels satisfy one NodeSelectorRequirement (In, NotIn, Exists, DoesNotExist, Gt, Lt).
bool node_requirement_matches(const json::Value& requirement, const Labels& node_labels);

/// True when `toleration` tolerates `taint` (effect, key and operator Exists/Equal; an unknown operator is taken as
/// tolerating, so no verdict rests on it).
bool tolerates(const json::Value& toleration, const json::Value& taint);

/// A string map member (labels, nodeSelector), non-string values left out.
Labels string_map(const json::Value* obj);

}  // namespace cfo::validation::rules
