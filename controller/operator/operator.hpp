#pragma once
// The operator: the CodeFlareWorkload controller, its caches and watches, probes, metrics and leader election,
// assembled on a runtime::Manager and run until told to stop.
#include <functional>
#include <memory>

#include "client/rest_client.hpp"
#include "operator/options.hpp"

namespace cfo::op {

/// How the process tells the operator to stop (cmd/shutdown.hpp implements it with signals).
struct StopControl {
  /// Blocks until a stop is asked (the first SIGTERM/SIGINT).
  std::function<void()> wait;
  /// Called before anything is stopped: arms the shutdown deadline and requests `cache_stop`.
  std::function<void()> begin_stop;
  /// Ends the requests of the caches' client (RestClient::with_stop), which no other stop interrupts.
  std::shared_ptr<client::StopToken> cache_stop;
};

/// Runs the operator with `options` against the cluster of options.kubeconfig (kubeconfig, $KUBECONFIG, in-cluster,
/// ~/.kube/config), with `client_options` for every apiserver client (QPS, burst, retries). Returns the process's exit
/// code: 0 after an orderly stop, 1 when it could not start (no cluster configuration, the apiserver unreachable,
/// the RayCluster CRD missing, a port in use, caches that do not sync).
int run(const OperatorOptions& options, const client::RestClientOptions& client_options, const StopControl& stop);

}  // namespace cfo::op
