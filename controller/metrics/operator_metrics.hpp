#pragma once
// The operator's own counters: codeflare_validation_rejections_total, codeflare_objects_applied_total and
// codeflare_dryrun_disagreements_total.
#include <string>

#include <prometheus/counter.h>
#include <prometheus/family.h>

#include "metrics/metrics.hpp"

namespace cfo::metrics {

/// Counters of what the CodeFlareWorkload controller decided and wrote. The series of the child kinds
/// (RayCluster, AppWrapper, RayJob, LocalQueue) exist from the start at 0. Thread-safe.
class OperatorMetrics {
 public:
  explicit OperatorMetrics(Metrics& metrics);

  /// One finding of `rule` (a FieldError rule id, e.g. "RequestsWithinLimits") made a workload invalid:
  /// codeflare_validation_rejections_total{rule}.
  void validation_rejected(const std::string& rule);
  /// A child of `kind` was written by server-side apply: codeflare_objects_applied_total{kind}.
  void object_applied(const std::string& kind);
  /// The apiserver's dry run rejected a `kind` object that our validation had accepted:
  /// codeflare_dryrun_disagreements_total{kind}.
  void dry_run_disagreement(const std::string& kind);

 private:
  prometheus::Family<prometheus::Counter>& rejections_;
  prometheus::Family<prometheus::Counter>& applied_;
  prometheus::Family<prometheus::Counter>& disagreements_;
};

}  // namespace cfo::metrics
