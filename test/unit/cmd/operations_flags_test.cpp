// --kube-api-qps, --kube-api-burst, --kube-api-request-timeout, --kube-api-connect-timeout, --log-format, --log-level
// and --graceful-shutdown-timeout, parsed through the real flag table of `run`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cmd/operations_flags.hpp"
#include "cmd/run_options.hpp"

using namespace cfo;
using namespace cfo::cmd;
using namespace std::chrono_literals;

namespace {

Result<OperationsFlags> parse(std::vector<std::string> flags) {
  std::vector<char*> argv{const_cast<char*>("codeflare-operator"), const_cast<char*>("run")};
  for (auto& f : flags) argv.push_back(f.data());
  auto args = Args::parse(static_cast<int>(argv.size()), argv.data(), 2, run_flags(), run_flag_aliases());
  if (!args) return std::unexpected(args.error());
  return parse_operations_flags(*args);
}

}  // namespace

TEST(OperationsFlags, DefaultsAreControllerRuntimes) {
  auto f = parse({});
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->client.qps, 0);  // no client-side limit
  EXPECT_EQ(f->client.burst, 10);
  EXPECT_EQ(f->client.timeouts.request_timeout_ms, 60s);
  EXPECT_EQ(f->client.timeouts.connect_timeout_ms, 10s);
  EXPECT_EQ(f->client.retry.max_retries, 10);
  EXPECT_EQ(f->client.token_file_max_age_ms, 60s);
  EXPECT_EQ(f->client.ca_file_max_age_ms, 5min);
  EXPECT_EQ(f->log.format, LogFormat::Text);
  EXPECT_EQ(f->log.level, spdlog::level::info);
  EXPECT_EQ(f->graceful_shutdown_timeout, 30s);
}

TEST(OperationsFlags, EverythingCanBeSet) {
  auto f = parse({"--kube-api-qps=2.5", "--kube-api-burst", "20", "--log-format=json", "--log-level=debug",
                  "--graceful-shutdown-timeout=1m30s", "--kube-api-request-timeout=2m", "--kube-api-connect-timeout",
                  "2500ms"});
  ASSERT_TRUE(f.has_value()) << f.error().message;
  EXPECT_EQ(f->client.qps, 2.5);
  EXPECT_EQ(f->client.burst, 20);
  EXPECT_EQ(f->client.timeouts.request_timeout_ms, 120s);
  EXPECT_EQ(f->client.timeouts.connect_timeout_ms, 2500ms);
  EXPECT_EQ(f->log.format, LogFormat::Json);
  EXPECT_EQ(f->log.level, spdlog::level::debug);
  EXPECT_EQ(f->graceful_shutdown_timeout, 90s);

  auto off = parse({"--kube-api-qps=-1", "--graceful-shutdown-timeout=-1s"});  // controller-runtime's "off"
  ASSERT_TRUE(off.has_value()) << off.error().message;
  EXPECT_LT(off->client.qps, 0);
  EXPECT_LT(off->graceful_shutdown_timeout.count(), 0);
}

TEST(OperationsFlags, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--kube-api-qps=fast", "--kube-api-qps"},
      {"--kube-api-qps=", "--kube-api-qps"},
      {"--kube-api-qps=inf", "--kube-api-qps"},
      {"--kube-api-qps=nan", "--kube-api-qps"},
      {"--kube-api-qps=1e999", "--kube-api-qps"},
      {"--kube-api-qps=5qps", "--kube-api-qps"},
      {"--kube-api-burst=0", "--kube-api-burst"},
      {"--kube-api-burst=-3", "--kube-api-burst"},
      {"--kube-api-burst=1000001", "--kube-api-burst"},
      {"--kube-api-burst=ten", "--kube-api-burst"},
      {"--kube-api-burst=99999999999999999999", "--kube-api-burst"},
      {"--kube-api-request-timeout=0", "--kube-api-request-timeout"},
      {"--kube-api-request-timeout=-5s", "--kube-api-request-timeout"},
      {"--kube-api-request-timeout=2h", "--kube-api-request-timeout"},
      {"--kube-api-request-timeout=60", "--kube-api-request-timeout"},
      {"--kube-api-connect-timeout=0s", "--kube-api-connect-timeout"},
      {"--kube-api-connect-timeout=soon", "--kube-api-connect-timeout"},
      {"--log-format=yaml", "--log-format"},
      {"--log-level=loud", "--log-level"},
      {"--graceful-shutdown-timeout=30", "--graceful-shutdown-timeout"},
      {"--graceful-shutdown-timeout=soon", "--graceful-shutdown-timeout"},
  };
  for (const auto& [flag, name] : cases) {
    auto f = parse({flag});
    ASSERT_FALSE(f.has_value()) << flag;
    EXPECT_NE(f.error().message.find("flag " + name), std::string::npos) << flag << ": " << f.error().message;
  }
}

// A bare file name given to a command that reads files says how to give it (-f); other commands just refuse it.
TEST(Args, ABareFileNameIsAnsweredWithTheFlagToUse) {
  std::vector<std::string> words{"codeflare-operator", "validate", "my.yaml"};
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  auto with_f = Args::parse(3, argv.data(), 2, {{"filename", true}}, {{"f", "filename"}});
  ASSERT_FALSE(with_f.has_value());
  EXPECT_NE(with_f.error().message.find("-f my.yaml"), std::string::npos) << with_f.error().message;
  auto without = Args::parse(3, argv.data(), 2, {{"namespace", true}}, {});
  ASSERT_FALSE(without.has_value());
  EXPECT_EQ(without.error().message, "unexpected argument: my.yaml");
}
