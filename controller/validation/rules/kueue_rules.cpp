// Kueue rules (kubernetes-sigs/kueue, v0.19.2 and main):
//   pkg/controller/jobframework/validation.go            ValidateJobOnCreate (labels and annotations of every job)
//   pkg/controller/jobs/raycluster/raycluster_webhook.go  vraycluster.kb.io (Kueue-managed RayCluster)
//   pkg/controller/jobs/rayjob/rayjob_webhook.go          vrayjob.kb.io (Kueue-managed RayJob)
//   pkg/webhooks/clusterqueue_webhook.go, resourceflavor_webhook.go
//   config/components/crd/bases/*.yaml                    CEL rules (x-kubernetes-validations), see below
//   apis/kueue/v1beta2/workload_types.go + workload webhook: PodSet names, checked when Kueue creates the Workload
//   pkg/controller/core/*, jobframework/reconciler.go     references that fail only at run time (a missing
//                                                          ClusterQueue, LocalQueue or WorkloadPriorityClass)
// The CRDs' CEL rules are also evaluated as written by SchemaSet (validation/cel/), at the rule's location (e.g.
// "spec.tolerations", "spec.resourceGroups[0]"). The "kueue:CEL" functions below check the same conditions but
// name the offending field itself ("spec.tolerations[0].operator", "...flavors[0].resources"), and some of them
// also carry the webhook's half of a rule (LimitsNeedCohort); they are kept for those paths.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

#include "core/names.hpp"
#include "core/quantity.hpp"
#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

namespace {

constexpr std::string_view kJobFramework = "kueue:webhook";
constexpr std::string_view kWebhook = "kueue:webhook";
constexpr std::string_view kCEL = "kueue:CEL";
constexpr std::string_view kWorkload = "kueue:workload";
constexpr std::string_view kController = "kueue:controller";
constexpr std::string_view kChecklist = "cfo:checklist";

std::string joined(const std::vector<std::string>& msgs) {
  std::string s;
  for (const auto& m : msgs) s += (s.empty() ? "" : "; ") + m;
  return s;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string label_path(std::string_view key) { return key_path("metadata.labels", std::string(key)); }

// ---- jobframework (every job kind) ------------------------------------------------------------------------------

// Kueue jobframework ValidateJobOnCreate: the queue-name label is a DNS-1123 subdomain (and, as a label, <= 63).
void QueueNameLabel(const json::Value& obj, const Sink& sink) {
  auto q = label_of(obj, kQueueNameLabel);
  if (!q || q->empty()) return;
  if (auto msgs = names::dns1123_subdomain(*q); !msgs.empty())
    sink.error(label_path(kQueueNameLabel), "QueueNameLabel", kJobFramework,
               "queue name " + dq(*q) + " " + joined(msgs));
}

// Kueue jobframework ValidateJobOnCreate: kueue.x-k8s.io/max-exec-time-seconds is a positive integer.
void MaxExecTimeSeconds(const json::Value& obj, const Sink& sink) {
  auto v = label_of(obj, kMaxExecTimeLabel);
  if (!v) return;
  auto n = parse_int(*v);
  if (!n || *n <= 0)
    sink.error(label_path(kMaxExecTimeLabel), "MaxExecTimeSeconds", kJobFramework,
               "value " + dq(*v) + " must be a positive whole number of seconds");
}

// Kueue jobframework ValidatePrebuiltWorkloadName: a prebuilt workload name is a DNS-1123 subdomain; the annotation
// of the same key (WorkloadIdentifierAnnotations, on by default) takes precedence over the label when set.
void PrebuiltWorkloadName(const json::Value& obj, const Sink& sink) {
  auto annotation = annotation_of(obj, kPrebuiltWorkloadLabel);
  const bool by_annotation = annotation && !annotation->empty();
  auto v = by_annotation ? annotation : label_of(obj, kPrebuiltWorkloadLabel);
  if (!v) return;
  if (auto msgs = names::dns1123_subdomain(*v); !msgs.empty())
    sink.error(
        key_path(by_annotation ? "metadata.annotations" : "metadata.labels", std::string(kPrebuiltWorkloadLabel)),
        "PrebuiltWorkloadName", kJobFramework, "prebuilt workload name " + dq(*v) + " " + joined(msgs));
}

/// apimachinery validation.IsDomainPrefixedPath: "<DNS-1123 subdomain>/<http path characters>".
std::vector<std::string> domain_prefixed_path(std::string_view v) {
  auto slash = v.find('/');
  if (slash == std::string_view::npos) return {"must be a domain-prefixed path (such as \"acme.io/foo\")"};
  std::vector<std::string> msgs = names::dns1123_subdomain(v.substr(0, slash));
  const std::string_view path = v.substr(slash + 1);
  const std::string_view allowed = "/-._~%!$&'()*+,;=:";
  bool ok = !path.empty();
  for (char c : path) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || allowed.find(c) != allowed.npos);
  if (!ok) msgs.emplace_back("the path after the domain must be one or more URL path characters");
  return msgs;
}

// Kueue jobframework ValidateJobOnCreate (AdmissionGatedBy, beta and on by default in v0.19): the
// kueue.x-k8s.io/admission-gated-by annotation is a comma-separated list of gates, each a domain-prefixed path of at
// most 63 characters, none empty and none twice.
void AdmissionGatedBy(const json::Value& obj, const Sink& sink) {
  constexpr std::string_view key = "kueue.x-k8s.io/admission-gated-by";
  auto v = annotation_of(obj, key);
  if (!v || v->find_first_not_of(" \t") == std::string::npos) return;
  const std::string at = key_path("metadata.annotations", std::string(key));
  std::set<std::string> seen;
  std::string_view rest = *v;
  while (true) {
    auto comma = rest.find(',');
    std::string gate(rest.substr(0, comma));
    gate.erase(0, gate.find_first_not_of(' '));
    gate.erase(gate.find_last_not_of(' ') + 1);
    if (gate.empty())
      sink.error(at, "AdmissionGatedBy", kJobFramework, "the gates must not be empty (" + dq(*v) + ")");
    else if (!seen.insert(gate).second)
      sink.error(at, "AdmissionGatedBy", kJobFramework, "gate " + dq(gate) + " is listed twice");
    else if (auto msgs = domain_prefixed_path(gate); !msgs.empty())
      sink.error(at, "AdmissionGatedBy", kJobFramework, "gate " + dq(gate) + " " + joined(msgs));
    else if (gate.size() > 63)
      sink.error(at, "AdmissionGatedBy", kJobFramework, "gate " + dq(gate) + " is longer than 63 characters");
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

// Kueue jobframework ValidateJobOnCreate: the elastic-job annotation is accepted only on Job, RayCluster, RayJob and
// RayService, not on an AppWrapper.
void ElasticJobKind(const json::Value& obj, const Sink& sink) {
  if (string_at(obj, "kind") != "AppWrapper" || !annotation_of(obj, kElasticJobAnnotation)) return;
  sink.error(key_path("metadata.annotations", std::string(kElasticJobAnnotation)), "ElasticJobKind", kJobFramework,
             "an AppWrapper cannot be an elastic job");
}

// ---- RayCluster and RayJob under Kueue ----------------------------------------------------------------------------

/// A RayClusterSpec as Kueue sees it.
struct KueueCluster {
  const json::Value& spec;
  std::string path;     // "spec" or "spec.rayClusterSpec"
  bool managed;         // the queue-name label is on this object
  bool elastic;         // kueue.x-k8s.io/elastic-job: "true" (ElasticJobsViaWorkloadSlices is on by default)
  bool wrapper_queued;  // inside an AppWrapper that carries the queue label
  int extra_pod_sets;   // PodSets besides head and workers (RayJob K8sJobMode: the submitter)
  const json::Value* workers() const { return array_at(spec, "workerGroupSpecs"); }
};

// Kueue RayCluster webhook: a Kueue-managed cluster may autoscale only as an elastic job. Inside an AppWrapper that
// is queued, the wrapped cluster is not Kueue-managed but its quota is fixed at admission: a warning.
void KueueAutoscaling(const KueueCluster& kc, const Sink& sink) {
  if (!true_at(kc.spec, "enableInTreeAutoscaling")) return;
  const std::string at = kc.path + ".enableInTreeAutoscaling";
  if (kc.managed && !kc.elastic)
    sink.error(at, "KueueAutoscaling", kWebhook,
               "a Kueue-managed cluster can autoscale only as an elastic job (annotation kueue.x-k8s.io/elastic-job: "
               "\"true\")");
  else if (!kc.managed && kc.wrapper_queued)
    sink.warn(at, "KueueAutoscaling", kChecklist,
              "the AppWrapper's quota is fixed at admission, so the autoscaler cannot grow beyond it");
}

// Kueue RayCluster webhook validateElasticJob: MultiKueue does not run the autoscaler of an elastic cluster (a cluster
// whose spec.managedBy is kueue.x-k8s.io/multikueue).
void ElasticMultiKueueAutoscaling(const KueueCluster& kc, const Sink& sink) {
  if (kc.path != "spec") return;  // the RayCluster webhook's rule: a RayJob's cluster is not judged by it
  if (!kc.managed || !kc.elastic || !true_at(kc.spec, "enableInTreeAutoscaling")) return;
  if (string_at(kc.spec, "managedBy") != "kueue.x-k8s.io/multikueue") return;
  sink.error(kc.path + ".enableInTreeAutoscaling", "ElasticMultiKueueAutoscaling", kWebhook,
             "in-tree autoscaling is not supported for a MultiKueue-managed elastic RayCluster");
}

// Kueue RayCluster/RayJob webhooks: 1 (head) + worker groups <= MaxPodSets; the Workload of a K8sJobMode RayJob also
// holds the submitter, so it fails later when Kueue creates the Workload.
void MaxPodSets(const KueueCluster& kc, int max_pod_sets, const Sink& sink) {
  if (!kc.managed || !kc.workers()) return;
  const int groups = static_cast<int>(kc.workers()->Size());
  if (1 + groups > max_pod_sets)
    sink.error(kc.path + ".workerGroupSpecs", "MaxPodSets", kWebhook,
               std::to_string(groups) + " worker groups plus the head exceed Kueue's limit of " +
                   std::to_string(max_pod_sets) + " PodSets");
  else if (1 + groups + kc.extra_pod_sets > max_pod_sets)
    sink.error(kc.path + ".workerGroupSpecs", "MaxPodSets", kWorkload,
               std::to_string(groups) + " worker groups plus the head and the submitter exceed Kueue's limit of " +
                   std::to_string(max_pod_sets) + " PodSets");
}

// Kueue RayCluster webhook: "head" is the head's PodSet name, so no worker group may use it.
void ReservedHeadGroupName(const KueueCluster& kc, const Sink& sink) {
  const json::Value* workers = kc.workers();
  if (!workers) return;
  for (rapidjson::SizeType i = 0; i < workers->Size(); ++i)
    if (string_at((*workers)[i], "groupName") == "head")
      sink.add(index_path(kc.path + ".workerGroupSpecs", i) + ".groupName", "ReservedHeadGroupName", kWebhook,
               "the name \"head\" belongs to the head group's PodSet; choose another group name",
               kc.managed ? Severity::Error : Severity::Warning);
}

// Kueue Workload (late): PodSet names are the lower-cased group names ("head", and "submitter" for a K8sJobMode
// RayJob); they must be DNS-1123 labels and unique, or Kueue cannot create the Workload.
void PodSetNames(const KueueCluster& kc, const Sink& sink) {
  const json::Value* workers = kc.workers();
  if (!workers) return;
  std::map<std::string, std::string> seen = {{"head", kc.path + ".headGroupSpec"}};
  if (kc.extra_pod_sets > 0) seen.emplace("submitter", "the submitter PodSet");
  std::set<std::string> exact;
  for (rapidjson::SizeType i = 0; i < workers->Size(); ++i) {
    auto name = string_at((*workers)[i], "groupName");
    if (!name || name->empty()) continue;
    const std::string at = index_path(kc.path + ".workerGroupSpecs", i) + ".groupName";
    const std::string podset = lower(*name);
    const bool repeated = !exact.insert(*name).second;  // exact repeats are UniqueGroupName's
    if (kc.managed && !names::dns1123_label(podset).empty())
      sink.error(at, "PodSetNames", kWorkload,
                 "group name " + dq(*name) + " gives PodSet name " + dq(podset) + ", which is not a DNS-1123 label");
    auto [it, fresh] = seen.emplace(podset, at);
    if (fresh || repeated || *name == "head") continue;
    if (podset == "submitter" && kc.extra_pod_sets > 0)
      sink.add(at, "PodSetNames", kWorkload, "group name " + dq(*name) + " clashes with the submitter PodSet",
               kc.managed ? Severity::Error : Severity::Warning);
    else
      sink.add(at, "PodSetNames", kWorkload, "group name " + dq(*name) + " gives the same PodSet name as " + it->second,
               kc.managed ? Severity::Error : Severity::Warning);
  }
}

void validate_kueue_cluster(const Scope& scope, const KueueCluster& kc, const Sink& sink) {
  KueueAutoscaling(kc, sink);
  ElasticMultiKueueAutoscaling(kc, sink);
  MaxPodSets(kc, scope.profile.kueue_max_pod_sets, sink);
  ReservedHeadGroupName(kc, sink);
  PodSetNames(kc, sink);
}

// Kueue RayJob webhook: a Kueue-managed RayJob must not also point at an existing cluster.
void KueueClusterSelector(const json::Value& obj, const json::Value& spec, const Sink& sink) {
  const json::Value* sel = object_at(spec, "clusterSelector");
  if (!sel || sel->MemberCount() == 0 || !object_at(spec, "rayClusterSpec")) return;
  sink.add("spec.clusterSelector", "KueueClusterSelector", kWebhook,
           "clusterSelector and rayClusterSpec exclude each other; a Kueue-managed RayJob must bring its own cluster",
           has_queue_label(obj) ? Severity::Error : Severity::Warning);
}

// Kueue RayJob webhook: a Kueue-managed RayJob deletes its cluster when it finishes, or the quota stays taken.
void KueueShutdownAfterJobFinishes(const json::Value& spec, const Sink& sink) {
  if (!true_at(spec, "shutdownAfterJobFinishes"))
    sink.error("spec.shutdownAfterJobFinishes", "KueueShutdownAfterJobFinishes", kWebhook,
               "a Kueue-managed RayJob must set shutdownAfterJobFinishes: true so its cluster is deleted");
}

// ---- ClusterQueue ---------------------------------------------------------------------------------------------

/// The spec of a ClusterQueue, or of a Cohort (cohort_object: its parent is parentName, v1beta1 parent).
struct QueueView {
  const json::Value& spec;
  bool cohort_object = false;
  bool has_cohort() const {
    const char* field = cohort_object ? "parentName" : "cohortName";
    const char* old_field = cohort_object ? "parent" : "cohort";
    return !string_at(spec, field).value_or("").empty() || !string_at(spec, old_field).value_or("").empty();
  }
  const json::Value* groups() const { return array_at(spec, "resourceGroups"); }
};

/// Calls f(flavor, path, group_index, flavor_index) for each flavor of each resource group.
template <class F>
void for_each_flavor(const QueueView& q, F f) {
  const json::Value* groups = q.groups();
  if (!groups) return;
  for (rapidjson::SizeType i = 0; i < groups->Size(); ++i) {
    const json::Value* flavors = array_at((*groups)[i], "flavors");
    if (!flavors) continue;
    for (rapidjson::SizeType j = 0; j < flavors->Size(); ++j)
      if ((*flavors)[j].IsObject())
        f((*flavors)[j], index_path(index_path("spec.resourceGroups", i) + ".flavors", j), i, j);
  }
}

/// Calls f(resource, path) for each resource quota entry of each flavor.
template <class F>
void for_each_quota(const QueueView& q, F f) {
  for_each_flavor(q, [&](const json::Value& fl, const std::string& fp, auto, auto) {
    const json::Value* resources = array_at(fl, "resources");
    if (!resources) return;
    for (rapidjson::SizeType k = 0; k < resources->Size(); ++k)
      if ((*resources)[k].IsObject()) f((*resources)[k], index_path(fp + ".resources", k));
  });
}

std::optional<Quantity> quantity_at(const json::Value& obj, std::string_view key) {
  const json::Value* v = member(obj, key);
  if (!v || (!v->IsString() && !v->IsInt64())) return std::nullopt;
  auto q = Quantity::parse(v->IsString() ? text(*v) : json::dump(*v));
  return q ? std::optional<Quantity>(*q) : std::nullopt;
}

// Kueue ClusterQueue CEL (resourceGroups[]): every flavor lists as many resources as the group covers.
void FlavorResourceCount(const QueueView& q, const Sink& sink) {
  const json::Value* groups = q.groups();
  for_each_flavor(q, [&](const json::Value& fl, const std::string& fp, rapidjson::SizeType i, auto) {
    const json::Value* covered = array_at((*groups)[i], "coveredResources");
    const json::Value* resources = array_at(fl, "resources");
    if (!covered || !resources || covered->Size() == resources->Size()) return;
    sink.error(fp + ".resources", "FlavorResourceCount", kCEL,
               "the flavor lists " + std::to_string(resources->Size()) + " resources but the group covers " +
                   std::to_string(covered->Size()));
  });
}

// Kueue ClusterQueue webhook: resources[k].name equals coveredResources[k] (same resources, same order).
void FlavorResourceOrder(const QueueView& q, const Sink& sink) {
  const json::Value* groups = q.groups();
  for_each_flavor(q, [&](const json::Value& fl, const std::string& fp, rapidjson::SizeType i, auto) {
    const json::Value* covered = array_at((*groups)[i], "coveredResources");
    const json::Value* resources = array_at(fl, "resources");
    if (!covered || !resources) return;
    for (rapidjson::SizeType k = 0; k < std::min(covered->Size(), resources->Size()); ++k) {
      std::string want = text((*covered)[k]);
      std::string got = string_at((*resources)[k], "name").value_or("");
      if (got != want)
        sink.error(index_path(fp + ".resources", k) + ".name", "FlavorResourceOrder", kWebhook,
                   "resource " + dq(got) + " must be " + dq(want) + ", in the order of coveredResources");
    }
  });
}

// Kueue ClusterQueue webhook: covered resources are resource names (qualified names) and appear in one group only.
void CoveredResources(const QueueView& q, const Sink& sink) {
  const json::Value* groups = q.groups();
  if (!groups) return;
  std::map<std::string, std::string> seen;
  for (rapidjson::SizeType i = 0; i < groups->Size(); ++i) {
    const json::Value* covered = array_at((*groups)[i], "coveredResources");
    if (!covered) continue;
    for (rapidjson::SizeType k = 0; k < covered->Size(); ++k) {
      const std::string name = text((*covered)[k]);
      const std::string at = index_path(index_path("spec.resourceGroups", i) + ".coveredResources", k);
      if (auto msgs = names::qualified_name(name); !msgs.empty())
        sink.error(at, "CoveredResources", kWebhook,
                   "resource name " + dq(name) + " is not a qualified name: " + joined(msgs));
      auto [it, fresh] = seen.emplace(name, at);
      if (!fresh)
        sink.error(at, "CoveredResources", kWebhook, "resource " + dq(name) + " is already covered at " + it->second);
    }
  }
}

// Kueue ClusterQueue webhook: a flavor appears in one resource group only.
void UniqueFlavorNames(const QueueView& q, const Sink& sink) {
  std::map<std::string, std::string> seen;
  for_each_flavor(q, [&](const json::Value& fl, const std::string& fp, auto, auto) {
    auto name = string_at(fl, "name");
    if (!name) return;
    auto [it, fresh] = seen.emplace(*name, fp);
    if (!fresh)
      sink.error(fp + ".name", "UniqueFlavorNames", kWebhook,
                 "flavor " + dq(*name) + " is already used at " + it->second);
  });
}

// Kueue ClusterQueue webhook (ValidateResourceQuantity): nominalQuota, borrowingLimit and lendingLimit are >= 0.
void NonNegativeQuota(const QueueView& q, const Sink& sink) {
  for_each_quota(q, [&](const json::Value& r, const std::string& rp) {
    for (const char* f : {"nominalQuota", "borrowingLimit", "lendingLimit"})
      if (auto v = quantity_at(r, f); v && v->nanos() < 0)
        sink.error(rp + "." + f, "NonNegativeQuota", kWebhook, std::string(f) + " must not be negative");
  });
}

// Kueue ClusterQueue CEL + webhook: borrowingLimit and lendingLimit need a cohort.
void LimitsNeedCohort(const QueueView& q, const Sink& sink) {
  if (q.has_cohort()) return;
  const std::string where =
      q.cohort_object ? "under a parent cohort; set parentName" : "inside a cohort; set cohortName";
  for_each_quota(q, [&](const json::Value& r, const std::string& rp) {
    if (member(r, "borrowingLimit"))
      sink.error(rp + ".borrowingLimit", "LimitsNeedCohort", q.cohort_object ? kWebhook : kCEL,
                 "borrowingLimit only applies " + where + " or drop it");
    if (member(r, "lendingLimit"))
      sink.error(rp + ".lendingLimit", "LimitsNeedCohort", kWebhook,
                 "lendingLimit only applies " + where + " or drop it");
  });
}

// Kueue ClusterQueue webhook: lendingLimit does not exceed nominalQuota.
void LendingLimitWithinNominal(const QueueView& q, const Sink& sink) {
  for_each_quota(q, [&](const json::Value& r, const std::string& rp) {
    auto lend = quantity_at(r, "lendingLimit");
    auto nominal = quantity_at(r, "nominalQuota");
    if (lend && nominal && *lend > *nominal)
      sink.error(rp + ".lendingLimit", "LendingLimitWithinNominal", kWebhook,
                 "lendingLimit " + dq(lend->text()) + " exceeds nominalQuota " + dq(nominal->text()));
  });
}

// Kueue ClusterQueue webhook: at most 256 flavors and 256 covered resources in all, 512 flavor x resource per group.
void ResourceGroupLimits(const QueueView& q, const Sink& sink) {
  const json::Value* groups = q.groups();
  if (!groups) return;
  std::size_t flavors = 0, covered = 0;
  for (rapidjson::SizeType i = 0; i < groups->Size(); ++i) {
    const json::Value* fl = array_at((*groups)[i], "flavors");
    const json::Value* cr = array_at((*groups)[i], "coveredResources");
    const std::size_t nf = fl ? fl->Size() : 0, nc = cr ? cr->Size() : 0;
    flavors += nf;
    covered += nc;
    if (nf * nc > 512)
      sink.error(index_path("spec.resourceGroups", i), "ResourceGroupLimits", kWebhook,
                 std::to_string(nf * nc) + " flavor-resource pairs exceed the limit of 512 per group");
  }
  if (flavors > 256) sink.error("spec.resourceGroups", "ResourceGroupLimits", kWebhook, "more than 256 flavors in all");
  if (covered > 256)
    sink.error("spec.resourceGroups", "ResourceGroupLimits", kWebhook, "more than 256 covered resources in all");
}

// Kueue ClusterQueue CEL (preemption): borrowWithinCohort needs reclaimWithinCohort other than Never.
void PreemptionPolicies(const QueueView& q, const Sink& sink) {
  const json::Value* p = object_at(q.spec, "preemption");
  if (!p) return;
  const std::string reclaim = string_at(*p, "reclaimWithinCohort").value_or("Never");
  const json::Value* borrow = object_at(*p, "borrowWithinCohort");
  if (reclaim == "Never" && borrow && string_at(*borrow, "policy").value_or("Never") != "Never")
    sink.error("spec.preemption.borrowWithinCohort.policy", "PreemptionPolicies", kCEL,
               "preempting while borrowing requires reclaimWithinCohort to be LowerPriority or Any");
}

// Kueue ClusterQueue CEL (flavorFungibility): preference needs whenCanBorrow and whenCanPreempt both TryNextFlavor.
void FungibilityPreference(const QueueView& q, const Sink& sink) {
  const json::Value* f = object_at(q.spec, "flavorFungibility");
  if (!f || !member(*f, "preference")) return;
  const std::string borrow = string_at(*f, "whenCanBorrow").value_or("MayStopSearch");
  const std::string preempt = string_at(*f, "whenCanPreempt").value_or("TryNextFlavor");
  if (borrow != "TryNextFlavor" || preempt != "TryNextFlavor")
    sink.error("spec.flavorFungibility.preference", "FungibilityPreference", kCEL,
               "choosing a preference requires whenCanBorrow and whenCanPreempt to be TryNextFlavor");
}

// Kueue ClusterQueue webhook: namespaceSelector is a valid label selector; unset selects no namespace at all.
void NamespaceSelector(const QueueView& q, const Sink& sink) {
  const json::Value* sel = member(q.spec, "namespaceSelector");
  if (!sel || sel->IsNull()) {
    sink.warn("spec.namespaceSelector", "NamespaceSelector", kChecklist,
              "without namespaceSelector no namespace may use this queue; {} admits all namespaces");
    return;
  }
  validate_label_selector(*sel, "spec.namespaceSelector", kWebhook, sink);
}

// Kueue validateFairSharing (ClusterQueue and Cohort webhooks): fairSharing.weight is not negative, and a positive
// weight is above 1n (smaller ones collapse to zero in the fair-sharing arithmetic).
void FairSharingWeight(const json::Value& spec, const Sink& sink) {
  const json::Value* fs = object_at(spec, "fairSharing");
  if (!fs) return;
  auto w = quantity_at(*fs, "weight");
  if (!w) return;
  if (w->nanos() < 0)
    sink.error("spec.fairSharing.weight", "FairSharingWeight", kWebhook,
               "the fair-sharing weight must not be negative");
  else if (w->nanos() > 0 && w->nanos() <= 1)
    sink.error("spec.fairSharing.weight", "FairSharingWeight", kWebhook,
               "a fair-sharing weight other than 0 must be above 1n (10e-9), not " + dq(w->text()));
}

// Kueue ClusterQueue webhook: admission checks apply only to flavors of this queue.
void AdmissionCheckFlavors(const QueueView& q, const Sink& sink) {
  const json::Value* strategy = object_at(q.spec, "admissionChecksStrategy");
  const json::Value* checks = strategy ? array_at(*strategy, "admissionChecks") : nullptr;
  if (!checks) return;
  std::set<std::string> flavors;
  for_each_flavor(q, [&](const json::Value& fl, const std::string&, auto, auto) {
    if (auto n = string_at(fl, "name")) flavors.insert(*n);
  });
  for (rapidjson::SizeType i = 0; i < checks->Size(); ++i) {
    const json::Value* on = array_at((*checks)[i], "onFlavors");
    if (!on) continue;
    for (rapidjson::SizeType j = 0; j < on->Size(); ++j)
      if (!flavors.contains(text((*on)[j])))
        sink.error(index_path(index_path("spec.admissionChecksStrategy.admissionChecks", i) + ".onFlavors", j),
                   "AdmissionCheckFlavors", kWebhook, "flavor " + dq(text((*on)[j])) + " is not in resourceGroups");
  }
}

// ---- ResourceFlavor --------------------------------------------------------------------------------------------

// Kueue ResourceFlavor webhook: taint keys are qualified names, values label values, (key, effect) unique; CEL: the
// effect is NoSchedule, PreferNoSchedule or NoExecute.
void NodeTaints(const json::Value& spec, const Sink& sink) {
  const json::Value* taints = array_at(spec, "nodeTaints");
  if (!taints) return;
  std::map<std::string, rapidjson::SizeType> seen;
  for (rapidjson::SizeType i = 0; i < taints->Size(); ++i) {
    const json::Value& t = (*taints)[i];
    const std::string at = index_path("spec.nodeTaints", i);
    const std::string key = string_at(t, "key").value_or("");
    const std::string effect = string_at(t, "effect").value_or("");
    if (auto msgs = names::qualified_name(key); !msgs.empty() && member(t, "key"))
      sink.error(at + ".key", "NodeTaints", kWebhook,
                 "taint key " + dq(key) + " is not a qualified name: " + joined(msgs));
    if (auto v = string_at(t, "value"))
      if (auto msgs = names::label_value(*v); !msgs.empty())
        sink.error(at + ".value", "NodeTaints", kWebhook, "taint value " + dq(*v) + " " + joined(msgs));
    if (member(t, "effect") && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")
      sink.error(at + ".effect", "NodeTaints", kCEL,
                 "effect " + dq(effect) + " is not NoSchedule, PreferNoSchedule or NoExecute");
    auto [it, fresh] = seen.emplace(key + "\n" + effect, i);
    if (!fresh)
      sink.error(
          at, "NodeTaints", kWebhook,
          "taint " + dq(key) + " with effect " + dq(effect) + " repeats entry [" + std::to_string(it->second) + "]");
  }
}

// Kueue ResourceFlavor CEL (tolerations): empty key needs Exists; tolerationSeconds needs NoExecute; operator is
// Equal or Exists; Exists takes no value; effect is one of the three taint effects.
void Tolerations(const json::Value& spec, const Sink& sink) {
  const json::Value* list = array_at(spec, "tolerations");
  if (!list) return;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const json::Value& t = (*list)[i];
    if (!t.IsObject()) continue;
    const std::string at = index_path("spec.tolerations", i);
    auto op = string_at(t, "operator");
    auto effect = string_at(t, "effect");
    if (!member(t, "key") && op != "Exists")
      sink.error(at + ".operator", "Tolerations", kCEL,
                 "with no key the toleration matches every taint, which needs operator Exists");
    if (member(t, "tolerationSeconds") && effect != "NoExecute")
      sink.error(at + ".effect", "Tolerations", kCEL, "tolerationSeconds only makes sense for effect NoExecute");
    if (op && *op != "Equal" && *op != "Exists")
      sink.error(at + ".operator", "Tolerations", kCEL, "operator " + dq(*op) + " is not Equal or Exists");
    if (op == "Exists" && member(t, "value"))
      sink.error(at + ".value", "Tolerations", kCEL, "operator Exists takes no value");
    if (effect && *effect != "NoSchedule" && *effect != "PreferNoSchedule" && *effect != "NoExecute")
      sink.error(at + ".effect", "Tolerations", kCEL,
                 "effect " + dq(*effect) + " is not NoSchedule, PreferNoSchedule or NoExecute");
  }
}

// Kueue ResourceFlavor webhook (validateTolerations): a toleration's key, when set, is a label name.
void TolerationKey(const json::Value& spec, const Sink& sink) {
  const json::Value* list = array_at(spec, "tolerations");
  if (!list) return;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const std::string key = string_at((*list)[i], "key").value_or("");
    if (key.empty()) continue;
    if (auto msgs = names::qualified_name(key); !msgs.empty())
      sink.error(index_path("spec.tolerations", i) + ".key", "TolerationKey", kWebhook,
                 "toleration key " + dq(key) + " is not a label name: " + joined(msgs));
  }
}

// Kueue ResourceFlavor CEL: a topologyName needs at least one node label.
void TopologyNeedsNodeLabels(const json::Value& spec, const Sink& sink) {
  if (!member(spec, "topologyName")) return;
  const json::Value* labels = object_at(spec, "nodeLabels");
  if (!labels || labels->MemberCount() == 0)
    sink.error("spec.nodeLabels", "TopologyNeedsNodeLabels", kCEL,
               "a flavor with a topologyName must select nodes with at least one node label");
}

// ---- LocalQueue and WorkloadPriorityClass -------------------------------------------------------------------------

// Checklist (notes §5): without spec.clusterQueue a LocalQueue admits nothing.
void LocalQueueClusterQueue(const json::Value& obj, const Sink& sink) {
  const json::Value* spec = object_at(obj, "spec");
  if (!spec || string_at(*spec, "clusterQueue").value_or("").empty())
    sink.warn("spec.clusterQueue", "LocalQueueClusterQueue", kChecklist,
              "the LocalQueue names no ClusterQueue, so workloads sent to it are never admitted");
}

// Checklist (notes §5, §8): LocalQueue and WorkloadPriorityClass names are used as label values by the jobs that
// reference them, so they should be DNS-1123 labels of at most 63 characters.
void ReferencedByLabelName(const json::Value& obj, const Sink& sink) {
  const json::Value* meta = object_at(obj, "metadata");
  auto name = meta ? string_at(*meta, "name") : std::nullopt;
  if (!name || name->empty()) return;
  if (!names::dns1123_label(*name).empty())
    sink.warn(
        "metadata.name", "ReferencedByLabelName", kChecklist,
        "jobs name this object in a label, so " + dq(*name) + " should be a DNS-1123 label of at most 63 characters");
}

}  // namespace

void validate_kueue_job(const Scope& scope, const json::Value& obj, const Sink& sink) {
  (void)scope;
  QueueNameLabel(obj, sink);
  MaxExecTimeSeconds(obj, sink);
  PrebuiltWorkloadName(obj, sink);
  ElasticJobKind(obj, sink);
  AdmissionGatedBy(obj, sink);
}

void validate_kueue_raycluster(const Scope& scope, const json::Value& obj, const Sink& sink) {
  const json::Value* spec = object_at(obj, "spec");
  if (!spec) return;
  KueueCluster kc{
      *spec, "spec", has_queue_label(obj), annotation_of(obj, kElasticJobAnnotation) == "true", scope.wrapper_queued(),
      0};
  validate_kueue_cluster(scope, kc, sink);
}

void validate_kueue_rayjob(const Scope& scope, const json::Value& obj, const Sink& sink) {
  const json::Value* spec = object_at(obj, "spec");
  if (!spec) return;
  KueueClusterSelector(obj, *spec, sink);
  const json::Value* cluster = object_at(*spec, "rayClusterSpec");
  const json::Value* sel = object_at(*spec, "clusterSelector");
  const bool selector_only = !cluster && sel && sel->MemberCount() > 0;
  const bool managed = has_queue_label(obj) && !selector_only;  // a selector-only RayJob is not managed
  if (managed) KueueShutdownAfterJobFinishes(*spec, sink);
  if (!cluster) return;
  const bool k8s_job_mode = string_at(*spec, "submissionMode").value_or("K8sJobMode") == "K8sJobMode";
  KueueCluster kc{*cluster,
                  "spec.rayClusterSpec",
                  managed,
                  annotation_of(obj, kElasticJobAnnotation) == "true",
                  scope.wrapper_queued(),
                  k8s_job_mode ? 1 : 0};
  validate_kueue_cluster(scope, kc, sink);
}

void validate_clusterqueue(const Scope& scope, const json::Value& obj, const Sink& sink) {
  (void)scope;
  static const json::Value kEmpty(rapidjson::kObjectType);
  const json::Value* spec = object_at(obj, "spec");
  QueueView q{spec ? *spec : kEmpty};
  FlavorResourceCount(q, sink);
  FlavorResourceOrder(q, sink);
  CoveredResources(q, sink);
  UniqueFlavorNames(q, sink);
  NonNegativeQuota(q, sink);
  LimitsNeedCohort(q, sink);
  LendingLimitWithinNominal(q, sink);
  ResourceGroupLimits(q, sink);
  PreemptionPolicies(q, sink);
  FungibilityPreference(q, sink);
  NamespaceSelector(q, sink);
  FairSharingWeight(q.spec, sink);
  AdmissionCheckFlavors(q, sink);
}

void validate_cohort(const Scope& scope, const json::Value& obj, const Sink& sink) {
  (void)scope;
  const json::Value* spec = object_at(obj, "spec");
  if (!spec) return;
  // Kueue validateCohort: the fair-sharing weight and the resource groups, limits needing a parent; a Cohort's
  // lendingLimit may exceed its own nominalQuota (enforceNominalGreaterThanLending is false).
  QueueView q{*spec, true};
  FlavorResourceOrder(q, sink);
  CoveredResources(q, sink);
  UniqueFlavorNames(q, sink);
  NonNegativeQuota(q, sink);
  LimitsNeedCohort(q, sink);
  FairSharingWeight(q.spec, sink);
}

void validate_resourceflavor(const Scope& scope, const json::Value& obj, const Sink& sink) {
  (void)scope;
  const json::Value* spec = object_at(obj, "spec");
  if (!spec) return;
  // Kueue ResourceFlavor webhook (ValidateLabels): node labels are valid labels.
  if (const json::Value* labels = object_at(*spec, "nodeLabels"))
    validate_label_map(*labels, "spec.nodeLabels", kWebhook, sink);
  NodeTaints(*spec, sink);
  Tolerations(*spec, sink);
  TolerationKey(*spec, sink);
  TopologyNeedsNodeLabels(*spec, sink);
}

void validate_localqueue(const Scope& scope, const json::Value& obj, const Sink& sink) {
  (void)scope;
  LocalQueueClusterQueue(obj, sink);
  ReferencedByLabelName(obj, sink);
}

void validate_workloadpriorityclass(const Scope& scope, const json::Value& obj, const Sink& sink) {
  (void)scope;
  ReferencedByLabelName(obj, sink);
}

// ---- references within a closed set ------------------------------------------------------------------------------

namespace {

bool is_kueue(const json::Value& obj, std::string_view kind) {
  return string_at(obj, "apiVersion").value_or("").starts_with("kueue.x-k8s.io/") && string_at(obj, "kind") == kind;
}

bool is_job(const json::Value& obj) {
  const std::string av = string_at(obj, "apiVersion").value_or("");
  const std::string kind = string_at(obj, "kind").value_or("");
  return (av.starts_with("ray.io/") && (kind == "RayCluster" || kind == "RayJob")) ||
         (av.starts_with("workload.codeflare.dev/") && kind == "AppWrapper");
}

std::string name_of(const json::Value& obj) {
  const json::Value* meta = object_at(obj, "metadata");
  return meta ? string_at(*meta, "name").value_or("") : "";
}

std::string namespace_of(const json::Value& obj) {
  const json::Value* meta = object_at(obj, "metadata");
  return meta ? string_at(*meta, "namespace").value_or("") : "";
}

// Why a reference to a `kind` the objects given do not hold is an error: they hold objects of that kind, so they are
// taken to be all of them (a closed set); a reader who knows the object is on the cluster learns how to say so.
std::string closed_set_note(const std::string& kind) {
  return " (the objects given hold " + kind + "s, so they are taken to be all of them; give this file on its own, " +
         "without them, when it is on the cluster already)";
}

// Kueue LocalQueue controller: a LocalQueue whose ClusterQueue does not exist stays inactive, and its workloads are
// never admitted.
void LocalQueueClusterQueueExists(const json::Value& lq, const std::set<std::string>& cluster_queues,
                                  const Sink& sink) {
  const json::Value* spec = object_at(lq, "spec");
  auto cq = spec ? string_at(*spec, "clusterQueue") : std::nullopt;
  if (cq && !cq->empty() && !cluster_queues.contains(*cq))
    sink.error("spec.clusterQueue", "LocalQueueClusterQueueExists", kController,
               "ClusterQueue " + dq(*cq) + " is not among the objects given, so this LocalQueue stays inactive" +
                   closed_set_note("ClusterQueue"));
}

// Kueue ClusterQueue controller: a ClusterQueue that names a missing ResourceFlavor is inactive.
void ClusterQueueFlavorExists(const json::Value& cq, const std::set<std::string>& flavors, const Sink& sink) {
  const json::Value* spec = object_at(cq, "spec");
  if (!spec) return;
  for_each_flavor(QueueView{*spec}, [&](const json::Value& fl, const std::string& fp, auto, auto) {
    auto name = string_at(fl, "name");
    if (name && !flavors.contains(*name))
      sink.error(fp + ".name", "ClusterQueueFlavorExists", kController,
                 "ResourceFlavor " + dq(*name) + " is not among the objects given, so the ClusterQueue stays inactive" +
                     closed_set_note("ResourceFlavor"));
  });
}

// Kueue jobframework: a job whose LocalQueue does not exist in its namespace is never admitted.
void QueueNameExists(const json::Value& job, const std::multimap<std::string, std::string>& local_queues,
                     const Sink& sink) {
  auto q = label_of(job, kQueueNameLabel);
  if (!q || q->empty()) return;
  const std::string ns = namespace_of(job);
  auto [lo, hi] = local_queues.equal_range(*q);
  for (auto it = lo; it != hi; ++it)
    if (ns.empty() || it->second.empty() || it->second == ns) return;
  sink.error(label_path(kQueueNameLabel), "QueueNameExists", kController,
             "LocalQueue " + dq(*q) + " is not among the objects given" +
                 (ns.empty() ? "" : " in namespace " + dq(ns)) + ", so the workload is never admitted" +
                 closed_set_note("LocalQueue"));
}

// Kueue jobframework reconciler (ExtractPriority): a missing WorkloadPriorityClass stops the Workload from being made.
void PriorityClassExists(const json::Value& job, const std::set<std::string>& classes, const Sink& sink) {
  auto pc = label_of(job, kPriorityClassLabel);
  if (pc && !pc->empty() && !classes.contains(*pc))
    sink.error(label_path(kPriorityClassLabel), "PriorityClassExists", kController,
               "WorkloadPriorityClass " + dq(*pc) + " is not among the objects given, so no Workload is created" +
                   closed_set_note("WorkloadPriorityClass"));
}

}  // namespace

void validate_kueue_references(const std::vector<const json::Value*>& objects, const std::vector<Sink>& sinks) {
  std::set<std::string> cluster_queues, flavors, classes;
  std::multimap<std::string, std::string> local_queues;  // name -> namespace
  bool local_queues_given = false;
  for (const json::Value* o : objects) {
    if (!o || !o->IsObject()) continue;
    if (is_kueue(*o, "ClusterQueue")) cluster_queues.insert(name_of(*o));
    if (is_kueue(*o, "ResourceFlavor")) flavors.insert(name_of(*o));
    if (is_kueue(*o, "WorkloadPriorityClass")) classes.insert(name_of(*o));
    if (is_kueue(*o, "LocalQueue")) {
      local_queues.emplace(name_of(*o), namespace_of(*o));
      // A LocalQueue the operator makes for a workload (spec.queue.clusterQueue; render generates it) exists, but
      // says nothing of which other LocalQueues do.
      local_queues_given = local_queues_given || label_of(*o, kManagedByLabel) != kManagedByOperator;
    }
  }
  // The set is closed for the kinds it holds: a reference to a kind it holds none of is taken to be on the cluster.
  for (std::size_t i = 0; i < objects.size() && i < sinks.size(); ++i) {
    const json::Value* o = objects[i];
    if (!o || !o->IsObject()) continue;
    if (is_kueue(*o, "LocalQueue") && !cluster_queues.empty())
      LocalQueueClusterQueueExists(*o, cluster_queues, sinks[i]);
    if (is_kueue(*o, "ClusterQueue") && !flavors.empty()) ClusterQueueFlavorExists(*o, flavors, sinks[i]);
    if (is_job(*o)) {
      if (local_queues_given) QueueNameExists(*o, local_queues, sinks[i]);
      if (!classes.empty()) PriorityClassExists(*o, classes, sinks[i]);
    }
  }
}

}  // namespace cfo::validation::rules
