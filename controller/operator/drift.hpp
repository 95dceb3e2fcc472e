#pragma once
// A child changed behind the operator's back: another field manager wrote a field the operator owns (kubectl edit,
// another controller). The operator restores its fields, says who changed them (a Warning event ChildModified naming
// the field managers), and spaces its restores out so that two writers fighting over a field never make a hot loop.
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace cfo::op {

/// What was found on a child that no longer has the fields last applied to it.
struct Drift {
  /// The field managers other than ours recorded in the child's metadata.managedFields, the most recent write first
  /// (by `time`, 1 s resolution), each as "<manager> (<operation>)"; empty when the cache kept none.
  std::vector<std::string> managers;
};

/// A drift: the live child carries the same spec hash annotation as `desired` (the operator applied this very
/// object before), or none at all (someone removed it), but is_applied(desired, live) fails, so someone changed a
/// field the operator set. std::nullopt when the hashes differ (the operator's own desired state changed: an ordinary
/// update) or nothing changed. For a child the workload controls (its controller owner reference).
std::optional<Drift> detect_drift(const json::Value& desired, const json::Value& live, const std::string& our_manager);

/// The event message of a drift of `kind` `name`.
std::string describe_drift(const Drift& d, const std::string& kind, const std::string& name);

/// Reduces metadata.managedFields to its entries' manager, operation, subresource and time (fieldsV1 dropped):
/// enough to name who wrote an object last, at a fraction of the size. For the children cache.
void reduce_managed_fields(json::Document& obj);

/// Spaces the restores of each workload's child out: the first restore goes at once, each next one only after a
/// delay that doubles from `first` up to `max`; a workload whose child stays untouched for 2 x `max` starts again at
/// once. Thread-safe.
class RestorePacer {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RestorePacer(std::chrono::milliseconds first = std::chrono::seconds(1),
                        std::chrono::milliseconds max = std::chrono::seconds(60))
      : first_(first), max_(max) {}
  /// 0 when a restore of `key` may go now (it is then counted as done), else the milliseconds to wait.
  int64_t admit(const std::string& key, Clock::time_point now = Clock::now());
  /// Forget `key` (its workload is gone).
  void forget(const std::string& key);

 private:
  struct State {
    Clock::time_point last;
    std::chrono::milliseconds gap{0};
  };
  std::chrono::milliseconds first_, max_;
  std::mutex mu_;
  std::map<std::string, State> by_key_;
};

}  // namespace cfo::op
