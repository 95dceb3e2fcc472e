#include "runtime/leader_election.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <random>

namespace cfo::runtime {

namespace {

std::string ms_text(int64_t ms) { return std::to_string(ms) + " ms"; }

/// A random (version 4) UUID in its usual text form.
std::string random_uuid() {
  std::random_device device;
  std::mt19937_64 engine((static_cast<uint64_t>(device()) << 32) ^ device());
  uint64_t hi = engine(), lo = engine();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // RFC 4122 variant
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

}  // namespace

Result<void> validate_leader_election(const LeaderElectionOptions& o) {
  if (o.identity.empty()) return fail("leader election: the identity must not be empty");
  if (o.lease_duration_ms <= 0 || o.renew_deadline_ms <= 0 || o.retry_period_ms <= 0)
    return fail("leader election: lease duration, renew deadline and retry period must all be positive");
  if (o.lease_duration_ms < 1000)
    return fail("leader election: the lease duration must be at least 1 s (got " + ms_text(o.lease_duration_ms) + ")");
  if (o.lease_duration_ms <= o.renew_deadline_ms)
    return fail("leader election: the lease duration (" + ms_text(o.lease_duration_ms) +
                ") must be greater than the renew deadline (" + ms_text(o.renew_deadline_ms) + ")");
  if (static_cast<double>(o.renew_deadline_ms) <= kLeaderElectionJitterFactor * static_cast<double>(o.retry_period_ms))
    return fail("leader election: the renew deadline (" + ms_text(o.renew_deadline_ms) +
                ") must be greater than 1.2 x the retry period (" + ms_text(o.retry_period_ms) + ")");
  return {};
}

std::string default_leader_identity() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "unknown");
  return std::string(host) + "_" + random_uuid();
}

LeaderElector::LeaderElector(LeaderElectionOptions opts, std::shared_ptr<LeaseLock> lock, LeaderElectorDeps deps)
    : opts_(std::move(opts)), lock_(std::move(lock)), deps_(std::move(deps)) {
  if (!deps_.now) deps_.now = steady_now();
  if (!deps_.wall_now) deps_.wall_now = [] { return std::chrono::system_clock::now(); };
  if (!deps_.uniform) deps_.uniform = default_uniform();
}

int64_t LeaderElector::lease_duration_seconds() const { return std::max<int64_t>(1, opts_.lease_duration_ms / 1000); }

std::string LeaderElector::observed_holder() const {
  std::lock_guard lk(observed_mu_);
  return observed_ ? observed_->record.holder_identity : "";
}

void LeaderElector::observe(const ObservedLease& lease, TimePoint now) {
  std::string announce;
  {
    std::lock_guard lk(observed_mu_);
    if (observed_ && observed_->record == lease.record) {
      observed_->resource_version = lease.resource_version;  // same content: the clock keeps running
      return;
    }
    if (!observed_ || observed_->record.holder_identity != lease.record.holder_identity)
      announce = lease.record.holder_identity;
    observed_ = lease;
    observed_at_ = now;
  }
  if (!announce.empty() && announce != opts_.identity)
    spdlog::info("leader election: lease {} is held by {}", lock_->describe(), announce);
}

bool LeaderElector::try_acquire_or_renew() {
  const TimePoint now = deps_.now();
  const std::string wall = format_micro_time(deps_.wall_now());
  LeaderElectionRecord desired{opts_.identity, lease_duration_seconds(), wall, wall, 0};

  auto current = lock_->get();
  if (!current) {
    spdlog::warn("leader election: reading lease {}: {}", lock_->describe(), current.error().message);
    return false;
  }
  const std::optional<ObservedLease>& lease = *current;
  if (!lease) {
    auto created = lock_->create(desired);
    if (!created) {
      spdlog::warn("leader election: creating lease {}: {}", lock_->describe(), created.error().message);
      return false;
    }
    observe(*created, now);
    return true;
  }

  const ObservedLease& old = *lease;
  observe(old, now);
  const bool mine = old.record.holder_identity == opts_.identity;
  if (!old.record.holder_identity.empty() && !mine) {
    std::lock_guard lk(observed_mu_);
    const auto valid_until = observed_at_ + std::chrono::seconds(old.record.lease_duration_seconds);
    if (valid_until > now) return false;  // held by someone else and not expired yet
  }
  if (mine) {
    desired.acquire_time = old.record.acquire_time;
    desired.lease_transitions = old.record.lease_transitions;
  } else {
    desired.lease_transitions = old.record.lease_transitions + 1;
  }
  auto updated = lock_->update(desired, old.resource_version);
  if (!updated) {
    // A 409 means another candidate wrote first: normal in a race, so only debug.
    if (updated.error().is_conflict())
      spdlog::debug("leader election: lease {} changed meanwhile: {}", lock_->describe(), updated.error().message);
    else
      spdlog::warn("leader election: writing lease {}: {}", lock_->describe(), updated.error().message);
    return false;
  }
  observe(*updated, now);
  return true;
}

bool LeaderElector::release() {
  if (!leading_.load()) return true;
  std::optional<ObservedLease> observed;
  {
    std::lock_guard lk(observed_mu_);
    observed = observed_;
  }
  if (!observed || observed->record.holder_identity != opts_.identity) {
    leading_ = false;
    return true;
  }
  const std::string wall = format_micro_time(deps_.wall_now());
  LeaderElectionRecord released{"", 1, wall, wall, observed->record.lease_transitions};
  auto r = lock_->update(released, observed->resource_version);
  if (!r) {
    spdlog::error("leader election: releasing lease {}: {}", lock_->describe(), r.error().message);
    return false;
  }
  observe(*r, deps_.now());
  leading_ = false;
  spdlog::info("leader election: released lease {}", lock_->describe());
  return true;
}

void LeaderElector::sleep_ms(int64_t ms) {
  if (ms <= 0 || stop_requested()) return;
  if (deps_.sleep) {
    deps_.sleep(ms);
    return;
  }
  std::unique_lock lk(sleep_mu_);
  sleep_cv_.wait_for(lk, std::chrono::milliseconds(ms), [&] { return stop_requested(); });
}

void LeaderElector::stop() {
  stop_ = true;
  {
    std::lock_guard lk(sleep_mu_);
  }
  sleep_cv_.notify_all();
}

ElectionEnd LeaderElector::run(const std::function<void()>& on_started_leading) {
  spdlog::info("leader election: {} is trying to acquire lease {}", opts_.identity, lock_->describe());
  for (;;) {
    if (stop_requested()) return ElectionEnd::Stopped;
    if (try_acquire_or_renew()) break;
    const double jitter = kLeaderElectionJitterFactor * deps_.uniform();
    sleep_ms(opts_.retry_period_ms + static_cast<int64_t>(static_cast<double>(opts_.retry_period_ms) * jitter));
  }
  leading_ = true;
  spdlog::info("leader election: {} acquired lease {}", opts_.identity, lock_->describe());
  if (on_started_leading) on_started_leading();

  for (;;) {
    sleep_ms(opts_.retry_period_ms);
    if (stop_requested()) break;
    // Retry every retry period until the renew deadline (client-go: PollImmediateUntil under a RenewDeadline timeout).
    const TimePoint deadline = deps_.now() + std::chrono::milliseconds(opts_.renew_deadline_ms);
    bool renewed = false;
    for (;;) {
      if (try_acquire_or_renew()) {
        renewed = true;
        break;
      }
      if (stop_requested() || deps_.now() + std::chrono::milliseconds(opts_.retry_period_ms) > deadline) break;
      sleep_ms(opts_.retry_period_ms);
      if (stop_requested()) break;
    }
    if (stop_requested()) break;
    if (!renewed) {
      leading_ = false;
      spdlog::error("leader election: {} could not renew lease {} within the renew deadline ({} ms): leadership lost",
                    opts_.identity, lock_->describe(), opts_.renew_deadline_ms);
      return ElectionEnd::Lost;
    }
  }
  if (opts_.release_on_cancel) release();
  leading_ = false;
  return ElectionEnd::Stopped;
}

}  // namespace cfo::runtime
