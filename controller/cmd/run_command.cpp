#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <thread>

#include "client/kubeconfig.hpp"
#include "client/rest_client.hpp"
#include "cmd/args.hpp"
#include "cmd/commands.hpp"
#include "cmd/crd_schemas.hpp"
#include "cmd/finalizer.hpp"
#include "cmd/logging.hpp"
#include "cmd/operations_flags.hpp"
#include "cmd/run_options.hpp"
#include "cmd/shutdown.hpp"
#include "cmd/workload_controller.hpp"
#include "metrics/controller_metrics.hpp"
#include "metrics/leader_metrics.hpp"
#include "metrics/metrics.hpp"
#include "metrics/operator_metrics.hpp"
#include "metrics/rest_client_metrics.hpp"
#include "runtime/controller.hpp"
#include "runtime/event_recorder.hpp"
#include "runtime/health_checks.hpp"
#include "runtime/http_server.hpp"
#include "runtime/informer.hpp"
#include "runtime/leader_election.hpp"
#include "runtime/lease_lock.hpp"
#include "runtime/predicates.hpp"
#include "runtime/work_queue.hpp"

namespace cfo::cmd {

namespace {

// The Kueue API version to use for LocalQueues: v1beta2 when served (Kueue >= v0.15), else v1beta1, else none.
std::string detect_kueue_version(client::RestClient& client) {
  auto group = client.get_json("/apis/kueue.x-k8s.io");
  if (!group) return "";
  const json::Value* versions = json::find(*group, "versions");
  bool v1beta2 = false, v1beta1 = false;
  if (versions && versions->IsArray())
    for (const auto& v : versions->GetArray()) {
      auto name = json::get_string(v, "version");
      v1beta2 = v1beta2 || name == "v1beta2";
      v1beta1 = v1beta1 || name == "v1beta1";
    }
  return v1beta2 ? "v1beta2" : v1beta1 ? "v1beta1" : "";
}

// Kueue's MaxPodSets, as the served Workload CRD declares it: spec.podSets.maxItems of the storage version (8 up to
// Kueue v0.17, 10 in v0.18, 18 from v0.19). 0 when the CRD is absent or says nothing.
int detect_kueue_max_pod_sets(client::RestClient& client) {
  auto crd = client.get_json("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/workloads.kueue.x-k8s.io");
  if (!crd) return 0;
  const json::Value* versions = json::find_path(*crd, "spec.versions");
  if (!versions || !versions->IsArray()) return 0;
  int found = 0;
  for (const auto& v : versions->GetArray()) {
    const json::Value* max = json::find_path(v, "schema.openAPIV3Schema.properties.spec.properties.podSets.maxItems");
    if (!max || !max->IsInt()) continue;
    bool storage = json::get_bool(v, "storage").value_or(false);
    if (storage || found == 0) found = max->GetInt();
  }
  return found;
}

using CachedObjects = std::vector<std::shared_ptr<const json::Document>>;

// Every CodeFlareWorkload of namespace `ns`, read from the apiserver (not from a cache narrowed by a selector).
Result<CachedObjects> list_workloads(client::RestClient& client, const std::string& ns) {
  auto list = client.get_json(types::kCodeFlareWorkload.collection_path(ns));
  if (!list) return std::unexpected(list.error());
  CachedObjects out;
  const json::Value* items = json::find(*list, "items");
  if (items && items->IsArray())
    for (const auto& item : items->GetArray()) {
      auto doc = std::make_shared<json::Document>();
      doc->CopyFrom(item, doc->GetAllocator());
      out.push_back(std::move(doc));
    }
  return out;
}

// One informer per (resource, namespace); lookups pick the informer of the key's namespace.
class InformerSet {
 public:
  InformerSet(client::RestClient& client, const client::ResourceType& type, const std::vector<std::string>& namespaces,
              const std::string& label_selector) {
    for (const auto& ns : namespaces) {
      runtime::InformerOptions o;
      o.resource = type;
      o.namespace_name = ns;
      o.label_selector = label_selector;
      informers_[ns] = std::make_unique<runtime::Informer>(client, o);
    }
  }
  template <class F>
  void each(F&& f) {
    for (auto& [ns, inf] : informers_) f(*inf);
  }
  /// True when every informer of the set has listed once.
  bool synced() const {
    return std::all_of(informers_.begin(), informers_.end(), [](const auto& e) { return e.second->has_synced(); });
  }
  CacheList list() const {
    return [this](const std::string& ns) {
      std::vector<std::shared_ptr<const json::Document>> out;
      auto it = informers_.find(ns);
      if (it == informers_.end()) it = informers_.find("");
      if (it == informers_.end()) return out;
      for (auto& obj : it->second->store().list())
        if (json::get_string((*obj)["metadata"], "namespace") == ns) out.push_back(obj);
      return out;
    };
  }
  CacheLookup lookup() const {
    return [this](const std::string& key) -> std::shared_ptr<const json::Document> {
      auto ns = key.substr(0, key.find('/'));
      auto it = informers_.find(ns);
      if (it == informers_.end()) it = informers_.find("");
      if (it == informers_.end()) return nullptr;
      return it->second->store().get(key);
    };
  }

 private:
  std::map<std::string, std::unique_ptr<runtime::Informer>> informers_;
};

// Children carry the label codeflare.dev/workload=<workload name>; their key maps to the workload's key.
runtime::KeyMapper child_to_workload() {
  return [](const json::Value& obj) -> std::optional<std::string> {
    const json::Value* labels = json::find_path(obj, "metadata.labels");
    if (!labels) return std::nullopt;
    auto name = json::get_string(*labels, kWorkloadLabel);
    auto ns = json::get_string(obj["metadata"], "namespace");
    if (!name || !ns) return std::nullopt;
    return *ns + "/" + *name;
  };
}

// Started after the caches synced: with leader election the workers start when the lease is won, without it at once.
// A lost lease ends the process at once with exit code 1 (controller-runtime skips its graceful shutdown then too).
class Election {
 public:
  Election(const RunOptions& opts, const client::ClientConfig& cfg) {
    runtime::LeaderElectionOptions eo = opts.election;
    eo.identity = runtime::default_leader_identity();
    // Every lease request must end within the renew deadline, or a hung apiserver connection would keep a leader
    // past it.
    client::RestClientTimeouts t;
    t.request_timeout_ms = std::chrono::milliseconds(eo.renew_deadline_ms);
    t.connect_timeout_ms = std::min(t.connect_timeout_ms, t.request_timeout_ms);
    client::RestClient lease_client(cfg, t);
    elector_ = std::make_unique<runtime::LeaderElector>(
        eo, runtime::rest_lease_lock(lease_client, opts.leader_election_namespace, opts.leader_election_id));
  }
  ~Election() { stop(); }

  runtime::LeaderElector& elector() { return *elector_; }

  // Runs the election on its own thread; `on_leading` runs on it once the lease is held.
  void start(std::function<void()> on_leading) {
    thread_ = std::thread([this, on_leading = std::move(on_leading)] {
      if (elector_->run(on_leading) == runtime::ElectionEnd::Lost) {
        spdlog::critical("leader election lost; exiting so that another replica takes over");
        spdlog::default_logger()->flush();
        std::_Exit(1);
      }
    });
  }
  // Ends the election (releasing the lease when --leader-elect-release-on-cancel) and joins its thread.
  void stop() {
    elector_->stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::unique_ptr<runtime::LeaderElector> elector_;
  std::thread thread_;
};

}  // namespace

int run_command(int argc, char** argv, int first) {
  auto args = Args::parse(argc, argv, first, run_flags(), run_flag_aliases());
  if (!args) {
    std::cerr << "run: " << args.error().message << "\n\n" << run_help();
    return 2;
  }
  if (args->flag("help")) {
    std::cout << run_help();
    return 0;
  }
  auto parsed = parse_run_options(*args);
  if (!parsed) {
    std::cerr << "run: " << parsed.error().message << "\n";
    return 2;
  }
  const RunOptions& ro = *parsed;
  auto ops = parse_operations_flags(*args);  // --kube-api-qps/-burst, --log-format/-level, --graceful-shutdown-timeout
  if (!ops) {
    std::cerr << "run: " << ops.error().message << "\n";
    return 2;
  }
  configure_logging(ops->log);
  // SIGTERM/SIGINT go to the shutdown thread only: it blocks them before any other thread starts.
  ShutdownControl shutdown(ops->graceful_shutdown_timeout);

  // Metrics and probes come first, as in controller-runtime: a pod that is starting answers /healthz, and /readyz
  // says what it still waits for. Everything the checks and scrape hooks read is declared before the servers, and
  // the servers are stopped before anything else goes away.
  metrics::Metrics metrics;
  metrics::RestClientMetrics rest_metrics(metrics);
  metrics::OperatorMetrics operator_metrics(metrics);
  std::atomic<bool> caches_synced{false};
  std::atomic<runtime::LeaderElector*> elector{nullptr};
  auto healthz = std::make_shared<runtime::HealthChecks>();
  auto readyz = std::make_shared<runtime::HealthChecks>();
  healthz->add("ping", [] { return std::optional<std::string>(); });
  readyz->add("informers", [&caches_synced]() -> std::optional<std::string> {
    if (caches_synced.load()) return std::nullopt;
    return "the caches have not synced yet";
  });
  if (ro.leader_elect)
    readyz->add("leader", [&elector]() -> std::optional<std::string> {
      const runtime::LeaderElector* e = elector.load();
      if (e && e->is_leader()) return std::nullopt;
      return "not leading (standby)";
    });
  runtime::HttpServer probe_server("health probe", runtime::probe_handler(healthz, readyz));
  runtime::HttpServer metrics_server("metrics", metrics.http_handler());
  if (ro.probe_address)
    if (auto r = probe_server.start(*ro.probe_address); !r) {
      spdlog::error("{}", r.error().message);
      return 1;
    }
  if (ro.metrics_address)
    if (auto r = metrics_server.start(*ro.metrics_address); !r) {
      spdlog::error("{}", r.error().message);
      return 1;
    }

  auto cfg = client::load_default(ro.kubeconfig);
  if (!cfg) {
    spdlog::error("no cluster configuration: {}", cfg.error().message);
    return 1;
  }
  spdlog::info("using {} (server {})", cfg->source, cfg->server);
  client::RestClient rest(*cfg, ops->client);
  client::RestClient cache_rest = rest.with_stop(shutdown.token());  // the informers' client, cancelled at stop
  auto version = rest.get_json("/version");
  if (!version) {
    spdlog::error("cannot reach the apiserver at {}: {}", cfg->server, version.error().message);
    return 1;
  }
  spdlog::info("apiserver version {}", json::get_string(*version, "gitVersion").value_or("?"));

  std::vector<std::string> missing;
  auto schemas = load_schemas_from_cluster(rest, missing);
  if (!schemas) {
    spdlog::error("reading upstream CRDs: {}", schemas.error().message);
    return 1;
  }
  for (const auto& m : missing) spdlog::warn("CRD {} is not installed; objects of that kind cannot be checked", m);
  bool have_appwrapper = schemas->has("workload.codeflare.dev/v1beta2", "AppWrapper");
  bool have_rayjob = schemas->has("ray.io/v1", "RayJob");
  if (!schemas->has("ray.io/v1", "RayCluster")) {
    spdlog::error("the RayCluster CRD (rayclusters.ray.io, ray.io/v1) is not installed; install KubeRay first");
    return 1;
  }
  auto shared_schemas = std::make_shared<const validation::SchemaSet>(std::move(*schemas));

  WorkloadControllerOptions opts;
  opts.server_dry_run = ro.server_dry_run;
  opts.kueue_version = detect_kueue_version(rest);
  int detected = opts.kueue_version.empty() ? 0 : detect_kueue_max_pod_sets(rest);
  opts.profile.kueue_max_pod_sets = ro.kueue_max_podsets > 0 ? ro.kueue_max_podsets : detected > 0 ? detected : 8;
  spdlog::info("Kueue API: {}; MaxPodSets {} ({})", opts.kueue_version.empty() ? "not served" : opts.kueue_version,
               opts.profile.kueue_max_pod_sets,
               ro.kueue_max_podsets > 0 ? "from --kueue-max-podsets"
               : detected > 0           ? "from the Workload CRD"
                                        : "default");

  std::vector<std::string> namespaces = ro.namespaces;
  if (namespaces.empty()) namespaces.push_back("");

  const std::string child_selector = kWorkloadLabel;  // children carry the label; any value
  InformerSet workloads(cache_rest, types::kCodeFlareWorkload, namespaces, ro.label_selector);
  InformerSet ray_clusters(cache_rest, types::kRayCluster, namespaces, child_selector);
  std::unique_ptr<InformerSet> app_wrappers, ray_jobs;
  if (have_appwrapper)
    app_wrappers = std::make_unique<InformerSet>(cache_rest, types::kAppWrapper, namespaces, child_selector);
  if (have_rayjob) ray_jobs = std::make_unique<InformerSet>(cache_rest, types::kRayJob, namespaces, child_selector);

  // LocalQueues wake the workloads that name them, so a held workload goes ahead as soon as its queue appears.
  std::unique_ptr<InformerSet> local_queues;
  if (!opts.kueue_version.empty())
    local_queues = std::make_unique<InformerSet>(
        cache_rest, client::ResourceType{"kueue.x-k8s.io", opts.kueue_version, "localqueues", true}, namespaces, "");

  const std::string controller_name = "codeflareworkload";
  auto controller_metrics = std::make_shared<metrics::ControllerMetrics>(metrics, controller_name);
  runtime::WorkQueueOptions qopts;
  qopts.backoff = ro.backoff;
  qopts.bucket = ro.bucket;
  qopts.observer = controller_metrics;
  auto queue = std::make_shared<runtime::WorkQueue>(qopts);
  // The workload's own status writes (ours) do not wake it; spec, metadata and deletion changes do. Children wake
  // their workload on every change, status included: the workload's phase follows theirs.
  workloads.each([&](runtime::Informer& inf) {
    runtime::enqueue_from(inf, queue, runtime::own_key(), runtime::spec_or_metadata_changed);
  });
  ray_clusters.each([&](runtime::Informer& inf) { runtime::enqueue_from(inf, queue, child_to_workload()); });
  for (auto* set : {app_wrappers.get(), ray_jobs.get()})
    if (set) set->each([&](runtime::Informer& inf) { runtime::enqueue_from(inf, queue, child_to_workload()); });

  if (local_queues) {
    CacheList workloads_in = workloads.list();
    local_queues->each([&](runtime::Informer& inf) {
      runtime::enqueue_all_from(inf, queue, [workloads_in](const json::Value& lq) {
        std::vector<std::string> keys;
        auto ns = json::get_string(lq["metadata"], "namespace").value_or("");
        auto name = json::get_string(lq["metadata"], "name").value_or("");
        for (const auto& wl : workloads_in(ns))
          if (queue_name_of(*wl) == name)
            keys.push_back(ns + "/" + json::get_string((*wl)["metadata"], "name").value_or(""));
        return keys;
      });
    });
  }

  runtime::EventRecorder recorder(rest);
  WorkloadCaches caches;
  caches.workloads = workloads.lookup();
  if (ro.label_selector.empty()) {
    caches.workloads_in = [list = workloads.list()](const std::string& ns) -> Result<CachedObjects> {
      return list(ns);
    };
  } else {
    // The cache holds this shard's workloads only; a managed LocalQueue may be used by another shard's.
    caches.workloads_in = [&rest](const std::string& ns) { return list_workloads(rest, ns); };
  }
  caches.ray_clusters = ray_clusters.lookup();
  if (app_wrappers) caches.app_wrappers = app_wrappers->lookup();
  if (ray_jobs) caches.ray_jobs = ray_jobs->lookup();
  WorkloadController wc(rest, shared_schemas, recorder, std::move(caches), opts, &operator_metrics);

  runtime::ControllerOptions copts;
  copts.name = controller_name;
  copts.max_concurrent_reconciles = ro.max_concurrent_reconciles;
  copts.observer = controller_metrics;
  runtime::Controller controller(copts, queue, [&](const std::string& key) { return wc.reconcile(key); });
  controller_metrics->track(controller, *queue);

  std::unique_ptr<Election> election;
  if (ro.leader_elect) {
    election = std::make_unique<Election>(ro, *cfg);
    elector = &election->elector();
    metrics::track_leader_election(metrics, ro.leader_election_id,
                                   [e = &election->elector()] { return e->is_leader(); });
    spdlog::info("leader election on Lease {}/{} as {}", ro.leader_election_namespace, ro.leader_election_id,
                 election->elector().identity());
  }

  // Start order: caches, wait for sync, then leader election, then workers (at once, or once leading). Stop in
  // reverse: workers, leader election (releasing the lease only after the workers are done), caches, servers.
  auto start_all = [&](InformerSet& set) {
    bool ok = true;
    set.each([&](runtime::Informer& inf) {
      if (auto r = inf.start(); !r) {
        spdlog::error("starting informer {}: {}", inf.path(), r.error().message);
        ok = false;
      }
    });
    return ok;
  };
  bool started = start_all(workloads) && start_all(ray_clusters) && (!app_wrappers || start_all(*app_wrappers)) &&
                 (!ray_jobs || start_all(*ray_jobs)) && (!local_queues || start_all(*local_queues));
  auto wait_all = [&](InformerSet& set) {
    bool ok = true;
    set.each([&](runtime::Informer& inf) { ok = ok && inf.wait_for_sync(120000); });
    return ok;
  };
  if (started && !(wait_all(workloads) && wait_all(ray_clusters) && (!app_wrappers || wait_all(*app_wrappers)) &&
                   (!ray_jobs || wait_all(*ray_jobs)) && (!local_queues || wait_all(*local_queues)))) {
    spdlog::error("caches did not sync within 120 s");
    started = false;
  }
  if (started) caches_synced = true;
  auto start_workers = [&] {
    if (auto r = controller.start(); !r) {
      spdlog::error("starting workers: {}", r.error().message);
      return false;
    }
    spdlog::info("controller started: {} worker(s), watching {}{}", ro.max_concurrent_reconciles,
                 namespaces.size() == 1 && namespaces[0].empty() ? std::string("all namespaces")
                                                                 : std::to_string(namespaces.size()) + " namespace(s)",
                 ro.label_selector.empty() ? std::string()
                                           : ", workloads matching the label selector \"" + ro.label_selector + "\"");
    return true;
  };
  if (started) {
    if (election)
      election->start([&] { start_workers(); });
    else
      started = start_workers();
  }
  int exit_code = 0;
  if (started) {
    shutdown.wait();  // logs the signal and starts the --graceful-shutdown-timeout countdown
  } else {
    exit_code = 1;
  }
  controller.stop();
  if (election) election->stop();
  shutdown.begin_stop();  // ends the caches' requests in flight: a list would otherwise hold a stop up to 60 s
  if (local_queues) local_queues->each([](runtime::Informer& inf) { inf.stop(); });
  if (ray_jobs) ray_jobs->each([](runtime::Informer& inf) { inf.stop(); });
  if (app_wrappers) app_wrappers->each([](runtime::Informer& inf) { inf.stop(); });
  ray_clusters.each([](runtime::Informer& inf) { inf.stop(); });
  workloads.each([](runtime::Informer& inf) { inf.stop(); });
  metrics_server.stop();
  probe_server.stop();
  spdlog::info("stopped");
  return exit_code;
}

}  // namespace cfo::cmd
