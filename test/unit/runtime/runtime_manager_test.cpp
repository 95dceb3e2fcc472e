// The manager's order of start and stop (controller-runtime pkg/manager/internal.go): servers, runnables without
// leader election, caches, then (leading) controllers and leader runnables; stopped in reverse.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "client/rest_client.hpp"
#include "runtime/informer_group.hpp"
#include "runtime/manager.hpp"

using namespace cfo;
using namespace cfo::runtime;

namespace {
struct Journal {
  std::mutex mu;
  std::vector<std::string> lines;
  void add(std::string s) {
    std::lock_guard lock(mu);
    lines.push_back(std::move(s));
  }
};

Runnable traced(Journal& j, const std::string& name, bool leader) {
  return Runnable{name,
                  [&j, name] {
                    j.add("start " + name);
                    return Result<void>{};
                  },
                  [&j, name] { j.add("stop " + name); }, leader};
}
}  // namespace

TEST(Manager, StartsInOrderAndStopsInReverse) {
  Journal j;
  ManagerOptions o;
  Manager m(o);
  m.add_runnable(traced(j, "webhook", false));
  m.add_runnable(traced(j, "leader-task", true));
  m.add_runnable(traced(j, "cert-rotation", true));
  ASSERT_TRUE(m.start().has_value());
  EXPECT_TRUE(m.caches_synced());
  EXPECT_TRUE(m.is_leader());  // no election: this replica leads
  m.stop();
  m.stop();  // idempotent
  EXPECT_EQ(j.lines, (std::vector<std::string>{"start webhook", "start leader-task", "start cert-rotation",
                                               "stop cert-rotation", "stop leader-task", "stop webhook"}));
}

TEST(Manager, AFailedPartStopsTheStartAndIsReported) {
  ManagerOptions o;
  Manager m(o);
  m.add_runnable(Runnable{"broken", [] { return Result<void>(fail("port in use")); }, [] {}, false});
  auto r = m.start();
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("broken: port in use"), std::string::npos);
  EXPECT_FALSE(m.start().has_value());  // a manager starts once
}

// Caches that cannot list (nothing listens at the apiserver's address) fail the start once cache_sync_timeout has
// passed, with a reason of its own (the operator names --cache-sync-timeout for it); controllers never start.
TEST(Manager, CachesThatDoNotSyncInTimeFailTheStart) {
  client::ClientConfig cfg;
  cfg.server = "https://127.0.0.1:1";
  cfg.insecure_skip_tls_verify = true;
  client::RestClient unreachable(cfg);
  ManagerOptions o;
  o.cache_sync_timeout = std::chrono::milliseconds(300);
  Manager m(o);
  m.add_informers(std::make_unique<InformerGroup>(unreachable, client::ResourceType{"", "v1", "configmaps", true},
                                                  std::vector<std::string>{}, ""));
  Journal j;
  m.add_runnable(traced(j, "leader-task", true));
  auto r = m.start();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().reason, kCacheSyncTimeoutReason);
  EXPECT_EQ(r.error().message, "caches did not sync within 300 ms");
  EXPECT_FALSE(m.caches_synced());
  EXPECT_TRUE(j.lines.empty());
  m.stop();
}

// The probes answer while the rest is still starting: /readyz names what it waits for.
TEST(Manager, ProbesAnswerBeforeTheStart) {
  ManagerOptions o;
  o.probe_address = BindAddress{"127.0.0.1", 0};
  Manager m(o);
  m.healthz().add("ping", [] { return std::optional<std::string>(); });
  ASSERT_TRUE(m.start_servers().has_value());
  EXPECT_NE(m.probe_port(), 0);
  HttpResponse ready = m.readyz().serve("/readyz", HttpRequest{"GET", "/readyz", ""}, "");
  EXPECT_EQ(ready.status, 500u);
  EXPECT_NE(ready.body.find("the caches have not synced yet"), std::string::npos);
  ASSERT_TRUE(m.start().has_value());
  EXPECT_EQ(m.readyz().serve("/readyz", HttpRequest{"GET", "/readyz", ""}, "").status, 200u);
  m.stop();
}
