#pragma once
// The manager: owns every long-running part of an operator and starts and stops them in order, as
// controller-runtime's manager does (pkg/manager/internal.go).
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/controller.hpp"
#include "runtime/health_checks.hpp"
#include "runtime/http_server.hpp"
#include "runtime/informer_group.hpp"
#include "runtime/leader_election.hpp"
#include "runtime/lease_lock.hpp"

namespace cfo::runtime {

/// A long-running part that is not a cache or a controller (e.g. the webhook server): started and stopped by the
/// manager. `start` must return once the part runs (an error stops the whole start); `stop` must be idempotent.
struct Runnable {
  std::string name;
  std::function<Result<void>()> start;
  std::function<void()> stop;
  /// Runs only while this replica leads (as a controller does); otherwise on every replica, before the caches.
  bool needs_leader_election = false;
};

/// What the manager serves and how it elects.
struct ManagerOptions {
  std::optional<BindAddress> metrics_address;  ///< std::nullopt: no metrics server
  HttpHandler metrics_handler;                 ///< serves /metrics
  std::optional<BindAddress> probe_address;    ///< std::nullopt: no probe server (/healthz, /readyz)
  /// How long start() waits for every cache to list once (controller-runtime CacheSyncTimeout: 2 min).
  std::chrono::milliseconds cache_sync_timeout{120'000};
  /// Leader election, when set: the controllers and leader runnables start once the lease is won; readyz gets a
  /// "leader" check (excludable with ?exclude=leader, so standbys stay Ready).
  std::optional<LeaderElectionOptions> leader_election;
  std::shared_ptr<LeaseLock> lease_lock;
  /// Called on the election's thread when the lease is lost; the default logs, flushes and ends the process with
  /// exit code 1 (controller-runtime exits too, skipping its graceful shutdown).
  std::function<void()> on_lost_lease;
};

/// Owns informer groups, controllers, runnables, the probe and metrics servers and leader election.
/// start() runs them in controller-runtime's order: HTTP servers (so /healthz answers while the rest starts, and
/// /readyz says what it waits for), runnables without leader election, informers (then waits until every cache
/// synced), leader election, and, once leading (at once without election), the controllers and leader runnables.
/// stop() runs the reverse: controllers and leader runnables, leader election (releasing the lease when configured,
/// only after the workers are done), informers, runnables, servers. Register everything before start(), except
/// informer groups, which may also be added later (they are started at once, e.g. when a CRD appears).
/// Error::reason of Manager::start when the caches did not sync within ManagerOptions::cache_sync_timeout.
inline constexpr std::string_view kCacheSyncTimeoutReason = "CacheSyncTimeout";

class Manager {
 public:
  explicit Manager(ManagerOptions opts);
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;
  /// Stops everything.
  ~Manager();

  /// Adds an informer group (see InformerGroup); after start() it is started at once. Returns it (owned here).
  /// With `wait_for_sync` false, start() does not wait for it (an optional cache whose list may be forbidden or
  /// slow: its readers must treat "not synced" as "unknown").
  InformerGroup& add_informers(std::unique_ptr<InformerGroup> group, bool wait_for_sync = true);
  /// Adds a controller, started once leading.
  void add_controller(std::shared_ptr<Controller> controller);
  void add_runnable(Runnable runnable);
  /// The probe checks; add before start().
  HealthChecks& healthz() { return *healthz_; }
  HealthChecks& readyz() { return *readyz_; }

  /// Starts the probe and metrics servers alone, ahead of start() (which then leaves them be), so that a process
  /// still connecting to its cluster answers /healthz. Error: a server that cannot bind.
  Result<void> start_servers();
  /// See the class comment. Errors: a server that cannot bind, a part that does not start, caches that do not sync
  /// within cache_sync_timeout (Error::reason kCacheSyncTimeoutReason). On error what did start is left for stop().
  Result<void> start();
  /// See the class comment. Idempotent.
  void stop();

  /// True while this replica leads (always true without leader election, once started).
  bool is_leader() const;
  /// The elector, or nullptr without leader election.
  const LeaderElector* elector() const { return elector_.get(); }
  /// True once every informer group added before start() has synced.
  bool caches_synced() const { return synced_.load(); }
  /// The bound ports (0 when off or not started).
  uint16_t metrics_port() const { return metrics_server_.port(); }
  uint16_t probe_port() const { return probe_server_.port(); }

 private:
  void start_leading();

  ManagerOptions opts_;
  std::shared_ptr<HealthChecks> healthz_ = std::make_shared<HealthChecks>();
  std::shared_ptr<HealthChecks> readyz_ = std::make_shared<HealthChecks>();
  HttpServer probe_server_;
  HttpServer metrics_server_;
  std::mutex mu_;  // guards groups_ against add_informers() from other threads after start
  std::vector<std::unique_ptr<InformerGroup>> groups_;
  std::vector<InformerGroup*> awaited_;  // the groups start() waits for
  std::vector<std::shared_ptr<Controller>> controllers_;
  std::vector<Runnable> runnables_;
  std::unique_ptr<LeaderElector> elector_;
  std::thread election_thread_;
  std::atomic<bool> started_{false}, stopped_{false}, synced_{false}, leading_started_{false}, serving_{false};
};

}  // namespace cfo::runtime
