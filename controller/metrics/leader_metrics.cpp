#include "metrics/leader_metrics.hpp"

#include <prometheus/gauge.h>

namespace cfo::metrics {

void track_leader_election(Metrics& metrics, const std::string& lease_name, std::function<bool()> is_leader) {
  auto& gauge = prometheus::BuildGauge()
                    .Name("leader_election_master_status")
                    .Help("1 while this process holds the named leader-election lease, 0 otherwise")
                    .Register(metrics.registry())
                    .Add({{"name", lease_name}});
  gauge.Set(is_leader() ? 1 : 0);
  metrics.on_scrape([&gauge, is_leader = std::move(is_leader)] { gauge.Set(is_leader() ? 1 : 0); });
}

}  // namespace cfo::metrics
