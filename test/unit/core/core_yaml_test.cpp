#include <gtest/gtest.h>

#include "core/json.hpp"
#include "core/yaml.hpp"

using namespace cfo;

TEST(Yaml, ResolvesScalarsAsKubernetesDoes) {
  auto docs =
      yaml::to_json("a: 1\nb: \"1\"\nc: true\nd: yes\ne: ~\nf: 1.5\ng: hello\nh: '0x10'\ni: 0x10\nj: !!str 3\n");
  ASSERT_TRUE(docs.has_value()) << docs.error().message;
  ASSERT_EQ(docs->size(), 1u);
  const auto& d = (*docs)[0];
  EXPECT_TRUE(d["a"].IsInt64());
  EXPECT_TRUE(d["b"].IsString());
  EXPECT_TRUE(d["c"].IsBool());
  EXPECT_TRUE(d["d"].IsBool());
  EXPECT_TRUE(d["e"].IsNull());
  EXPECT_TRUE(d["f"].IsDouble());
  EXPECT_STREQ(d["g"].GetString(), "hello");
  EXPECT_TRUE(d["h"].IsString());
  EXPECT_EQ(d["i"].GetInt64(), 16);
  EXPECT_TRUE(d["j"].IsString());
}

TEST(Yaml, SplitsDocumentsAndSkipsEmptyOnes) {
  auto docs = yaml::to_json("---\na: 1\n---\n---\nb: 2\n");
  ASSERT_TRUE(docs.has_value());
  EXPECT_EQ(docs->size(), 2u);
}

TEST(Yaml, ExpandsAnchorsAliasesAndMergeKeys) {
  auto docs = yaml::to_json("base: &b {x: 1, y: 2}\nuse: *b\nmerged:\n  <<: *b\n  y: 3\n");
  ASSERT_TRUE(docs.has_value());
  const auto& d = (*docs)[0];
  EXPECT_EQ(d["use"]["x"].GetInt64(), 1);
  EXPECT_EQ(d["merged"]["x"].GetInt64(), 1);
  EXPECT_EQ(d["merged"]["y"].GetInt64(), 3);
}

TEST(Yaml, ReportsSyntaxErrorsWithPosition) {
  auto docs = yaml::to_json("a: [1, 2\nb: 3\n");
  ASSERT_FALSE(docs.has_value());
  EXPECT_NE(docs.error().message.find("line"), std::string::npos);
}

TEST(Yaml, EmitsAmbiguousStringsQuotedAndRoundTrips) {
  auto in = json::parse(
      R"({"num-cpus":"1","block":"true","n":1,"empty":{},"list":[],"s":"plain","nul":"null","multi":"a\nb"})");
  ASSERT_TRUE(in.has_value());
  std::string text = yaml::from_json(*in);
  EXPECT_NE(text.find("num-cpus: \"1\""), std::string::npos) << text;
  EXPECT_NE(text.find("block: \"true\""), std::string::npos) << text;
  auto back = yaml::to_json(text);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(json::dump((*back)[0]), json::dump(*in));
}

TEST(Yaml, ResolvesIntegerAndFloatSpellings) {
  auto docs = yaml::to_json(
      "a: 0o17\nb: 017\nc: 0x1F\nd: 0b101\ne: -9223372036854775808\nf: 1_000\ng: 1e3\n"
      "h: .5\ni: 9223372036854775808\nj: 1.2.3\nk: \"-\"\nl: 18446744073709551616\nm: -9223372036854775809\n");
  ASSERT_TRUE(docs.has_value()) << docs.error().message;
  const auto& d = (*docs)[0];
  EXPECT_EQ(d["a"].GetInt64(), 15);
  EXPECT_EQ(d["b"].GetInt64(), 15);
  EXPECT_EQ(d["c"].GetInt64(), 31);
  EXPECT_EQ(d["d"].GetInt64(), 5);
  EXPECT_EQ(d["e"].GetInt64(), INT64_MIN);
  EXPECT_EQ(d["f"].GetInt64(), 1000);
  // A whole float is sent by kubectl as an integer (Go's encoding/json prints 1e3 as 1000).
  ASSERT_TRUE(d["g"].IsInt64());
  EXPECT_EQ(d["g"].GetInt64(), 1000);
  EXPECT_DOUBLE_EQ(d["h"].GetDouble(), 0.5);
  // Above int64 and up to 2^64-1 go-yaml v2 resolves an unsigned integer (ParseUint); beyond that a float.
  ASSERT_TRUE(d["i"].IsUint64());
  EXPECT_EQ(d["i"].GetUint64(), 9223372036854775808ull);
  EXPECT_FALSE(d["i"].IsInt64());
  EXPECT_TRUE(d["l"].IsDouble());
  // Below int64 it is a float, -2^63 once rounded to a double, which kubectl then sends as that whole number.
  ASSERT_TRUE(d["m"].IsInt64());
  EXPECT_EQ(d["m"].GetInt64(), INT64_MIN);
  EXPECT_TRUE(d["j"].IsString());
  EXPECT_TRUE(d["k"].IsString());
}

TEST(Yaml, WholeFloatsBecomeIntegersAsKubectlSendsThem) {
  auto docs = yaml::to_json("a: 2.0\nb: -1.0e0\nc: 2.5\nd: 1e18\ne: 1e19\nf: 0.0\ng: \"2.0\"\nh: [1.0, 3.25]\n");
  ASSERT_TRUE(docs.has_value()) << docs.error().message;
  const auto& d = (*docs)[0];
  ASSERT_TRUE(d["a"].IsInt64());
  EXPECT_EQ(d["a"].GetInt64(), 2);
  EXPECT_EQ(d["b"].GetInt64(), -1);
  EXPECT_TRUE(d["c"].IsDouble());
  ASSERT_TRUE(d["d"].IsInt64());
  EXPECT_EQ(d["d"].GetInt64(), 1000000000000000000);
  EXPECT_TRUE(d["e"].IsDouble()) << "beyond int64 the apiserver reads a float";
  EXPECT_EQ(d["f"].GetInt64(), 0);
  EXPECT_TRUE(d["g"].IsString());
  EXPECT_TRUE(d["h"][0].IsInt64());
  EXPECT_TRUE(d["h"][1].IsDouble());
}

TEST(Yaml, VeryLongPlainScalarsStayStringsWithoutCrashing) {
  std::string digits(200000, '7');
  auto docs = yaml::to_json("a: " + digits + "\n");
  ASSERT_TRUE(docs.has_value());
  EXPECT_TRUE((*docs)[0]["a"].IsString());
}

TEST(Yaml, RefusesAliasBombs) {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  std::string prev = "a";
  for (char c = 'b'; c <= 'j'; ++c) {
    text += std::string(1, c) + ": &" + std::string(1, c) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", *" : "*") + prev;
    text += "]\n";
    prev = std::string(1, c);
  }
  auto docs = yaml::to_json(text);
  ASSERT_FALSE(docs.has_value());
  EXPECT_NE(docs.error().message.find("aliases expand"), std::string::npos) << docs.error().message;
}

TEST(Yaml, RepeatedKeysAreAnError) {
  auto docs = yaml::to_json("spec:\n  replicas: 1\n  replicas: 100\n");
  ASSERT_FALSE(docs.has_value());
  EXPECT_NE(docs.error().message.find("\"replicas\" is defined twice"), std::string::npos) << docs.error().message;
}
