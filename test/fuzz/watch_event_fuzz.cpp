// Decoding of one watch-stream line (core/watch_event.hpp): every apiserver watch event goes through it.
#include "core/watch_event.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  auto ev = cfo::decode_watch_event(cfo::fuzz::text_of(data, size));
  if (ev) (void)cfo::json::dump(ev->object);
  return 0;
}
