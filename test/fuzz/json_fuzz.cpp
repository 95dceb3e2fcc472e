// JSON parsing (core/json.hpp): anything parses or fails cleanly; what parses serialises and parses back equal.
#include "core/json.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  auto doc = cfo::json::parse(cfo::fuzz::text_of(data, size));
  if (!doc) return 0;
  const std::string text = cfo::json::dump(*doc);
  auto again = cfo::json::parse(text);
  cfo::fuzz::check(again.has_value(), "dump output does not parse");
  cfo::fuzz::check(cfo::json::dump(*again) == text, "JSON round trip changed the text");
  cfo::json::dump_pretty(*doc);
  (void)cfo::json::type_name(*doc);
  return 0;
}
