// The chaos suite (`ctest -L chaos`): each scenario runs operators against the chaos control plane, injects one
// fault in the middle of a burst of CodeFlareWorkloads, and ends with the same invariant (chaos_support.hpp).
// Figures are printed as key=value; timings are never asserted beyond generous timeouts.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "../integration/operator_process.hpp"
#include "chaos_support.hpp"

using namespace cfo;
using namespace cfo::chaos;
using namespace std::chrono_literals;
using rt::OperatorProcess;

namespace {

constexpr int kBurst = 24;

std::vector<std::string> on(const std::string& ns, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), "--namespace=" + ns);
  return extra;
}

// Applies workloads [from, to) of a burst.
void burst(const std::string& ns, const std::string& prefix, int from, int to) {
  for (int i = from; i < to; ++i) apply_retrying(ns, burst_workload(prefix, i));
}

// What a burst does besides creating: a new spec for two (generation 2), and the deletion of every workload of
// cq-1 (the managed LocalQueue must go with the last one) and of one plain workload.
void churn(const std::string& ns, const std::string& prefix) {
  apply_retrying(ns, burst_workload(prefix, 0, 3));
  apply_retrying(ns, burst_workload(prefix, 2, 2));
  for (int i = 0; i < kBurst; ++i)
    if (i % 4 == 3 && i % 8 / 4 == 1) delete_retrying(ns, prefix + "-" + std::to_string(i));
  delete_retrying(ns, prefix + "-4");
}

std::string log_of(const OperatorProcess& op) { return op.log_tail(); }

}  // namespace

// The operator killed with SIGKILL in the middle of a burst, then started again: the new process finds the work
// half done (children created, statuses not written, finalizers of deleted workloads pending) and finishes it.
TEST(Chaos, OperatorKilledMidBurst) {
  const std::string ns = rt::create_namespace("chaos-kill");
  auto first = std::make_unique<OperatorProcess>("chaos-kill-1", on(ns));
  burst(ns, "w", 0, kBurst / 2);
  std::this_thread::sleep_for(1s);  // some of the first half reconciled, some not
  first->kill9();
  figure("operator_kill9.killed_after_workloads", kBurst / 2);
  burst(ns, "w", kBurst / 2, kBurst);
  churn(ns, "w");
  const auto t0 = std::chrono::steady_clock::now();
  OperatorProcess second("chaos-kill-2", on(ns));
  EXPECT_TRUE(converges("operator_kill9", ns)) << log_of(second);
  figure("operator_kill9.restart_to_converged_s", seconds_since(t0));
}

// kube-apiserver restarted (SIGTERM, 2 s down, same port and etcd) while a burst is being applied.
TEST(Chaos, ApiserverRestartedMidBurst) {
  const std::string ns = rt::create_namespace("chaos-apiserver");
  OperatorProcess op("chaos-apiserver", on(ns));
  std::thread load([&] {
    burst(ns, "w", 0, kBurst);
    churn(ns, "w");
  });
  std::this_thread::sleep_for(1500ms);
  const auto t0 = std::chrono::steady_clock::now();
  std::string out;
  EXPECT_EQ(control_plane({"restart-apiserver", "", "--down", "2"}, {}, &out), 0) << out;
  figure("apiserver_restart.down_s", seconds_since(t0));
  load.join();
  EXPECT_TRUE(converges("apiserver_restart", ns)) << log_of(op);
  EXPECT_FALSE(op.exit_code().has_value()) << "the operator must ride out an apiserver restart";
}

// etcd compacted while the operator cannot see the apiserver (a partitioned proxy), with changes made meanwhile: when
// the connections are cut and come back, every watch resumes from a resourceVersion etcd no longer has, gets 410
// Gone, and relists. The apiserver runs without its watch cache here, so that watches are served by etcd itself.
TEST(Chaos, EtcdCompactedWatchResumesTooOld) {
  std::string out;
  ASSERT_EQ(control_plane({"restart-apiserver", ""}, {"CFO_APISERVER_EXTRA_FLAGS=--watch-cache=false"}, &out), 0)
      << out;
  struct Restore {
    ~Restore() {
      std::string o;
      EXPECT_EQ(control_plane({"restart-apiserver", ""}, {}, &o), 0) << o;
    }
  } restore;
  const std::string ns = rt::create_namespace("chaos-compact");
  TcpProxy proxy;
  OperatorProcess op("chaos-compact", on(ns), kubeconfig_via(proxy.port(), "chaos-compact"));
  burst(ns, "w", 0, kBurst / 2);
  ASSERT_TRUE(converges("etcd_compaction.before", ns)) << log_of(op);

  proxy.partition();
  burst(ns, "w", kBurst / 2, kBurst);
  churn(ns, "w");
  EXPECT_EQ(control_plane({"compact", ""}, {}, &out), 0) << out;
  figure("etcd_compaction.compacted_at_revision", out.substr(0, out.find('\n')));
  const int relists_before = count_lines(op.log_path(), "relisting");
  proxy.cut();  // the watches end; the operator reopens them from its last resourceVersion
  proxy.heal();
  EXPECT_TRUE(converges("etcd_compaction", ns)) << log_of(op);
  const int relists = count_lines(op.log_path(), "relisting") - relists_before;
  figure("etcd_compaction.relists_410", relists);
  EXPECT_GT(relists, 0) << "no watch was answered 410 Gone and relisted\n" << log_of(op);
}

// A second field manager keeps changing a field the operator owns on a child (the RayCluster's
// autoscalerOptions.idleTimeoutSeconds, 5 changes a second for 20 s). The operator sets it back, but spaced out: its
// PATCHes over the window stay few (no hot loop), and a Warning event ChildModified names the other manager.
TEST(Chaos, SecondFieldManagerFightsOverAField) {
  const std::string ns = rt::create_namespace("chaos-fight");
  OperatorProcess op("chaos-fight", on(ns));
  apply_retrying(ns, burst_workload("w", 0));
  ASSERT_TRUE(converges("field_fight.before", ns)) << log_of(op);

  const double patches_before = requests(op.scrape(), "PATCH");
  client::WriteOptions wo;
  wo.field_manager = "chaos-fighter";
  int changes = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < 20s) {
    json::Document body = rt::from_yaml(
        "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: w-0\nspec:\n  autoscalerOptions:\n"
        "    idleTimeoutSeconds: " +
        std::to_string(100 + changes) + "\n");
    if (rt::api().apply(kRayClusters.object_path(ns, "w-0"), body, wo)) ++changes;
    std::this_thread::sleep_for(200ms);
  }
  const double window_s = seconds_since(t0);
  const double operator_patches = requests(op.scrape(), "PATCH") - patches_before;
  figure("field_fight.other_manager_changes", changes);
  figure("field_fight.window_s", window_s);
  figure("field_fight.operator_patches", operator_patches);
  figure("field_fight.operator_patches_per_s", operator_patches / window_s);
  EXPECT_GE(changes, 50);
  EXPECT_LE(operator_patches, 30) << "the operator fights back in a loop\n" << log_of(op);
  EXPECT_GE(operator_patches, 1) << "the operator never set its field back";

  // The event names the other field manager.
  bool named = false;
  for (const auto& ev : rt::list(kEvents, ns))
    named = named || (json::get_string(ev, "reason") == std::string("ChildModified") &&
                      json::get_string(ev, "note").value_or("").find("chaos-fighter") != std::string::npos);
  EXPECT_TRUE(named) << "no ChildModified event naming chaos-fighter";
  // Once the other manager stops, the field is the operator's again.
  EXPECT_TRUE(rt::eventually(
      [&] {
        auto rc = rt::get(kRayClusters, ns, "w-0");
        return rc && json::get_int(*json::find_path(*rc, "spec.autoscalerOptions"), "idleTimeoutSeconds") == 60;
      },
      90s))
      << log_of(op);
  EXPECT_TRUE(converges("field_fight", ns)) << log_of(op);
}

// Two replicas with --leader-elect; the leader is killed with SIGKILL during a burst; the standby takes over.
TEST(Chaos, LeaderKilledMidBurst) {
  const std::string ns = rt::create_namespace("chaos-leader");
  const std::vector<std::string> elect{"--leader-elect",
                                       "--leader-election-namespace=" + ns,
                                       "--leader-election-id=chaos-lock",
                                       "--leader-elect-lease-duration=4s",
                                       "--leader-elect-renew-deadline=3s",
                                       "--leader-elect-retry-period=500ms"};
  OperatorProcess a("chaos-leader-a", on(ns, elect));
  OperatorProcess b("chaos-leader-b", on(ns, elect));
  OperatorProcess* leader = nullptr;
  ASSERT_TRUE(rt::eventually(
      [&] {
        if (a.master_status("chaos-lock") == 1.0) leader = &a;
        if (b.master_status("chaos-lock") == 1.0) leader = &b;
        return leader != nullptr;
      },
      60s))
      << log_of(a) << log_of(b);
  OperatorProcess* standby = leader == &a ? &b : &a;
  std::thread load([&] {
    burst(ns, "w", 0, kBurst);
    churn(ns, "w");
  });
  std::this_thread::sleep_for(1500ms);
  const auto t0 = std::chrono::steady_clock::now();
  leader->kill9();
  EXPECT_TRUE(rt::eventually([&] { return standby->master_status("chaos-lock") == 1.0; }, 30s)) << log_of(*standby);
  figure("leader_kill9.takeover_s", seconds_since(t0));
  load.join();
  EXPECT_TRUE(converges("leader_kill9", ns)) << log_of(*standby);
}

// The apiserver unreachable (a partitioned proxy: connections stay open, nothing flows) for longer than the watch
// idle limit (--min-watch-timeout=5s: timeoutSeconds 5..10, limit + 30 s, so at most 40 s), with changes made
// meanwhile; then back. The operator gives its silent watches up, opens them again and converges.
TEST(Chaos, ApiserverUnreachableLongerThanWatchIdleLimit) {
  const std::string ns = rt::create_namespace("chaos-partition");
  TcpProxy proxy;
  OperatorProcess op("chaos-partition", on(ns, {"--min-watch-timeout=5s"}),
                     kubeconfig_via(proxy.port(), "chaos-partition"));
  burst(ns, "w", 0, kBurst / 2);
  ASSERT_TRUE(converges("partition.before", ns)) << log_of(op);
  const int dead_before = count_lines(op.log_path(), "the stream is considered dead");

  proxy.partition();
  burst(ns, "w", kBurst / 2, kBurst);
  churn(ns, "w");
  std::this_thread::sleep_for(45s);  // longer than the idle limit (at most 40 s)
  figure("partition.unreachable_s", 45);
  proxy.heal();
  // (requests sent into the partition are answered late or time out, then retried with backoff: on a loaded machine
  // this has taken about a minute)
  EXPECT_TRUE(converges("partition", ns, 200s)) << log_of(op);
  const int dead = count_lines(op.log_path(), "the stream is considered dead") - dead_before;
  figure("partition.watches_given_up", dead);
  EXPECT_GT(dead, 0) << "no watch was given up for silence\n" << log_of(op);
}
