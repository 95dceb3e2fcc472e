#include "cmd/judge_inputs.hpp"

#include "cmd/closed_sets.hpp"
#include "cmd/offline_inputs.hpp"

namespace cfo::cmd {

Judged judge_inputs(std::vector<InputDocument>& inputs, const std::vector<std::size_t>& set_of,
                    const validation::SchemaSet& schemas, const CheckedApis& apis, const Expansion& expansion,
                    const std::string& default_namespace, const std::string& now, bool keep_generated) {
  Judged out;
  out.findings.resize(inputs.size());
  out.skipped.resize(inputs.size());
  out.unknown_kind.resize(inputs.size());
  if (keep_generated) out.generated.resize(inputs.size());
  std::vector<std::vector<SetMember>> sets;
  std::vector<std::vector<std::size_t>> set_index;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::size_t s = i < set_of.size() ? set_of[i] : 0;
    if (s >= sets.size()) {
      sets.resize(s + 1);
      set_index.resize(s + 1);
    }
    if (inputs[i].kustomize) {
      out.skipped[i] = "a kustomize file (for kubectl apply -k), not an object; not checked";
      ++out.skipped_count;
      continue;
    }
    if (!inputs[i].problems.empty()) {
      out.findings[i] = inputs[i].problems;
      continue;
    }
    auto& skipped = out.skipped[i];
    skipped = skip_reason(inputs[i].doc, apis);
    if (skipped) {
      ++out.skipped_count;
      if (is_namespace(inputs[i].doc)) {
        *skipped += "; its labels count for the namespaceSelectors of its closed set";
        sets[s].push_back({&inputs[i], false, true});
        set_index[s].push_back(i);
      }
      continue;
    }
    ++out.judged_count;
    if (auto unserved = unserved_workload(inputs[i].doc)) {
      out.findings[i] = {*unserved};
      out.unknown_kind[i] = true;
      continue;
    }
    const bool wl = is_workload(inputs[i].doc);
    if (!wl)
      out.unknown_kind[i] = !schemas.has(json::get_string(inputs[i].doc, "apiVersion").value_or(""),
                                         json::get_string(inputs[i].doc, "kind").value_or(""));
    if (wl) ensure_namespace(inputs[i].doc, default_namespace);
    sets[s].push_back({&inputs[i], wl, false});
    set_index[s].push_back(i);
  }
  for (std::size_t s = 0; s < sets.size(); ++s) {
    std::vector<GeneratedObjects> generated;
    auto judged = judge_closed_set(sets[s], schemas, expansion, now, keep_generated ? &generated : nullptr);
    for (std::size_t k = 0; k < judged.size(); ++k) {
      if (sets[s][k].context) continue;
      out.findings[set_index[s][k]] = std::move(judged[k]);
      if (keep_generated) out.generated[set_index[s][k]] = std::move(generated[k]);
    }
  }
  return out;
}

}  // namespace cfo::cmd
