// Kueue rules on the PodSets of the Workload Kueue builds for a job (kubernetes-sigs/kueue v0.19.2):
//   pkg/webhooks/workload_webhook.go validatePodSet / validateResourceList: the "pods" resource name is Kueue's own
//     (the Workload is refused when Kueue creates it, so the job is never admitted)
//   pkg/controller/jobframework/tas_validation.go ValidateTASPodSetRequest, ValidateSliceSizeAnnotationUpperBound,
//     ValidatePodSetGroupingTopology: the topology-aware scheduling annotations of each PodSet's template, which the
//     RayCluster and RayJob webhooks check when TopologyAwareScheduling is on (beta, on by default)
#include <charconv>
#include <map>
#include <set>

#include "core/names.hpp"
#include "validation/rules/kueue_pod_sets.hpp"
#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

namespace {

constexpr std::string_view kWorkloadWebhook = "kueue:workload webhook";
constexpr std::string_view kTAS = "kueue:ValidateTASPodSetRequest";

constexpr std::string_view kRequired = "kueue.x-k8s.io/podset-required-topology";
constexpr std::string_view kPreferred = "kueue.x-k8s.io/podset-preferred-topology";
constexpr std::string_view kUnconstrained = "kueue.x-k8s.io/podset-unconstrained-topology";
constexpr std::string_view kSliceRequired = "kueue.x-k8s.io/podset-slice-required-topology";
constexpr std::string_view kSliceSize = "kueue.x-k8s.io/podset-slice-size";
constexpr std::string_view kSliceConstraints = "kueue.x-k8s.io/podset-slice-required-topology-constraints";
constexpr std::string_view kGroupName = "kueue.x-k8s.io/podset-group-name";

std::string joined(const std::vector<std::string>& msgs) {
  std::string s;
  for (const auto& m : msgs) s += (s.empty() ? "" : "; ") + m;
  return s;
}

// Kueue workload webhook validateResourceList: "pods" is reserved for Kueue in every container's requests and limits
// and in the pod-level resources of a PodSet.
void PodsResourceReserved(const KueuePodSet& ps, const Sink& sink) {
  if (!ps.spec) return;
  const std::string sp = ps.template_path + ".spec";
  auto check = [&](const json::Value* resources, const std::string& at) {
    if (!resources) return;
    for (const char* kind : {"requests", "limits"})
      if (const json::Value* list = object_at(*resources, kind); list && member(*list, "pods"))
        sink.error(at + "." + kind + ".pods", "PodsResourceReserved", kWorkloadWebhook,
                   "the resource name \"pods\" is reserved for Kueue's own use, so Kueue cannot create the Workload");
  };
  for (const char* list : {"initContainers", "containers"})
    if (const json::Value* cs = array_at(*ps.spec, list))
      for (rapidjson::SizeType i = 0; i < cs->Size(); ++i)
        check(object_at((*cs)[i], "resources"), index_path(sp + "." + list, i) + ".resources");
  check(object_at(*ps.spec, "resources"), sp + ".resources");
}

std::optional<int64_t> as_int32(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < INT32_MIN || v > INT32_MAX) return std::nullopt;
  return v;
}

/// One `{"topology": ..., "size": ...}` entry of the multi-layer constraints annotation.
struct Layer {
  std::string topology;
  int64_t size = 0;
};

// Kueue ValidateTASPodSetRequest (+ validateTASUnconstrained, validateSliceSizeAnnotation,
// validatePodSetGroupNameAnnotation, validateSliceRequiredTopologyConstraintsAnnotation) and
// ValidateSliceSizeAnnotationUpperBound, on one PodSet's template annotations.
void TASPodSetRequest(const KueuePodSet& ps, const json::Value& tmpl, const Sink& sink) {
  const json::Value* meta = object_at(tmpl, "metadata");
  const json::Value* ann = meta ? object_at(*meta, "annotations") : nullptr;
  if (!ann) return;
  const std::string at = ps.template_path + ".metadata.annotations";
  auto get = [&](std::string_view key) { return string_at(*ann, key); };
  auto path = [&](std::string_view key) { return key_path(at, std::string(key)); };
  auto err = [&](const std::string& p, const std::string& why) { sink.error(p, "TASPodSetRequest", kTAS, why); };
  const auto required = get(kRequired), preferred = get(kPreferred), unconstrained = get(kUnconstrained);
  const auto slice_required = get(kSliceRequired), slice_size = get(kSliceSize), group = get(kGroupName);
  const auto constraints = get(kSliceConstraints);
  if (int(required.has_value()) + int(preferred.has_value()) + int(unconstrained.has_value()) > 1)
    err(at,
        "at most one of the podset-required-topology, podset-preferred-topology and "
        "podset-unconstrained-topology annotations may be set");
  for (auto [key, value] : {std::pair{kRequired, required}, {kPreferred, preferred}, {kSliceRequired, slice_required}})
    if (value)
      if (auto msgs = names::qualified_name(*value); !msgs.empty())
        err(path(key), "topology level " + dq(*value) + " is not a label name: " + joined(msgs));
  if (group) {
    if (!group->empty() && group->find_first_not_of("0123456789") == std::string::npos)
      err(path(kGroupName), "the group name must not be a number");
    if (slice_size) err(path(kGroupName), "may not be set together with podset-slice-size");
    if (slice_required) err(path(kGroupName), "may not be set together with podset-slice-required-topology");
    if (!required && !preferred) err(path(kGroupName), "needs podset-required-topology or podset-preferred-topology");
  }
  if (unconstrained && *unconstrained != "true" && *unconstrained != "false" && *unconstrained != "1" &&
      *unconstrained != "0" && *unconstrained != "t" && *unconstrained != "f" && *unconstrained != "TRUE" &&
      *unconstrained != "FALSE" && *unconstrained != "True" && *unconstrained != "False" && *unconstrained != "T" &&
      *unconstrained != "F")
    err(path(kUnconstrained), "must be a boolean, not " + dq(*unconstrained));
  if (slice_size) {
    auto n = as_int32(*slice_size);
    if (!n)
      err(path(kSliceSize), "must be a number, not " + dq(*slice_size));
    else if (*n < 1)
      err(path(kSliceSize), "must be at least 1");
    else if (*n > ps.count)
      err(path(kSliceSize), "must not be greater than the PodSet's " + std::to_string(ps.count) + " Pods");
  }
  if (slice_required && !slice_size) err(path(kSliceSize), "must be set when podset-slice-required-topology is");
  if (!slice_required && slice_size) err(path(kSliceSize), "may only be set with podset-slice-required-topology");
  if (!constraints) return;
  // The multi-layer form (TASMultiLayerTopology, beta and on by default): a JSON array of 1 to 3 layers.
  if (slice_required) err(path(kSliceConstraints), "may not be set together with podset-slice-required-topology");
  if (slice_size) err(path(kSliceConstraints), "may not be set together with podset-slice-size");
  if (group) err(path(kGroupName), "may not be set together with podset-slice-required-topology-constraints");
  auto parsed = json::parse(*constraints);
  std::vector<Layer> layers;
  bool shape_ok = parsed && parsed->IsArray();
  if (shape_ok)
    for (const auto& e : parsed->GetArray()) {
      if (!e.IsObject()) {
        shape_ok = false;
        break;
      }
      Layer l;
      l.topology = string_at(e, "topology").value_or("");
      l.size = int_at(e, "size").value_or(0);
      layers.push_back(l);
    }
  if (!shape_ok) {
    err(path(kSliceConstraints), "must be a JSON array of {\"topology\", \"size\"} objects");
    return;
  }
  if (layers.empty() || layers.size() > 3) {
    err(path(kSliceConstraints), "must hold 1 to 3 layers, not " + std::to_string(layers.size()));
    return;
  }
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string lp = index_path(path(kSliceConstraints), i);
    if (auto msgs = names::qualified_name(layers[i].topology); !msgs.empty())
      err(lp + ".topology", "topology " + dq(layers[i].topology) + " is not a label name: " + joined(msgs));
    if (layers[i].size < 1) err(lp + ".size", "must be at least 1");
    if (auto [it, fresh] = seen.emplace(layers[i].topology, i); !fresh)
      err(lp + ".topology", "topology " + dq(layers[i].topology) + " repeats layer " + std::to_string(it->second));
    if (i > 0 && layers[i].size > 0 && layers[i - 1].size % layers[i].size != 0)
      err(lp + ".size", "must evenly divide the size " + std::to_string(layers[i - 1].size) + " of the layer above");
  }
  if (layers[0].size > ps.count)
    err(path(kSliceConstraints),
        "the first layer's size must not be greater than the PodSet's " + std::to_string(ps.count) + " Pods");
}

// Kueue ValidatePodSetGroupingTopology: PodSets with the same podset-group-name come in pairs, one of them a single
// Pod, with the same required or preferred topology.
void PodSetGrouping(const std::vector<KueuePodSet>& sets, const std::vector<const json::Value*>& annotations,
                    const Sink& sink) {
  std::map<std::string, std::vector<std::size_t>> groups;
  std::vector<std::string> order;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (!annotations[i]) continue;
    auto g = string_at(*annotations[i], kGroupName);
    if (!g) continue;
    if (!groups.count(*g)) order.push_back(*g);
    groups[*g].push_back(i);
  }
  auto at = [&](std::size_t i) { return sets[i].template_path + ".metadata.annotations"; };
  for (const auto& name : order) {
    const auto& members = groups[name];
    if (members.size() != 2) {
      for (auto i : members)
        sink.error(key_path(at(i), std::string(kGroupName)), "TASPodSetRequest", kTAS,
                   "group " + dq(name) + " must hold exactly 2 PodSets, not " + std::to_string(members.size()));
      continue;
    }
    const std::size_t a = members[0], b = members[1];
    if (sets[a].count != 1 && sets[b].count != 1)
      for (auto i : members)
        sink.error(key_path(at(i), std::string(kGroupName)), "TASPodSetRequest", kTAS,
                   "in group " + dq(name) + " one of the two PodSets must be a single Pod");
    auto req = [&](std::size_t i) { return string_at(*annotations[i], kRequired); };
    auto pref = [&](std::size_t i) { return string_at(*annotations[i], kPreferred); };
    const bool ok = (req(a) || pref(a)) && (req(b) || pref(b)) && req(a) == req(b) && pref(a) == pref(b);
    if (!ok)
      for (auto i : members)
        sink.error(at(i), "TASPodSetRequest", kTAS,
                   "the PodSets of group " + dq(name) +
                       " need the same podset-required-topology or "
                       "podset-preferred-topology");
  }
}

}  // namespace

void validate_kueue_pod_sets(const Scope& scope, const json::Value& obj, const Sink& sink) {
  (void)scope;
  auto sets = kueue_pod_sets(obj);
  const bool queued = has_queue_label(obj);
  const std::string kind = string_at(obj, "kind").value_or("");
  const bool ray = kind == "RayCluster" || kind == "RayJob";
  std::vector<const json::Value*> annotations(sets.size(), nullptr);
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (queued) PodsResourceReserved(sets[i], sink);
    if (!ray || !sets[i].spec) continue;
    // The template holding the PodSpec: template_path names it relative to the job.
    const json::Value* tmpl = nullptr;
    const std::string& tp = sets[i].template_path;
    const json::Value* cur = &obj;
    std::size_t pos = 0;
    while (cur && pos < tp.size()) {
      auto dot = tp.find('.', pos);
      std::string step = tp.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
      pos = dot == std::string::npos ? tp.size() : dot + 1;
      std::optional<int64_t> idx;
      if (auto open = step.find('['); open != std::string::npos) {
        idx = parse_int(step.substr(open + 1, step.size() - open - 2));
        step = step.substr(0, open);
      }
      cur = member(*cur, step);
      if (cur && idx) cur = cur->IsArray() && *idx >= 0 && *idx < cur->Size() ? &(*cur)[*idx] : nullptr;
    }
    tmpl = cur;
    if (!tmpl || !tmpl->IsObject()) continue;
    TASPodSetRequest(sets[i], *tmpl, sink);
    const json::Value* meta = object_at(*tmpl, "metadata");
    annotations[i] = meta ? object_at(*meta, "annotations") : nullptr;
  }
  if (ray) PodSetGrouping(sets, annotations, sink);
}

}  // namespace cfo::validation::rules
