#pragma once
// Numbers of parsed JSON that a Kubernetes integer field cannot hold.
#include <cmath>

#include "core/json.hpp"

namespace cfo::json {

/// True for a whole number outside int64: RapidJSON keeps one above INT64_MAX as a uint64 and one past uint64 as a
/// double. Kubernetes API integer fields are int64, and apimachinery's JSON decoding reads such a literal as a float64,
/// so a schema's `type: integer` refuses it. False for an int64, a number with a fraction, or anything else.
inline bool is_whole_beyond_int64(const Value& v) {
  if (!v.IsNumber() || v.IsInt64()) return false;
  if (v.IsUint64()) return true;
  const double d = v.GetDouble();
  return std::trunc(d) == d && std::abs(d) >= std::ldexp(1.0, 63);  // |d| >= 2^63
}

}  // namespace cfo::json
