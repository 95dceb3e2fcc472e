#pragma once
// The chaos suite's shared pieces: the invariant every scenario ends with, the workloads of a burst, the faults
// (control-plane.sh restart-apiserver / compact, the TCP proxy of tcp_proxy.py) and figures printed as key=value.
// Operators are started with operator_process.hpp (test/integration), on the chaos control plane ($KUBECONFIG).
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "client/rest_client.hpp"
#include "core/json.hpp"

namespace cfo::chaos {

extern const client::ResourceType kWorkloads, kRayClusters, kRayJobs, kAppWrappers, kLocalQueues, kEvents;

/// The invariant, written once: in namespace `ns`, every CodeFlareWorkload that is not being deleted has exactly
/// one child of the kind it needs (a RayJob for spec.job, an AppWrapper for spec.appWrapper, else a RayCluster) and
/// none of the other kinds, each child with exactly one controller owner reference, to that workload's uid;
/// status.observedGeneration == metadata.generation; every workload with spec.queue.clusterQueue has its managed
/// LocalQueue, and no managed LocalQueue is left without a workload that uses it (nor is a deleted workload left
/// behind with its finalizer). Children of deleted workloads are the garbage collector's (owner references), which the
/// test control plane does not run: they are counted in `summary` (children_of_deleted_workloads), not failed.
/// `summary` receives counts for the figures.
::testing::AssertionResult invariant(const std::string& ns, std::string* summary = nullptr);

/// Polls invariant(ns) until it holds or `timeout` passes; prints "<scenario>.converge_s=<seconds>" and the summary.
/// Returns the last result.
::testing::AssertionResult converges(const std::string& scenario, const std::string& ns,
                                     std::chrono::seconds timeout = std::chrono::seconds(120));

/// The i-th workload of a burst, named "<prefix>-<i>": i % 4 == 0 a plain RayCluster, 1 an AppWrapper, 2 a RayJob,
/// 3 a RayCluster queued on a managed LocalQueue (spec.queue.clusterQueue "cq-<i % 8 / 4>").
std::string burst_workload(const std::string& prefix, int i, int replicas = 1);

/// Server-side applies a workload (field manager "chaos"), retrying refusals of a restarting apiserver for up to 60 s.
bool apply_retrying(const std::string& ns, const std::string& yaml_text);
/// Deletes a workload, retrying like apply_retrying (a 404 counts as done).
bool delete_retrying(const std::string& ns, const std::string& name);

/// `control-plane.sh ARGS...` with every empty argument replaced by the chaos control plane's folder (that of
/// $KUBECONFIG), and `env` (NAME=value entries) added; returns its exit code, its stdout in `out`.
int control_plane(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                  std::string* out = nullptr);

/// The apiserver's port (CFO_APISERVER_PORT of the control plane's env file).
uint16_t apiserver_port();

/// A copy of $KUBECONFIG whose server is https://127.0.0.1:<port> (the certificate names 127.0.0.1, so TLS still
/// verifies through a TCP proxy); its path.
std::string kubeconfig_via(uint16_t port, const std::string& name);

/// tcp_proxy.py between 127.0.0.1:<port()> and the apiserver; stopped (SIGTERM) by the destructor.
class TcpProxy {
 public:
  TcpProxy();
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;
  uint16_t port() const { return port_; }
  void partition();  ///< forward nothing (SIGUSR1)
  void heal();       ///< forward again (SIGUSR2)
  void cut();        ///< close every connection (SIGHUP)

 private:
  void signal_and_wait(int sig, const std::string& word);
  pid_t pid_ = -1;
  uint16_t port_ = 0;
  std::string log_;
};

/// Sum of rest_client_requests_total{method=`method`} in a scrape.
double requests(const std::string& scrape, const std::string& method);

/// Number of lines of `path` that contain `needle`.
int count_lines(const std::string& path, const std::string& needle);

/// Prints "key=value" on stdout (the figures of the suite).
void figure(const std::string& key, const std::string& value);
void figure(const std::string& key, double value);

/// Seconds since `t0`, one decimal.
double seconds_since(std::chrono::steady_clock::time_point t0);

}  // namespace cfo::chaos
