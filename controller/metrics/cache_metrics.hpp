#pragma once
// codeflare_informer_cache_objects{resource} and codeflare_informer_cache_bytes{resource}: what each informer cache
// holds, read at every scrape (so that memory per cached object can be watched on a running operator).
#include <string>

#include "metrics/metrics.hpp"
#include "runtime/informer_group.hpp"

namespace cfo::metrics {

/// Registers the two gauges for `resource` (a plural resource name, e.g. "rayclusters") and refreshes them from
/// `group` (objects: InformerGroup::size(); bytes: InformerGroup::bytes(), the objects' JSON blocks) at every
/// scrape. `group` must outlive the metrics server. Calling it twice for one resource adds to the same series.
void track_informer_cache(Metrics& metrics, const std::string& resource, const runtime::InformerGroup& group);

}  // namespace cfo::metrics
