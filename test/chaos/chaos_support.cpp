#include "chaos_support.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "../integration/operator_process.hpp"

namespace cfo::chaos {

using namespace std::chrono_literals;
using rt::api;

const client::ResourceType kWorkloads{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const client::ResourceType kRayClusters{"ray.io", "v1", "rayclusters", true};
const client::ResourceType kRayJobs{"ray.io", "v1", "rayjobs", true};
const client::ResourceType kAppWrappers{"workload.codeflare.dev", "v1beta2", "appwrappers", true};
const client::ResourceType kLocalQueues{"kueue.x-k8s.io", "v1beta1", "localqueues", true};
const client::ResourceType kEvents{"events.k8s.io", "v1", "events", true};

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string state_dir() { return std::filesystem::path(env("KUBECONFIG")).parent_path().string(); }

std::string name_of(const json::Value& obj) { return json::string_at(obj, "metadata.name"); }

// The kind a workload needs: RayJob for spec.job, AppWrapper for spec.appWrapper, else RayCluster.
std::string needed_kind(const json::Value& wl) {
  if (json::find_path(wl, "spec.job")) return "RayJob";
  if (json::get_bool(*json::find(wl, "spec"), "appWrapper").value_or(false)) return "AppWrapper";
  return "RayCluster";
}

}  // namespace

::testing::AssertionResult invariant(const std::string& ns, std::string* summary) {
  // One list per kind (a failed list is a failure of the check, not an empty list).
  std::map<std::string, std::vector<json::Document>> lists;
  const std::pair<const char*, const client::ResourceType*> kinds[] = {{"CodeFlareWorkload", &kWorkloads},
                                                                       {"RayCluster", &kRayClusters},
                                                                       {"RayJob", &kRayJobs},
                                                                       {"AppWrapper", &kAppWrappers},
                                                                       {"LocalQueue", &kLocalQueues}};
  for (const auto& [kind, type] : kinds) {
    auto r = api().get_json(type->collection_path(ns));
    if (!r) return ::testing::AssertionFailure() << "list " << kind << ": " << r.error().message;
    if (const json::Value* items = json::find(*r, "items"); items && items->IsArray())
      for (const auto& item : items->GetArray()) lists[kind].push_back(json::clone(item));
  }
  // Children by kind and name.
  std::map<std::string, std::map<std::string, const json::Value*>> children;
  for (const char* kind : {"RayCluster", "RayJob", "AppWrapper"})
    for (const auto& c : lists[kind]) children[kind][name_of(c)] = &c;

  std::set<std::string> queues_in_use;
  int workloads = 0, terminating = 0;
  for (const auto& wl : lists["CodeFlareWorkload"]) {
    const std::string name = name_of(wl);
    const std::string uid = json::string_at(wl, "metadata.uid");
    if (json::find_path(wl, "metadata.deletionTimestamp")) {
      ++terminating;
      continue;  // reported below if it stays
    }
    ++workloads;
    const std::string want = needed_kind(wl);
    for (const char* kind : {"RayCluster", "RayJob", "AppWrapper"}) {
      auto it = children[kind].find(name);
      const bool present = it != children[kind].end();
      // A RayCluster of an AppWrapper workload is the AppWrapper controller's to create, not ours: none expected.
      if (kind != want) {
        if (present && json::find_path(*it->second, "metadata.ownerReferences")) {
          for (const auto& ref : json::find_path(*it->second, "metadata.ownerReferences")->GetArray())
            if (json::get_string(ref, "uid") == uid)
              return ::testing::AssertionFailure() << name << " needs a " << want << " but also controls a " << kind;
        }
        continue;
      }
      if (!present) return ::testing::AssertionFailure() << name << ": no " << want;
      const json::Value* refs = json::find_path(*it->second, "metadata.ownerReferences");
      int controllers = 0;
      bool ours = false;
      if (refs && refs->IsArray())
        for (const auto& ref : refs->GetArray())
          if (json::get_bool(ref, "controller").value_or(false)) {
            ++controllers;
            ours = json::get_string(ref, "uid") == uid &&
                   json::get_string(ref, "kind") == std::string("CodeFlareWorkload");
          }
      if (controllers != 1 || !ours)
        return ::testing::AssertionFailure()
               << want << " " << name << ": " << controllers << " controller owner reference(s), ours: " << ours;
    }
    const int64_t generation = json::get_int(wl["metadata"], "generation").value_or(-1);
    const json::Value* status = json::find(wl, "status");
    const int64_t observed = status ? json::get_int(*status, "observedGeneration").value_or(-2) : -2;
    if (observed != generation)
      return ::testing::AssertionFailure()
             << name << ": status.observedGeneration " << observed << " != generation " << generation;
    if (const json::Value* cq = json::find_path(wl, "spec.queue.clusterQueue"); cq && cq->IsString())
      queues_in_use.insert(cq->GetString());
  }
  if (terminating > 0) return ::testing::AssertionFailure() << terminating << " workload(s) still being deleted";
  int managed = 0;
  std::set<std::string> managed_names;
  for (const auto& lq : lists["LocalQueue"]) {
    const json::Value* labels = json::find_path(lq, "metadata.labels");
    if (!labels || json::get_string(*labels, "app.kubernetes.io/managed-by") != std::string("codeflare-operator"))
      continue;
    ++managed;
    managed_names.insert(name_of(lq));
    if (!queues_in_use.count(name_of(lq)))
      return ::testing::AssertionFailure()
             << "managed LocalQueue " << name_of(lq) << " is orphaned (no workload uses it)";
  }
  for (const auto& q : queues_in_use)
    if (!managed_names.count(q)) return ::testing::AssertionFailure() << "no managed LocalQueue " << q;
  // Children whose controlling workload is gone: the garbage collector's to delete (ownerReferences), and the test
  // control plane runs no kube-controller-manager, so they stay. Counted, not failed.
  std::set<std::string> live_uids;
  for (const auto& wl : lists["CodeFlareWorkload"]) live_uids.insert(json::string_at(wl, "metadata.uid"));
  int left_to_gc = 0;
  for (const char* kind : {"RayCluster", "RayJob", "AppWrapper"})
    for (const auto& c : lists[kind])
      if (const json::Value* refs = json::find_path(c, "metadata.ownerReferences"); refs && refs->IsArray())
        for (const auto& ref : refs->GetArray())
          if (json::get_bool(ref, "controller").value_or(false) &&
              json::get_string(ref, "kind") == std::string("CodeFlareWorkload") &&
              !live_uids.count(json::get_string(ref, "uid").value_or("")))
            ++left_to_gc;
  if (summary)
    *summary = "workloads=" + std::to_string(workloads) + " rayclusters=" + std::to_string(lists["RayCluster"].size()) +
               " rayjobs=" + std::to_string(lists["RayJob"].size()) +
               " appwrappers=" + std::to_string(lists["AppWrapper"].size()) +
               " managed_localqueues=" + std::to_string(managed) +
               " children_of_deleted_workloads=" + std::to_string(left_to_gc);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult converges(const std::string& scenario, const std::string& ns, std::chrono::seconds timeout) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string summary;
  ::testing::AssertionResult last = ::testing::AssertionFailure() << "not checked";
  while (true) {
    last = invariant(ns, &summary);
    if (last || std::chrono::steady_clock::now() - t0 > timeout) break;
    std::this_thread::sleep_for(250ms);
  }
  figure(scenario + ".converge_s", seconds_since(t0));
  figure(scenario + ".invariant", last ? std::string("holds ") + summary : std::string("FAILS ") + last.message());
  return last;
}

std::string burst_workload(const std::string& prefix, int i, int replicas) {
  std::string spec =
      "  workerGroups:\n  - name: workers\n    replicas: " + std::to_string(replicas) +
      "\n    resources:\n      requests: {cpu: \"1\", memory: 1Gi}\n      limits: {cpu: \"1\", memory: 1Gi}\n";
  switch (i % 4) {
    case 1:
      spec += "  appWrapper: true\n";
      break;
    case 2:
      spec += "  job: {entrypoint: python -c 'print(1)', shutdownAfterJobFinishes: true}\n";
      break;
    case 3:
      spec += "  queue: {clusterQueue: cq-" + std::to_string(i % 8 / 4) + "}\n";
      break;
    default:
      break;
  }
  return "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: " + prefix + "-" +
         std::to_string(i) + "\nspec:\n" + spec;
}

bool apply_retrying(const std::string& ns, const std::string& yaml_text) {
  auto body = rt::from_yaml(yaml_text);
  const std::string name = json::string_at(body, "metadata.name");
  client::WriteOptions wo;
  wo.field_manager = "chaos";
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (true) {
    auto r = api().apply(kWorkloads.object_path(ns, name), body, wo);
    if (r) return true;
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "apply " << name << ": " << r.error().message;
      return false;
    }
    std::this_thread::sleep_for(200ms);
  }
}

bool delete_retrying(const std::string& ns, const std::string& name) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (true) {
    auto r = api().remove(kWorkloads.object_path(ns, name));
    if (r) return true;
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "delete " << name << ": " << r.error().message;
      return false;
    }
    std::this_thread::sleep_for(200ms);
  }
}

int control_plane(const std::vector<std::string>& args, const std::vector<std::string>& extra_env, std::string* out) {
  std::string cmd;
  for (const auto& e : extra_env) cmd += e + " ";
  cmd += env("CFO_HARNESS_DIR") + "/control-plane.sh";
  for (const auto& a : args) cmd += " '" + (a.empty() ? state_dir() : a) + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  std::string text;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int status = pclose(p);
  if (out) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

uint16_t apiserver_port() {
  std::ifstream in(state_dir() + "/env");
  std::string line;
  const std::string key = "export CFO_APISERVER_PORT=";
  while (std::getline(in, line))
    if (line.starts_with(key)) return static_cast<uint16_t>(std::stoi(line.substr(key.size())));
  return 0;
}

std::string kubeconfig_via(uint16_t port, const std::string& name) {
  std::ifstream in(env("KUBECONFIG"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::string from = "server: https://127.0.0.1:" + std::to_string(apiserver_port());
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "no '" << from << "' in $KUBECONFIG";
  if (at != std::string::npos) text.replace(at, from.size(), "server: https://127.0.0.1:" + std::to_string(port));
  const std::string path = state_dir() + "/" + name + ".kubeconfig";
  std::ofstream(path) << text;
  return path;
}

TcpProxy::TcpProxy() {
  port_ = rt::free_port();
  log_ = state_dir() + "/tcp-proxy-" + std::to_string(port_) + ".log";
  const std::string script = std::string(CFO_CHAOS_DIR) + "/tcp_proxy.py";
  const std::string listen = std::to_string(port_), target = std::to_string(apiserver_port());
  pid_ = fork();
  if (pid_ == 0) {
    FILE* f = std::freopen(log_.c_str(), "w", stdout);
    (void)f;
    dup2(fileno(stdout), fileno(stderr));
    execlp("python3", "python3", script.c_str(), listen.c_str(), target.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  EXPECT_TRUE(rt::eventually([&] { return count_lines(log_, "listening") > 0; }, 10s)) << "tcp_proxy.py did not start";
}

TcpProxy::~TcpProxy() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 50 && waitpid(pid_, &status, WNOHANG) == 0; ++i) std::this_thread::sleep_for(100ms);
  if (waitpid(pid_, &status, WNOHANG) == 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
}

void TcpProxy::signal_and_wait(int sig, const std::string& word) {
  const int before = count_lines(log_, word);
  kill(pid_, sig);
  EXPECT_TRUE(rt::eventually([&] { return count_lines(log_, word) > before; }, 5s)) << "proxy did not say " << word;
}

void TcpProxy::partition() { signal_and_wait(SIGUSR1, "partitioned"); }
void TcpProxy::heal() { signal_and_wait(SIGUSR2, "healed"); }
void TcpProxy::cut() { signal_and_wait(SIGHUP, "cut"); }

double requests(const std::string& scrape, const std::string& method) {
  return rt::sum_samples(scrape, "rest_client_requests_total", {{"method", method}});
}

int count_lines(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    if (line.find(needle) != std::string::npos) ++n;
  return n;
}

void figure(const std::string& key, const std::string& value) { std::cout << key << "=" << value << std::endl; }
void figure(const std::string& key, double value) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << value;
  figure(key, s.str());
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace cfo::chaos
