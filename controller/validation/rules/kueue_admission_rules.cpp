// Kueue admissibility (kubernetes-sigs/kueue v0.19.2): can a queued job ever be admitted by the LocalQueue it names?
//   pkg/workload/resources.go                      ValidateAdmissibility (the ClusterQueue's namespaceSelector)
//   pkg/scheduler/flavorassigner/flavorassigner.go  findFlavorForPodSets (a resource group covers each request),
//                                                  checkFlavorForPodSets (taints, node labels), fitsResourceQuota
//                                                  (the request within the flavor's maximum capacity)
//   pkg/cache/scheduler/resource_node.go           potentialAvailable (nominal quota, what the cohort tree can lend,
//                                                  lendingLimit and borrowingLimit)
// Usage is left out: only what no state of the cluster could ever admit is reported. Where Kueue is greedy (the
// first flavor that fits), this judge searches every assignment of flavors to PodSets, so a workload Kueue could
// admit under some usage is never called inadmissible.
#include <algorithm>
#include <climits>
#include <map>
#include <set>

#include "core/quantity.hpp"
#include "validation/admissibility.hpp"
#include "validation/rules/kueue_pod_sets.hpp"
#include "validation/rules/node_matching.hpp"
#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation {

namespace {

using rules::array_at;
using rules::dq;
using rules::KueuePodSet;
using rules::Labels;
using rules::Match;
using rules::object_at;
using rules::Sink;
using rules::string_at;

constexpr std::string_view kAdmissibility = "kueue:ValidateAdmissibility";
constexpr std::string_view kFlavorAssigner = "kueue:flavorassigner";
constexpr int64_t kInf = INT64_MAX;
constexpr std::size_t kSearchBudget = 200000;

int64_t sat_add(int64_t a, int64_t b) { return (a == kInf || b == kInf || a > kInf - b) ? kInf : a + b; }
int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a == kInf || b == kInf || a > kInf / b) return kInf;
  return a * b;
}

/// `group_prefix` is "kueue.x-k8s.io/" (any version) or "v1" (the core group's only version).
bool is_kind(const json::Value* o, std::string_view group_prefix, std::string_view kind) {
  if (!o || !o->IsObject() || string_at(*o, "kind") != kind) return false;
  const std::string av = string_at(*o, "apiVersion").value_or("");
  return group_prefix == "v1" ? av == "v1" : av.starts_with(group_prefix);
}

std::string meta_string(const json::Value& o, std::string_view key) {
  const json::Value* meta = object_at(o, "metadata");
  return meta ? string_at(*meta, key).value_or("") : "";
}

// An amount as a quantity a person reads: cpu is held in millicores ("1500m", "2"), every other resource in whole
// units (memory in bytes: "8Gi", "12G", "1234567").
std::string amount_text(std::string_view resource, int64_t v) {
  if (v == kInf) return "unlimited";
  const __int128 nanos = static_cast<__int128>(v) * (resource == "cpu" ? 1'000'000 : 1'000'000'000);
  return Quantity::format_nanos(nanos);
}

// ---- quotas and the cohort tree (resource_node.go) ----------------------------------------------------------------

struct Quota {
  int64_t nominal = 0;
  std::optional<int64_t> borrowing, lending;
};
using FlavorResource = std::pair<std::string, std::string>;

/// A ClusterQueue or a Cohort: its own quotas and its parent cohort.
struct Node {
  std::map<FlavorResource, Quota> quotas;
  std::string parent;
};

std::optional<int64_t> quantity_value(const json::Value& obj, std::string_view key, const std::string& resource) {
  const json::Value* v = rules::member(obj, key);
  if (!v || (!v->IsString() && !v->IsNumber())) return std::nullopt;
  auto q = Quantity::parse(v->IsString() ? rules::text(*v) : json::dump(*v));
  if (!q) return std::nullopt;
  return std::max<int64_t>(0, rules::kueue_value(resource, *q));
}

Node node_of(const json::Value& obj, std::string_view parent_field, std::string_view old_parent_field) {
  Node n;
  const json::Value* spec = object_at(obj, "spec");
  if (!spec) return n;
  n.parent = string_at(*spec, parent_field).value_or("");
  if (n.parent.empty()) n.parent = string_at(*spec, old_parent_field).value_or("");
  if (const json::Value* groups = array_at(*spec, "resourceGroups"))
    for (const auto& g : groups->GetArray())
      if (const json::Value* flavors = array_at(g, "flavors"))
        for (const auto& f : flavors->GetArray()) {
          const std::string fname = string_at(f, "name").value_or("");
          if (const json::Value* res = array_at(f, "resources"))
            for (const auto& r : res->GetArray()) {
              const std::string rname = string_at(r, "name").value_or("");
              Quota q;
              q.nominal = quantity_value(r, "nominalQuota", rname).value_or(0);
              q.borrowing = quantity_value(r, "borrowingLimit", rname);
              q.lending = quantity_value(r, "lendingLimit", rname);
              n.quotas[{fname, rname}] = q;
            }
        }
  return n;
}

/// The cohort forest of the known ClusterQueues and Cohorts, for potentialAvailable.
class Capacity {
 public:
  Capacity(const QueueObjects& q) : cohorts_known_(q.cohorts_known) {
    for (const json::Value* cq : q.cluster_queues())
      if (is_kind(cq, "kueue.x-k8s.io/", "ClusterQueue")) {
        Node n = node_of(*cq, "cohortName", "cohort");
        const std::string name = "cq/" + meta_string(*cq, "name");
        if (!n.parent.empty()) children_["cohort/" + n.parent].push_back(name);
        nodes_[name] = std::move(n);
      }
    for (const json::Value* c : q.cohorts())
      if (is_kind(c, "kueue.x-k8s.io/", "Cohort")) {
        Node n = node_of(*c, "parentName", "parent");
        const std::string name = "cohort/" + meta_string(*c, "name");
        if (!n.parent.empty()) children_["cohort/" + n.parent].push_back(name);
        nodes_[name] = std::move(n);
      }
  }

  /// potentialAvailable of ClusterQueue `cq` for (flavor, resource).
  int64_t of(const std::string& cq, const FlavorResource& fr) const { return potential("cq/" + cq, fr, 0); }

 private:
  const Node* node(const std::string& name) const {
    auto it = nodes_.find(name);
    return it == nodes_.end() ? nullptr : &it->second;
  }
  // An implicit cohort (named by a ClusterQueue but not an object) has no quota of its own and no parent.
  int64_t subtree(const std::string& name, const FlavorResource& fr, int depth) const {
    if (depth > 32) return kInf;
    const Node* n = node(name);
    int64_t sum = 0;
    if (n)
      if (auto it = n->quotas.find(fr); it != n->quotas.end()) sum = it->second.nominal;
    if (auto it = children_.find(name); it != children_.end())
      for (const auto& c : it->second) {
        const int64_t sub = subtree(c, fr, depth + 1);
        sum = sat_add(sum, sub == kInf ? kInf : sub - local(c, fr, sub));
      }
    return sum;
  }
  int64_t local(const std::string& name, const FlavorResource& fr, int64_t subtree_quota) const {
    const Node* n = node(name);
    if (!n) return 0;
    auto it = n->quotas.find(fr);
    if (it == n->quotas.end() || subtree_quota == kInf) return 0;
    const std::optional<int64_t>& lending = it->second.lending;
    if (!lending) return 0;
    return std::max<int64_t>(0, subtree_quota - *lending);
  }
  int64_t potential(const std::string& name, const FlavorResource& fr, int depth) const {
    if (depth > 32) return kInf;
    const Node* n = node(name);
    const int64_t sub = subtree(name, fr, depth);
    const std::string parent = n ? n->parent : "";
    if (parent.empty()) return sub;
    const std::string parent_node = "cohort/" + parent;
    // A cohort may have quota or a parent of its own that the judge is not told of.
    const int64_t from_parent = (!cohorts_known_ && !node(parent_node)) ? kInf : potential(parent_node, fr, depth + 1);
    int64_t avail = sat_add(local(name, fr, sub), from_parent);
    if (n)
      if (auto it = n->quotas.find(fr); it != n->quotas.end())
        if (const std::optional<int64_t>& borrowing = it->second.borrowing)
          avail = std::min(avail, sat_add(sub, *borrowing));
    return avail;
  }

  bool cohorts_known_;
  std::map<std::string, Node> nodes_;
  std::map<std::string, std::vector<std::string>> children_;
};

// ---- the queue chain ------------------------------------------------------------------------------------------------

struct Chain {
  const json::Value* local_queue = nullptr;
  const json::Value* cluster_queue = nullptr;
  std::map<std::string, const json::Value*> flavors;  // every flavor the ClusterQueue names, found
  std::string ns;                                     // the namespace the job is admitted from
};

// `missing`, when given, is set to the first link not among `q` when that is why there is no chain.
std::optional<Chain> chain_of(const json::Value& job, const QueueObjects& q, MissingQueueLink* missing = nullptr) {
  auto queue = rules::label_of(job, rules::kQueueNameLabel);
  if (!queue || queue->empty()) return std::nullopt;
  auto lacking = [&](const char* kind, std::string name, std::string of) -> std::optional<Chain> {
    if (missing) *missing = MissingQueueLink{kind, std::move(name), std::move(of)};
    return std::nullopt;
  };
  Chain c;
  const std::string job_ns = meta_string(job, "namespace");
  for (const json::Value* lq : q.local_queues_named(*queue)) {
    if (!is_kind(lq, "kueue.x-k8s.io/", "LocalQueue") || meta_string(*lq, "name") != *queue) continue;
    const std::string lq_ns = meta_string(*lq, "namespace");
    if (!job_ns.empty() && !lq_ns.empty() && lq_ns != job_ns) continue;
    if (c.local_queue) return std::nullopt;  // several candidates for a job without a namespace: no verdict
    c.local_queue = lq;
    c.ns = job_ns.empty() ? lq_ns : job_ns;
  }
  if (!c.local_queue) return lacking("LocalQueue", *queue, "");
  const json::Value* lq_spec = object_at(*c.local_queue, "spec");
  const std::string cq_name = lq_spec ? string_at(*lq_spec, "clusterQueue").value_or("") : "";
  for (const json::Value* cq : q.cluster_queues())
    if (is_kind(cq, "kueue.x-k8s.io/", "ClusterQueue") && meta_string(*cq, "name") == cq_name) c.cluster_queue = cq;
  if (!c.cluster_queue) return cq_name.empty() ? std::nullopt : lacking("ClusterQueue", cq_name, *queue);
  const json::Value* spec = object_at(*c.cluster_queue, "spec");
  const json::Value* groups = spec ? array_at(*spec, "resourceGroups") : nullptr;
  if (groups)
    for (const auto& g : groups->GetArray())
      if (const json::Value* flavors = array_at(g, "flavors"))
        for (const auto& f : flavors->GetArray()) {
          const std::string name = string_at(f, "name").value_or("");
          const json::Value* found = nullptr;
          for (const json::Value* rf : q.resource_flavors())
            if (is_kind(rf, "kueue.x-k8s.io/", "ResourceFlavor") && meta_string(*rf, "name") == name) found = rf;
          if (!found) return lacking("ResourceFlavor", name, cq_name);  // the ClusterQueue is inactive
          c.flavors[name] = found;
        }
  return c;
}

/// A resource group of the ClusterQueue: what it covers and its flavors in order.
struct Group {
  std::set<std::string> covered;
  std::vector<std::string> flavors;
};

std::vector<Group> groups_of(const json::Value& cq) {
  std::vector<Group> out;
  const json::Value* spec = object_at(cq, "spec");
  const json::Value* groups = spec ? array_at(*spec, "resourceGroups") : nullptr;
  if (!groups) return out;
  for (const auto& g : groups->GetArray()) {
    Group grp;
    if (const json::Value* cr = array_at(g, "coveredResources"))
      for (const auto& r : cr->GetArray()) grp.covered.insert(rules::text(r));
    if (const json::Value* fl = array_at(g, "flavors"))
      for (const auto& f : fl->GetArray()) grp.flavors.push_back(string_at(f, "name").value_or(""));
    out.push_back(std::move(grp));
  }
  return out;
}

// ---- the rules --------------------------------------------------------------------------------------------------

// Kueue ValidateAdmissibility (pkg/workload/resources.go): the ClusterQueue's namespaceSelector must select the
// namespace the job runs in; an absent selector (LabelSelectorAsSelector(nil)) selects none.
void ValidateAdmissibility(const Chain& c, const QueueObjects& q, const Sink& sink) {
  const json::Value* spec = object_at(*c.cluster_queue, "spec");
  const json::Value* selector = spec ? rules::member(*spec, "namespaceSelector") : nullptr;
  Labels labels{{"kubernetes.io/metadata.name", c.ns}};
  bool all_known = false;
  for (const json::Value* ns : q.namespaces())
    if (is_kind(ns, "v1", "Namespace") && meta_string(*ns, "name") == c.ns) {
      const json::Value* meta = object_at(*ns, "metadata");
      for (auto& [k, v] : rules::string_map(meta ? object_at(*meta, "labels") : nullptr)) labels[k] = v;
      labels["kubernetes.io/metadata.name"] = c.ns;
      all_known = true;
    }
  auto known = [&](const std::string& key) { return all_known || key == "kubernetes.io/metadata.name"; };
  if (rules::label_selector_matches(selector, labels, known) != Match::kNo) return;
  const std::string cq = meta_string(*c.cluster_queue, "name");
  sink.error(key_path("metadata.labels", std::string(rules::kQueueNameLabel)), "ValidateAdmissibility", kAdmissibility,
             (!selector || selector->IsNull()
                  ? "ClusterQueue " + dq(cq) + " has no namespaceSelector, which selects no namespace"
                  : "the namespaceSelector of ClusterQueue " + dq(cq) + " does not select namespace " + dq(c.ns)) +
                 ", so Kueue never admits a workload of LocalQueue " + dq(meta_string(*c.local_queue, "name")) +
                 " here");
}

/// Why `flavor` cannot take PodSet `ps` (checkFlavorForPodSets), and the field to blame; nullopt when it can.
struct FlavorMiss {
  std::string path;
  std::string why;
};

std::optional<FlavorMiss> flavor_miss(const KueuePodSet& ps, const std::string& fname, const json::Value& flavor) {
  const json::Value* fspec = object_at(flavor, "spec");
  const json::Value* pod = ps.spec;
  const std::string pod_path = ps.spec ? ps.template_path + ".spec" : ps.template_path;
  // Taints: NoSchedule and NoExecute ones must be tolerated by the Pod or by the flavor itself.
  if (const json::Value* taints = fspec ? array_at(*fspec, "nodeTaints") : nullptr)
    for (const auto& taint : taints->GetArray()) {
      const std::string effect = string_at(taint, "effect").value_or("");
      if (effect != "NoSchedule" && effect != "NoExecute") continue;
      bool ok = false;
      for (const json::Value* list :
           {pod ? array_at(*pod, "tolerations") : nullptr, fspec ? array_at(*fspec, "tolerations") : nullptr})
        if (list)
          for (const auto& t : list->GetArray()) ok = ok || rules::tolerates(t, taint);
      if (!ok) {
        const auto value = string_at(taint, "value");
        return FlavorMiss{ps.spec ? pod_path + ".tolerations" : pod_path,
                          "flavor " + dq(fname) + " has the taint " + string_at(taint, "key").value_or("") +
                              (value ? "=" + *value : std::string()) + ":" + effect +
                              ", which the Pods do not tolerate"};
      }
    }
  // Topology-aware scheduling (flavorassigner checkPodSetAndFlavorMatchForTAS): a PodSet that asks for a topology
  // only takes a flavor with spec.topologyName.
  if (const json::Value* annotations = ps.metadata ? object_at(*ps.metadata, "annotations") : nullptr) {
    for (const char* key : {"kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology",
                            "kueue.x-k8s.io/podset-unconstrained-topology"}) {
      if (!rules::member(*annotations, key)) continue;
      if (fspec && string_at(*fspec, "topologyName")) break;
      return FlavorMiss{key_path(ps.template_path + ".metadata.annotations", key),
                        "flavor " + dq(fname) +
                            " has no spec.topologyName, so it does not support the topology "
                            "the Pods ask for (" +
                            key + ")"};
    }
  }
  // Node labels: the nodeSelector and the required node affinity, on the flavor's own label keys (flavorSelector).
  const Labels node = rules::string_map(fspec ? object_at(*fspec, "nodeLabels") : nullptr);
  if (!pod) return std::nullopt;
  for (const auto& [k, v] : rules::string_map(object_at(*pod, "nodeSelector"))) {
    auto it = node.find(k);
    if (it != node.end() && it->second != v)
      return FlavorMiss{key_path(pod_path + ".nodeSelector", k),
                        "flavor " + dq(fname) + " has node label " + k + "=" + it->second + ", not " + v};
  }
  const json::Value* aff = object_at(*pod, "affinity");
  const json::Value* na = aff ? object_at(*aff, "nodeAffinity") : nullptr;
  const json::Value* req = na ? object_at(*na, "requiredDuringSchedulingIgnoredDuringExecution") : nullptr;
  const json::Value* terms = req ? array_at(*req, "nodeSelectorTerms") : nullptr;
  if (!terms || terms->Empty()) return std::nullopt;
  bool any_term = false;
  for (const auto& term : terms->GetArray()) {
    bool relevant = false, all = true;
    if (const json::Value* exprs = array_at(term, "matchExpressions"))
      for (const auto& e : exprs->GetArray()) {
        if (!node.count(string_at(e, "key").value_or(""))) continue;
        relevant = true;
        all = all && rules::node_requirement_matches(e, node);
      }
    if (!relevant) return std::nullopt;  // a term on none of the flavor's keys matches any flavor
    any_term = any_term || all;
  }
  if (any_term) return std::nullopt;
  return FlavorMiss{pod_path + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
                    "the required node affinity matches none of the node labels of flavor " + dq(fname)};
}

/// One (PodSet, resource group) to be given a flavor: what it needs of each covered resource (all Pods).
struct Need {
  std::size_t pod_set;
  std::size_t group;
  std::map<std::string, int64_t> amounts;
  std::vector<std::string> candidates;  // flavors that pass checkFlavorForPodSets and hold it alone
};

struct Judge {
  const Chain& chain;
  const QueueObjects& queues;
  Sink sink;
  std::vector<KueuePodSet> pod_sets;
  std::vector<Group> groups;
  Capacity capacity;
  std::string cq;

  Judge(const Chain& c, const QueueObjects& q, const Sink& s, std::vector<KueuePodSet> ps)
      : chain(c),
        queues(q),
        sink(s),
        pod_sets(std::move(ps)),
        groups(groups_of(*c.cluster_queue)),
        capacity(q),
        cq(meta_string(*c.cluster_queue, "name")) {}

  int64_t cap(const std::string& flavor, const std::string& resource) const {
    return capacity.of(cq, {flavor, resource});
  }

  // Kueue findFlavorForPodSets: a resource no resource group covers is "unavailable in ClusterQueue".
  void FindFlavorForPodSets(std::vector<Need>& needs) {
    bool pods_covered = false;
    for (const auto& g : groups) pods_covered = pods_covered || g.covered.count("pods");
    for (std::size_t p = 0; p < pod_sets.size(); ++p) {
      KueuePodSet& ps = pod_sets[p];
      if (ps.count <= 0) continue;
      if (pods_covered) ps.requests["pods"] = {1, ps.count_path.empty() ? ps.template_path : ps.count_path};
      std::map<std::size_t, Need> by_group;
      for (const auto& [resource, r] : ps.requests) {
        std::optional<std::size_t> g;
        for (std::size_t i = 0; i < groups.size() && !g; ++i)
          if (groups[i].covered.count(resource)) g = i;
        if (!g) {
          sink.error(r.path, "FindFlavorForPodSets", kFlavorAssigner,
                     "PodSet " + dq(ps.name) + " requests " + resource + ", which no resource group of ClusterQueue " +
                         dq(cq) + " covers, so Kueue never admits it");
          continue;
        }
        auto& need = by_group.try_emplace(*g, Need{p, *g, {}, {}}).first->second;
        need.amounts[resource] = sat_mul(r.amount, ps.count);
      }
      for (auto& [g, need] : by_group) needs.push_back(std::move(need));
    }
  }

  // Kueue checkFlavorForPodSets + fitsResourceQuota for one PodSet alone: the flavors that could ever take it.
  void CheckFlavorForPodSets(Need& need) {
    const KueuePodSet& ps = pod_sets[need.pod_set];
    std::vector<FlavorMiss> misses;
    std::vector<std::string> matching;
    for (const auto& f : groups[need.group].flavors) {
      if (auto miss = flavor_miss(ps, f, *chain.flavors.at(f)))
        misses.push_back(*miss);
      else
        matching.push_back(f);
    }
    if (matching.empty()) {
      std::string why;
      for (const auto& m : misses) why += (why.empty() ? "" : "; ") + m.why;
      sink.error(misses.empty() ? ps.template_path : misses.front().path, "CheckFlavorForPodSets", kFlavorAssigner,
                 "no flavor of ClusterQueue " + dq(cq) + " can take PodSet " + dq(ps.name) + ": " + why);
      return;
    }
    FitsResourceQuota(need, matching);
  }

  // Kueue fitsResourceQuota: the request above the maximum capacity (potentialAvailable) of every matching flavor.
  // When no flavor takes the PodSet, every resource it is short of in the flavor that comes closest (the fewest
  // resources short; the first such flavor) is a finding at that resource's request, so that one run shows all
  // that must change (cpu and memory, not cpu and then, after a fix, memory).
  void FitsResourceQuota(Need& need, const std::vector<std::string>& matching) {
    const KueuePodSet& ps = pod_sets[need.pod_set];
    std::vector<std::pair<std::string, int64_t>> closest;  // resource -> capacity, of the closest flavor
    for (const auto& f : matching) {
      std::vector<std::pair<std::string, int64_t>> short_of;
      for (const auto& [resource, amount] : need.amounts)
        if (amount > cap(f, resource)) short_of.emplace_back(resource, cap(f, resource));
      if (short_of.empty())
        need.candidates.push_back(f);
      else if (closest.empty() || short_of.size() < closest.size())
        closest = std::move(short_of);
    }
    if (!need.candidates.empty()) return;
    for (const auto& [resource, capacity] : closest) {
      const auto& req = ps.requests.at(resource);
      const int64_t per_pod = req.amount;
      const bool one_pod_too_large = per_pod > capacity;
      const std::string path = one_pod_too_large || ps.count_path.empty() ? req.path : ps.count_path;
      sink.error(path, "FitsResourceQuota", kFlavorAssigner,
                 "PodSet " + dq(ps.name) + " needs " + amount_text(resource, need.amounts.at(resource)) + " " +
                     resource + " (" + std::to_string(ps.count) + " Pods x " + amount_text(resource, per_pod) +
                     "), more than ClusterQueue " + dq(cq) + " can ever hold in any flavor that matches (at most " +
                     amount_text(resource, capacity) + ", nominalQuota plus what it may borrow), so Kueue never " +
                     "admits it");
    }
  }

  // Every PodSet fits some flavor alone: is there an assignment under which they all fit together?
  bool search(std::vector<Need>& needs, std::size_t i, std::map<FlavorResource, int64_t>& used, std::size_t& steps) {
    if (i == needs.size()) return true;
    for (const auto& f : needs[i].candidates) {
      if (++steps > kSearchBudget) return true;  // no verdict
      bool fits = true;
      for (const auto& [r, a] : needs[i].amounts) fits = fits && sat_add(used[{f, r}], a) <= cap(f, r);
      if (!fits) continue;
      for (const auto& [r, a] : needs[i].amounts) used[{f, r}] = sat_add(used[{f, r}], a);
      if (search(needs, i + 1, used, steps)) return true;
      for (const auto& [r, a] : needs[i].amounts) used[{f, r}] -= a;
    }
    return false;
  }

  void together(std::vector<Need>& needs) {
    std::map<FlavorResource, int64_t> used;
    std::size_t steps = 0;
    if (search(needs, 0, used, steps)) return;
    // A witness: the resource whose total need exceeds what all the flavors of its group can hold.
    std::map<std::string, int64_t> total;
    std::map<std::string, std::size_t> largest;  // resource -> index into needs of the largest share
    for (std::size_t i = 0; i < needs.size(); ++i)
      for (const auto& [r, a] : needs[i].amounts) {
        total[r] = sat_add(total[r], a);
        if (!largest.count(r) || a > needs[largest[r]].amounts.at(r)) largest[r] = i;
      }
    std::string resource = total.begin()->first;
    int64_t room = 0;
    for (const auto& [r, t] : total) {
      int64_t all = 0;
      for (const auto& f : groups[needs[largest[r]].group].flavors) all = sat_add(all, cap(f, r));
      if (t > all) {
        resource = r;
        room = all;
        break;
      }
    }
    const Need& blame = needs[largest[resource]];
    const KueuePodSet& ps = pod_sets[blame.pod_set];
    const auto& req = ps.requests.at(resource);
    sink.error(ps.count_path.empty() ? req.path : ps.count_path, "FitsResourceQuota", kFlavorAssigner,
               "the PodSets together need " + amount_text(resource, total[resource]) + " " + resource +
                   (room > 0 ? ", more than the " + amount_text(resource, room) + " the flavors of ClusterQueue " +
                                   dq(cq) + " can ever hold"
                             : "; no assignment of the flavors of ClusterQueue " + dq(cq) + " holds them all") +
                   " (PodSet " + dq(ps.name) + " asks for " + amount_text(resource, blame.amounts.at(resource)) +
                   "), so Kueue never admits the workload");
  }

  void run() {
    ValidateAdmissibility(chain, queues, sink);
    std::vector<Need> needs;
    const std::size_t before = sink.out().size();
    FindFlavorForPodSets(needs);
    for (auto& n : needs) CheckFlavorForPodSets(n);
    if (sink.out().size() != before) return;  // a PodSet alone is already refused
    if (!needs.empty()) together(needs);
  }
};

}  // namespace

void QueueObjects::add(const json::Value* obj) {
  if (is_kind(obj, "kueue.x-k8s.io/", "LocalQueue")) {
    local_queues_.push_back(obj);
    local_queues_by_name_.emplace(meta_string(*obj, "name"), obj);
  }
  if (is_kind(obj, "kueue.x-k8s.io/", "ClusterQueue")) cluster_queues_.push_back(obj);
  if (is_kind(obj, "kueue.x-k8s.io/", "ResourceFlavor")) resource_flavors_.push_back(obj);
  if (is_kind(obj, "kueue.x-k8s.io/", "Cohort")) cohorts_.push_back(obj);
  if (is_kind(obj, "v1", "Namespace")) namespaces_.push_back(obj);
}

std::vector<const json::Value*> QueueObjects::local_queues_named(const std::string& name) const {
  std::vector<const json::Value*> out;
  auto [from, to] = local_queues_by_name_.equal_range(name);
  for (auto it = from; it != to; ++it) out.push_back(it->second);
  return out;
}

bool admissibility_known(const json::Value& job, const QueueObjects& queues) {
  return job.IsObject() && chain_of(job, queues).has_value();
}

std::optional<MissingQueueLink> missing_queue_link(const json::Value& job, const QueueObjects& queues) {
  MissingQueueLink missing;
  if (!job.IsObject() || chain_of(job, queues, &missing) || missing.kind.empty()) return std::nullopt;
  return missing;
}

FieldErrors judge_admissibility(const json::Value& job, const QueueObjects& queues) {
  FieldErrors out;
  if (!job.IsObject()) return out;
  auto chain = chain_of(job, queues);
  if (!chain) return out;
  auto pod_sets = rules::kueue_pod_sets(job);
  Judge judge(*chain, queues, Sink(out), std::move(pod_sets));
  judge.run();
  return out;
}

}  // namespace cfo::validation
