#include "cmd/cluster_facts.hpp"

#include <algorithm>
#include <cctype>

#include <spdlog/spdlog.h>

namespace cfo::cmd {

namespace {
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// 404 (object or API absent) and 403 (not allowed) mean "cannot tell" for the checks the SDK also makes best-effort.
bool unknowable(const Error& e) { return e.http_status == 404 || e.http_status == 403; }
}  // namespace

KueueReader::KueueReader(client::RestClient& client, std::string kueue_version)
    : client_(client), version_(std::move(kueue_version)) {}

client::ResourceType KueueReader::type(const char* plural, bool namespaced) const {
  return client::ResourceType{"kueue.x-k8s.io", version_, plural, namespaced};
}

void KueueReader::warn_forbidden(std::atomic<bool>& warned, const std::string& what) {
  if (warned.exchange(true)) return;
  spdlog::warn(
      "{} is forbidden (403): the check that needs it is skipped from now on; grant it (see config/rbac) "
      "to have it made",
      what);
}

Result<void> KueueReader::fill(const json::Value& wl, workload::ClusterFacts& facts, json::Document& local_queue) {
  using workload::Presence;
  facts.kueue_version = version_;
  if (version_.empty()) return {};
  std::string ns = json::string_at(wl, "metadata.namespace");
  std::string lq = json::string_at(wl, "spec.queue.localQueue");
  if (lq.empty()) lq = json::string_at(wl, "spec.queue.clusterQueue");  // a managed LocalQueue takes the CQ's name

  if (lq.empty()) {
    // The namespace default: the LocalQueue annotated kueue.x-k8s.io/default-queue: "true" (without case).
    auto list = client_.get_json(type("localqueues", true).collection_path(ns));
    if (!list) {
      if (list.error().http_status == 403) warn_forbidden(warned_local_queues_, "listing kueue.x-k8s.io LocalQueues");
      if (unknowable(list.error())) return {};
      return std::unexpected(Error{"listing LocalQueues in " + ns + ": " + list.error().message});
    }
    // Else a LocalQueue named "default": Kueue's LocalQueueDefaulting puts objects without a queue-name label there.
    const json::Value* items = json::find(*list, "items");
    bool named_default = false;
    if (items && items->IsArray())
      for (const auto& item : items->GetArray()) {
        auto name = json::get_string(item["metadata"], "name");
        named_default = named_default || name == std::string("default");
        const json::Value* annotations = json::find_path(item, "metadata.annotations");
        auto v = annotations ? json::get_string(*annotations, "kueue.x-k8s.io/default-queue") : std::nullopt;
        if (v && iequals(*v, "true") && name && !facts.default_local_queue) facts.default_local_queue = name;
      }
    if (!facts.default_local_queue && named_default) facts.default_local_queue = "default";
  } else {
    auto got = client_.get_json(type("localqueues", true).object_path(ns, lq));
    if (got) {
      local_queue = std::move(*got);
      facts.local_queue = &local_queue;
      facts.local_queue_presence = Presence::kPresent;
    } else if (got.error().is_not_found()) {
      facts.local_queue_presence = Presence::kAbsent;
    } else if (got.error().http_status == 403) {
      warn_forbidden(warned_local_queues_, "reading kueue.x-k8s.io LocalQueues");
    } else {
      return std::unexpected(Error{"reading LocalQueue " + ns + "/" + lq + ": " + got.error().message});
    }
  }

  std::string pc = json::string_at(wl, "spec.queue.priorityClass");
  if (!pc.empty()) {
    auto got = client_.get_json(type("workloadpriorityclasses", false).object_path("", pc));
    if (got)
      facts.priority_class_presence = Presence::kPresent;
    else if (got.error().is_not_found())
      facts.priority_class_presence = Presence::kAbsent;
    else if (got.error().http_status == 403)
      warn_forbidden(warned_priority_classes_, "reading kueue.x-k8s.io WorkloadPriorityClasses");
    else
      return std::unexpected(Error{"reading WorkloadPriorityClass " + pc + ": " + got.error().message});
  }
  return {};
}

json::Document KueueReader::workload_of(const std::string& ns, const std::string& child_uid) {
  json::Document none;
  if (version_.empty() || child_uid.empty()) return none;
  auto list = client_.get_json(type("workloads", true).collection_path(ns) +
                               "?labelSelector=kueue.x-k8s.io%2Fjob-uid%3D" + child_uid);
  if (!list) {
    if (list.error().http_status == 403) warn_forbidden(warned_workloads_, "listing kueue.x-k8s.io Workloads");
    return none;
  }
  json::Value* items = json::find(*list, "items");
  if (!items || !items->IsArray() || items->Empty()) return none;
  json::Document out;
  out.CopyFrom((*items)[0], out.GetAllocator());
  return out;
}

}  // namespace cfo::cmd
