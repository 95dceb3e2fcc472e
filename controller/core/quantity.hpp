#pragma once
// resource.Quantity, as k8s.io/apimachinery/pkg/api/resource defines it.
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace cfo {

/// A parsed Kubernetes quantity ("500m", "8Gi", "12G", "1e3", "2").
///
/// Grammar (apimachinery `resource.ParseQuantity`, and the CRD pattern
/// `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`):
/// sign, digits with an optional fraction, then a binary suffix (Ki..Ei), a decimal suffix (n u m k M G T P E)
/// or a decimal exponent. The value is held exactly in nano-units (10^-9), rounded up as apimachinery rounds
/// sub-nano precision; values beyond about ±1.7e29 are rejected.
class Quantity {
 public:
  /// Parses `text`. Errors: empty text, text outside the grammar above, or a value too large to hold.
  static Result<Quantity> parse(std::string_view text);

  /// The value in nano-units (1 == 10^-9 of the base unit).
  __int128 nanos() const { return nanos_; }
  /// The value in milli-units, rounded up (cpu "500m" -> 500, "1" -> 1000).
  int64_t milli_value() const;
  /// The value in whole units, rounded up (memory "1Gi" -> 1073741824 bytes, "1.5" -> 2).
  int64_t value() const;
  /// True when the value is a whole number of units ("2", "2000m"; not "1.5", not "500m").
  bool is_integer() const;
  /// The shortest canonical text of a value in nano-units, as it reads best to a person and parses back to the
  /// same value: "1500m", "2", "8Gi", "12G", "100n"; a suffix only for a round value whose mantissa is below 10000
  /// (below 10^6 for a value of ten digits or more), so 1073741824 bytes -> "1Gi", 1000000000 -> "1G", 1234567 ->
  /// "1234567", 102400000 -> "102400000", 999999 x 2^40 -> "999999Ti", 8536870912 -> "8536870912". Negative values
  /// keep their sign. `binary_suffixes` false: only the decimal suffixes (k, M, ..., E) are considered, as Kubernetes
  /// keeps a DecimalSI quantity decimal (the CPU of a Node's capacity: 1024 CPUs are "1024", never "1Ki").
  static std::string format_nanos(__int128 nanos, bool binary_suffixes = true);
  /// The text it was parsed from.
  const std::string& text() const { return text_; }

  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) { return a.nanos_ <=> b.nanos_; }
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.nanos_ == b.nanos_; }

 private:
  __int128 nanos_ = 0;
  std::string text_;
};

}  // namespace cfo
