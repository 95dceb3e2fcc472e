// YAML -> JSON (core/yaml.hpp), and back: whatever converts must convert again from its own YAML rendering to the
// same JSON (from_json quotes what would read back as another type).
#include "core/json.hpp"
#include "core/yaml.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  auto docs = cfo::yaml::to_json(cfo::fuzz::text_of(data, size));
  if (!docs) return 0;
  for (const auto& doc : *docs) {
    const std::string yaml = cfo::yaml::from_json(doc);
    auto again = cfo::yaml::to_json(yaml);
    cfo::fuzz::check(again.has_value(), "from_json output does not parse");
    cfo::fuzz::check(again->size() == 1 && (*again)[0] == doc, "YAML round trip changed the value");
  }
  return 0;
}
