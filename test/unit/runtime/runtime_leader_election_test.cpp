// Leader election against an in-memory Lease, on a manual clock: the sleeps of the elector advance the clock, so a
// whole election (acquire, renew, lose, release) runs on the test's thread without waiting.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "runtime/leader_election.hpp"
#include "runtime/lease_lock.hpp"

using namespace cfo;
using namespace cfo::runtime;

namespace {

/// A Lease held in memory with the apiserver's optimistic concurrency: every write bumps the resourceVersion and an
/// update naming an old one fails with 409.
class FakeLock : public LeaseLock {
 public:
  Result<std::optional<ObservedLease>> get() override {
    ++gets;
    if (fail_reads) return fail("apiserver unavailable", 503);
    if (!lease) return std::optional<ObservedLease>{};
    return std::optional<ObservedLease>(*lease);
  }
  Result<ObservedLease> create(const LeaderElectionRecord& record) override {
    if (lease) return fail("already exists", 409, "AlreadyExists");
    lease = ObservedLease{record, std::to_string(++version)};
    return *lease;
  }
  Result<ObservedLease> update(const LeaderElectionRecord& record, const std::string& rv) override {
    ++updates;
    if (before_update) before_update();
    if (!lease) return fail("not found", 404, "NotFound");
    if (lease->resource_version != rv) return fail("the object has been modified", 409, "Conflict");
    lease = ObservedLease{record, std::to_string(++version)};
    return *lease;
  }
  std::string describe() const override { return "ns/lock"; }

  /// Another candidate writes the Lease (as its own renewals would).
  void write_as(const std::string& holder, int64_t duration_s, const std::string& renew_time) {
    LeaderElectionRecord r{holder, duration_s, "2026-01-01T00:00:00.000000Z", renew_time,
                           lease ? lease->record.lease_transitions : 0};
    lease = ObservedLease{r, std::to_string(++version)};
  }

  std::optional<ObservedLease> lease;
  int version = 0;
  int gets = 0;
  int updates = 0;
  bool fail_reads = false;
  std::function<void()> before_update;
};

/// An elector on a manual clock whose sleeps advance the clock and can run a script of actions.
struct Harness {
  explicit Harness(LeaderElectionOptions o = {}) {
    if (o.identity.empty()) o.identity = "me";
    opts = o;
    elector = std::make_unique<LeaderElector>(
        opts, lock,
        LeaderElectorDeps{.now = clock.fn(),
                          .wall_now = [] { return std::chrono::system_clock::time_point{}; },
                          .uniform = fixed_uniform(0.0),
                          .sleep =
                              [this](int64_t ms) {
                                sleeps.push_back(ms);
                                clock.advance(std::chrono::milliseconds(ms));
                                if (on_sleep) on_sleep();
                              }});
  }
  int64_t now_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - TimePoint{}).count();
  }

  ManualClock clock;
  std::shared_ptr<FakeLock> lock = std::make_shared<FakeLock>();
  LeaderElectionOptions opts;
  std::unique_ptr<LeaderElector> elector;
  std::vector<int64_t> sleeps;
  std::function<void()> on_sleep;
};

}  // namespace

TEST(LeaderElection, CreatesTheLeaseWhenThereIsNone) {
  Harness h;
  EXPECT_TRUE(h.elector->try_acquire_or_renew());
  ASSERT_TRUE(h.lock->lease);
  EXPECT_EQ(h.lock->lease->record.holder_identity, "me");
  EXPECT_EQ(h.lock->lease->record.lease_duration_seconds, 15);
  EXPECT_EQ(h.lock->lease->record.lease_transitions, 0);
  EXPECT_EQ(h.lock->lease->record.acquire_time, "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(h.elector->observed_holder(), "me");
}

TEST(LeaderElection, AValidLeaseOfAnotherIsTakenOnlyAfterItWasSeenUnchangedForItsDuration) {
  Harness h;
  h.lock->write_as("other", 15, "t0");
  EXPECT_FALSE(h.elector->try_acquire_or_renew());
  EXPECT_EQ(h.elector->observed_holder(), "other");
  h.clock.advance(std::chrono::milliseconds(14999));
  EXPECT_FALSE(h.elector->try_acquire_or_renew());
  EXPECT_EQ(h.lock->updates, 0) << "a valid lease is not even written to";
  h.clock.advance(
      std::chrono::milliseconds(1));  // 15 s since the record was first seen: expired, whatever its renewTime says
  EXPECT_TRUE(h.elector->try_acquire_or_renew());
  EXPECT_EQ(h.lock->lease->record.holder_identity, "me");
  EXPECT_EQ(h.lock->lease->record.lease_transitions, 1);
}

TEST(LeaderElection, EveryRenewalOfTheHolderRestartsTheExpiryClock) {
  Harness h;
  h.lock->write_as("other", 15, "t0");
  EXPECT_FALSE(h.elector->try_acquire_or_renew());
  h.clock.advance(std::chrono::milliseconds(10000));
  h.lock->write_as("other", 15, "t10");  // the holder renewed
  EXPECT_FALSE(h.elector->try_acquire_or_renew());
  h.clock.advance(std::chrono::milliseconds(14999));
  EXPECT_FALSE(h.elector->try_acquire_or_renew());
  h.clock.advance(std::chrono::milliseconds(1));
  EXPECT_TRUE(h.elector->try_acquire_or_renew());
}

TEST(LeaderElection, AReleasedLeaseIsTakenAtOnce) {
  Harness h;
  h.lock->write_as("", 1, "t0");
  EXPECT_TRUE(h.elector->try_acquire_or_renew());
  EXPECT_EQ(h.lock->lease->record.holder_identity, "me");
}

TEST(LeaderElection, RenewalKeepsAcquireTimeAndTransitions) {
  Harness h;
  h.lock->write_as("other", 15, "t0");
  h.lock->lease->record.lease_transitions = 4;
  h.clock.advance(std::chrono::milliseconds(1000));
  ASSERT_FALSE(h.elector->try_acquire_or_renew());
  h.clock.advance(std::chrono::milliseconds(15000));
  ASSERT_TRUE(h.elector->try_acquire_or_renew());
  const LeaderElectionRecord acquired = h.lock->lease->record;
  EXPECT_EQ(acquired.lease_transitions, 5);
  ASSERT_TRUE(h.elector->try_acquire_or_renew());
  EXPECT_EQ(h.lock->lease->record.lease_transitions, 5);
  EXPECT_EQ(h.lock->lease->record.acquire_time, acquired.acquire_time);
}

TEST(LeaderElection, LosingAWriteRaceIsNotLeading) {
  Harness h;
  h.lock->write_as("", 1, "t0");
  // Another candidate takes the released lease between our read and our write: our update names a stale version.
  h.lock->before_update = [&] {
    h.lock->before_update = nullptr;
    h.lock->write_as("fast", 15, "t1");
  };
  EXPECT_FALSE(h.elector->try_acquire_or_renew());
  EXPECT_EQ(h.lock->lease->record.holder_identity, "fast");
}

TEST(LeaderElection, RunAcquiresWithJitteredRetriesThenLeadsAndRenewsEveryRetryPeriod) {
  Harness h(LeaderElectionOptions{.identity = "me"});
  h.elector = std::make_unique<LeaderElector>(
      h.opts, h.lock,
      LeaderElectorDeps{.now = h.clock.fn(), .wall_now = {}, .uniform = fixed_uniform(0.5), .sleep = [&](int64_t ms) {
                          h.sleeps.push_back(ms);
                          h.clock.advance(std::chrono::milliseconds(ms));
                          if (h.on_sleep) h.on_sleep();
                        }});
  h.lock->write_as("other", 15, "t0");  // never renewed again: expires 15 s after we first saw it
  int started = 0;
  int64_t started_at = -1;
  h.on_sleep = [&] {
    if (started && h.sleeps.size() >= 12) h.elector->stop();
  };
  EXPECT_EQ(h.elector->run([&] {
    ++started;
    started_at = h.now_ms();
    EXPECT_TRUE(h.elector->is_leader());
  }),
            ElectionEnd::Stopped);
  EXPECT_EQ(started, 1);
  // Acquisition retries wait retry period * (1 + 1.2 * u) = 2000 * 1.6 = 3200 ms; the lease is free at 15 s, so the
  // fifth attempt (at 16 s) wins.
  ASSERT_GE(h.sleeps.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(h.sleeps[static_cast<std::size_t>(i)], 3200) << i;
  EXPECT_EQ(started_at, 16000);
  // Then renewals every retry period (2000 ms), no jitter.
  for (std::size_t i = 5; i < h.sleeps.size(); ++i) EXPECT_EQ(h.sleeps[i], 2000) << i;
  EXPECT_EQ(h.lock->lease->record.holder_identity, "me") << "without release_on_cancel the lease is left to expire";
  EXPECT_FALSE(h.elector->is_leader());
}

TEST(LeaderElection, LostWhenNoRenewalSucceedsWithinTheRenewDeadline) {
  Harness h;
  int64_t failing_since = -1;
  h.on_sleep = [&] {
    if (h.elector->is_leader() && failing_since < 0 && h.sleeps.size() == 3) {
      h.lock->fail_reads = true;  // the apiserver goes away after two good renewals
      failing_since = h.now_ms();
    }
  };
  EXPECT_EQ(h.elector->run({}), ElectionEnd::Lost);
  EXPECT_FALSE(h.elector->is_leader());
  ASSERT_GE(failing_since, 0);
  // Attempts at 0, 2, 4, 6, 8 and 10 s after the failures began; the next one would be past the 10 s deadline.
  EXPECT_EQ(h.now_ms() - failing_since, 10000);
}

TEST(LeaderElection, LostWhenAnotherCandidateHoldsTheLease) {
  Harness h;
  bool stolen = false;
  h.on_sleep = [&] {
    if (h.elector->is_leader() && !stolen) {
      stolen = true;
      h.lock->write_as("thief", 60, "t");  // e.g. an admin overwrote the Lease
    }
  };
  EXPECT_EQ(h.elector->run({}), ElectionEnd::Lost);
  EXPECT_EQ(h.lock->lease->record.holder_identity, "thief") << "the loser never writes over a valid lease";
}

TEST(LeaderElection, ReleaseOnCancelHandsTheLeaseBack) {
  Harness h(LeaderElectionOptions{.identity = "me", .release_on_cancel = true});
  h.lock->write_as("", 1, "t0");
  h.lock->lease->record.lease_transitions = 2;
  h.on_sleep = [&] {
    if (h.sleeps.size() == 2) h.elector->stop();
  };
  EXPECT_EQ(h.elector->run({}), ElectionEnd::Stopped);
  ASSERT_TRUE(h.lock->lease);
  EXPECT_EQ(h.lock->lease->record.holder_identity, "");
  EXPECT_EQ(h.lock->lease->record.lease_duration_seconds, 1);
  EXPECT_EQ(h.lock->lease->record.lease_transitions, 3);
  EXPECT_FALSE(h.elector->is_leader());
  EXPECT_TRUE(h.elector->release()) << "releasing again is a no-op";
}

TEST(LeaderElection, StopBeforeAcquiringNeverStartsLeading) {
  Harness h;
  h.lock->write_as("other", 15, "t0");
  h.on_sleep = [&] { h.elector->stop(); };
  bool started = false;
  EXPECT_EQ(h.elector->run([&] { started = true; }), ElectionEnd::Stopped);
  EXPECT_FALSE(started);
  EXPECT_EQ(h.lock->lease->record.holder_identity, "other");
}

TEST(LeaderElection, OptionsAreCheckedAsClientGoDoes) {
  LeaderElectionOptions o{.identity = "me"};
  EXPECT_TRUE(validate_leader_election(o).has_value());
  auto broken = [&](auto change) {
    LeaderElectionOptions c = o;
    change(c);
    return !validate_leader_election(c).has_value();
  };
  EXPECT_TRUE(broken([](auto& c) { c.identity.clear(); }));
  EXPECT_TRUE(broken([](auto& c) { c.lease_duration_ms = 10000; }));  // not above the renew deadline
  EXPECT_TRUE(broken([](auto& c) { c.renew_deadline_ms = 2400; }));   // not above 1.2 x retry period
  EXPECT_FALSE(broken([](auto& c) { c.renew_deadline_ms = 2401; }));
  EXPECT_TRUE(broken([](auto& c) { c.retry_period_ms = 0; }));
  EXPECT_TRUE(broken([](auto& c) { c.lease_duration_ms = 900, c.renew_deadline_ms = 800, c.retry_period_ms = 100; }));
}

TEST(LeaderElection, DefaultIdentityIsHostNameAndAUuid) {
  const std::string a = default_leader_identity(), b = default_leader_identity();
  EXPECT_NE(a, b);
  EXPECT_TRUE(std::regex_match(a, std::regex(".+_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << a;
}

TEST(LeaseLock, RecordIsReadFromTheSpec) {
  auto lease = json::parse(
      R"({"metadata":{"name":"l","resourceVersion":"7"},"spec":{"holderIdentity":"h","leaseDurationSeconds":15,)"
      R"("acquireTime":"2026-01-01T00:00:00.000000Z","renewTime":"2026-01-01T00:00:10.000000Z","leaseTransitions":3}})");
  ASSERT_TRUE(lease);
  LeaderElectionRecord r = record_from_lease(*lease);
  EXPECT_EQ(r, (LeaderElectionRecord{"h", 15, "2026-01-01T00:00:00.000000Z", "2026-01-01T00:00:10.000000Z", 3}));
  EXPECT_EQ(record_from_lease(*json::parse("{}")), LeaderElectionRecord{});
}

TEST(LeaseLock, BodyCarriesTheRecordAndVersionAndKeepsOthersMetadata) {
  auto previous = json::parse(R"({"metadata":{"name":"l","namespace":"ns","resourceVersion":"7","labels":{"team":"x"},)"
                              R"("managedFields":[{"manager":"m"}]},"spec":{}})");
  ASSERT_TRUE(previous);
  json::Document body = lease_body("ns", "l", {"me", 15, "a", "r", 2}, "7", &*previous);
  EXPECT_EQ(json::get_string(body, "kind"), "Lease");
  EXPECT_EQ(json::get_string(body, "apiVersion"), "coordination.k8s.io/v1");
  EXPECT_EQ(json::get_string(body["metadata"], "resourceVersion"), "7");
  EXPECT_EQ(json::get_string(body["metadata"]["labels"], "team"), "x");
  EXPECT_FALSE(json::find(body["metadata"], "managedFields"));
  EXPECT_EQ(record_from_lease(body), (LeaderElectionRecord{"me", 15, "a", "r", 2}));
  json::Document fresh = lease_body("ns", "l", {"", 1, "", "", 0}, "");
  EXPECT_FALSE(json::find(fresh["metadata"], "resourceVersion"));
  EXPECT_EQ(json::get_string(fresh["spec"], "holderIdentity"), "") << "a release writes an empty holder";
}
