#pragma once
// Error values that cross layer boundaries. Layers return Result<T> instead of throwing through each other;
// exceptions are kept for programming errors.
#include <cstddef>
#include <expected>
#include <string>
#include <utility>

namespace cfo {

/// An error with a human-readable message. `http_status` is the HTTP status code when the error came from the
/// apiserver (e.g. 404, 409, 410, 422), and 0 otherwise. `reason` carries the apiserver's Status.reason
/// ("NotFound", "Conflict", "Expired", ...) when there is one. `line` and `column` (1-based, in characters) are where
/// in a parsed text the error is, when a parser found it (yaml::to_json); 0 otherwise. The message names the same
/// place.
struct Error {
  std::string message;
  int http_status = 0;
  std::string reason;
  std::size_t line = 0;
  std::size_t column = 0;

  bool is_not_found() const { return http_status == 404; }
  bool is_conflict() const { return http_status == 409; }
  bool is_gone() const { return http_status == 410; }
};

/// The value or the error of an operation.
template <class T>
using Result = std::expected<T, Error>;

/// Builds the unexpected side of a Result from a message (and optional HTTP status).
inline std::unexpected<Error> fail(std::string message, int http_status = 0, std::string reason = {}) {
  return std::unexpected<Error>(Error{std::move(message), http_status, std::move(reason)});
}

}  // namespace cfo
