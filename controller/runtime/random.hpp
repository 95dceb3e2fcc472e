#pragma once
// Injectable randomness for jitter and watch timeouts, so that tests can fix it.
#include <functional>

namespace cfo::runtime {

/// Returns a uniformly distributed double in [0, 1). One instance is used by one owner at a time.
using UniformFn = std::function<double()>;

/// A UniformFn backed by its own std::mt19937_64 seeded from std::random_device. Not thread-safe; give each
/// component its own.
UniformFn default_uniform();

/// A UniformFn that always returns `value` (clamped to [0, 1)), for tests and deterministic runs.
UniformFn fixed_uniform(double value);

}  // namespace cfo::runtime
