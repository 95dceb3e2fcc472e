#include <gtest/gtest.h>

#include "parse_test_util.hpp"
#include "workload/reconcile.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
struct InvalidCase {
  std::string file;
  std::string expect_path;
  json::Document doc;
};

InvalidCase load_case(const std::string& file) {
  InvalidCase c;
  c.file = file;
  std::string text = read_text(file);
  const std::string marker = "# expect-path: ";
  std::string first = text.substr(0, text.find('\n'));
  EXPECT_TRUE(first.starts_with(marker)) << file << ": first line must be '" << marker << "<path>'";
  if (first.starts_with(marker)) c.expect_path = first.substr(marker.size());
  c.doc = yaml_doc(text);
  set_identity(c.doc);
  return c;
}
}  // namespace

TEST(InvalidInputs, EveryFileIsRejectedAtItsExpectedPath) {
  auto files = yaml_files("test/invalid");
  EXPECT_GE(files.size(), 8u);
  for (const auto& f : files) {
    InvalidCase c = load_case(f);
    auto p = parse_workload(c.doc);
    EXPECT_FALSE(p.ok()) << f;
    bool found = false;
    for (const auto& e : p.errors) found = found || (e.path == c.expect_path && e.severity == Severity::Error);
    EXPECT_TRUE(found) << f << ": no error at " << c.expect_path << "; got:\n" << dump(p.errors);
  }
}

TEST(InvalidInputs, ReconcileGeneratesNothingAndSaysWhy) {
  CFO_REQUIRE_SCHEMAS(schemas);
  for (const auto& f : yaml_files("test/invalid")) {
    InvalidCase c = load_case(f);
    Outcome out = reconcile(c.doc, Observed{}, ClusterFacts{}, schemas, "2026-01-01T00:00:00Z");
    EXPECT_FALSE(out.valid) << f;
    EXPECT_TRUE(out.desired.empty()) << f;
    EXPECT_EQ(json::get_string(out.status, "phase"), "Invalid") << f;
    ASSERT_EQ(out.events.size(), 1u) << f;
    EXPECT_EQ(out.events[0].type, "Warning");
    EXPECT_EQ(out.events[0].reason, "InvalidSpec");
    EXPECT_NE(out.events[0].message.find(c.expect_path), std::string::npos) << f << ": " << out.events[0].message;
  }
}
