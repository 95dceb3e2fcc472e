// Findings to verdicts: the denial message, its causes, and the size limits of messages and warnings.
#include <gtest/gtest.h>

#include <string>

#include "webhook/verdict.hpp"

using namespace cfo;
using namespace cfo::webhook;

namespace {
FieldError error(std::string path, std::string reason, std::string rule = "Rule") {
  return FieldError{std::move(path), std::move(rule), "src", std::move(reason), Severity::Error};
}
FieldError warning(std::string path, std::string reason, std::string rule = "Warn") {
  return FieldError{std::move(path), std::move(rule), "src", std::move(reason), Severity::Warning};
}
const ObjectRef kDemo{"CodeFlareWorkload", "codeflare.dev", "demo"};
}  // namespace

TEST(Verdict, NoErrorsAllowsWithTheWarnings) {
  auto r = verdict({warning("spec.image", "tag 2.9 is not rayVersion 2.52.1", "RayVersionMatchesImage")}, kDemo);
  EXPECT_TRUE(r.allowed);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "spec.image: tag 2.9 is not rayVersion 2.52.1 [RayVersionMatchesImage]");
}

TEST(Verdict, OneErrorReadsLikeAnApiserverFieldError) {
  auto r = verdict({error("spec.workerGroups[0].name", "must be a DNS-1123 label", "DNS1123Label")}, kDemo);
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.code, 422);
  EXPECT_EQ(r.reason, "Invalid");
  EXPECT_EQ(r.message,
            "CodeFlareWorkload.codeflare.dev \"demo\" is invalid: spec.workerGroups[0].name: must be a DNS-1123 label "
            "[DNS1123Label]");
  ASSERT_EQ(r.causes.size(), 1u);
  EXPECT_EQ(r.causes[0].field, "spec.workerGroups[0].name");
  EXPECT_EQ(r.causes[0].reason, "FieldValueInvalid");
  EXPECT_EQ(r.causes[0].message, "must be a DNS-1123 label [DNS1123Label]");
  EXPECT_EQ(r.details_name, "demo");
  EXPECT_EQ(r.details_group, "codeflare.dev");
}

TEST(Verdict, SeveralErrorsAreBracketedAndWarningsKept) {
  auto r = verdict({error("spec.a", "bad a", "A"), warning("spec.w", "odd"), error("", "whole object", "B")}, kDemo);
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.message, "CodeFlareWorkload.codeflare.dev \"demo\" is invalid: [spec.a: bad a [A], whole object [B]]");
  EXPECT_EQ(r.causes.size(), 2u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "spec.w: odd [Warn]");
}

TEST(Verdict, ManyErrorsStayWithinTheMessageLimitAndAreCounted) {
  FieldErrors many;
  for (int i = 0; i < 500; ++i)
    many.push_back(error("spec.workerGroups[" + std::to_string(i) + "].resources.requests.memory",
                         "must be a quantity such as 8G", "Quantity"));
  auto r = verdict(many, kDemo);
  EXPECT_LE(r.message.size(), kMaxDenialMessageBytes);
  EXPECT_NE(r.message.find("spec.workerGroups[0]."), std::string::npos);
  ASSERT_GT(r.causes.size(), 10u);
  const std::size_t shown = r.causes.size() - 1;  // the last cause counts the others
  EXPECT_EQ(r.causes.back().field, "...");
  EXPECT_EQ(r.causes.back().message.rfind("and " + std::to_string(500 - shown) + " more", 0), 0u);
  EXPECT_LT(shown, 500u);
  EXPECT_NE(r.message.find(", and " + std::to_string(500 - shown) + " more]"), std::string::npos)
      << r.message.substr(r.message.size() - 80);
}

TEST(Verdict, OneHugeErrorIsCutNotDropped) {
  auto r = verdict({error("spec.env[0].value", std::string(10000, 'x'))}, kDemo);
  EXPECT_LE(r.message.size(), kMaxDenialMessageBytes);
  EXPECT_NE(r.message.find("spec.env[0].value: xxx"), std::string::npos);
  EXPECT_EQ(r.causes.size(), 1u);
}

TEST(Verdict, WarningsStayWithinWhatTheApiserverForwardsUncut) {
  FieldErrors many;
  for (int i = 0; i < 100; ++i) many.push_back(warning("spec.f" + std::to_string(i), std::string(300, 'w')));
  many.push_back(warning("spec.long", std::string(5000, 'l')));
  auto w = warnings_of(many);
  std::size_t total = 0;
  for (const auto& s : w) {
    EXPECT_LE(s.size(), kMaxWarningBytes);
    total += s.size();
  }
  EXPECT_LE(total, kMaxWarningsBytes);
  ASSERT_FALSE(w.empty());
  EXPECT_EQ(w.back().rfind("and ", 0), 0u) << w.back();
  EXPECT_NE(w.back().find("more warning(s)"), std::string::npos);
}

TEST(Verdict, TruncationKeepsUtf8Whole) {
  std::string euros;
  for (int i = 0; i < 10; ++i) euros += "\xe2\x82\xac";  // 30 bytes
  std::string cut = truncate_utf8(euros, 10);
  EXPECT_LE(cut.size(), 10u);
  EXPECT_EQ(cut, "\xe2\x82\xac\xe2\x82\xac...");
  EXPECT_EQ(truncate_utf8("short", 10), "short");
}
