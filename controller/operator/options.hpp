#pragma once
// The settings of the operator, filled in once from the flags of `codeflare-operator run` (cmd/run_options.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/http_server.hpp"
#include "runtime/leader_election.hpp"
#include "runtime/rate_limiter.hpp"
#include "core/token_bucket.hpp"
#include "validation/cluster_facts.hpp"
#include "webhook/webhook_options.hpp"

namespace cfo::op {

/// Where a pod finds its own namespace.
inline constexpr const char* kInClusterNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
/// The Lease name used when --leader-election-id is not given.
inline constexpr const char* kDefaultLeaderElectionId = "codeflare-operator.codeflare.dev";

/// Every setting of the operator (`codeflare-operator run`), with controller-runtime's defaults.
struct OperatorOptions {
  std::string kubeconfig;
  std::vector<std::string> namespaces;  ///< watched namespaces; empty = all
  std::string label_selector;           ///< only CodeFlareWorkloads matching it (a shard); empty = all
  int max_concurrent_reconciles = 1;
  int kueue_max_podsets = 0;  ///< 0 = read it from the cluster
  /// --min-watch-timeout: every watch asks for a timeoutSeconds drawn from [this, 2 x this] (client-go's
  /// MinWatchTimeout, 5 minutes); the client gives a silent watch up after its timeout plus 30 s.
  int64_t min_watch_timeout_s = 300;
  /// How long the caches may take to list everything at start before the process gives up and exits with status 1
  /// (controller-runtime's controller CacheSyncTimeout, default 2 minutes). --cache-sync-timeout.
  int64_t cache_sync_timeout_ms = 120'000;
  /// The cluster profile (--profile); unset = told by the CRDs the cluster serves (served_apis.hpp detect_profile).
  std::optional<validation::Profile> profile;

  runtime::ItemBackoffOptions backoff;  ///< --workqueue-base-delay / --workqueue-max-delay (5 ms, 1000 s)
  TokenBucketOptions bucket;            ///< --workqueue-qps / --workqueue-burst (10, 100)

  bool leader_elect = false;
  std::string leader_election_id = kDefaultLeaderElectionId;
  std::string leader_election_namespace;    ///< resolved: the flag, else the pod's namespace; set when electing
  runtime::LeaderElectionOptions election;  ///< timings and release_on_cancel; identity left empty

  std::optional<runtime::BindAddress> metrics_address;  ///< std::nullopt = metrics off ("0")
  std::optional<runtime::BindAddress> probe_address;    ///< std::nullopt = probes off ("0")
  bool server_dry_run = true;
  /// The --webhook-* flags (webhook/webhook_options.hpp): the admission webhooks and their certificates.
  webhook::WebhookOptions webhook;
};

}  // namespace cfo::op
