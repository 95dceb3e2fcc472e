#include "metrics/operator_metrics.hpp"

namespace cfo::metrics {

OperatorMetrics::OperatorMetrics(Metrics& metrics)
    : rejections_(prometheus::BuildCounter()
                      .Name("codeflare_validation_rejections_total")
                      .Help("Findings that made a CodeFlareWorkload invalid, by rule id (each workload generation "
                            "counted once)")
                      .Register(metrics.registry())),
      applied_(prometheus::BuildCounter()
                   .Name("codeflare_objects_applied_total")
                   .Help("Child objects written by server-side apply, by kind")
                   .Register(metrics.registry())),
      disagreements_(prometheus::BuildCounter()
                         .Name("codeflare_dryrun_disagreements_total")
                         .Help("Objects our validation accepted and the apiserver's dry run rejected, by kind")
                         .Register(metrics.registry())) {
  for (const char* kind : {"RayCluster", "AppWrapper", "RayJob", "LocalQueue"}) {
    applied_.Add({{"kind", kind}});
    disagreements_.Add({{"kind", kind}});
  }
}

void OperatorMetrics::validation_rejected(const std::string& rule) { rejections_.Add({{"rule", rule}}).Increment(); }

void OperatorMetrics::object_applied(const std::string& kind) { applied_.Add({{"kind", kind}}).Increment(); }

void OperatorMetrics::dry_run_disagreement(const std::string& kind) {
  disagreements_.Add({{"kind", kind}}).Increment();
}

}  // namespace cfo::metrics
