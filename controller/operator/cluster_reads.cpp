#include "operator/cluster_reads.hpp"

#include <algorithm>
#include <cctype>

namespace cfo::op {

namespace {
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::vector<std::pair<std::string, std::string>> local_queue_managers(const json::Value& workload,
                                                                      const std::vector<runtime::ObjectPtr>& others) {
  std::string lq = json::string_at(workload, "spec.queue.localQueue");
  if (lq.empty()) lq = json::string_at(workload, "spec.queue.clusterQueue");
  const std::string uid = json::string_at(workload, "metadata.uid");
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& o : others) {
    if (!o || json::string_at(*o, "metadata.uid") == uid || json::find_path(*o, "metadata.deletionTimestamp")) continue;
    const json::Value* st = json::find(*o, "status");
    const std::string cq = json::string_at(*o, "spec.queue.clusterQueue");
    if (!st || cq.empty() || json::get_string(*st, "managedLocalQueue").value_or("") != lq) continue;
    bool held = json::get_string(*st, "heldFor").value_or("") == "LocalQueueMismatch";
    if (const json::Value* conds = json::find(*st, "conditions"); conds && conds->IsArray())
      for (const auto& c : conds->GetArray())
        held = held || (json::get_string(c, "type") == std::string("Queued") &&
                        json::get_string(c, "reason") == std::string("LocalQueueMismatch"));
    if (!held) out.emplace_back(json::string_at(*o, "metadata.name"), cq);
  }
  return out;
}

void fill_kueue_facts(const json::Value& wl, const std::string& kueue_version, const KueueCaches& caches,
                      workload::ClusterFacts& facts, runtime::ObjectPtr& local_queue) {
  using workload::Presence;
  facts.kueue_version = kueue_version;
  if (kueue_version.empty()) return;
  const std::string ns = json::string_at(wl, "metadata.namespace");
  std::string lq = json::string_at(wl, "spec.queue.localQueue");
  if (lq.empty()) lq = json::string_at(wl, "spec.queue.clusterQueue");  // a managed LocalQueue takes the CQ's name
  const bool lq_synced = caches.local_queues_synced && caches.local_queues_synced();
  facts.local_queues_unreadable = !lq_synced && caches.local_queues_given_up && caches.local_queues_given_up();

  if (lq_synced && caches.local_queues_in) {
    facts.local_queue_names.emplace();
    for (const auto& item : caches.local_queues_in(ns))
      if (auto name = json::get_string((*item)["metadata"], "name")) facts.local_queue_names->insert(*name);
  }
  if (lq.empty()) {
    if (lq_synced && caches.local_queues_in) {
      bool named_default = false;
      std::vector<std::string> annotated;
      for (const auto& item : caches.local_queues_in(ns)) {
        auto name = json::get_string((*item)["metadata"], "name");
        named_default = named_default || name == std::string("default");
        const json::Value* annotations = json::find_path(*item, "metadata.annotations");
        auto v = annotations ? json::get_string(*annotations, "kueue.x-k8s.io/default-queue") : std::nullopt;
        if (v && iequals(*v, "true") && name) annotated.push_back(*name);
      }
      // The first by name, whatever order the cache lists them in; the others are told to the workload.
      std::sort(annotated.begin(), annotated.end());
      if (!annotated.empty()) {
        facts.default_local_queue = annotated.front();
        facts.other_default_local_queues.assign(annotated.begin() + 1, annotated.end());
      }
      if (!facts.default_local_queue && named_default) facts.default_local_queue = "default";
    }
  } else if (lq_synced && caches.local_queue) {
    local_queue = caches.local_queue(ns + "/" + lq);
    facts.local_queue = local_queue.get();
    facts.local_queue_presence = local_queue ? Presence::kPresent : Presence::kAbsent;
  }

  const std::string pc = json::string_at(wl, "spec.queue.priorityClass");
  if (!pc.empty() && caches.priority_class && caches.priority_classes_synced && caches.priority_classes_synced())
    facts.priority_class_presence = caches.priority_class(pc) ? Presence::kPresent : Presence::kAbsent;
}

void fill_queue_objects(const json::Value& wl, const KueueCaches& caches, runtime::ObjectPtr ns,
                        workload::ClusterFacts& facts, std::vector<runtime::ObjectPtr>& keep) {
  if (!caches.quota_objects || !caches.local_queues_in || !caches.local_queues_synced || !caches.local_queues_synced())
    return;
  auto quota = caches.quota_objects();
  if (!quota) return;
  keep = std::move(*quota);
  for (auto& lq : caches.local_queues_in(json::string_at(wl, "metadata.namespace"))) keep.push_back(std::move(lq));
  if (ns) keep.push_back(std::move(ns));
  validation::QueueObjects q;
  q.cohorts_known = false;
  for (const auto& o : keep) q.add(o.get());
  facts.queue_objects = std::move(q);
}

}  // namespace cfo::op
