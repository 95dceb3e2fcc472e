#pragma once
// Internal to cfo_validation. The `format`s used by the pinned upstream CRDs, checked as a real cluster judges them:
//   date-time  kube-apiserver rejects a string that is not an RFC 3339 date and time (kube-openapi's strfmt rule:
//              a valid calendar date "YYYY-MM-DD", "T" (any case), "hh:mm:ss", an optional fraction, and "Z" or a
//              "+hh:mm" / "-hh:mm" offset); what it accepts must also decode with Go's time.Parse(RFC3339), as every
//              date-time field is a metav1.Time in the controllers' types (upper-case T and Z, "." before a
//              fraction), or the controller cannot read the object;
//   int32      kube-apiserver stores any integer, but the controller that reads the object decodes the field into
//   int64      a Go int32 / int64 and cannot decode one outside that range, so the object is never reconciled.
// Other formats are not checked (the apiserver ignores formats it does not know as well).
#include <optional>
#include <string>

#include "core/json.hpp"

namespace cfo::validation::structural {

/// Checks `value` against the `format` of its schema node. Returns a one-line reason when it violates it, nullopt
/// when it conforms or the format is not one of the above (or the value is not a string/number, which the type
/// check reports).
std::optional<std::string> format_violation(const json::Value& schema, const json::Value& value);

/// True when `text` is a date-time as kube-apiserver's strfmt check accepts it (see above).
bool is_date_time(std::string_view text);

/// True when Go's time.Parse(time.RFC3339, text) accepts `text` (what metav1.Time decoding needs).
bool is_go_rfc3339(std::string_view text);

}  // namespace cfo::validation::structural
