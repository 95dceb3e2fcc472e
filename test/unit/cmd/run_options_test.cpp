// The flags of `run`: defaults, ranges and the errors that make the binary exit 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/run_options.hpp"

using namespace cfo;
using namespace cfo::cmd;

namespace {

/// Parses `run` flags; a parse error of Args itself fails the test.
Result<RunOptions> parse(std::vector<std::string> flags, const std::string& namespace_file = "/nonexistent/ns") {
  std::vector<char*> argv{const_cast<char*>("codeflare-operator"), const_cast<char*>("run")};
  for (auto& f : flags) argv.push_back(f.data());
  auto args = Args::parse(static_cast<int>(argv.size()), argv.data(), 2, run_flags(), run_flag_aliases());
  EXPECT_TRUE(args.has_value()) << (args ? "" : args.error().message);
  if (!args) return std::unexpected(args.error());
  return parse_run_options(*args, namespace_file);
}

std::string error_of(std::vector<std::string> flags) {
  auto r = parse(std::move(flags));
  return r ? "<accepted>" : r.error().message;
}

}  // namespace

TEST(RunOptions, DefaultsAreControllerRuntimes) {
  auto o = parse({});
  ASSERT_TRUE(o.has_value()) << o.error().message;
  EXPECT_EQ(o->max_concurrent_reconciles, 1);
  EXPECT_EQ(o->backoff.base_delay_ms, 5);
  EXPECT_EQ(o->backoff.max_delay_ms, 1000 * 1000);
  EXPECT_EQ(o->bucket.qps, 10.0);
  EXPECT_EQ(o->bucket.burst, 100);
  EXPECT_FALSE(o->leader_elect);
  EXPECT_EQ(o->leader_election_id, "codeflare-operator.codeflare.dev");
  EXPECT_EQ(o->election.lease_duration_ms, 15000);
  EXPECT_EQ(o->election.renew_deadline_ms, 10000);
  EXPECT_EQ(o->election.retry_period_ms, 2000);
  EXPECT_FALSE(o->election.release_on_cancel);
  ASSERT_TRUE(o->metrics_address);
  EXPECT_EQ(o->metrics_address->port, 8080);
  ASSERT_TRUE(o->probe_address);
  EXPECT_EQ(o->probe_address->port, 8081);
  EXPECT_TRUE(o->server_dry_run);
}

TEST(RunOptions, EverythingCanBeSet) {
  auto o = parse({"--leader-elect",
                  "--leader-election-namespace=ops",
                  "--leader-election-id",
                  "my-lock",
                  "--leader-elect-lease-duration=4s",
                  "--leader-elect-renew-deadline=3s",
                  "--leader-elect-retry-period=500ms",
                  "--leader-elect-release-on-cancel",
                  "--metrics-bind-address=127.0.0.1:9000",
                  "--health-probe-bind-address=0",
                  "--server-dry-run=false",
                  "--workqueue-base-delay=10ms",
                  "--workqueue-max-delay=5m",
                  "--workqueue-qps=2.5",
                  "--workqueue-burst=7",
                  "--max-concurrent-reconciles=4",
                  "-n",
                  "a",
                  "-n",
                  "b"});
  ASSERT_TRUE(o.has_value()) << o.error().message;
  EXPECT_TRUE(o->leader_elect);
  EXPECT_EQ(o->leader_election_namespace, "ops");
  EXPECT_EQ(o->leader_election_id, "my-lock");
  EXPECT_EQ(o->election.lease_duration_ms, 4000);
  EXPECT_EQ(o->election.renew_deadline_ms, 3000);
  EXPECT_EQ(o->election.retry_period_ms, 500);
  EXPECT_TRUE(o->election.release_on_cancel);
  EXPECT_EQ(o->metrics_address->host, "127.0.0.1");
  EXPECT_EQ(o->metrics_address->port, 9000);
  EXPECT_FALSE(o->probe_address.has_value());
  EXPECT_FALSE(o->server_dry_run);
  EXPECT_EQ(o->backoff.base_delay_ms, 10);
  EXPECT_EQ(o->backoff.max_delay_ms, 300000);
  EXPECT_EQ(o->bucket.qps, 2.5);
  EXPECT_EQ(o->bucket.burst, 7);
  EXPECT_EQ(o->max_concurrent_reconciles, 4);
  EXPECT_EQ(o->namespaces, (std::vector<std::string>{"a", "b"}));
}

TEST(RunOptions, TheLeaseNamespaceComesFromThePodWhenNotGiven) {
  const std::string file = ::testing::TempDir() + "/cfo-run-options-namespace";
  std::ofstream(file) << "codeflare-system\n";
  auto o = parse({"--leader-elect"}, file);
  std::remove(file.c_str());
  ASSERT_TRUE(o.has_value()) << o.error().message;
  EXPECT_EQ(o->leader_election_namespace, "codeflare-system");
  auto outside = parse({"--leader-elect"});
  ASSERT_FALSE(outside.has_value());
  EXPECT_NE(outside.error().message.find("--leader-election-namespace is required"), std::string::npos);
  EXPECT_TRUE(parse({}).has_value()) << "no election, no namespace needed";
}

TEST(RunOptions, OutOfRangeAndMalformedValuesAreRefusedWithTheFlagName) {
  struct Case {
    std::vector<std::string> flags;
    std::string mentions;
  };
  const std::vector<Case> cases{
      {{"--max-concurrent-reconciles=0"}, "--max-concurrent-reconciles"},
      {{"--max-concurrent-reconciles=100000"}, "--max-concurrent-reconciles"},
      {{"--max-concurrent-reconciles=two"}, "--max-concurrent-reconciles"},
      {{"--workqueue-base-delay=0"}, "--workqueue-base-delay"},
      {{"--workqueue-base-delay=5"}, "--workqueue-base-delay"},
      {{"--workqueue-base-delay=-5ms"}, "--workqueue-base-delay"},
      {{"--workqueue-max-delay=1ms", "--workqueue-base-delay=2ms"}, "--workqueue-max-delay"},
      {{"--workqueue-max-delay=100000h"}, "--workqueue-max-delay"},
      {{"--workqueue-qps=-1"}, "--workqueue-qps"},
      {{"--workqueue-qps=nan"}, "--workqueue-qps"},
      {{"--workqueue-burst=0"}, "--workqueue-burst"},
      {{"--leader-elect-lease-duration=10s"}, "renew deadline"},
      {{"--leader-elect-renew-deadline=2s"}, "retry period"},
      {{"--leader-elect-retry-period=0"}, "positive"},
      {{"--leader-elect-lease-duration=forever"}, "--leader-elect-lease-duration"},
      {{"--leader-elect=maybe"}, "--leader-elect"},
      {{"--leader-elect", "--leader-election-namespace=Bad_NS"}, "--leader-election-namespace"},
      {{"--leader-election-id=no/slash"}, "--leader-election-id"},
      {{"--metrics-bind-address=8080"}, "--metrics-bind-address"},
      {{"--health-probe-bind-address=:99999"}, "--health-probe-bind-address"},
      {{"--metrics-bind-address=:9000", "--health-probe-bind-address=:9000"}, "same address"},
      {{"--server-dry-run=off"}, "--server-dry-run"},
      {{"--namespace=UPPER"}, "--namespace"},
  };
  for (const auto& c : cases) {
    std::string e = error_of(c.flags);
    EXPECT_NE(e.find(c.mentions), std::string::npos) << c.flags[0] << " -> " << e;
  }
}

TEST(RunOptions, HelpNamesEveryFlagWithItsDefault) {
  const std::string help = run_help();
  for (const auto& [name, takes_value] : run_flags()) {
    if (name == "help") continue;
    EXPECT_NE(help.find("--" + name), std::string::npos) << name;
  }
  for (const char* d : {"(default 15s)", "(default 10s)", "(default 2s)", "(default :8080)", "(default :8081)",
                        "(default 5ms)", "(default 1000s)", "(default 10)", "(default 100)", "(default true)"})
    EXPECT_NE(help.find(d), std::string::npos) << d;
}

// The help fits a 120-column terminal: a long flag line continues under its description (trial 59: 22 of 43 lines of
// `run --help` ran past 120 columns).
TEST(RunOptions, HelpLinesFitAndContinueUnderTheirDescription) {
  std::istringstream help(run_help());
  std::size_t lines = 0;
  for (std::string line; std::getline(help, line); ++lines) EXPECT_LE(line.size(), 120u) << line;
  EXPECT_GT(lines, 40u);
  const std::string text = run_help();
  const std::size_t flag = text.find("  -l, --label-selector SELECTOR");
  ASSERT_NE(flag, std::string::npos);
  const std::size_t column = text.find("reconcile only", flag) - flag;
  const std::size_t next = text.find('\n', flag) + 1;
  EXPECT_EQ(text.substr(next, column), std::string(column, ' ')) << "continued under the description";
  EXPECT_NE(text[next + column], ' ');
}

TEST(WrapHelp, FoldsLongLinesAtSpacesWithAHangingIndent) {
  EXPECT_EQ(wrap_help("short\n", 20), "short\n");
  EXPECT_EQ(wrap_help("no break at the end", 10), "no break\nat the end");
  EXPECT_EQ(wrap_help("  --flag X   one two three four", 22),
            "  --flag X   one two\n             three\n             four");
  // "(default 10s)" stays whole; a word longer than the room is left whole.
  EXPECT_EQ(wrap_help("  --f   wait (default 10s)", 20), "  --f   wait\n        (default 10s)");
  EXPECT_EQ(wrap_help("abcdefghijklmnop qr", 8), "abcdefghijklmnop\nqr");
  EXPECT_EQ(wrap_help("a\n\nb\n", 8), "a\n\nb\n");
  // A flag spec that leaves one space before its description still continues under the description.
  EXPECT_EQ(wrap_help("  --long-flag DURATION how long it waits (default 10s)", 40),
            "  --long-flag DURATION how long it waits\n                       (default 10s)");
  EXPECT_EQ(wrap_help("  --dry-run[=false]  send it first (default true)", 36),
            "  --dry-run[=false]  send it first\n                     (default true)");
}

TEST(RunOptions, LabelSelectorIsCheckedAndKept) {
  auto o = parse({"--label-selector", "shard in (a, b),!experimental"});
  ASSERT_TRUE(o.has_value()) << o.error().message;
  EXPECT_EQ(o->label_selector, "shard in (a, b),!experimental");
  auto short_form = parse({"-l", "shard=a"});
  ASSERT_TRUE(short_form.has_value()) << short_form.error().message;
  EXPECT_EQ(short_form->label_selector, "shard=a");
  // The value may be attached to the one-letter form, as kubectl's flags allow.
  auto attached = parse({"-lshard=a", "-nteam-a"});
  ASSERT_TRUE(attached.has_value()) << attached.error().message;
  EXPECT_EQ(attached->label_selector, "shard=a");
  EXPECT_EQ(attached->namespaces, std::vector<std::string>{"team-a"});
  EXPECT_EQ(parse({})->label_selector, "");
  const std::string bad = error_of({"--label-selector=shard in a"});
  EXPECT_NE(bad.find("--label-selector"), std::string::npos) << bad;
  EXPECT_NE(bad.find("expected \"(\""), std::string::npos) << bad;
  const std::string fractional = error_of({"--leader-elect-lease-duration=16500ms"});
  EXPECT_NE(fractional.find("whole seconds"), std::string::npos) << fractional;
  const std::string twice = error_of({"-l", "a=b", "-l", "c=d"});
  EXPECT_NE(twice.find("more than once"), std::string::npos) << twice;
}

TEST(RunOptions, ProfileIsForcedOrLeftToTheCluster) {
  auto none = parse({});
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->profile.has_value()) << "unset: told by the served CRDs";
  auto odh = parse({"--profile=odh"});
  ASSERT_TRUE(odh.has_value()) << odh.error().message;
  EXPECT_EQ(odh->profile, validation::Profile::kOdh);
  auto vanilla = parse({"--profile", "vanilla"});
  ASSERT_TRUE(vanilla.has_value());
  EXPECT_EQ(vanilla->profile, validation::Profile::kVanilla);
  EXPECT_NE(error_of({"--profile=rhoai"}).find("--profile"), std::string::npos);
}
