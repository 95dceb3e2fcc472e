#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <map>
#include <memory>

#include "client/kubeconfig.hpp"
#include "client/rest_client.hpp"
#include "cmd/args.hpp"
#include "cmd/commands.hpp"
#include "cmd/crd_schemas.hpp"
#include "cmd/finalizer.hpp"
#include "cmd/workload_controller.hpp"
#include "core/names.hpp"
#include "runtime/controller.hpp"
#include "runtime/event_recorder.hpp"
#include "runtime/informer.hpp"
#include "runtime/work_queue.hpp"

namespace cfo::cmd {

namespace {

constexpr const char* kRunHelp =
    "Run the CodeFlareWorkload controller.\n"
    "\n"
    "Flags:\n"
    "      --kubeconfig FILE                 kubeconfig to use; default: $KUBECONFIG, then in-cluster, then "
    "~/.kube/config\n"
    "  -n, --namespace NS                    watch only this namespace (repeatable); default: all namespaces\n"
    "      --max-concurrent-reconciles N     parallel reconciles (default 1, as controller-runtime)\n"
    "      --log-level LEVEL                 trace, debug, info, warn, error (default info)\n"
    "      --kueue-max-podsets N             override Kueue's MaxPodSets (default: read from the Kueue Workload "
    "CRD, else 8)\n";

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
    const json::Value* max =
        json::find_path(v, "schema.openAPIV3Schema.properties.spec.properties.podSets.maxItems");
    if (!max || !max->IsInt()) continue;
    bool storage = json::get_bool(v, "storage").value_or(false);
    if (storage || found == 0) found = max->GetInt();
  }
  return found;
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

}  // namespace

int run_command(int argc, char** argv, int first) {
  auto args = Args::parse(argc, argv, first,
                          {{"kubeconfig", true},
                           {"namespace", true},
                           {"max-concurrent-reconciles", true},
                           {"log-level", true},
                           {"kueue-max-podsets", true},
                           {"help", false}},
                          {{"n", "namespace"}, {"h", "help"}});
  if (!args) {
    std::cerr << "run: " << args.error().message << "\n\n" << kRunHelp;
    return 2;
  }
  if (args->flag("help")) {
    std::cout << kRunHelp;
    return 0;
  }
  auto level = spdlog::level::from_str(args->get("log-level", "info"));
  spdlog::set_level(level);
  auto workers = args->integer("max-concurrent-reconciles", 1);
  auto max_podsets = args->integer("kueue-max-podsets", 0);
  if (!workers || !max_podsets || *workers < 1 || *max_podsets < 0 || *max_podsets > 1000) {
    std::cerr << "run: "
              << (!workers       ? workers.error().message
                  : !max_podsets ? max_podsets.error().message
                                 : "--max-concurrent-reconciles must be >= 1")
              << "\n";
    return 2;
  }

  // Signals are taken by sigwait on this thread only: block them before any other thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto cfg = client::load_default(args->get("kubeconfig"));
  if (!cfg) {
    spdlog::error("no cluster configuration: {}", cfg.error().message);
    return 1;
  }
  spdlog::info("using {} (server {})", cfg->source, cfg->server);
  client::RestClient rest(*cfg);
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
  opts.kueue_version = detect_kueue_version(rest);
  int detected = opts.kueue_version.empty() ? 0 : detect_kueue_max_pod_sets(rest);
  opts.profile.kueue_max_pod_sets = *max_podsets > 0 ? static_cast<int>(*max_podsets) : detected > 0 ? detected : 8;
  spdlog::info("Kueue API: {}; MaxPodSets {} ({})", opts.kueue_version.empty() ? "not served" : opts.kueue_version,
               opts.profile.kueue_max_pod_sets,
               *max_podsets > 0 ? "from --kueue-max-podsets" : detected > 0 ? "from the Workload CRD" : "default");

  std::vector<std::string> namespaces = args->all("namespace");
  for (const auto& ns : namespaces)
    if (auto errs = names::dns1123_label(ns); !errs.empty()) {
      spdlog::error("--namespace \"{}\": {}", ns, errs.front());
      return 2;
    }
  if (namespaces.empty()) namespaces.push_back("");

  const std::string child_selector = kWorkloadLabel;  // children carry the label; any value
  InformerSet workloads(rest, types::kCodeFlareWorkload, namespaces, "");
  InformerSet ray_clusters(rest, types::kRayCluster, namespaces, child_selector);
  std::unique_ptr<InformerSet> app_wrappers, ray_jobs;
  if (have_appwrapper)
    app_wrappers = std::make_unique<InformerSet>(rest, types::kAppWrapper, namespaces, child_selector);
  if (have_rayjob) ray_jobs = std::make_unique<InformerSet>(rest, types::kRayJob, namespaces, child_selector);

  // LocalQueues wake the workloads that name them, so a held workload goes ahead as soon as its queue appears.
  std::unique_ptr<InformerSet> local_queues;
  if (!opts.kueue_version.empty())
    local_queues = std::make_unique<InformerSet>(
        rest, client::ResourceType{"kueue.x-k8s.io", opts.kueue_version, "localqueues", true}, namespaces, "");

  auto queue = std::make_shared<runtime::WorkQueue>();
  workloads.each([&](runtime::Informer& inf) { runtime::enqueue_from(inf, queue, runtime::own_key()); });
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
  caches.workloads_in = workloads.list();
  caches.ray_clusters = ray_clusters.lookup();
  if (app_wrappers) caches.app_wrappers = app_wrappers->lookup();
  if (ray_jobs) caches.ray_jobs = ray_jobs->lookup();
  WorkloadController wc(rest, shared_schemas, recorder, std::move(caches), opts);

  runtime::ControllerOptions copts;
  copts.max_concurrent_reconciles = static_cast<int>(*workers);
  runtime::Controller controller(copts, queue, [&](const std::string& key) { return wc.reconcile(key); });

  // Start order: caches, wait for sync, then workers. Stop in reverse.
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
  if (started) {
    if (auto r = controller.start(); !r) {
      spdlog::error("starting workers: {}", r.error().message);
      started = false;
    }
  }
  int exit_code = 0;
  if (started) {
    spdlog::info("controller started: {} worker(s), watching {}", *workers,
                 namespaces.size() == 1 && namespaces[0].empty() ? std::string("all namespaces")
                                                                 : std::to_string(namespaces.size()) + " namespace(s)");
    int sig = 0;
    sigwait(&signals, &sig);
    spdlog::info("received signal {}, shutting down", sig);
  } else {
    exit_code = 1;
  }
  controller.stop();
  if (local_queues) local_queues->each([](runtime::Informer& inf) { inf.stop(); });
  if (ray_jobs) ray_jobs->each([](runtime::Informer& inf) { inf.stop(); });
  if (app_wrappers) app_wrappers->each([](runtime::Informer& inf) { inf.stop(); });
  ray_clusters.each([](runtime::Informer& inf) { inf.stop(); });
  workloads.each([](runtime::Informer& inf) { inf.stop(); });
  spdlog::info("stopped");
  return exit_code;
}

}  // namespace cfo::cmd
