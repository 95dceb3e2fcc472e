#pragma once
// Leader election on a Lease, as client-go's tools/leaderelection: acquire, renew every retry period, give up when
// a renewal has not succeeded within the renew deadline.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "core/clock.hpp"
#include "runtime/event_recorder.hpp"
#include "runtime/lease_lock.hpp"
#include "runtime/random.hpp"

namespace cfo::runtime {

/// client-go's JitterFactor: waits between acquisition attempts last retry_period * [1, 2.2).
inline constexpr double kLeaderElectionJitterFactor = 1.2;

/// Timings and identity of one candidate. Defaults are controller-runtime's (pkg/manager: lease duration 15 s,
/// renew deadline 10 s, retry period 2 s; LeaderElectionReleaseOnCancel off).
struct LeaderElectionOptions {
  std::string identity;               ///< unique per process, e.g. default_leader_identity()
  int64_t lease_duration_ms = 15000;  ///< how long a lease not renewed stays valid for the others (whole seconds)
  int64_t renew_deadline_ms = 10000;  ///< how long the leader keeps retrying a renewal before it gives up
  int64_t retry_period_ms = 2000;     ///< time between attempts
  bool release_on_cancel = false;     ///< on stop(), hand the lease back at once instead of letting it expire
};

/// client-go's NewLeaderElector checks: every duration > 0, the lease duration at least 1 s (it is written in whole
/// seconds), lease duration > renew deadline > retry period * kLeaderElectionJitterFactor, identity non-empty.
/// The error says which rule is broken, naming the values in ms.
Result<void> validate_leader_election(const LeaderElectionOptions& opts);

/// "<host name>_<random UUID>", as controller-runtime names a candidate.
std::string default_leader_identity();

/// What the elector depends on besides the lock; empty members get the real clocks and randomness.
/// `sleep` waits `ms` of the elector's time. Tests pass one that advances a ManualClock and returns at once, so a
/// whole election runs on the test's thread without real waiting; the real one waits on a condition variable that
/// stop() interrupts.
struct LeaderElectorDeps {
  NowFn now;           ///< monotonic clock on which lease expiry is judged
  WallNowFn wall_now;  ///< wall clock for acquireTime / renewTime
  UniformFn uniform;   ///< jitter of the acquisition retries
  std::function<void(int64_t ms)> sleep;
};

/// How run() ended.
enum class ElectionEnd {
  Stopped,  ///< stop() was called (the lease was released first when release_on_cancel and leading)
  Lost,     ///< leading, then no renewal succeeded within the renew deadline: the caller must stop acting as leader
};

/// One candidate. run() blocks its thread for the life of the election; is_leader() and the observers may be
/// called from any thread. The lease is judged as client-go does: a record is "observed" at the local monotonic
/// time it was first seen with its current content, and it is taken over only when no change to it was seen for
/// its leaseDurationSeconds; so the candidates' wall clocks need not agree. Like client-go this does not fence: a
/// leader cut off from the apiserver keeps leading until its renew deadline passes.
class LeaderElector {
 public:
  LeaderElector(LeaderElectionOptions opts, std::shared_ptr<LeaseLock> lock, LeaderElectorDeps deps = {});
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  /// Tries to acquire the lease every retry period (jittered) until it succeeds or stop() is called; once it holds
  /// the lease it calls `on_started_leading` (on this thread; it should return quickly) and renews the lease until
  /// a renewal fails for the renew deadline (returns Lost) or stop() is called (returns Stopped, after release()
  /// when release_on_cancel). Call once.
  ElectionEnd run(const std::function<void()>& on_started_leading);
  /// Asks run() to return; wakes its waits. Thread-safe, idempotent.
  void stop();

  /// True while this candidate holds the lease (after acquisition, until it is lost or released).
  bool is_leader() const { return leading_.load(); }
  /// The holder last seen in the Lease ("" when unknown or released).
  std::string observed_holder() const;
  /// The identity this candidate writes into the Lease.
  const std::string& identity() const { return opts_.identity; }

  /// One attempt (client-go tryAcquireOrRenew): reads the Lease and creates it, takes it over when it is free or
  /// expired, or renews it when this candidate holds it; each write is conditional on the resourceVersion read.
  /// True when this candidate holds the lease afterwards. Errors of the lock are logged and give false.
  bool try_acquire_or_renew();
  /// Hands the lease back when held (holderIdentity "", leaseDurationSeconds 1, as client-go's release), so that
  /// another candidate takes over after one second. True when released or not held.
  bool release();

 private:
  void sleep_ms(int64_t ms);
  bool stop_requested() const { return stop_.load(); }
  void observe(const ObservedLease& lease, TimePoint now);
  int64_t lease_duration_seconds() const;

  LeaderElectionOptions opts_;
  std::shared_ptr<LeaseLock> lock_;
  LeaderElectorDeps deps_;

  std::atomic<bool> stop_{false};
  std::atomic<bool> leading_{false};
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;

  mutable std::mutex observed_mu_;  // guards the three below (written by the run() thread, read by observers)
  std::optional<ObservedLease> observed_;
  TimePoint observed_at_{};
};

}  // namespace cfo::runtime
