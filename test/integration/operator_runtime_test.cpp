// End-to-end tests of the operator's runtime against the fixture's kube-apiserver 1.20: leader election between two
// replicas (only the leader reconciles; a standby takes over when the leader is killed; a replica that loses its
// lease exits), the Prometheus metrics and the probes after reconciling the samples, and the server-side dry-run
// gate. Every operator here is started by its test with --namespace, on namespaces of its own.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "core/yaml.hpp"
#include "operator_process.hpp"

using namespace cfo;
using namespace cfo::rt;
using namespace std::chrono_literals;

namespace {

const client::ResourceType kWorkloads{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};
const client::ResourceType kRayClusters{"ray.io", "v1", "rayclusters", true};
const client::ResourceType kRayJobs{"ray.io", "v1", "rayjobs", true};
const client::ResourceType kAppWrappers{"workload.codeflare.dev", "v1beta2", "appwrappers", true};
const client::ResourceType kLocalQueues{"kueue.x-k8s.io", "v1beta1", "localqueues", true};
const client::ResourceType kLeases{"coordination.k8s.io", "v1", "leases", true};
const client::ResourceType kResourceQuotas{"", "v1", "resourcequotas", true};

// Short timings so that a takeover happens within seconds (client-go's rules still hold: 4 s > 3 s > 1.2 x 0.5 s).
constexpr int64_t kLeaseMs = 4000;
constexpr int64_t kRetryMs = 500;
const std::vector<std::string> kFastElection{"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
                                             "--leader-elect-retry-period=500ms"};

std::vector<std::string> election_flags(const std::string& ns, const std::string& lease, bool release = false) {
  std::vector<std::string> f{"--namespace=" + ns, "--leader-elect", "--leader-election-namespace=" + ns,
                             "--leader-election-id=" + lease};
  f.insert(f.end(), kFastElection.begin(), kFastElection.end());
  if (release) f.push_back("--leader-elect-release-on-cancel");
  return f;
}

std::string lease_holder(const std::string& ns, const std::string& lease) {
  auto l = get(kLeases, ns, lease);
  return l ? json::get_string((*l)["spec"], "holderIdentity").value_or("") : "<no lease>";
}

double reconciles(const std::string& scrape) {
  return sum_samples(scrape, "controller_runtime_reconcile_total", {{"controller", "codeflareworkload"}});
}

// Every RayCluster of `ns` belongs to exactly one workload, by name, with one owner reference (the workload, as
// controller); every workload of `names` has its RayCluster; no other child kind exists.
::testing::AssertionResult children_exactly(const std::string& ns, const std::set<std::string>& names) {
  std::map<std::string, std::string> uid_of;
  for (const auto& wl : list(kWorkloads, ns))
    uid_of[json::get_string(wl["metadata"], "name").value_or("")] =
        json::get_string(wl["metadata"], "uid").value_or("");
  std::set<std::string> seen;
  for (const auto& rc : list(kRayClusters, ns)) {
    const std::string name = json::get_string(rc["metadata"], "name").value_or("");
    if (!seen.insert(name).second) return ::testing::AssertionFailure() << "RayCluster " << name << " twice";
    if (!names.contains(name)) return ::testing::AssertionFailure() << "unexpected RayCluster " << name;
    const json::Value* refs = json::find_path(rc, "metadata.ownerReferences");
    if (!refs || !refs->IsArray() || refs->Size() != 1)
      return ::testing::AssertionFailure() << "RayCluster " << name << " must have exactly one owner reference";
    const json::Value& ref = (*refs)[0];
    if (json::get_string(ref, "kind") != std::string("CodeFlareWorkload") ||
        json::get_string(ref, "uid") != uid_of[name] || !json::get_bool(ref, "controller").value_or(false))
      return ::testing::AssertionFailure() << "RayCluster " << name << " is not controlled by its workload";
  }
  if (seen != names) return ::testing::AssertionFailure() << seen.size() << " RayClusters for " << names.size();
  if (!list(kAppWrappers, ns).empty() || !list(kRayJobs, ns).empty())
    return ::testing::AssertionFailure() << "unexpected AppWrapper or RayJob";
  return ::testing::AssertionSuccess();
}

}  // namespace

TEST(LeaderElection, OnlyTheLeaderReconcilesAndAStandbyTakesOverWhenItIsKilled) {
  const std::string ns = create_namespace("ha");
  const std::string lease = "ha-lock";
  OperatorProcess a("ha-a", election_flags(ns, lease, true));
  OperatorProcess b("ha-b", election_flags(ns, lease, true));
  auto logs = [&] { return a.log_tail() + "\n" + b.log_tail(); };

  // One leader, one standby.
  OperatorProcess* leader = nullptr;
  OperatorProcess* standby = nullptr;
  ASSERT_TRUE(eventually(
      [&] {
        auto sa = a.master_status(lease), sb = b.master_status(lease);
        if (!sa || !sb) return false;
        if (*sa == 1 && *sb == 0) leader = &a, standby = &b;
        if (*sb == 1 && *sa == 0) leader = &b, standby = &a;
        return leader != nullptr;
      },
      60s))
      << logs();
  ASSERT_FALSE(leader->identity().empty()) << logs();
  EXPECT_EQ(lease_holder(ns, lease), leader->identity());
  EXPECT_EQ(http_get(leader->probe_port(), "/readyz").status, 200u);
  EXPECT_EQ(http_get(standby->probe_port(), "/readyz").status, 500u) << "ready means leading, when elected";
  // A standby fills its caches too (ready but for the leader check), so that it takes over warm.
  EXPECT_TRUE(eventually([&] { return http_get(standby->probe_port(), "/readyz?exclude=leader").status == 200; }, 30s));
  EXPECT_EQ(http_get(standby->probe_port(), "/healthz").status, 200u);

  // The leader alone reconciles.
  std::set<std::string> names{"w1", "w2", "w3", "w4"};
  for (const auto& n : names) ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload(n, 1)));
  ASSERT_TRUE(eventually([&] { return children_exactly(ns, names); }, 60s)) << children_exactly(ns, names) << logs();
  EXPECT_GT(reconciles(leader->scrape()), 0);
  const std::string standby_scrape = standby->scrape();
  EXPECT_EQ(reconciles(standby_scrape), 0) << "a standby must not reconcile";
  EXPECT_EQ(sum_samples(standby_scrape, "codeflare_objects_applied_total", {}), 0);

  // Kill the leader: the standby takes over within the lease duration and a retry period (plus slack for the
  // jittered retries of client-go's rules and the polling here).
  const std::string old_identity = leader->identity();
  const auto killed_at = std::chrono::steady_clock::now();
  leader->kill9();
  ASSERT_TRUE(eventually([&] { return standby->master_status(lease) == 1.0; }, 30s)) << logs();
  const auto takeover_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - killed_at).count();
  EXPECT_LE(takeover_ms, kLeaseMs + kRetryMs + 3000) << "takeover took " << takeover_ms << " ms";
  RecordProperty("takeover_ms", std::to_string(takeover_ms));
  std::cout << "takeover after kill -9: " << takeover_ms << " ms\n";
  EXPECT_EQ(lease_holder(ns, lease), standby->identity());
  EXPECT_NE(standby->identity(), old_identity);
  EXPECT_EQ(http_get(standby->probe_port(), "/readyz").status, 200u);

  // The new leader reconciles: new workloads and a change; nothing is duplicated or lost.
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("w5", 1)));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("w1", 3)));
  names.insert("w5");
  ASSERT_TRUE(eventually(
      [&] {
        auto rc = get(kRayClusters, ns, "w1");
        return children_exactly(ns, names) && rc &&
               json::get_int((*rc)["spec"]["workerGroupSpecs"][0], "replicas") == 3;
      },
      60s))
      << children_exactly(ns, names) << logs();
  EXPECT_GT(reconciles(standby->scrape()), 0);

  // A clean stop hands the lease back (--leader-elect-release-on-cancel).
  EXPECT_EQ(standby->terminate(), 0) << logs();
  auto l = get(kLeases, ns, lease);
  ASSERT_TRUE(l);
  EXPECT_EQ(json::get_string((*l)["spec"], "holderIdentity").value_or("?"), "");
  EXPECT_EQ(json::get_int((*l)["spec"], "leaseDurationSeconds"), 1);
}

TEST(LeaderElection, AReplicaThatLosesItsLeaseExits) {
  const std::string ns = create_namespace("lost");
  const std::string lease = "lost-lock";
  OperatorProcess op("lost", election_flags(ns, lease));
  ASSERT_TRUE(eventually([&] { return op.master_status(lease) == 1.0; }, 60s)) << op.log_tail();
  // Someone else takes the Lease (as a replica that believes it expired would): renewals now find it held.
  auto current = get(kLeases, ns, lease);
  ASSERT_TRUE(current);
  json::Document& l = *current;
  auto& a = l.GetAllocator();
  json::set(l["spec"], "holderIdentity", json::str("intruder", a), a);
  json::set(l["spec"], "leaseDurationSeconds", json::Value(3600), a);
  auto put = api().request("PUT", kLeases.object_path(ns, lease), json::dump(l));
  ASSERT_TRUE(put.has_value() && put->status == 200) << (put ? put->body : put.error().message);
  const auto taken_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return op.exit_code().has_value(); }, 20s)) << op.log_tail();
  const auto exit_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - taken_at).count();
  EXPECT_EQ(op.exit_code(), 1) << op.log_tail();
  EXPECT_LE(exit_ms, 3000 + 2 * kRetryMs + 2000) << "exit within the renew deadline (+ slack): " << exit_ms << " ms";
  EXPECT_NE(op.log_tail().find("leadership lost"), std::string::npos) << op.log_tail();
  EXPECT_EQ(lease_holder(ns, lease), "intruder") << "the loser never overwrites a valid lease";
}

TEST(Metrics, ScrapeAfterReconcilingTheSamplesAndProbes) {
  const std::string ns = create_namespace("metrics");
  const char* samples_dir = std::getenv("CFO_SAMPLES_DIR");
  ASSERT_TRUE(samples_dir) << "CFO_SAMPLES_DIR must name config/samples";
  ASSERT_NO_FATAL_FAILURE(create(kLocalQueues, ns,
                                 "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: "
                                 "team-a-queue\nspec:\n  clusterQueue: team-a-cq\n"));
  OperatorProcess op("metrics", election_flags(ns, "metrics-lock"));

  // The probes answer while the operator starts and once it runs.
  ASSERT_TRUE(eventually([&] { return http_get(op.probe_port(), "/healthz").status == 200; }, 30s)) << op.log_tail();
  ASSERT_TRUE(eventually([&] { return http_get(op.probe_port(), "/readyz").status == 200; }, 60s)) << op.log_tail();

  // Every sample, and one invalid workload (its request is above its limit).
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(samples_dir)) {
    const std::string file = entry.path().filename().string();
    if (entry.path().extension() != ".yaml" || file == "kustomization.yaml") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    auto docs = yaml::to_json(text.str());
    ASSERT_TRUE(docs.has_value()) << file;
    for (auto& d : *docs) {
      names.push_back(json::get_string(d["metadata"], "name").value_or(""));
      ASSERT_NO_FATAL_FAILURE(apply_workload(ns, json::dump(d)));
    }
  }
  ASSERT_GE(names.size(), 5u);
  ASSERT_NO_FATAL_FAILURE(
      apply_workload(ns,
                     "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: broken\nspec:\n"
                     "  workerGroups:\n  - name: workers\n    replicas: 1\n    resources:\n"
                     "      requests: {cpu: \"1\", memory: 4Gi}\n      limits: {cpu: \"1\", memory: 2Gi}\n"));
  names.push_back("broken");
  ASSERT_TRUE(eventually(
      [&] {
        for (const auto& n : names) {
          auto w = get(kWorkloads, ns, n);
          if (!w ||
              json::get_int((*w)["status"], "observedGeneration") != json::get_int((*w)["metadata"], "generation"))
            return false;
        }
        return true;
      },
      90s))
      << op.log_tail();

  const std::string text = op.scrape();
  ASSERT_FALSE(text.empty()) << op.log_tail();
  const std::map<std::string, std::string> ctl{{"controller", "codeflareworkload"}};
  const std::map<std::string, std::string> queue{{"name", "codeflareworkload"}, {"controller", "codeflareworkload"}};
  EXPECT_GT(
      sample(text, "controller_runtime_reconcile_total", {{"controller", "codeflareworkload"}, {"result", "success"}})
          .value_or(0),
      0)
      << text;
  for (const char* result : {"error", "requeue", "requeue_after"})
    EXPECT_TRUE(
        sample(text, "controller_runtime_reconcile_total", {{"controller", "codeflareworkload"}, {"result", result}}))
        << result;
  EXPECT_TRUE(sample(text, "controller_runtime_reconcile_errors_total", ctl));
  EXPECT_GT(sample(text, "controller_runtime_reconcile_time_seconds_count", ctl).value_or(0), 0);
  EXPECT_EQ(sample(text, "controller_runtime_max_concurrent_reconciles", ctl), 1.0);
  EXPECT_TRUE(sample(text, "controller_runtime_active_workers", ctl));
  EXPECT_GT(sample(text, "workqueue_adds_total", queue).value_or(0), 0);
  EXPECT_TRUE(sample(text, "workqueue_depth", queue));
  EXPECT_GT(sample(text, "workqueue_queue_duration_seconds_count", queue).value_or(0), 0);
  EXPECT_GT(sample(text, "workqueue_work_duration_seconds_count", queue).value_or(0), 0);
  EXPECT_TRUE(sample(text, "workqueue_unfinished_work_seconds", queue));
  EXPECT_TRUE(sample(text, "workqueue_longest_running_processor_seconds", queue));
  EXPECT_TRUE(sample(text, "workqueue_retries_total", queue));
  EXPECT_EQ(sample(text, "leader_election_master_status", {{"name", "metrics-lock"}}), 1.0);
  EXPECT_GT(sum_samples(text, "rest_client_requests_total", {{"code", "200"}, {"method", "GET"}}), 0);
  EXPECT_GT(sum_samples(text, "rest_client_requests_total", {{"method", "PATCH"}}), 0);
  EXPECT_GT(sample(text, "codeflare_objects_applied_total", {{"kind", "RayCluster"}}).value_or(0), 0);
  EXPECT_GT(sum_samples(text, "codeflare_validation_rejections_total", {}), 0) << "the broken workload";
  EXPECT_EQ(sum_samples(text, "codeflare_dryrun_disagreements_total", {}), 0);

  // The probes, and what bad requests do to them (nothing).
  EXPECT_EQ(http_get(op.probe_port(), "/healthz").status, 200u);
  EXPECT_EQ(http_get(op.probe_port(), "/readyz").status, 200u);
  EXPECT_EQ(http_get(op.probe_port(), "/readyz/informers").status, 200u);
  EXPECT_EQ(http_get(op.probe_port(), "/nope").status, 404u);
  EXPECT_NE(http_raw(op.probe_port(), "\x01\x02 garbage\r\n\r\n").find(" 400 "), std::string::npos);
  EXPECT_NE(
      http_raw(op.metrics_port(), "GET /metrics HTTP/1.1\r\nX: " + std::string(50000, 'x') + "\r\n\r\n").find(" 400 "),
      std::string::npos);
  EXPECT_EQ(http_get(op.probe_port(), "/healthz").status, 200u);
  EXPECT_EQ(http_get(op.metrics_port(), "/metrics").status, 200u);
  EXPECT_EQ(op.terminate(), 0) << op.log_tail();
}

namespace {

// A ResourceQuota that allows no RayCluster. No quota controller runs here, so its status (which the quota admission
// plugin reads) is written by hand.
void forbid_ray_clusters(const std::string& ns) {
  ASSERT_NO_FATAL_FAILURE(create(kResourceQuotas, ns,
                                 "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: no-rayclusters\nspec:\n"
                                 "  hard:\n    count/rayclusters.ray.io: \"0\"\n"));
  auto q = get(kResourceQuotas, ns, "no-rayclusters");
  ASSERT_TRUE(q);
  auto status = from_yaml(
      "status:\n  hard:\n    count/rayclusters.ray.io: \"0\"\n  used:\n    count/rayclusters.ray.io: \"0\"\n");
  auto& a = q->GetAllocator();
  json::Value st;
  st.CopyFrom(status["status"], a);
  json::set(*q, "status", std::move(st), a);
  auto put = api().request("PUT", kResourceQuotas.object_path(ns, "no-rayclusters") + "/status", json::dump(*q));
  ASSERT_TRUE(put.has_value() && put->status == 200) << (put ? put->body : put.error().message);
}

// Waits for Ready=False on workload `name` and returns its reason and message.
std::pair<std::string, std::string> not_ready(const std::string& ns, const std::string& name) {
  std::string reason, message;
  eventually(
      [&] {
        auto w = get(kWorkloads, ns, name);
        return w && condition(*w, "Ready", &reason, &message) == "False" &&
               (reason == "ServerRejected" || reason == "ApplyFailed");
      },
      60s);
  return {reason, message};
}

}  // namespace

TEST(DryRunGate, AServerRejectionIsReportedAndNothingIsWritten) {
  const std::string ns = create_namespace("dryrun");
  ASSERT_NO_FATAL_FAILURE(forbid_ray_clusters(ns));
  OperatorProcess op("dryrun", {"--namespace=" + ns});
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("gated", 1)));
  auto [reason, message] = not_ready(ns, "gated");
  EXPECT_EQ(reason, "ServerRejected") << message << op.log_tail();
  EXPECT_NE(message.find("exceeded quota"), std::string::npos) << message;
  auto w = get(kWorkloads, ns, "gated");
  ASSERT_TRUE(w);
  EXPECT_EQ(condition(*w, "Valid"), "True") << "our validation accepts it: the disagreement is the server's";
  EXPECT_FALSE(get(kRayClusters, ns, "gated").has_value());
  ASSERT_TRUE(eventually(
      [&] { return sample(op.scrape(), "codeflare_dryrun_disagreements_total", {{"kind", "RayCluster"}}) >= 1.0; },
      10s));
  const std::string text = op.scrape();
  EXPECT_EQ(sample(text, "codeflare_objects_applied_total", {{"kind", "RayCluster"}}), 0.0);
  EXPECT_NE(op.log_tail().find("BUG: validation accepted RayCluster gated"), std::string::npos) << op.log_tail();
  EXPECT_EQ(op.terminate(), 0);
  // Not left for the cluster-wide operators of later tests, which would meet the quota too.
  EXPECT_TRUE(api().remove(kWorkloads.object_path(ns, "gated")).has_value());
}

TEST(DryRunGate, WithTheGateOffTheRealWriteFailsAsApplyFailed) {
  const std::string ns = create_namespace("nodryrun");
  ASSERT_NO_FATAL_FAILURE(forbid_ray_clusters(ns));
  OperatorProcess op("nodryrun", {"--namespace=" + ns, "--server-dry-run=false"});
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, cpu_workload("ungated", 1)));
  auto [reason, message] = not_ready(ns, "ungated");
  EXPECT_EQ(reason, "ApplyFailed") << message << op.log_tail();
  EXPECT_NE(message.find("exceeded quota"), std::string::npos) << message;
  EXPECT_FALSE(get(kRayClusters, ns, "ungated").has_value());
  EXPECT_EQ(sum_samples(op.scrape(), "codeflare_dryrun_disagreements_total", {}), 0);
  EXPECT_EQ(op.terminate(), 0);
  EXPECT_TRUE(api().remove(kWorkloads.object_path(ns, "ungated")).has_value());
}

// --label-selector: an instance reconciles only the workloads it selects (a shard), and takes a workload over as
// soon as a label change brings it into the shard.
TEST(LabelSelector, AnInstanceReconcilesOnlyTheWorkloadsItSelects) {
  const std::string ns = create_namespace("shard");
  OperatorProcess op("shard-a", {"--namespace=" + ns, "--label-selector=shard in (a, a2)"});
  auto labelled = [](const std::string& name, const std::string& shard) {
    std::string yaml = cpu_workload(name, 1);
    const std::string meta = "metadata:\n  name: " + name;
    yaml.replace(yaml.find(meta), meta.size(), "metadata:\n  labels: {shard: " + shard + "}\n  name: " + name);
    return yaml;
  };
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, labelled("mine", "a")));
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, labelled("theirs", "b")));
  ASSERT_TRUE(eventually([&] { return get(kRayClusters, ns, "mine").has_value(); }, 30s)) << op.log_tail();
  EXPECT_NE(op.log_tail().find("matching the label selector \"shard in (a, a2)\""), std::string::npos) << op.log_tail();
  // Both were created together: had "theirs" been in the cache, it would have been reconciled by now too.
  std::this_thread::sleep_for(3s);
  auto theirs = get(kWorkloads, ns, "theirs");
  ASSERT_TRUE(theirs);
  EXPECT_FALSE(json::find(*theirs, "status")) << "a workload outside the shard got a status";
  EXPECT_FALSE(get(kRayClusters, ns, "theirs").has_value());

  // Relabelled into the shard: reconciled.
  ASSERT_NO_FATAL_FAILURE(apply_workload(ns, labelled("theirs", "a2")));
  EXPECT_TRUE(eventually([&] { return get(kRayClusters, ns, "theirs").has_value(); }, 30s)) << op.log_tail();
  // The status is written after the RayCluster is applied: waited for, not read at once.
  EXPECT_TRUE(eventually_condition(kWorkloads, ns, "theirs", "Valid", "True", 30s)) << op.log_tail();
  EXPECT_EQ(op.terminate(), 0);
}
