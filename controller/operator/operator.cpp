#include "operator/operator.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "client/kubeconfig.hpp"
#include "client/response_observer.hpp"
#include "core/clock.hpp"
#include "core/log_scope.hpp"
#include "metrics/cache_metrics.hpp"
#include "metrics/controller_metrics.hpp"
#include "metrics/leader_metrics.hpp"
#include "metrics/metrics.hpp"
#include "metrics/operator_metrics.hpp"
#include "metrics/process_metrics.hpp"
#include "metrics/rest_client_metrics.hpp"
#include "metrics/webhook_metrics.hpp"
#include "operator/cluster_reads.hpp"
#include "operator/kueue_index.hpp"
#include "operator/local_queue_collector.hpp"
#include "operator/namespace_cache.hpp"
#include "operator/resources.hpp"
#include "operator/served_apis.hpp"
#include "operator/watch_mappings.hpp"
#include "operator/workload_controller.hpp"
#include "runtime/cached_object.hpp"
#include "runtime/event_recorder.hpp"
#include "runtime/heap_trimmer.hpp"
#include "runtime/manager.hpp"
#include "runtime/predicates.hpp"
#include "webhook/webhooks.hpp"

namespace cfo::op {

namespace {

constexpr const char* kControllerName = "codeflareworkload";
constexpr const char* kApisControllerName = "servedapis";
constexpr const char* kApisKey = "served-apis";
constexpr const char* kCollectorName = "managedlocalqueue";

// Every CodeFlareWorkload of namespace `ns`, read from the apiserver (not from a cache narrowed by a selector).
Result<std::vector<std::shared_ptr<const json::Document>>> list_workloads(const Api& api, const std::string& ns) {
  auto list = api.get(resources::kCodeFlareWorkloads.collection_path(ns));
  if (!list) return std::unexpected(list.error());
  std::vector<std::shared_ptr<const json::Document>> out;
  const json::Value* items = json::find(*list, "items");
  if (items && items->IsArray())
    for (const auto& item : items->GetArray()) out.push_back(runtime::compact_object(item));
  return out;
}

// The lease client: every lease request must end within the renew deadline, or a hung apiserver connection would
// keep a leader past it.
std::shared_ptr<runtime::LeaseLock> lease_lock(const OperatorOptions& o, const client::ClientConfig& cfg,
                                               client::RestClientOptions client_options) {
  auto& t = client_options.timeouts;
  t.request_timeout_ms = std::chrono::milliseconds(o.election.renew_deadline_ms);
  t.connect_timeout_ms = std::min(t.connect_timeout_ms, t.request_timeout_ms);
  return runtime::rest_lease_lock(client::RestClient(cfg, client_options), o.leader_election_namespace,
                                  o.leader_election_id);
}

std::string watching(const OperatorOptions& o) {
  std::string out =
      o.namespaces.empty() ? std::string("all namespaces") : std::to_string(o.namespaces.size()) + " namespace(s)";
  if (!o.label_selector.empty()) out += ", workloads matching the label selector \"" + o.label_selector + "\"";
  return out;
}

// What a cached CRD keeps: its name, uid, resourceVersion and generation, and whether its deletion has started
// (metadata.deletionTimestamp). The informer lists and watches the CRDs' metadata only; a whole CRD (an apiserver
// that does not serve PartialObjectMetadata) is cut down the same way.
void crd_transform(json::Document& crd) {
  json::Document keep(rapidjson::kObjectType);
  auto& a = keep.GetAllocator();
  json::Value meta(rapidjson::kObjectType);
  for (const char* field : {"name", "uid", "resourceVersion", "generation"})
    if (const json::Value* v = json::find_path(crd, std::string("metadata.") + field)) {
      json::Value copy;
      copy.CopyFrom(*v, a);
      meta.AddMember(json::str(field, a), copy, a);
    }
  keep.AddMember("metadata", meta, a);
  keep.AddMember("deleting", json::Value(json::find_path(crd, "metadata.deletionTimestamp") != nullptr), a);
  crd.Swap(keep);
}

bool is_watched_crd(const std::string& name) {
  const auto& names = watched_crd_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

runtime::InformerOptions proto(const OperatorOptions& o, const client::ResourceType& type,
                               std::string label_selector = {},
                               runtime::ObjectTransform transform = runtime::strip_managed_fields) {
  runtime::InformerOptions p;
  p.watcher.min_watch_timeout_s = o.min_watch_timeout_s;
  p.watcher.max_watch_timeout_s = 2 * o.min_watch_timeout_s;
  p.resource = type;
  p.label_selector = std::move(label_selector);
  p.transform = std::move(transform);
  return p;
}

// The operator's caches. The groups of the optional kinds are added when their CRDs are served (at start, or later
// when they appear), so their pointers may be set while reconciles read them.

struct Caches {
  /// Where each cache's size is published (codeflare_informer_cache_objects / _bytes).
  metrics::Metrics* metrics = nullptr;
  runtime::InformerGroup* workloads = nullptr;
  std::array<std::atomic<runtime::InformerGroup*>, kChildKindCount> children{};
  std::atomic<runtime::InformerGroup*> local_queues{nullptr}, priority_classes{nullptr}, kueue_workloads{nullptr};
  std::atomic<runtime::InformerGroup*> cluster_queues{nullptr}, resource_flavors{nullptr};
  std::atomic<bool> local_queues_given_up{false};  ///< the wait ended on a failing list (said once)
  KueueWorkloadIndex kueue_index;
  /// The children the workers create, whose creation events wake nothing (own_child_writes.hpp); set with the work
  /// queue it wakes.
  std::shared_ptr<OwnChildWrites> own_child_writes;
};

// Adds the caches (and what they wake) of every served kind that has none yet. Called before the manager starts and
// by the served-APIs refresher; never concurrently.
void ensure_caches(const ServedApis& apis, const OperatorOptions& o, runtime::Manager& manager,
                   const client::RestClient& cache_rest, Caches& caches,
                   const std::shared_ptr<runtime::WorkQueue>& queue,
                   const std::shared_ptr<runtime::WorkQueue>& collector_queue) {
  // Hands `group` to the manager and publishes its size.
  auto add = [&](std::unique_ptr<runtime::InformerGroup> group, const client::ResourceType& type,
                 bool awaited) -> runtime::InformerGroup* {
    runtime::InformerGroup& added = manager.add_informers(std::move(group), awaited);
    if (caches.metrics) metrics::track_informer_cache(*caches.metrics, type.plural, added);
    return &added;
  };
  // Children wake their workload on every change, status included: the workload's phase follows theirs.
  for (const auto& row : child_kinds()) {
    const std::size_t i = static_cast<std::size_t>(row.kind);
    const bool served = row.kind == ChildKind::kRayCluster   ? apis.ray_cluster
                        : row.kind == ChildKind::kAppWrapper ? apis.app_wrapper
                                                             : apis.ray_job;
    // A kind whose CRD is being deleted is watched too: its objects held by finalizers still exist, and the workloads
    // must see them (the twenty-third user trial: started during such a deletion, the operator saw no AppWrapper and
    // created a RayCluster beside the one still running). Its objects can be listed until the CRD is gone.
    const bool going = apis.terminating.contains(std::string(row.crd));
    if ((!served && !going) || caches.children[i].load()) continue;
    // One child per workload, read by key when its workload reconciles: held deflated (a thirtieth of the memory).
    runtime::InformerOptions p = proto(o, *row.type, "", child_transform);
    p.pack_cache = true;
    auto group = std::make_unique<runtime::InformerGroup>(cache_rest, p, o.namespaces);
    for (auto* inf : group->informers())
      runtime::enqueue_from(*inf, queue, child_to_workload(*caches.workloads, caches.own_child_writes));
    caches.children[i] = add(std::move(group), *row.type, true);
    spdlog::info("watching {} (CRD {})", row.name, row.crd);
  }
  // Kueue's caches are optional for the start (their lists may be forbidden): until synced they read as unknown. A
  // LocalQueue or a WorkloadPriorityClass wakes the workloads naming it, a Kueue Workload the one whose child it
  // admits.
  if (apis.kueue_version.empty() || caches.local_queues.load()) return;
  const runtime::InformerGroup& workloads = *caches.workloads;
  auto lq = std::make_unique<runtime::InformerGroup>(
      cache_rest, proto(o, resources::local_queues(apis.kueue_version), "", local_queue_transform), o.namespaces);
  // Kueue rewrites a LocalQueue's status on every admission in it; the cache drops the status, and such writes wake
  // none of the workloads naming it (kept_fields_changed).
  // A managed one also wakes the collector (at start, every one: a last user may have gone while nobody led).
  for (auto* inf : lq->informers()) {
    runtime::enqueue_all_from(*inf, queue, local_queue_to_workloads(workloads), runtime::kept_fields_changed);
    runtime::enqueue_from(*inf, collector_queue, managed_local_queue_key(), runtime::kept_fields_changed);
  }
  auto pc = std::make_unique<runtime::InformerGroup>(
      cache_rest, proto(o, resources::workload_priority_classes(apis.kueue_version), "", priority_class_transform),
      o.namespaces);
  for (auto* inf : pc->informers())
    runtime::enqueue_all_from(*inf, queue, priority_class_to_workloads(workloads), runtime::kept_fields_changed);
  auto kw = std::make_unique<runtime::InformerGroup>(
      cache_rest, proto(o, resources::kueue_workloads(apis.kueue_version), "", kueue_workload_transform), o.namespaces);
  for (auto* inf : kw->informers()) {
    caches.kueue_index.follow(*inf);
    runtime::enqueue_from(*inf, queue, kueue_workload_to_workload(workloads));
  }
  // ClusterQueues and ResourceFlavors (cluster-scoped) for the admissibility of queued workloads: a spec change may
  // change any workload's verdict, so it wakes them all (status writes, Kueue's usage, do not).
  std::array<std::unique_ptr<runtime::InformerGroup>, 2> quota;
  quota[0] = std::make_unique<runtime::InformerGroup>(
      cache_rest, proto(o, resources::cluster_queues(apis.kueue_version), "", cluster_queue_transform),
      std::vector<std::string>{});
  quota[1] = std::make_unique<runtime::InformerGroup>(
      cache_rest, proto(o, resources::resource_flavors(apis.kueue_version), "", resource_flavor_transform),
      std::vector<std::string>{});
  for (auto& g : quota)
    for (auto* inf : g->informers())
      runtime::enqueue_all_from(*inf, queue, every_workload(workloads), runtime::spec_or_metadata_changed);
  caches.priority_classes = add(std::move(pc), resources::workload_priority_classes(apis.kueue_version), false);
  caches.kueue_workloads = add(std::move(kw), resources::kueue_workloads(apis.kueue_version), false);
  caches.cluster_queues = add(std::move(quota[0]), resources::cluster_queues(apis.kueue_version), false);
  caches.resource_flavors = add(std::move(quota[1]), resources::resource_flavors(apis.kueue_version), false);
  caches.local_queues = add(std::move(lq), resources::local_queues(apis.kueue_version), false);
  spdlog::info("watching Kueue {} LocalQueues, ClusterQueues, ResourceFlavors, WorkloadPriorityClasses and Workloads",
               apis.kueue_version);
}

std::string describe(const ServedApis& a, int max_pod_sets_flag, std::optional<validation::Profile> profile_flag) {
  const int mps = max_pod_sets_flag > 0 ? max_pod_sets_flag : a.kueue_max_pod_sets > 0 ? a.kueue_max_pod_sets : 8;
  return std::string("RayCluster ") + (a.ray_cluster ? "served" : "not served") + ", RayJob " +
         (a.ray_job ? "served" : "not served") + ", AppWrapper " + (a.app_wrapper ? "served" : "not served") +
         ", Kueue API " + (a.kueue_version.empty() ? std::string("not served") : a.kueue_version) + " (MaxPodSets " +
         std::to_string(mps) +
         (max_pod_sets_flag > 0      ? ", from --kueue-max-podsets)"
          : a.kueue_max_pod_sets > 0 ? ")"
                                     : ", default)") +
         ", profile " + std::string(validation::profile_name(profile_flag.value_or(a.profile))) +
         (profile_flag                             ? " (from --profile)"
          : a.profile == validation::Profile::kOdh ? " (OpenDataHub CRDs served)"
                                                   : "");
}

// The client's own retries, told in the log (the client layer does not log): a connection that dropped, a response
// cut off included, as a warning; a retried status (429, 5xx) at info. For the run's lifetime.
struct RetryLog {
  RetryLog() {
    client::set_retry_observer(
        [](std::string_view what, std::string_view reason, bool dropped, int64_t delay_ms, int retry) {
          if (reason.starts_with(what) && reason.substr(what.size()).starts_with(": "))
            reason.remove_prefix(what.size() + 2);  // the client's errors name the request already
          spdlog::log(dropped ? spdlog::level::warn : spdlog::level::info,
                      "{}: {}; sending it again in {} ms (retry {})", what, reason, delay_ms, retry);
        });
  }
  ~RetryLog() { client::set_retry_observer({}); }
  RetryLog(const RetryLog&) = delete;
  RetryLog& operator=(const RetryLog&) = delete;
};

}  // namespace

int run(const OperatorOptions& o, const client::RestClientOptions& client_options, const StopControl& stop) {
  // Everything the probes and the scrape hooks read is declared before the manager, which stops its servers before
  // anything else goes away.
  metrics::Metrics metrics;
  metrics::track_process(metrics);
  metrics::RestClientMetrics rest_metrics(metrics);
  metrics::OperatorMetrics operator_metrics(metrics);
  const RetryLog retry_log;

  auto cfg = client::load_default(o.kubeconfig);
  if (!cfg) {
    spdlog::error("no cluster configuration: {}", cfg.error().message);
    return 1;
  }
  spdlog::info("using {} (server {})", cfg->source, cfg->server);
  // The client settings, so that a timeout or a throttled request in the log can be read against them.
  const bool limited = client_options.qps > 0 && std::isfinite(client_options.qps);
  spdlog::info(
      "apiserver client: {}, request timeout {} ms (--kube-api-request-timeout), connect timeout {} ms "
      "(--kube-api-connect-timeout)",
      limited ? fmt::format("{} requests/s, bursts of {} (--kube-api-qps, --kube-api-burst)", client_options.qps,
                            client_options.burst)
              : std::string("no client-side rate limit (--kube-api-qps)"),
      client_options.timeouts.request_timeout_ms.count(), client_options.timeouts.connect_timeout_ms.count());

  // Metrics and probes come first, as in controller-runtime: a pod that is starting answers /healthz, and /readyz
  // says what it still waits for.
  runtime::ManagerOptions mo;
  mo.metrics_address = o.metrics_address;
  mo.cache_sync_timeout = std::chrono::milliseconds(o.cache_sync_timeout_ms);
  mo.metrics_handler = metrics.http_handler();
  mo.probe_address = o.probe_address;
  if (o.leader_elect) {
    mo.leader_election = o.election;
    mo.leader_election->identity = runtime::default_leader_identity();
    mo.lease_lock = lease_lock(o, *cfg, client_options);
  }
  runtime::Manager manager(mo);
  manager.healthz().add("ping", [] { return std::optional<std::string>(); });
  if (auto r = manager.start_servers(); !r) {
    spdlog::error("{}", r.error().message);
    return 1;
  }

  client::RestClient rest(*cfg, client_options);
  client::RestClient cache_rest = rest.with_stop(stop.cache_stop);  // the informers' client, cancelled at stop
  const Api api = rest_api(rest);
  auto version = api.get("/version");
  if (!version) {
    spdlog::error("cannot reach the apiserver at {}: {}", cfg->server, version.error().message);
    return 1;
  }
  spdlog::info("apiserver version {}", json::get_string(*version, "gitVersion").value_or("?"));
  const int kubernetes_minor = kubernetes_minor_of(*version);

  // The served APIs and their schemas, read again whenever one of their CRDs changes (the refresher below).
  auto served = read_served_apis(api);
  if (!served) {
    spdlog::error("reading upstream CRDs: {}", served.error().message);
    return 1;
  }
  // Every workload needs the RayCluster CRD, but the operator starts without it as it does without the others: the
  // workloads are held (RayClusterNotInstalled) until KubeRay's CRDs are served, and a workload deleted meanwhile
  // still has its managed LocalQueue removed. Exiting instead would crash-loop the Pod and leave those deletions
  // waiting on our finalizer (the twenty-fourth user trial).
  for (const auto& name : kTargetCrdNames)
    if (!served->generations.count(name))
      spdlog::warn("CRD {} is {}; workloads that need it are held until it is served", name,
                   served->terminating.count(name) ? "being deleted" : "not installed");
  spdlog::info("{}", describe(*served, o.kueue_max_podsets, o.profile));
  ServedApiState apis;
  apis.set(std::make_shared<const ServedApis>(std::move(*served)));

  // The work queue of the workloads, and what wakes it: the workload's own status writes do not, spec, metadata and
  // deletion changes do (its children and Kueue's objects are added by ensure_caches).
  auto controller_metrics = std::make_shared<metrics::ControllerMetrics>(metrics, kControllerName);
  runtime::WorkQueueOptions qopts;
  qopts.backoff = o.backoff;
  qopts.bucket = o.bucket;
  qopts.observer = controller_metrics;
  auto queue = std::make_shared<runtime::WorkQueue>(qopts);
  // The managed-LocalQueue collector's queue (local_queue_collector.hpp), keyed by LocalQueue: a workload's
  // deletion or change of queue wakes the LocalQueues it used.
  auto collector_metrics = std::make_shared<metrics::ControllerMetrics>(metrics, kCollectorName);
  runtime::WorkQueueOptions collector_qopts;
  collector_qopts.backoff = o.backoff;
  collector_qopts.observer = collector_metrics;
  auto collector_queue = std::make_shared<runtime::WorkQueue>(collector_qopts);

  Caches caches;
  caches.metrics = &metrics;
  caches.own_child_writes = std::make_shared<OwnChildWrites>([queue](const std::string& key) { queue->add(key); });
  {
    // Held deflated, as the children are: each reconcile reads its workload once; lists (a LocalQueue or priority
    // class that changes, a namespace relabelled) are rare.
    runtime::InformerOptions p = proto(o, resources::kCodeFlareWorkloads, o.label_selector);
    p.pack_cache = true;
    auto group = std::make_unique<runtime::InformerGroup>(cache_rest, p, o.namespaces);
    for (auto* inf : group->informers()) {
      runtime::enqueue_from(*inf, queue, runtime::own_key(), runtime::spec_or_metadata_changed);
      runtime::enqueue_all_from(*inf, collector_queue, workload_to_local_queues([&caches](const std::string& ns) {
        runtime::InformerGroup* g = caches.local_queues.load();
        return g ? g->list(ns) : std::vector<runtime::ObjectPtr>{};
      }),
                                local_queues_may_have_changed);
    }
    caches.workloads = &manager.add_informers(std::move(group), true);
    metrics::track_informer_cache(metrics, resources::kCodeFlareWorkloads.plural, *caches.workloads);
  }
  ensure_caches(*apis.get(), o, manager, cache_rest, caches, queue, collector_queue);
  // The watched Namespaces, for their Pod Security level; a change of it judges their workloads again.
  std::vector<runtime::InformerGroup*> namespace_caches;
  for (const auto& name : o.namespaces.empty() ? std::vector<std::string>{""} : o.namespaces) {
    runtime::InformerOptions p = namespace_informer(name);
    p.watcher = proto(o, resources::kNamespaces).watcher;
    auto group = std::make_unique<runtime::InformerGroup>(cache_rest, p, std::vector<std::string>{});
    for (auto* inf : group->informers())
      runtime::enqueue_all_from(*inf, queue, namespace_to_workloads(*caches.workloads));
    namespace_caches.push_back(&manager.add_informers(std::move(group), true));
  }

  // The served-APIs refresher: one informer on the CRDs' metadata (one watch for all of them, a few hundred bytes
  // each) wakes it when a watched CRD appears, changes (its resourceVersion: a new generation, a condition) or
  // starts its deletion; it then reads those CRDs again, publishes the new view, adds the caches of newly served
  // kinds and wakes every workload (a held one may go ahead).
  auto apis_queue = std::make_shared<runtime::WorkQueue>(runtime::WorkQueueOptions{});
  runtime::InformerGroup* crd_cache = nullptr;
  {
    runtime::InformerOptions p = proto(o, resources::kCrds, "", crd_transform);
    p.metadata_only = true;
    auto group = std::make_unique<runtime::InformerGroup>(cache_rest, p, std::vector<std::string>{});
    for (auto* inf : group->informers())
      runtime::enqueue_from(*inf, apis_queue, [](const json::Value& crd) -> std::optional<std::string> {
        if (!is_watched_crd(json::string_at(crd, "metadata.name"))) return std::nullopt;
        return std::string(kApisKey);
      });
    crd_cache = &manager.add_informers(std::move(group), false);
  }
  // The resourceVersions of the watched CRDs as they were when last read (refresh runs on one thread).
  std::map<std::string, std::string> read_versions = apis.get()->resource_versions;
  auto refresh = [&](const std::string&) -> runtime::ReconcileResult {
    // The cache says whether anything changed; only then are the CRDs read and compiled.
    std::map<std::string, std::string> cached;
    std::set<std::string> cached_deleting;
    for (const auto& crd : crd_cache->list_all()) {
      const std::string crd_name = json::string_at(*crd, "metadata.name");
      if (!is_watched_crd(crd_name)) continue;
      cached[crd_name] = json::string_at(*crd, "metadata.resourceVersion");
      if (json::get_bool(*crd, "deleting").value_or(false)) cached_deleting.insert(crd_name);
    }
    if (cached == read_versions) return runtime::ReconcileResult::ok();
    // A deletion that starts is published before anything is read: an apply meanwhile would re-create what it removes.
    if (auto current = apis.get(); std::any_of(cached_deleting.begin(), cached_deleting.end(),
                                               [&](const auto& n) { return current->generations.contains(n); })) {
      auto stopped = std::make_shared<const ServedApis>(stop_serving(*current, cached_deleting));
      spdlog::info("the served APIs changed: {}", describe(*stopped, o.kueue_max_podsets, o.profile));
      apis.set(stopped);
      for (const auto& key : caches.workloads->keys("")) queue->add(key);
    }
    auto now = read_served_apis(api);
    if (!now) return runtime::ReconcileResult::failed(now.error().message);
    read_versions = std::move(cached);
    auto same = [](const ServedApis& a, const ServedApis& b) {
      return a.generations == b.generations && a.terminating == b.terminating;
    };
    if (same(*apis.get(), *now)) return runtime::ReconcileResult::ok();
    spdlog::info("the served APIs changed: {}", describe(*now, o.kueue_max_podsets, o.profile));
    auto published = std::make_shared<const ServedApis>(std::move(*now));
    apis.set(published);
    ensure_caches(*published, o, manager, cache_rest, caches, queue, collector_queue);
    for (const auto& key : caches.workloads->keys("")) queue->add(key);
    return runtime::ReconcileResult::ok();
  };
  runtime::ControllerOptions apis_opts;
  apis_opts.name = kApisControllerName;
  manager.add_controller(std::make_shared<runtime::Controller>(apis_opts, apis_queue, refresh));

  // Events are best effort and never keep a reconcile waiting: a thread of the recorder posts them.
  runtime::EventRecorderOptions event_options;
  event_options.async_capacity = 1000;
  runtime::EventRecorder recorder(rest, event_options);
  WorkloadCaches wcaches;
  wcaches.workloads = [&caches](const std::string& key) { return caches.workloads->get(key); };
  wcaches.own_child_writes = caches.own_child_writes;
  for (std::size_t i = 0; i < kChildKindCount; ++i)
    wcaches.children[i] = [&caches, i](const std::string& key) -> runtime::ObjectPtr {
      runtime::InformerGroup* g = caches.children[i].load();
      return g ? g->get(key) : nullptr;
    };
  WorkloadLister workloads_in;
  if (o.label_selector.empty())
    workloads_in = [&caches](const std::string& ns) -> Result<std::vector<runtime::ObjectPtr>> {
      return caches.workloads->list(ns);
    };
  else  // the cache holds this shard's workloads only; a managed LocalQueue may be used by another shard's
    workloads_in = [&api](const std::string& ns) { return list_workloads(api, ns); };
  wcaches.workloads_in = workloads_in;
  wcaches.kueue.local_queues_in = [&caches](const std::string& ns) {
    runtime::InformerGroup* g = caches.local_queues.load();
    return g ? g->list(ns) : std::vector<runtime::ObjectPtr>{};
  };
  auto cached_local_queue = [&caches](const std::string& key) -> runtime::ObjectPtr {
    runtime::InformerGroup* g = caches.local_queues.load();
    return g ? g->get(key) : nullptr;
  };
  wcaches.kueue.local_queue = cached_local_queue;
  wcaches.kueue.local_queues_synced = [&caches] {
    runtime::InformerGroup* g = caches.local_queues.load();
    return g && g->synced();
  };
  wcaches.kueue.local_queues_pending = [&caches] {
    runtime::InformerGroup* g = caches.local_queues.load();
    if (!g || g->synced()) return false;
    // A first list still arriving is waited for however long it takes (the fourteenth user trial: a list slower than
    // a fixed wait let workloads past their queue); one failing, up to kKueueCacheWaitMs from its first failure with
    // no page since (the fifteenth: one failure, then a slow list, was given up while the list arrived).
    const std::optional<TimePoint> failing = g->list_failing_since();
    if (!failing || millis_between(*failing, std::chrono::steady_clock::now()) < kKueueCacheWaitMs) return true;
    if (!caches.local_queues_given_up.exchange(true)) {
      const LogScope cluster_wide("");  // about the cache, not the workload whose reconcile asked
      spdlog::warn(
          "the LocalQueue cache's first list has failed for {} s with nothing received (is it forbidden?); "
          "workloads go ahead without knowing the namespaces' LocalQueues",
          kKueueCacheWaitMs / 1000);
    }
    return false;
  };
  wcaches.kueue.local_queues_given_up = [&caches] { return caches.local_queues_given_up.load(); };
  // Not ready while reconciles wait for the LocalQueue cache's first list (the sixteenth user trial: /readyz said
  // ready through a 15-minute wait); ready again once it is given up, as reconciles then go on.
  manager.readyz().add("localqueues", [&caches]() -> std::optional<std::string> {
    runtime::InformerGroup* g = caches.local_queues.load();
    if (!g || g->synced() || caches.local_queues_given_up.load()) return std::nullopt;
    return "the LocalQueue cache has not listed yet: reconciles wait for it";
  });
  wcaches.kueue.priority_class = [&caches](const std::string& name) -> runtime::ObjectPtr {
    runtime::InformerGroup* g = caches.priority_classes.load();
    return g ? g->get(name) : nullptr;
  };
  wcaches.kueue.priority_classes_synced = [&caches] {
    runtime::InformerGroup* g = caches.priority_classes.load();
    return g && g->synced();
  };
  wcaches.kueue.workload_of = [&caches](const std::string& uid) { return caches.kueue_index.get(uid); };
  wcaches.namespace_of = [&namespace_caches](const std::string& name) -> runtime::ObjectPtr {
    for (auto* g : namespace_caches)
      if (auto ns = g->get(name)) return ns;
    return nullptr;
  };
  wcaches.kueue.quota_objects = [&caches]() -> std::optional<std::vector<runtime::ObjectPtr>> {
    runtime::InformerGroup* cq = caches.cluster_queues.load();
    runtime::InformerGroup* rf = caches.resource_flavors.load();
    if (!cq || !rf || !cq->synced() || !rf->synced()) return std::nullopt;
    std::vector<runtime::ObjectPtr> all = cq->list_all();
    for (auto& o : rf->list_all()) all.push_back(std::move(o));
    return all;
  };

  WorkloadControllerOptions opts;
  opts.server_dry_run = o.server_dry_run;
  opts.kueue_max_pod_sets = o.kueue_max_podsets;
  opts.profile = o.profile;
  opts.kubernetes_minor = kubernetes_minor;
  WorkloadController wc(api, apis, recorder, std::move(wcaches), opts, &operator_metrics);
  for (auto* inf : caches.workloads->informers())
    inf->on_update([&wc](const runtime::ObjectPtr&, const runtime::ObjectPtr& now) {
      if (now) wc.workload_cached(*now);
    });

  // Free heap goes back to the kernel when a queue drains, at most every 5 s (runtime/heap_trimmer.hpp).
  auto trimmer = std::make_shared<runtime::HeapTrimmer>(std::chrono::seconds(5));
  auto trim_when_idle = [trimmer] { trimmer->maybe_trim(); };
  runtime::ControllerOptions copts;
  copts.name = kControllerName;
  copts.max_concurrent_reconciles = o.max_concurrent_reconciles;
  copts.observer = controller_metrics;
  copts.on_idle = trim_when_idle;
  auto controller =
      std::make_shared<runtime::Controller>(copts, queue, [&wc](const std::string& key) { return wc.reconcile(key); });
  controller_metrics->track(*controller, *queue);
  manager.add_controller(controller);
  LocalQueueCollectorReads collector_reads;
  collector_reads.local_queue = cached_local_queue;
  collector_reads.cached_workloads_in = [&caches](const std::string& ns) { return caches.workloads->list(ns); };
  collector_reads.workloads_in = workloads_in;
  collector_reads.kueue_version = [&apis] { return apis.get()->kueue_version; };
  runtime::ControllerOptions collector_opts;
  collector_opts.name = kCollectorName;
  collector_opts.observer = collector_metrics;
  collector_opts.on_idle = trim_when_idle;
  auto collector = std::make_shared<runtime::Controller>(
      collector_opts, collector_queue,
      [&api, collector_reads](const std::string& key) { return collect_local_queue(key, api, collector_reads); });
  collector_metrics->track(*collector, *collector_queue);
  manager.add_controller(collector);
  manager.add_runnable(runtime::Runnable{"start log",
                                         [&o] {
                                           spdlog::info("controller started: {} worker(s), watching {}",
                                                        o.max_concurrent_reconciles, watching(o));
                                           return Result<void>{};
                                         },
                                         [] {}, true});
  // The admission webhooks (--webhook-bind-address): the CodeFlareWorkload handler runs the same reconcile with the
  // same cluster facts, read from these caches; every replica serves, only the leader writes certificates.
  std::unique_ptr<webhook::Webhooks> hooks;
  if (o.webhook.bind) {
    auto webhook_metrics = std::make_shared<metrics::WebhookMetrics>(metrics);
    for (const auto& path : webhook::webhook_paths()) webhook_metrics->track(path);
    webhook::WebhookDependencies deps;
    deps.client = &rest;
    deps.schemas = apis.get()->schemas;
    deps.profile.kueue_max_pod_sets = o.kueue_max_podsets > 0              ? o.kueue_max_podsets
                                      : apis.get()->kueue_max_pod_sets > 0 ? apis.get()->kueue_max_pod_sets
                                                                           : 8;
    deps.profile.name = o.profile.value_or(apis.get()->profile);
    deps.profile.kubernetes_minor = kubernetes_minor;
    deps.facts = [&wc](const json::Value& workload, json::Document& storage) {
      return wc.facts_for(workload, storage);
    };
    deps.is_leader = [&manager] { return manager.is_leader(); };
    deps.observer = webhook_metrics;
    hooks = std::make_unique<webhook::Webhooks>(o.webhook, std::move(deps));
    manager.add_runnable(
        runtime::Runnable{"webhooks", [&hooks] { return hooks->start(); }, [&hooks] { hooks->stop(); }, false});
    // Readiness waits for the serving certificate where one is on its way (self-managed, or mounted from
    // cert-manager's Secret); a run without any (e.g. on a laptop) serves nothing and is not held back for it.
    std::error_code ec;
    const bool certificate_expected =
        !o.webhook.cert_secret.empty() ||
        std::filesystem::exists(std::filesystem::path(o.webhook.cert_dir) / "tls.crt", ec);
    if (certificate_expected)
      manager.readyz().add("webhooks", [&hooks]() -> std::optional<std::string> {
        if (hooks->ready()) return std::nullopt;
        return "the webhook server has no certificate yet";
      });
    else
      spdlog::warn(
          "no serving certificate in {} and no --webhook-cert-secret: the admission webhooks are not served "
          "until a certificate appears there (--webhook-bind-address=0 turns them off)",
          o.webhook.cert_dir);
  }
  if (o.leader_elect) {
    metrics::track_leader_election(metrics, o.leader_election_id, [&manager] { return manager.is_leader(); });
    spdlog::info("leader election on Lease {}/{} as {}", o.leader_election_namespace, o.leader_election_id,
                 manager.elector()->identity());
  }

  int exit_code = 0;
  if (auto started = manager.start(); !started) {
    if (started.error().reason == runtime::kCacheSyncTimeoutReason)
      spdlog::error("{} (--cache-sync-timeout); exiting for a restart", started.error().message);
    else
      spdlog::error("{}", started.error().message);
    exit_code = 1;
  } else {
    stop.wait();  // the first signal; the --graceful-shutdown-timeout countdown runs from there
  }
  stop.begin_stop();  // ends the caches' requests in flight: a list would otherwise hold a stop up to 60 s
  manager.stop();
  spdlog::info("stopped");
  return exit_code;
}

}  // namespace cfo::op
