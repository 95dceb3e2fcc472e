#pragma once
// The flags of `codeflare-operator run`, parsed and checked in one place.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cmd/args.hpp"
#include "core/error.hpp"
#include "operator/options.hpp"

namespace cfo::cmd {

/// Every setting of `run` (the operator's options, operator/options.hpp).
using RunOptions = op::OperatorOptions;
using op::kDefaultLeaderElectionId;
using op::kInClusterNamespaceFile;

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
