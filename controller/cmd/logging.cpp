#include "cmd/logging.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <cstdio>
#include <ctime>

namespace cfo::cmd {

namespace {

/// `text` with every byte sequence that is not valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// above U+10FFFF) replaced by U+FFFD.
std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    std::size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b0 < 0x80) {
      out.push_back(static_cast<char>(b0));
      ++i;
      continue;
    } else if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;  // overlong
      if (b0 == 0xED) hi = 0x9F;  // surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;  // overlong
      if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
    }
    bool ok = len > 0 && i + len <= text.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    }
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return out;
}

/// Appends `text` with control characters escaped (\n, \r, \t, \xNN; DEL too).
void append_escaped_text(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7F) {
      out += "\\x";
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xF]);
    } else {
      out.push_back(c);
    }
  }
}

std::string_view text_level_name(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return "trace";
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warning";
    case spdlog::level::err:
      return "error";
    case spdlog::level::critical:
      return "critical";
    default:
      return "off";
  }
}

/// Level names of JSON lines: zap's (controller-runtime's logger) where it has them.
std::string_view json_level_name(spdlog::level::level_enum level) {
  return level == spdlog::level::warn ? std::string_view("warn") : text_level_name(level);
}

/// Splits a std::chrono::system_clock time into seconds since the epoch and milliseconds.
std::pair<std::time_t, int> split_time(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  int rest = static_cast<int>(ms % 1000);
  if (rest < 0) {
    rest += 1000;
    --secs;
  }
  return {secs, rest};
}

class LineFormatter final : public spdlog::formatter {
 public:
  explicit LineFormatter(LogFormat format) : format_(format) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    LogRecord r;
    r.time = msg.time;
    r.level = msg.level;
    r.logger = std::string_view(msg.logger_name.data(), msg.logger_name.size());
    r.message = std::string_view(msg.payload.data(), msg.payload.size());
    r.fields = current_log_fields();
    const std::string line = format_ == LogFormat::Json ? format_json_line(r) : format_text_line(r);
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<LineFormatter>(format_); }

 private:
  LogFormat format_;
};

}  // namespace

Result<LogFormat> parse_log_format(std::string_view value) {
  if (value == "text") return LogFormat::Text;
  if (value == "json") return LogFormat::Json;
  return fail("flag --log-format must be text or json, got \"" + std::string(value) + "\"");
}

Result<spdlog::level::level_enum> parse_log_level(std::string_view value) {
  using spdlog::level::level_enum;
  if (value == "trace") return level_enum::trace;
  if (value == "debug") return level_enum::debug;
  if (value == "info") return level_enum::info;
  if (value == "warn" || value == "warning") return level_enum::warn;
  if (value == "error" || value == "err") return level_enum::err;
  if (value == "critical") return level_enum::critical;
  if (value == "off") return level_enum::off;
  return fail("flag --log-level must be trace, debug, info, warn, error, critical or off, got \"" + std::string(value) +
              "\"");
}

std::string format_text_line(const LogRecord& r) {
  auto [secs, ms] = split_time(r.time);
  std::tm local{};
  localtime_r(&secs, &local);
  char stamp[96];  // as in format_json_line
  std::snprintf(stamp, sizeof stamp, "[%04d-%02d-%02d %02d:%02d:%02d.%03d] [", local.tm_year + 1900, local.tm_mon + 1,
                local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec, ms);
  std::string out = stamp;
  out += text_level_name(r.level);
  out += "] ";
  if (!r.fields.key.empty()) {
    append_escaped_text(out, r.fields.key);
    out += ": ";
  }
  append_escaped_text(out, r.message);
  out += '\n';
  return out;
}

std::string format_json_line(const LogRecord& r) {
  auto [secs, ms] = split_time(r.time);
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char stamp[96];  // room for any int in each field: g++'s -Wformat-truncation (an error under -Werror) counts so
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, ms);

  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto field = [&w](std::string_view name, std::string_view value) {
    w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
    const std::string clean = valid_utf8(value);
    w.String(clean.data(), static_cast<rapidjson::SizeType>(clean.size()));
  };
  w.StartObject();
  field("ts", stamp);
  field("level", json_level_name(r.level));
  field("logger", r.logger);
  field("msg", r.message);
  if (!r.fields.controller.empty()) field("controller", r.fields.controller);
  if (!r.fields.key.empty()) {
    field("key", r.fields.key);
    const auto slash = r.fields.key.find('/');
    if (slash != std::string_view::npos) {
      field("namespace", r.fields.key.substr(0, slash));
      field("name", r.fields.key.substr(slash + 1));
    } else {
      field("name", r.fields.key);
    }
  }
  w.EndObject();
  std::string out(buf.GetString(), buf.GetSize());
  out += '\n';
  return out;
}

std::unique_ptr<spdlog::formatter> make_log_formatter(LogFormat format) {
  return std::make_unique<LineFormatter>(format);
}

void configure_logging(const LogSettings& settings) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("codeflare-operator", std::move(sink));
  logger->set_formatter(make_log_formatter(settings.format));
  logger->set_level(settings.level);
  // Errors are written at once: the process may end (signal, deadline) right after logging one.
  logger->flush_on(spdlog::level::err);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace cfo::cmd
