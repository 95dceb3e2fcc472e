#pragma once
// Structured fields of log lines: which object (and which controller) the lines a thread logs are about. The log
// formatters (cmd/logging) read them, so the object key becomes a field of its own in JSON lines and a prefix in
// text lines. Kept free of any logging library so that every layer can set them.
#include <string>
#include <string_view>

namespace cfo {

/// The fields in effect on the calling thread. Empty views when no scope is open. The views stay valid while the
/// innermost LogScope that set them lives.
struct LogFields {
  std::string_view key;         ///< the object the line is about: "namespace/name", or "name" when cluster-scoped
  std::string_view controller;  ///< the controller that logs it, e.g. "codeflareworkload"
};

/// The fields of the calling thread.
LogFields current_log_fields();

/// Attaches an object key, and optionally a controller name, to every line the calling thread logs while the scope
/// lives (e.g. around one reconcile). Scopes nest: an inner scope without a controller keeps the outer one's, and the
/// outer fields come back when the inner scope ends. Only lines formatted on the logging thread see the fields:
/// fine for spdlog's synchronous loggers (the default), not for asynchronous ones.
class LogScope {
 public:
  explicit LogScope(std::string_view key, std::string_view controller = {});
  ~LogScope();
  LogScope(const LogScope&) = delete;
  LogScope& operator=(const LogScope&) = delete;

 private:
  LogFields saved_;
  std::string key_;
  std::string controller_;
};

}  // namespace cfo
