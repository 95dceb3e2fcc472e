// names::label_selector: the selector grammar of `kubectl get -l` / labelSelector.
#include <gtest/gtest.h>

#include "core/label_selector.hpp"

using cfo::names::label_selector;

namespace {
std::string first_error(std::string_view s) {
  auto errs = label_selector(s);
  return errs.empty() ? "<valid>" : errs.front();
}
}  // namespace

TEST(LabelSelector, AcceptsEveryOperator) {
  for (const char* ok : {"", "shard", "!shard", "shard=a", "shard==a", "shard!=a", "shard=", "shard in (a,b)",
                         "shard notin (a)", "tier>1", "tier<-2", " a = b , c != d , example.com/team in ( x , y ) ",
                         "a,b,!c", "app.kubernetes.io/name=ray", "a in ()", "a notin (,)"}) {
    auto errs = label_selector(ok);
    EXPECT_TRUE(errs.empty()) << "\"" << ok << "\": " << errs.front();
  }
}

TEST(LabelSelector, RefusesMalformedSelectorsNamingTheRequirement) {
  EXPECT_NE(first_error("a=b,c in x").find("requirement 2: expected \"(\""), std::string::npos);
  EXPECT_NE(first_error("a in (b").find("expected \",\" or \")\""), std::string::npos);
  EXPECT_NE(first_error("a>b").find("need an integer"), std::string::npos);
  EXPECT_NE(first_error("a b").find("expected an operator"), std::string::npos);
  EXPECT_NE(first_error("a=b c").find("expected \",\""), std::string::npos);
  EXPECT_NE(first_error(",a").find("expected a label key"), std::string::npos);
  EXPECT_NE(first_error("a,").find("expected a label key"), std::string::npos);
  EXPECT_NE(first_error("!").find("expected a label key after \"!\""), std::string::npos);
  EXPECT_NE(first_error("!a=b").find("expected \",\""), std::string::npos);
}

TEST(LabelSelector, KeysAndValuesFollowTheLabelGrammars) {
  EXPECT_NE(first_error("-bad=a").find("key \"-bad\""), std::string::npos);
  EXPECT_NE(first_error("a=" + std::string(64, 'v')).find("value"), std::string::npos);
  EXPECT_NE(first_error("a in (ok, -no)").find("value \"-no\""), std::string::npos);
  EXPECT_NE(first_error("UPPER.example.com/x=1").find("key"), std::string::npos);
}
