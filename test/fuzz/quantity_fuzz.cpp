// resource.Quantity parsing (core/quantity.hpp) and its conversions (UBSan catches any overflow).
#include "core/quantity.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  auto q = cfo::Quantity::parse(cfo::fuzz::text_of(data, size));
  if (!q) return 0;
  (void)q->milli_value();
  (void)q->value();
  (void)q->is_integer();
  auto again = cfo::Quantity::parse(q->text());
  cfo::fuzz::check(again.has_value() && *again == *q, "a quantity does not parse back equal");
  return 0;
}
