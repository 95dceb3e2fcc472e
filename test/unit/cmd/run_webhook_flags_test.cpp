// The --webhook-* flags as `run` parses them (webhook/webhook_options.hpp does the checks).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cmd/run_options.hpp"

using namespace cfo;
using namespace cfo::cmd;

namespace {
Result<RunOptions> parse(std::vector<std::string> flags) {
  std::vector<char*> argv{const_cast<char*>("codeflare-operator"), const_cast<char*>("run")};
  for (auto& f : flags) argv.push_back(f.data());
  auto args = Args::parse(static_cast<int>(argv.size()), argv.data(), 2, run_flags(), run_flag_aliases());
  EXPECT_TRUE(args.has_value()) << (args ? "" : args.error().message);
  if (!args) return std::unexpected(args.error());
  return parse_run_options(*args, "/nonexistent/ns");
}
}  // namespace

TEST(RunWebhookFlags, DefaultsAndValuesReachRunOptions) {
  auto d = parse({});
  ASSERT_TRUE(d) << d.error().message;
  ASSERT_TRUE(d->webhook.bind);
  EXPECT_EQ(d->webhook.bind->port, 9443);
  auto o = parse({"--webhook-bind-address=127.0.0.1:9444", "--webhook-cert-secret=cert", "--webhook-namespace=ops",
                  "--webhook-configuration=a", "--webhook-configuration=b", "--webhook-service=svc",
                  "--webhook-cert-dir=/certs"});
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->webhook.bind->host, "127.0.0.1");
  EXPECT_EQ(o->webhook.cert_secret, "cert");
  EXPECT_EQ(o->webhook.namespace_, "ops");
  EXPECT_EQ(o->webhook.configurations, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o->webhook.service, "svc");
  EXPECT_EQ(o->webhook.cert_dir, "/certs");
  auto off = parse({"--webhook-bind-address=0"});
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->webhook.bind);
}

TEST(RunWebhookFlags, ClashesAndBadValuesAreErrors) {
  auto clash = parse({"--webhook-bind-address=:8080"});
  ASSERT_FALSE(clash);
  EXPECT_NE(clash.error().message.find("--webhook-bind-address and --metrics-bind-address"), std::string::npos);
  auto probe = parse({"--webhook-bind-address=:8081"});
  ASSERT_FALSE(probe);
  EXPECT_NE(probe.error().message.find("--health-probe-bind-address"), std::string::npos);
  EXPECT_FALSE(parse({"--webhook-cert-secret=s"})) << "outside a cluster the namespace must be named";
}

TEST(RunWebhookFlags, HelpDocumentsThemWithDefaults) {
  const std::string help = run_help();
  for (const char* f : {"--webhook-bind-address ADDR", "--webhook-cert-dir DIR", "--webhook-cert-secret NAME",
                        "--webhook-service NAME", "--webhook-namespace NS", "--webhook-configuration NAME"})
    EXPECT_NE(help.find(f), std::string::npos) << f;
  EXPECT_NE(help.find("(default :9443)"), std::string::npos);
  EXPECT_LT(help.find("Webhook flags"), help.find("--webhook-bind-address")) << "in a section of their own";
}
