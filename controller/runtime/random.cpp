#include "runtime/random.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

namespace cfo::runtime {

UniformFn default_uniform() {
  auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
  return [engine] { return std::uniform_real_distribution<double>(0.0, 1.0)(*engine); };
}

UniformFn fixed_uniform(double value) {
  double v = std::clamp(value, 0.0, std::nextafter(1.0, 0.0));
  return [v] { return v; };
}

}  // namespace cfo::runtime
