#include "metrics/cache_metrics.hpp"

#include <prometheus/gauge.h>

namespace cfo::metrics {

void track_informer_cache(Metrics& metrics, const std::string& resource, const runtime::InformerGroup& group) {
  auto& objects = prometheus::BuildGauge()
                      .Name("codeflare_informer_cache_objects")
                      .Help("Objects held by the informer cache of a resource")
                      .Register(metrics.registry())
                      .Add({{"resource", resource}});
  auto& bytes = prometheus::BuildGauge()
                    .Name("codeflare_informer_cache_bytes")
                    .Help("Bytes of JSON held by the informer cache of a resource (the cached objects' own blocks)")
                    .Register(metrics.registry())
                    .Add({{"resource", resource}});
  metrics.on_scrape([&objects, &bytes, &group] {
    objects.Set(static_cast<double>(group.size()));
    bytes.Set(static_cast<double>(group.bytes()));
  });
}

}  // namespace cfo::metrics
