#pragma once
// The flags of `codeflare-operator run`, parsed and checked in one place.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cmd/args.hpp"
#include "core/error.hpp"
#include "runtime/http_server.hpp"
#include "runtime/leader_election.hpp"
#include "runtime/rate_limiter.hpp"
#include "runtime/token_bucket.hpp"
#include "webhook/webhook_options.hpp"

namespace cfo::cmd {

/// Where a pod finds its own namespace.
inline constexpr const char* kInClusterNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
/// The Lease name used when --leader-election-id is not given.
inline constexpr const char* kDefaultLeaderElectionId = "codeflare-operator.codeflare.dev";

/// Every setting of `run`, with controller-runtime's defaults.
struct RunOptions {
  std::string kubeconfig;
  std::vector<std::string> namespaces;  ///< watched namespaces; empty = all
  std::string label_selector;           ///< only CodeFlareWorkloads matching it (a shard); empty = all
  int max_concurrent_reconciles = 1;
  int kueue_max_podsets = 0;  ///< 0 = read it from the cluster

  runtime::ItemBackoffOptions backoff;  ///< --workqueue-base-delay / --workqueue-max-delay (5 ms, 1000 s)
  runtime::TokenBucketOptions bucket;   ///< --workqueue-qps / --workqueue-burst (10, 100)

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

/// The flags `run` accepts (name -> takes a value) and their short aliases, for Args::parse.
const std::map<std::string, bool>& run_flags();
const std::map<std::string, std::string>& run_flag_aliases();

/// Reads and checks every flag of `args`. `namespace_file` is where the pod's namespace is read when electing
/// without --leader-election-namespace (kInClusterNamespaceFile in production). Errors (the caller exits 2) name the
/// flag and the rule: malformed numbers or durations, values out of range (--max-concurrent-reconciles 1..1000,
/// --workqueue-base-delay >= 1ms and <= --workqueue-max-delay <= 30 days, --workqueue-qps 0..1e6 (0 = no bucket),
/// --workqueue-burst 1..1e6, --kueue-max-podsets 0..1000), leader-election timings that client-go would refuse
/// (validate_leader_election), a Lease name or namespace that is not a DNS name, a bad bind address, and
/// --leader-elect outside a cluster without --leader-election-namespace, the --webhook-* flags
/// (webhook::parse_webhook_options), and a webhook address equal to the metrics or probe address.
Result<RunOptions> parse_run_options(const Args& args, const std::string& namespace_file = kInClusterNamespaceFile);

/// The `run --help` text. Every flag is on a line of its own with its default as "(default X)".
const char* run_help();

}  // namespace cfo::cmd
