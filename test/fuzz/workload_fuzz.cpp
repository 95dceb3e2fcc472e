// CodeFlareWorkload parsing and reconcile (workload/): each YAML document of the input is parsed as a workload and
// reconciled (no children observed, no Kueue), its desired children validated against the upstream CRDs.
#include "core/yaml.hpp"
#include "fuzz_support.hpp"
#include "workload/parse_workload.hpp"
#include "workload/reconcile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  auto docs = cfo::yaml::to_json(cfo::fuzz::text_of(data, size));
  if (!docs) return 0;
  for (const auto& doc : *docs) {
    (void)cfo::workload::parse_workload(doc);
    cfo::workload::ClusterFacts facts;
    facts.kueue_version = "v1beta2";
    auto out = cfo::workload::reconcile(doc, cfo::workload::Observed{}, facts, cfo::fuzz::upstream_schemas(),
                                        "2024-01-01T00:00:00Z");
    cfo::fuzz::check(out.desired.empty() || (out.valid && !out.held),
                     "an invalid or held workload has no desired children");
  }
  return 0;
}
