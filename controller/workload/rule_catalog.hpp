#pragma once
// Every rule id the CodeFlareWorkload's own checks report (controller/workload/*.cpp), with its severity and the
// upstream source it follows. `validate --list-rules` prints it after validation::rule_catalog(). The CRD schema's
// own rules ("schema:...") are not listed.
#include <span>
#include <string_view>

namespace cfo::workload {

/// One rule id of the workload's checks.
struct WorkloadRuleInfo {
  std::string_view id;        ///< the `rule` of its findings
  std::string_view severity;  ///< "error", "warning", or "error,warning" when it reports both
  /// The upstream project and function it follows ("; " between several); "codeflare-operator: ..." for the
  /// operator's own rules, which no upstream project has.
  std::string_view source;
};

/// Every rule id the workload's checks report, sorted by id. They apply under every cluster profile.
std::span<const WorkloadRuleInfo> workload_rule_catalog();

/// The catalog entry of `id`, or nullptr (also for "schema:..." ids and the rules of validation::rule_catalog()).
const WorkloadRuleInfo* find_workload_rule(std::string_view id);

}  // namespace cfo::workload
