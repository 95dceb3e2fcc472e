#include "cmd/run_options.hpp"

#include "client/file_text.hpp"
#include "cmd/shutdown.hpp"  // parse_duration
#include "core/label_selector.hpp"
#include "core/names.hpp"

namespace cfo::cmd {

namespace {

constexpr int64_t kMaxBackoffMs = 30LL * 24 * 3600 * 1000;

Result<long> ranged_integer(const Args& args, const std::string& name, long fallback, long lo, long hi) {
  auto v = args.integer(name, fallback);
  if (!v) return v;
  if (*v < lo || *v > hi)
    return fail("flag --" + name + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                std::to_string(*v));
  return v;
}

// A duration flag (Go syntax, see parse_duration) in ms; negative values are refused.
Result<int64_t> duration_flag(const Args& args, const std::string& name, int64_t fallback_ms) {
  if (!args.has(name)) return fallback_ms;
  auto d = parse_duration(args.get(name));
  if (!d) return fail("flag --" + name + ": " + d.error().message);
  if (d->count() < 0) return fail("flag --" + name + " must not be negative");
  return static_cast<int64_t>(d->count());
}

Result<std::optional<runtime::BindAddress>> bind_flag(const Args& args, const std::string& name,
                                                      const std::string& fallback) {
  auto parsed = runtime::parse_bind_address(args.get(name, fallback));
  if (!parsed) return fail("flag --" + name + ": " + parsed.error().message);
  return parsed;
}

}  // namespace

const std::map<std::string, bool>& run_flags() {
  static const std::map<std::string, bool> flags{
      {"kubeconfig", true},
      {"namespace", true},
      {"label-selector", true},
      {"max-concurrent-reconciles", true},
      {"log-level", true},
      {"kueue-max-podsets", true},
      {"min-watch-timeout", true},
      {"cache-sync-timeout", true},
      {"profile", true},
      {"workqueue-base-delay", true},
      {"workqueue-max-delay", true},
      {"workqueue-qps", true},
      {"workqueue-burst", true},
      {"leader-elect", false},
      {"leader-election-id", true},
      {"leader-election-namespace", true},
      {"leader-elect-lease-duration", true},
      {"leader-elect-renew-deadline", true},
      {"leader-elect-retry-period", true},
      {"leader-elect-release-on-cancel", false},
      {"metrics-bind-address", true},
      {"health-probe-bind-address", true},
      {"server-dry-run", false},
      {"kube-api-qps", true},               // operations_flags.hpp
      {"kube-api-burst", true},             // operations_flags.hpp
      {"kube-api-request-timeout", true},   // operations_flags.hpp
      {"kube-api-connect-timeout", true},   // operations_flags.hpp
      {"log-format", true},                 // operations_flags.hpp
      {"graceful-shutdown-timeout", true},  // operations_flags.hpp
      {"help", false},
  };
  static const std::map<std::string, bool> with_webhooks = [] {
    std::map<std::string, bool> all = flags;
    all.insert(webhook::webhook_flags().begin(), webhook::webhook_flags().end());  // webhook/webhook_options.hpp
    return all;
  }();
  return with_webhooks;
}

const std::map<std::string, std::string>& run_flag_aliases() {
  static const std::map<std::string, std::string> aliases{{"n", "namespace"}, {"l", "label-selector"}, {"h", "help"}};
  return aliases;
}

Result<RunOptions> parse_run_options(const Args& args, const std::string& namespace_file) {
  RunOptions o;
  o.kubeconfig = args.get("kubeconfig");

  o.namespaces = args.all("namespace");
  for (const auto& ns : o.namespaces)
    if (auto errs = names::dns1123_label(ns); !errs.empty())
      return fail("flag --namespace \"" + ns + "\": " + errs.front());
  if (args.all("label-selector").size() > 1)
    return fail(
        "flag --label-selector is given more than once; write one selector with its requirements separated "
        "by commas (e.g. shard=a,tier!=test)");
  o.label_selector = args.get("label-selector");
  if (auto errs = names::label_selector(o.label_selector); !errs.empty())
    return fail("flag --label-selector \"" + o.label_selector + "\": " + errs.front());

  auto workers = ranged_integer(args, "max-concurrent-reconciles", 1, 1, 1000);
  if (!workers) return std::unexpected(workers.error());
  o.max_concurrent_reconciles = static_cast<int>(*workers);
  auto podsets = ranged_integer(args, "kueue-max-podsets", 0, 0, 1000);
  if (!podsets) return std::unexpected(podsets.error());
  o.kueue_max_podsets = static_cast<int>(*podsets);
  if (args.has("profile")) {
    o.profile = validation::parse_profile(args.get("profile"));
    if (!o.profile) return fail("flag --profile must be vanilla or odh, got \"" + args.get("profile") + "\"");
  }

  // Watches ask for a timeoutSeconds in [min, 2 min] (client-go's ReflectorOptions.MinWatchTimeout, default 5m).
  auto watch_timeout = duration_flag(args, "min-watch-timeout", o.min_watch_timeout_s * 1000);
  if (!watch_timeout) return std::unexpected(watch_timeout.error());
  if (*watch_timeout < 1000 || *watch_timeout > int64_t{3600} * 1000)
    return fail("flag --min-watch-timeout must be between 1s and 1h");
  o.min_watch_timeout_s = *watch_timeout / 1000;
  auto sync_timeout = duration_flag(args, "cache-sync-timeout", o.cache_sync_timeout_ms);
  if (!sync_timeout) return std::unexpected(sync_timeout.error());
  if (*sync_timeout < 1000 || *sync_timeout > int64_t{24} * 3600 * 1000)
    return fail("flag --cache-sync-timeout must be between 1s and 24h");
  o.cache_sync_timeout_ms = *sync_timeout;

  // The work queue: per-key exponential backoff and the overall bucket of retries.
  auto base = duration_flag(args, "workqueue-base-delay", o.backoff.base_delay_ms);
  if (!base) return std::unexpected(base.error());
  auto max = duration_flag(args, "workqueue-max-delay", o.backoff.max_delay_ms);
  if (!max) return std::unexpected(max.error());
  if (*base < 1) return fail("flag --workqueue-base-delay must be at least 1ms");
  if (*max < *base) return fail("flag --workqueue-max-delay must not be shorter than --workqueue-base-delay");
  if (*max > kMaxBackoffMs) return fail("flag --workqueue-max-delay must be at most 720h (30 days)");
  o.backoff = {*base, *max};
  auto qps = args.number("workqueue-qps", o.bucket.qps);
  if (!qps) return std::unexpected(qps.error());
  if (*qps < 0 || *qps > 1e6) return fail("flag --workqueue-qps must be between 0 (no limit) and 1000000");
  auto burst = ranged_integer(args, "workqueue-burst", o.bucket.burst, 1, 1000000);
  if (!burst) return std::unexpected(burst.error());
  o.bucket = {*qps, static_cast<int>(*burst)};

  // Leader election.
  auto elect = args.boolean("leader-elect", false);
  if (!elect) return std::unexpected(elect.error());
  o.leader_elect = *elect;
  o.leader_election_id = args.get("leader-election-id", kDefaultLeaderElectionId);
  if (auto errs = names::dns1123_subdomain(o.leader_election_id); !errs.empty())
    return fail("flag --leader-election-id \"" + o.leader_election_id + "\": " + errs.front());
  auto lease = duration_flag(args, "leader-elect-lease-duration", o.election.lease_duration_ms);
  if (!lease) return std::unexpected(lease.error());
  auto renew = duration_flag(args, "leader-elect-renew-deadline", o.election.renew_deadline_ms);
  if (!renew) return std::unexpected(renew.error());
  auto retry = duration_flag(args, "leader-elect-retry-period", o.election.retry_period_ms);
  if (!retry) return std::unexpected(retry.error());
  auto release = args.boolean("leader-elect-release-on-cancel", false);
  if (!release) return std::unexpected(release.error());
  if (*lease % 1000 != 0)
    return fail("flag --leader-elect-lease-duration must be whole seconds (a Lease stores leaseDurationSeconds)");
  o.election.lease_duration_ms = *lease;
  o.election.renew_deadline_ms = *renew;
  o.election.retry_period_ms = *retry;
  o.election.release_on_cancel = *release;
  runtime::LeaderElectionOptions check = o.election;
  check.identity = "check";
  if (auto valid = runtime::validate_leader_election(check); !valid)
    return fail("flags --leader-elect-*: " + valid.error().message);
  if (o.leader_elect) {
    o.leader_election_namespace = args.get("leader-election-namespace");
    if (o.leader_election_namespace.empty()) {
      auto text = client::read_file_text(namespace_file);
      if (text) o.leader_election_namespace = client::trim_space(*text);
      if (o.leader_election_namespace.empty())
        return fail("flag --leader-election-namespace is required with --leader-elect outside a cluster (" +
                    namespace_file + " is not readable)");
    }
    if (auto errs = names::dns1123_label(o.leader_election_namespace); !errs.empty())
      return fail("flag --leader-election-namespace \"" + o.leader_election_namespace + "\": " + errs.front());
  }

  // HTTP endpoints.
  auto metrics = bind_flag(args, "metrics-bind-address", ":8080");
  if (!metrics) return std::unexpected(metrics.error());
  o.metrics_address = *metrics;
  auto probes = bind_flag(args, "health-probe-bind-address", ":8081");
  if (!probes) return std::unexpected(probes.error());
  o.probe_address = *probes;
  if (o.metrics_address && o.probe_address && o.metrics_address->port != 0 &&
      o.metrics_address->port == o.probe_address->port && o.metrics_address->host == o.probe_address->host)
    return fail("flags --metrics-bind-address and --health-probe-bind-address must not name the same address");

  auto dry_run = args.boolean("server-dry-run", true);
  if (!dry_run) return std::unexpected(dry_run.error());
  o.server_dry_run = *dry_run;

  auto hooks =
      webhook::parse_webhook_options([&args](const std::string& flag) { return args.all(flag); }, namespace_file);
  if (!hooks) return std::unexpected(hooks.error());
  o.webhook = std::move(*hooks);
  for (const auto& [flag, other] : {std::pair{"metrics-bind-address", &o.metrics_address},
                                    std::pair{"health-probe-bind-address", &o.probe_address}})
    if (o.webhook.bind && *other && o.webhook.bind->port != 0 && o.webhook.bind->port == (*other)->port &&
        o.webhook.bind->host == (*other)->host)
      return fail(std::string("flags --webhook-bind-address and --") + flag + " must not name the same address");
  return o;
}

namespace {
// The help of the controller's own flags; run_help() appends the webhook flags.
const char* controller_help() {
  return "Run the CodeFlareWorkload controller.\n"
         "\n"
         "Flags:\n"
         "      --kubeconfig FILE                      kubeconfig to use; default: $KUBECONFIG, then in-cluster, then "
         "~/.kube/config\n"
         "  -n, --namespace NS                         watch only this namespace (repeatable); default: all "
         "namespaces\n"
         "  -l, --label-selector SELECTOR              reconcile only the CodeFlareWorkloads whose labels match, e.g. "
         "shard=a or 'shard in (a,b)', to split a large cluster between instances; default: all\n"
         "      --max-concurrent-reconciles N          parallel reconciles, 1..1000 (default 1)\n"
         "      --log-level LEVEL                      trace, debug, info, warn, error, critical, off (default info)\n"
         "      --log-format FORMAT                    text, or json: one JSON object per line with ts, level, "
         "logger, msg and the object's key (default text)\n"
         "      --kube-api-qps QPS                     client-side limit of apiserver requests per second; 0 = no "
         "limit, the apiserver's priority and fairness protects it (default 0)\n"
         "      --kube-api-burst N                     requests allowed at once above --kube-api-qps (default 10)\n"
         "      --kube-api-request-timeout DURATION    an apiserver request, or a read of its answer, silent this long "
         "is given up; 1ms..1h (default 1m)\n"
         "      --kube-api-connect-timeout DURATION    DNS, TCP connect and TLS handshake to the apiserver, together; "
         "1ms..1h (default 10s)\n"
         "      --cache-sync-timeout DURATION          the caches must have listed everything within this at start "
         "(a list that stalls for --kube-api-request-timeout is retried meanwhile), else the process exits with status "
         "1 for its supervisor to restart it; 1s..24h (default 2m)\n"
         "      --graceful-shutdown-timeout DURATION   time for an orderly stop after SIGTERM before the process "
         "exits anyway; 0 = at once, negative = no limit (default 30s)\n"
         "      --kueue-max-podsets N                  override Kueue's MaxPodSets (default: read from the Kueue "
         "Workload CRD, else 8)\n"
         "      --min-watch-timeout DURATION           watches ask the apiserver to end them after a random time "
         "between this and twice this, 1s..1h; a watch silent for its time plus 30s is taken for dead and opened "
         "again (default 5m)\n"
         "      --profile NAME                         the cluster profile, vanilla or odh (OpenDataHub / OpenShift "
         "AI: the CodeFlare operator's webhook rules apply too) (default: odh where the OpenDataHub CRDs are "
         "served, else vanilla)\n"
         "      --workqueue-base-delay DURATION        first retry delay of a failed reconcile, doubled at each "
         "failure (default 5ms)\n"
         "      --workqueue-max-delay DURATION         longest retry delay of a failed reconcile (default 1000s)\n"
         "      --workqueue-qps N                      overall retries per second, a token bucket; 0 = no limit "
         "(default 10)\n"
         "      --workqueue-burst N                    size of that bucket (default 100)\n"
         "      --leader-elect                         elect a leader on a Lease; only the leader reconciles "
         "(default false)\n"
         "      --leader-election-id NAME              name of the Lease (default codeflare-operator.codeflare.dev)\n"
         "      --leader-election-namespace NS         namespace of the Lease (default: the pod's namespace; "
         "required outside a cluster)\n"
         "      --leader-elect-lease-duration DURATION how long a lease stays valid without renewal, whole seconds "
         "(default 15s)\n"
         "      --leader-elect-renew-deadline DURATION how long the leader retries a renewal before it gives up "
         "and exits (default 10s)\n"
         "      --leader-elect-retry-period DURATION   time between attempts to acquire or renew (default 2s)\n"
         "      --leader-elect-release-on-cancel       hand the lease back on shutdown so a standby takes over at "
         "once (default false)\n"
         "      --metrics-bind-address ADDR            serve /metrics (Prometheus text) on [host]:port; \"0\" "
         "disables (default :8080)\n"
         "      --health-probe-bind-address ADDR       serve /healthz and /readyz on [host]:port; \"0\" disables "
         "(default :8081)\n"
         "      --server-dry-run[=false]               send each child with dryRun=All before writing it "
         "(default true)\n"
         "\n"
         "Probes: /healthz answers 200 while the process runs. /readyz answers 200 once every cache has synced and, "
         "with --leader-elect, while this replica leads (check \"leader\"; probe /readyz?exclude=leader to keep "
         "standbys ready). Each check is also served alone at /readyz/<check>; add ?verbose for details.\n"
         "Durations are written as 500ms, 15s, 1m30s. Booleans take --flag or --flag=false.\n";
}
}  // namespace

const char* run_help() {
  static const std::string text = wrap_help(
      std::string(controller_help()) + "\nWebhook flags (validating admission webhooks):\n" + webhook::webhook_help());
  return text.c_str();
}

}  // namespace cfo::cmd
