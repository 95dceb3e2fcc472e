#pragma once
// leader_election_master_status{name}: 1 while this process holds the lease, else 0.
#include <functional>
#include <string>

#include "metrics/metrics.hpp"

namespace cfo::metrics {

/// Registers leader_election_master_status{name=<lease name>} (client-go's leader-election metric) and refreshes it
/// from `is_leader` at every scrape. `is_leader` must be thread-safe and stay valid while the metrics server runs.
void track_leader_election(Metrics& metrics, const std::string& lease_name, std::function<bool()> is_leader);

}  // namespace cfo::metrics
