#pragma once
// What the harnesses of test/fuzz share. Each harness is one LLVMFuzzerTestOneInput, built twice: with libFuzzer
// (make fuzz: test/harness/fuzz.sh) and with replay_main.cpp (ctest replays corpus/ and regressions/ under
// ASan + UBSan in the sanitizer build).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "validation/schema_set.hpp"

namespace cfo::fuzz {

/// The input as text (any bytes).
inline std::string_view text_of(const uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// The upstream CRDs of $UPSTREAM_CRDS/upstream (laid out like shared/crds), loaded once; an empty set, with one note
/// on stderr, when the variable is unset or the folder does not load.
const validation::SchemaSet& upstream_schemas();

/// Aborts (a finding for the fuzzer) with `what` on stderr when `ok` is false: for the harnesses' own invariants.
void check(bool ok, const char* what);

}  // namespace cfo::fuzz
