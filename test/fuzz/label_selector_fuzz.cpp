// Label selector syntax (core/label_selector.hpp).
#include "core/label_selector.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  (void)cfo::names::label_selector(cfo::fuzz::text_of(data, size));
  return 0;
}
