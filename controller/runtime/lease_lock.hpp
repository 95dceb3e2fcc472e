#pragma once
// The lock of leader election: a coordination.k8s.io/v1 Lease, read and written with optimistic concurrency.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "client/rest_client.hpp"
#include "core/error.hpp"
#include "core/json.hpp"

namespace cfo::runtime {

/// The leader-election fields of a Lease's spec (client-go resourcelock.LeaderElectionRecord). Times are
/// metav1.MicroTime text ("2026-01-02T03:04:05.123456Z"); they are informative only, since expiry is judged on the
/// observer's own monotonic clock. An empty holder means nobody holds the lease (it was released).
struct LeaderElectionRecord {
  std::string holder_identity;
  int64_t lease_duration_seconds = 0;
  std::string acquire_time;
  std::string renew_time;
  int64_t lease_transitions = 0;

  bool operator==(const LeaderElectionRecord&) const = default;
};

/// A Lease as last read or written: its record and the resourceVersion that a following update must match.
struct ObservedLease {
  LeaderElectionRecord record;
  std::string resource_version;
};

/// The three calls leader election makes. Implementations report apiserver answers as Errors with http_status
/// (404 from get is not an error but std::nullopt; 409 from create/update means someone else wrote first).
class LeaseLock {
 public:
  virtual ~LeaseLock() = default;
  /// Reads the Lease; std::nullopt when it does not exist.
  virtual Result<std::optional<ObservedLease>> get() = 0;
  /// Creates the Lease holding `record`.
  virtual Result<ObservedLease> create(const LeaderElectionRecord& record) = 0;
  /// Writes `record` into the Lease if its resourceVersion is still `resource_version` (HTTP PUT with
  /// metadata.resourceVersion; the apiserver answers 409 Conflict when it moved on).
  virtual Result<ObservedLease> update(const LeaderElectionRecord& record, const std::string& resource_version) = 0;
  /// "<namespace>/<name>", for logs.
  virtual std::string describe() const = 0;
};

/// The record in a Lease object's spec (absent fields read as empty / 0).
LeaderElectionRecord record_from_lease(const json::Value& lease);

/// A coordination.k8s.io/v1 Lease object named `ns`/`name` whose spec holds `record` and whose
/// metadata.resourceVersion is `resource_version` (omitted when empty). When `previous` is an object, its metadata
/// (labels, annotations, ...) is kept, as client-go updates the Lease it last read.
json::Document lease_body(const std::string& ns, const std::string& name, const LeaderElectionRecord& record,
                          const std::string& resource_version, const json::Value* previous = nullptr);

/// A LeaseLock over the apiserver: GET, POST and PUT on /apis/coordination.k8s.io/v1/namespaces/<ns>/leases[/name].
/// Thread-safe (one elector uses it at a time anyway).
std::shared_ptr<LeaseLock> rest_lease_lock(client::RestClient client, std::string ns, std::string name);

}  // namespace cfo::runtime
