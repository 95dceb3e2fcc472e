// The whole `validate` pipeline on one file's text: documents (YAML, Lists unwrapped) -> each judged against the
// upstream CRDs ($UPSTREAM_CRDS) and the rules, CodeFlareWorkloads through reconcile (cmd::judge_inputs).
#include "cmd/judge_inputs.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  auto inputs = cfo::cmd::documents_of_text("fuzz.yaml", cfo::fuzz::text_of(data, size));
  const auto& schemas = cfo::fuzz::upstream_schemas();
  auto judged = cfo::cmd::judge_inputs(inputs, std::vector<std::size_t>(inputs.size(), 0), schemas,
                                       cfo::cmd::checked_apis(schemas.kinds()), cfo::cmd::Expansion{}, "default",
                                       "2024-01-01T00:00:00Z");
  cfo::fuzz::check(judged.findings.size() == inputs.size(), "one entry of findings per input document");
  return 0;
}
