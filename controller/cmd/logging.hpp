#pragma once
// The operator's log output: spdlog on stderr, as text (default) or one JSON object per line (--log-format=json),
// with the object key of LogScope / object_log as a field of its own.
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "core/log_scope.hpp"

namespace cfo::cmd {

/// How log lines are written.
enum class LogFormat {
  Text,  ///< "[2026-09-01 12:00:00.123] [info] ns/name: message" (local time, as spdlog's default pattern)
  Json,  ///< {"ts":"2026-09-01T10:00:00.123Z","level":"info","logger":"codeflare-operator","msg":"...",...}
};

/// --log-format and --log-level.
struct LogSettings {
  LogFormat format = LogFormat::Text;
  spdlog::level::level_enum level = spdlog::level::info;
};

/// "text" or "json". Error names the accepted values.
Result<LogFormat> parse_log_format(std::string_view value);

/// "trace", "debug", "info", "warn" (or "warning"), "error" (or "err"), "critical", "off". Error names the accepted
/// values (spdlog's own from_str turns an unknown name into "off", silencing the operator).
Result<spdlog::level::level_enum> parse_log_level(std::string_view value);

/// One log record as the formatters see it.
struct LogRecord {
  std::chrono::system_clock::time_point time;
  spdlog::level::level_enum level = spdlog::level::info;
  std::string_view logger;   ///< the spdlog logger's name
  std::string_view message;  ///< the formatted message, without the object key
  LogFields fields;          ///< object key and controller, when the line is about an object
};

/// The text form of `r`, ending in '\n': "[<local time, ms>] [<level>] <key>: <message>" (no key: no prefix).
/// Control characters in the key and message are escaped (\n, \r, \t, \xNN), so that one record stays one line and
/// a message cannot forge another record.
std::string format_text_line(const LogRecord& r);

/// The JSON form of `r`, ending in '\n': one object with "ts" (RFC 3339, UTC, milliseconds), "level" ("trace",
/// "debug", "info", "warn", "error", "critical"), "logger", "msg", then "controller", "key", and "namespace"/"name"
/// (split from the key) when set. Strings are escaped by RapidJSON's Writer (quotes, backslashes, control
/// characters as \uXXXX); bytes that are not valid UTF-8 become U+FFFD, so every line is valid JSON.
std::string format_json_line(const LogRecord& r);

/// An spdlog formatter writing format_text_line or format_json_line for every message, reading the calling
/// thread's LogScope fields.
std::unique_ptr<spdlog::formatter> make_log_formatter(LogFormat format);

/// Makes the default spdlog logger a synchronous, thread-safe stderr logger named "codeflare-operator" with the
/// formatter of `settings.format` and level `settings.level`. Call once, early, before other threads log.
void configure_logging(const LogSettings& settings);

/// Log lines about one object: `key` ("namespace/name") becomes the JSON "key" field, or the "key: " prefix of a
/// text line. Example: object_log::warn(key, "apply failed: {}", error).
namespace object_log {

template <class... Args>
void log(spdlog::level::level_enum level, std::string_view key, spdlog::format_string_t<Args...> fmt, Args&&... args) {
  if (!spdlog::should_log(level)) return;
  LogScope scope(key);
  spdlog::log(level, fmt, std::forward<Args>(args)...);
}
template <class... Args>
void debug(std::string_view key, spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log(spdlog::level::debug, key, fmt, std::forward<Args>(args)...);
}
template <class... Args>
void info(std::string_view key, spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log(spdlog::level::info, key, fmt, std::forward<Args>(args)...);
}
template <class... Args>
void warn(std::string_view key, spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log(spdlog::level::warn, key, fmt, std::forward<Args>(args)...);
}
template <class... Args>
void error(std::string_view key, spdlog::format_string_t<Args...> fmt, Args&&... args) {
  log(spdlog::level::err, key, fmt, std::forward<Args>(args)...);
}

}  // namespace object_log

}  // namespace cfo::cmd
