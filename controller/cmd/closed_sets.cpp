#include "cmd/closed_sets.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "workload/finding_paths.hpp"
#include "workload/reconcile.hpp"

namespace cfo::cmd {

std::vector<std::size_t> closed_sets(const std::vector<InputDocument>& docs, const std::vector<std::string>& paths,
                                     bool one_set) {
  std::vector<std::size_t> out(docs.size(), 0);
  if (one_set) return out;
  // Whether each path is a folder, asked once per path (not once per document: a stat each).
  std::vector<bool> folder(paths.size(), false);
  for (std::size_t src = 0; src < paths.size(); ++src) {
    std::error_code ec;
    folder[src] = paths[src] != "-" && std::filesystem::is_directory(paths[src], ec);
  }
  std::map<std::pair<std::size_t, std::string>, std::size_t> numbers;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const std::size_t src = docs[i].source;
    const bool in_folder = src < paths.size() && folder[src];
    auto key = std::make_pair(src, in_folder ? std::string() : docs[i].file);
    out[i] = numbers.try_emplace(std::move(key), numbers.size()).first->second;
  }
  return out;
}

namespace {

bool is_local_queue(const json::Value& o, const std::string& name, const std::string& ns) {
  // One without a namespace lands wherever it is applied: it may be the workload's, as the set's reference checks
  // take it (the thirty-sixth user trial: found by them, missed by the LocalQueueMismatch check).
  const std::string lq_ns = json::string_at(o, "metadata.namespace");
  return json::string_at(o, "apiVersion").starts_with("kueue.x-k8s.io/") &&
         json::string_at(o, "kind") == "LocalQueue" && json::string_at(o, "metadata.name") == name &&
         (lq_ns.empty() || lq_ns == ns);
}

/// A LocalQueue a workload of the set manages (spec.queue.clusterQueue): for which ClusterQueue, the first workload
/// that manages it (its member index), and the LocalQueue generated for it (null when none was, e.g. no Kueue).
struct ManagedQueue {
  std::string cluster_queue;
  std::size_t member = 0;
  const json::Value* generated = nullptr;
};

// The operator's LocalQueueMismatch hold, decided within a closed set: a workload that manages LocalQueue `lq` for
// ClusterQueue `cq` while the set holds that LocalQueue for another ClusterQueue, given as an object (`given`) or
// managed by a workload before it (`earlier`). Kueue's LocalQueue CRD makes spec.clusterQueue immutable
// (x-kubernetes-validations `self == oldSelf`), so the operator holds such a workload for good (workload::reconcile,
// queue_hold): offline, that is an error at spec.queue.clusterQueue.
std::optional<FieldError> LocalQueueMismatchInSet(const std::string& lq, const std::string& cq,
                                                  const json::Value* given, const ManagedQueue* earlier,
                                                  const std::vector<SetMember>& members) {
  std::string holder, other;
  if (given && json::string_at(*given, "spec.clusterQueue") != cq) {
    holder = "is among the objects given";
    other = json::string_at(*given, "spec.clusterQueue");
  } else if (earlier && earlier->cluster_queue != cq) {
    holder = "is managed by workload " + json::string_at(members[earlier->member].input->doc, "metadata.name") +
             " of this set";
    other = earlier->cluster_queue;
  } else {
    return std::nullopt;
  }
  return FieldError{"spec.queue.clusterQueue", "LocalQueueMismatch",
                    "codeflare-operator: a workload is held while its managed LocalQueue points at another "
                    "ClusterQueue; Kueue's LocalQueue CRD: spec.clusterQueue is immutable (self == oldSelf)",
                    "LocalQueue " + lq + " " + holder + " for ClusterQueue " + other + ", not " + cq +
                        "; a LocalQueue's clusterQueue cannot change, so this workload would be held for good (use "
                        "another spec.queue.localQueue name)"};
}

}  // namespace

std::vector<FieldErrors> judge_closed_set(const std::vector<SetMember>& members, const validation::SchemaSet& schemas,
                                          const Expansion& expansion, const std::string& now,
                                          std::vector<GeneratedObjects>* keep) {
  const validation::ClusterProfile& profile = expansion.facts.profile;
  std::vector<FieldErrors> out(members.size());
  std::vector<validation::SetEntry> entries;
  std::vector<std::size_t> owner;                              // entries[k] belongs to members[owner[k]]
  std::vector<std::string> label;                              // for a generated object: "RayCluster/name"; else ""
  std::vector<workload::PathOrigins> origins(members.size());  // of each workload's top-level child
  // The generated objects, each in a block sized to it, where they stay: a set of thousands of workloads holds its
  // children in about their own size, the rest of each reconcile's outcome is let go at once.
  std::vector<GeneratedObjects> generated(members.size());
  // The LocalQueues the workloads before manage, by "<namespace>/<name>" (generated objects stay where they are: a
  // deque).
  std::map<std::string, ManagedQueue> managed_queues;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const json::Value& doc = members[i].input->doc;
    if (!members[i].workload) {
      entries.push_back({&doc, members[i].context});
      owner.push_back(i);
      label.emplace_back();
      continue;
    }
    workload::ClusterFacts facts = expansion.facts;
    // A managed LocalQueue (spec.queue.clusterQueue) is made by the operator when it is not there: it joins the
    // set, unless the set holds it already: given as an object (render generates it whatever the set holds), or
    // managed by a workload before this one (generated once).
    const std::string cq = json::string_at(doc, "spec.queue.clusterQueue");
    std::string managed_key;
    if (!cq.empty()) {
      std::string lq = json::string_at(doc, "spec.queue.localQueue");
      if (lq.empty()) lq = cq;
      const std::string ns = json::string_at(doc, "metadata.namespace");
      managed_key = ns + "/" + lq;
      facts.local_queue_presence = workload::Presence::kAbsent;
      const json::Value* given = nullptr;
      for (const auto& m : members)
        if (!m.workload && is_local_queue(m.input->doc, lq, ns)) given = &m.input->doc;
      const auto earlier = managed_queues.find(managed_key);
      if (given && !expansion.always_generate_managed_queue) {
        facts.local_queue_presence = workload::Presence::kPresent;
        facts.local_queue = given;
      } else if (earlier != managed_queues.end() && earlier->second.generated) {
        facts.local_queue_presence = workload::Presence::kPresent;
        facts.local_queue = earlier->second.generated;
      }
      if (auto e = LocalQueueMismatchInSet(lq, cq, given, earlier != managed_queues.end() ? &earlier->second : nullptr,
                                           members))
        out[i].push_back(std::move(*e));
      managed_queues.try_emplace(managed_key, ManagedQueue{cq, i, nullptr});
    }
    // Offline, a workload is expanded from its spec, as if new: a status it carries (a `kubectl get -o yaml` copy)
    // speaks of children on a cluster that are not here, and would read as a job already run (nothing to render).
    json::Document spec_only;
    const json::Value* input = &doc;
    if (json::find(doc, "status")) {
      spec_only = json::clone(doc);
      spec_only.RemoveMember("status");
      input = &spec_only;
    }
    workload::Outcome outcome = workload::reconcile(*input, workload::Observed{}, facts, schemas, now);
    if (!out[i].empty()) {  // a LocalQueueMismatchInSet error: the workload would be held, nothing is generated
      out[i].insert(out[i].end(), std::make_move_iterator(outcome.errors.begin()),
                    std::make_move_iterator(outcome.errors.end()));
      continue;
    }
    out[i] = std::move(outcome.errors);
    if (!outcome.valid) continue;
    origins[i] = std::move(outcome.origins);
    for (const auto& child : outcome.desired) {
      GeneratedObject& held = generated[i].emplace_back();
      held.doc = json::compact_copy(child, held.pool);
      if (!managed_key.empty() && json::string_at(held.doc, "kind") == "LocalQueue") {
        ManagedQueue& m = managed_queues.at(managed_key);
        if (m.member == i) m.generated = &held.doc;
      }
      entries.push_back({&held.doc, true});
      owner.push_back(i);
      label.push_back(json::string_at(child, "kind") + "/" + json::string_at(child, "metadata.name"));
    }
  }
  auto judged = validation::validate_set(schemas, entries, profile);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const std::size_t i = owner[k];
    if (members[i].context) continue;
    if (label[k].empty()) {
      out[i] = std::move(judged[k]);
    } else {
      // The origins are the top-level child's Pod-template paths; no other child has such paths.
      workload::add_child_findings(std::move(judged[k]), json::string_at(*entries[k].object, "kind"), label[k],
                                   members[i].input->doc, out[i], origins[i]);
    }
  }
  // A CodeFlareWorkload given twice: only its children are entries above, so the workloads are compared here.
  std::vector<const json::Value*> workloads(members.size(), nullptr);
  for (std::size_t i = 0; i < members.size(); ++i)
    if (members[i].workload) workloads[i] = &members[i].input->doc;
  auto repeats = validation::repeated_objects(workloads);
  for (std::size_t i = 0; i < members.size(); ++i)
    for (auto& e : repeats[i]) out[i].push_back(std::move(e));
  if (keep) *keep = std::move(generated);
  return out;
}

}  // namespace cfo::cmd
