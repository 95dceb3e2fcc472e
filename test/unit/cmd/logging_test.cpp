// The log line formats (text and JSON), the object-key helpers and the --log-format/--log-level parsers.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <regex>
#include <sstream>
#include <thread>

#include "cmd/logging.hpp"
#include "core/json.hpp"
#include "core/log_scope.hpp"

using namespace cfo;
using namespace cfo::cmd;

namespace {

/// 2023-11-14T22:13:20.123Z
std::chrono::system_clock::time_point fixed_time() {
  return std::chrono::system_clock::from_time_t(1700000000) + std::chrono::milliseconds(123);
}

json::Document parse_line(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one record, one line: " << line;
  auto doc = json::parse(line);
  EXPECT_TRUE(doc.has_value()) << (doc ? "" : doc.error().message) << " in " << line;
  EXPECT_TRUE(doc && doc->IsObject());
  return doc ? std::move(*doc) : json::Document{};
}

/// Points the default spdlog logger at a string stream with one of our formatters for the life of the object.
class CapturedLog {
 public:
  explicit CapturedLog(LogFormat format, spdlog::level::level_enum level = spdlog::level::trace) {
    previous_ = spdlog::default_logger();
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    auto logger = std::make_shared<spdlog::logger>("codeflare-operator", sink);
    logger->set_formatter(make_log_formatter(format));
    logger->set_level(level);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::istringstream in(out_.str());
    for (std::string l; std::getline(in, l);) out.push_back(l + "\n");
    return out;
  }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
};

}  // namespace

TEST(JsonLogLine, CarriesTheFieldsAndEscapesTheMessage) {
  const std::string message = "apply failed: \"quoted\" back\\slash\nsecond line\ttab \x01\x1b[31m red caf\xc3\xa9";
  LogRecord r;
  r.time = fixed_time();
  r.level = spdlog::level::warn;
  r.logger = "codeflare-operator";
  r.message = message;
  r.fields.key = "team-a/demo";
  r.fields.controller = "codeflareworkload";
  const std::string line = format_json_line(r);
  for (char c : line.substr(0, line.size() - 1)) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << line;

  auto doc = parse_line(line);
  EXPECT_EQ(json::get_string(doc, "ts"), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(json::get_string(doc, "level"), "warn");
  EXPECT_EQ(json::get_string(doc, "logger"), "codeflare-operator");
  EXPECT_EQ(json::get_string(doc, "msg"), message);
  EXPECT_EQ(json::get_string(doc, "controller"), "codeflareworkload");
  EXPECT_EQ(json::get_string(doc, "key"), "team-a/demo");
  EXPECT_EQ(json::get_string(doc, "namespace"), "team-a");
  EXPECT_EQ(json::get_string(doc, "name"), "demo");
  EXPECT_EQ(line.rfind("{\"ts\":", 0), 0u) << "ts comes first: " << line;
}

TEST(JsonLogLine, InvalidUtf8BecomesReplacementCharacters) {
  const std::string bad =
      "a\xff"
      "b\xc0\xaf"
      "c\xed\xa0\x80"
      "d\xe2\x82"
      "e\xf4\x90\x80\x80"
      "f";
  LogRecord r;
  r.time = fixed_time();
  r.message = bad;
  r.fields.key = "ns/\xfe";
  auto doc = parse_line(format_json_line(r));
  const std::string fffd = "\xEF\xBF\xBD";
  // Each byte that starts no valid sequence is replaced on its own.
  EXPECT_EQ(json::get_string(doc, "msg"), "a" + fffd + "b" + fffd + fffd + "c" + fffd + fffd + fffd + "d" + fffd +
                                              fffd + "e" + fffd + fffd + fffd + fffd + "f");
  EXPECT_EQ(json::get_string(doc, "name"), fffd);
}

TEST(JsonLogLine, OnlyTheFieldsThatAreSet) {
  LogRecord r;
  r.time = fixed_time();
  r.level = spdlog::level::err;
  r.logger = "codeflare-operator";
  r.message = "caches did not sync";
  auto plain = parse_line(format_json_line(r));
  EXPECT_EQ(json::get_string(plain, "level"), "error");
  EXPECT_FALSE(json::find(plain, "key"));
  EXPECT_FALSE(json::find(plain, "controller"));
  EXPECT_FALSE(json::find(plain, "namespace"));

  r.fields.key = "cluster-scoped-thing";
  auto cluster = parse_line(format_json_line(r));
  EXPECT_EQ(json::get_string(cluster, "key"), "cluster-scoped-thing");
  EXPECT_EQ(json::get_string(cluster, "name"), "cluster-scoped-thing");
  EXPECT_FALSE(json::find(cluster, "namespace"));
}

TEST(TextLogLine, KeyPrefixAndEscapedControlCharacters) {
  LogRecord r;
  r.time = fixed_time();
  r.level = spdlog::level::warn;
  r.message = "apply failed: first\nsecond\r\x07 \"kept\" caf\xc3\xa9";
  r.fields.key = "team-a/demo";
  const std::string line = format_text_line(r);
  EXPECT_TRUE(std::regex_match(line, std::regex(R"(\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.123\] \[warning\] .*\n)")))
      << line;
  EXPECT_NE(line.find("] [warning] team-a/demo: apply failed: first\\nsecond\\r\\x07 \"kept\" caf\xc3\xa9\n"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find('\n'), line.size() - 1);

  r.fields = {};
  r.level = spdlog::level::info;
  r.message = "controller started";
  EXPECT_NE(format_text_line(r).find("] [info] controller started\n"), std::string::npos);
}

TEST(ObjectLog, TheKeyBecomesAFieldInJsonAndAPrefixInText) {
  {
    CapturedLog log(LogFormat::Json);
    object_log::warn("team-a/demo", "apply failed: {}", "the \"RayCluster\" is invalid");
    spdlog::info("not about an object");
    auto lines = log.lines();
    ASSERT_EQ(lines.size(), 2u);
    auto first = parse_line(lines[0]);
    EXPECT_EQ(json::get_string(first, "key"), "team-a/demo");
    EXPECT_EQ(json::get_string(first, "msg"), "apply failed: the \"RayCluster\" is invalid");
    EXPECT_EQ(json::get_string(first, "level"), "warn");
    EXPECT_EQ(json::get_string(first, "logger"), "codeflare-operator");
    auto second = parse_line(lines[1]);
    EXPECT_FALSE(json::find(second, "key")) << "the scope ended with the call";
  }
  {
    CapturedLog log(LogFormat::Text);
    object_log::error("team-a/demo", "reconcile failed");
    auto lines = log.lines();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(lines[0].find("] [error] team-a/demo: reconcile failed\n"), std::string::npos) << lines[0];
  }
}

TEST(ObjectLog, LinesBelowTheLevelAreDropped) {
  CapturedLog log(LogFormat::Json, spdlog::level::info);
  object_log::debug("team-a/demo", "applied {}", "RayCluster");
  object_log::info("team-a/demo", "created");
  ASSERT_EQ(log.lines().size(), 1u);
}

TEST(LogScope, NestsRestoresAndStaysOnItsThread) {
  CapturedLog log(LogFormat::Json);
  {
    LogScope outer("team-a/demo", "codeflareworkload");
    spdlog::info("outer");
    {
      LogScope inner("team-a/child");
      spdlog::info("inner");
    }
    std::thread other([] { spdlog::info("other thread"); });
    other.join();
    spdlog::info("outer again");
  }
  spdlog::info("none");
  auto lines = log.lines();
  ASSERT_EQ(lines.size(), 5u);
  auto l0 = parse_line(lines[0]), l1 = parse_line(lines[1]), l2 = parse_line(lines[2]), l3 = parse_line(lines[3]),
       l4 = parse_line(lines[4]);
  EXPECT_EQ(json::get_string(l0, "key"), "team-a/demo");
  EXPECT_EQ(json::get_string(l0, "controller"), "codeflareworkload");
  EXPECT_EQ(json::get_string(l1, "key"), "team-a/child");
  EXPECT_EQ(json::get_string(l1, "controller"), "codeflareworkload");  // inherited
  EXPECT_EQ(json::get_string(l2, "msg"), "other thread");
  EXPECT_FALSE(json::find(l2, "key"));
  EXPECT_EQ(json::get_string(l3, "key"), "team-a/demo");
  EXPECT_FALSE(json::find(l4, "key"));
  EXPECT_FALSE(json::find(l4, "controller"));
}

TEST(LogFlags, FormatAndLevelNames) {
  EXPECT_EQ(parse_log_format("text"), LogFormat::Text);
  EXPECT_EQ(parse_log_format("json"), LogFormat::Json);
  for (const char* bad : {"JSON", "xml", "", "json "}) {
    auto r = parse_log_format(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_NE(r.error().message.find("--log-format"), std::string::npos);
  }
  EXPECT_EQ(parse_log_level("debug"), spdlog::level::debug);
  EXPECT_EQ(parse_log_level("warn"), spdlog::level::warn);
  EXPECT_EQ(parse_log_level("warning"), spdlog::level::warn);
  EXPECT_EQ(parse_log_level("error"), spdlog::level::err);
  EXPECT_EQ(parse_log_level("off"), spdlog::level::off);
  auto bad = parse_log_level("verbose");  // spdlog::level::from_str would silently turn logging off
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("--log-level"), std::string::npos);
}
