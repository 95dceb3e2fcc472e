#include "cmd/judge_inputs.hpp"

#include "cmd/offline_inputs.hpp"
#include "workload/reconcile.hpp"

namespace cfo::cmd {

Judged judge_inputs(std::vector<InputDocument>& inputs, const validation::SchemaSet& schemas,
                    const validation::ClusterProfile& profile, const std::string& default_namespace,
                    const std::string& now) {
  const auto apis = checked_apis(schemas);
  Judged out;
  out.findings.resize(inputs.size());
  out.skipped.resize(inputs.size());
  for (std::size_t begin = 0; begin < inputs.size();) {
    std::size_t end = begin;
    while (end < inputs.size() && inputs[end].file == inputs[begin].file) ++end;
    std::vector<const json::Value*> set;
    std::vector<std::size_t> set_index;
    for (std::size_t i = begin; i < end; ++i) {
      if (inputs[i].kustomize) {
        out.skipped[i] = "a kustomize file (for kubectl apply -k), not an object; not checked";
        ++out.skipped_count;
        continue;
      }
      if (!inputs[i].problems.empty()) {
        out.findings[i] = inputs[i].problems;
        continue;
      }
      if ((out.skipped[i] = skip_reason(inputs[i].doc, apis))) {
        ++out.skipped_count;
        continue;
      }
      ++out.judged_count;
      if (auto unserved = unserved_workload(inputs[i].doc)) {
        out.findings[i] = {*unserved};
      } else if (is_workload(inputs[i].doc)) {
        ensure_namespace(inputs[i].doc, default_namespace);
        workload::ClusterFacts facts;
        facts.profile = profile;
        out.findings[i] = workload::reconcile(inputs[i].doc, workload::Observed{}, facts, schemas, now).errors;
      } else {
        set.push_back(&inputs[i].doc);
        set_index.push_back(i);
      }
    }
    auto judged = validation::validate_set(schemas, set, profile);
    for (std::size_t k = 0; k < judged.size() && k < set_index.size(); ++k)
      out.findings[set_index[k]] = std::move(judged[k]);
    begin = end;
  }
  return out;
}

}  // namespace cfo::cmd
