#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

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

// Longer plain scalars are told apart by their first character: every word and number spelling stays what it was at
// each length around the cut (5 characters), and words that only begin like one are strings.
TEST(Yaml, ResolvesLongAndShortPlainScalarsAlike) {
  const std::pair<const char*, rapidjson::Type> cases[] = {
      {"FALSE", rapidjson::kFalseType},     {"False", rapidjson::kFalseType},     {"falsey", rapidjson::kStringType},
      {"nullable", rapidjson::kStringType}, {"onwards", rapidjson::kStringType},  {"123456", rapidjson::kNumberType},
      {"-12345", rapidjson::kNumberType},   {"+12345", rapidjson::kNumberType},   {".12345", rapidjson::kNumberType},
      {"-.inf", rapidjson::kStringType},    {"+.INF", rapidjson::kStringType},    {"1_000_000", rapidjson::kNumberType},
      {"0x1F_FF", rapidjson::kNumberType},  {"ray-head", rapidjson::kStringType}, {"e12345", rapidjson::kStringType}};
  for (const auto& [text, type] : cases) {
    auto docs = yaml::to_json(std::string("v: ") + text + "\n");
    ASSERT_TRUE(docs.has_value()) << text;
    EXPECT_EQ((*docs)[0]["v"].GetType(), type) << text;
  }
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
  // The place is in the message and, for callers such as -o json, in the error's line and column.
  const std::string at =
      "line " + std::to_string(docs.error().line) + ", column " + std::to_string(docs.error().column);
  EXPECT_EQ(docs.error().line, 2u) << docs.error().message;
  EXPECT_NE(docs.error().message.find(at), std::string::npos) << docs.error().message;
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

// Parts of one stream converted apart share one count of the nodes aliases copy: each part alone is within the
// limit, the second one passes it for the stream.
TEST(Yaml, PartsOfAStreamShareTheAliasLimit) {
  std::string list = "[";
  for (int i = 0; i < 1000; ++i) list += i ? ",0" : "0";
  list += "]";
  std::string part;
  for (int i = 0; i < 300; ++i) part += "---\na: &x " + list + "\nb: *x\n";  // about 300,300 copied nodes
  auto none = [](json::Document&, const yaml::DocumentStart&) {};
  EXPECT_TRUE(yaml::for_each_document(part, none).has_value()) << "one part alone";
  std::atomic<std::size_t> stream_nodes{0};
  EXPECT_TRUE(yaml::for_each_document(part, none, &stream_nodes).has_value());
  EXPECT_TRUE(yaml::for_each_document(part, none, &stream_nodes).has_value());
  EXPECT_TRUE(yaml::for_each_document(part, none, &stream_nodes).has_value());
  auto fourth = yaml::for_each_document(part, none, &stream_nodes);
  ASSERT_FALSE(fourth.has_value()) << "four parts copy about 1,201,200 nodes";
  EXPECT_NE(fourth.error().message.find("aliases expand"), std::string::npos) << fourth.error().message;
}

// A node that contains an alias to itself is a cycle, which JSON cannot hold: told as such, not as a missing anchor.
TEST(Yaml, AnAliasInsideItsOwnAnchorIsACycle) {
  for (const char* text :
       {"a: &x [1, *x]\n", "a: &x {b: *x}\n", "a: &x {b: &y [*x]}\n", "a: &x [1]\nb: &x [*x, 2]\n"}) {
    auto docs = yaml::to_json(text);
    ASSERT_FALSE(docs.has_value()) << text;
    EXPECT_NE(docs.error().message.find("contains it"), std::string::npos) << docs.error().message;
  }
  auto missing = yaml::to_json("a: *nowhere\n");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("has no anchor"), std::string::npos) << missing.error().message;
  // An anchor name used again: an alias is to the most recent node of that name, here the inner one.
  auto reused = yaml::to_json("a: &x [1]\nb: &x [&x [2], *x]\nc: *x\n");
  ASSERT_TRUE(reused.has_value()) << reused.error().message;
  EXPECT_EQ(json::dump((*reused)[0]), R"({"a":[1],"b":[[2],[2]],"c":[[2],[2]]})");
}

TEST(Yaml, RepeatedKeysAreAnError) {
  auto docs = yaml::to_json("spec:\n  replicas: 1\n  replicas: 100\n");
  ASSERT_FALSE(docs.has_value());
  EXPECT_NE(docs.error().message.find("\"replicas\" is defined twice"), std::string::npos) << docs.error().message;
  EXPECT_EQ(docs.error().line, 3u);  // where the second one is written
  EXPECT_EQ(docs.error().column, 3u);
}

// Byte-level errors (LibYAML's reader: invalid UTF-8, control characters) name the line and column of the byte;
// they used to be reported at line 1, column 1.
TEST(Yaml, ByteLevelErrorsNameTheirLineAndColumn) {
  auto bad_utf8 = yaml::to_json("a: 1\nb: 2\nname: ab\xff\n");
  ASSERT_FALSE(bad_utf8.has_value());
  EXPECT_NE(bad_utf8.error().message.find("line 3, column 9"), std::string::npos) << bad_utf8.error().message;
  EXPECT_EQ(bad_utf8.error().line, 3u);
  EXPECT_EQ(bad_utf8.error().column, 9u);
  EXPECT_NE(bad_utf8.error().message.find("UTF-8"), std::string::npos) << bad_utf8.error().message;
  auto control = yaml::to_json("a: 1\nb: x\x01y\n");
  ASSERT_FALSE(control.has_value());
  EXPECT_NE(control.error().message.find("line 2, column 5"), std::string::npos) << control.error().message;
  EXPECT_NE(control.error().message.find("control characters"), std::string::npos) << control.error().message;
  // Columns count characters, not bytes.
  auto after_multibyte = yaml::to_json("k: \xc3\xa9\xc3\xa9\x02\n");
  ASSERT_FALSE(after_multibyte.has_value());
  EXPECT_NE(after_multibyte.error().message.find("line 1, column 6"), std::string::npos)
      << after_multibyte.error().message;
}

// A mapping with a million keys converts (key lookups are constant time: a linear search per key made this
// quadratic, about 5 * 10^11 comparisons here, which never finished).
TEST(Yaml, MappingsAreLinearInTheirNumberOfKeys) {
  constexpr int kKeys = 1000000;
  std::string text;
  text.reserve(static_cast<std::size_t>(kKeys) * 12);
  for (int i = 0; i < kKeys; ++i) text += "k" + std::to_string(i) + ": 1\n";
  auto docs = yaml::to_json(text);
  ASSERT_TRUE(docs.has_value()) << docs.error().message;
  EXPECT_EQ((*docs)[0].MemberCount(), static_cast<rapidjson::SizeType>(kKeys));
  // Repeated keys are still found, also after a `<<` merge, and an explicit key still overrides a merged one.
  auto twice = yaml::to_json(text + "k999999: 2\n");
  ASSERT_FALSE(twice.has_value());
  EXPECT_NE(twice.error().message.find("\"k999999\" is defined twice"), std::string::npos);
  auto merged = yaml::to_json("base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  x: 3\n");
  ASSERT_TRUE(merged.has_value()) << merged.error().message;
  EXPECT_EQ((*merged)[0]["m"]["x"].GetInt(), 3);
  EXPECT_EQ((*merged)[0]["m"]["y"].GetInt(), 2);
  EXPECT_EQ((*merged)[0]["m"].MemberCount(), 2u);
}

// A mapping finds a repeated key by a linear search while small and through an index once it has 16 keys: the same
// answers on both sides of that size, merged keys included.
TEST(Yaml, RepeatedKeysAreFoundInMappingsOfEverySize) {
  for (int keys : {1, 14, 15, 16, 17, 40}) {
    std::string base = "base: &b {";
    std::string body;
    for (int i = 0; i < keys; ++i) {
      base += (i ? ", m" : "m") + std::to_string(i) + ": 1";
      body += "  k" + std::to_string(i) + ": 1\n";
    }
    base += "}\n";
    const std::string last = "k" + std::to_string(keys - 1);
    auto twice = yaml::to_json("m:\n" + body + "  " + last + ": 2\n");
    ASSERT_FALSE(twice.has_value()) << keys;
    EXPECT_NE(twice.error().message.find("\"" + last + "\" is defined twice"), std::string::npos) << keys;
    // Merged keys, each overridden once by an explicit key; a second explicit one is a repeated key again.
    const std::string first_merged = "m0";
    auto merged = yaml::to_json(base + "m:\n  <<: *b\n" + body + "  " + first_merged + ": 5\n");
    ASSERT_TRUE(merged.has_value()) << keys << ": " << merged.error().message;
    EXPECT_EQ((*merged)[0]["m"].MemberCount(), static_cast<rapidjson::SizeType>(2 * keys)) << keys;
    EXPECT_EQ((*merged)[0]["m"]["m0"].GetInt(), 5) << keys;
    auto again = yaml::to_json(base + "m:\n  <<: *b\n  m0: 5\n" + body + "  m0: 6\n");
    ASSERT_FALSE(again.has_value()) << keys;
    EXPECT_NE(again.error().message.find("\"m0\" is defined twice"), std::string::npos) << keys;
  }
}

// Size limits: a text, a document or a scalar beyond its limit is an error naming the limit, with a position.
TEST(Yaml, SizeLimitsAreErrorsNamingTheLimit) {
  auto stream = yaml::to_json(std::string(yaml::kMaxStreamBytes + 1, '#'));
  ASSERT_FALSE(stream.has_value());
  EXPECT_NE(stream.error().message.find("64 MiB (the limit per file)"), std::string::npos) << stream.error().message;
  EXPECT_EQ(stream.error().line, 0u);  // the text as a whole: no place

  auto scalar = yaml::to_json("a: 1\nb: " + std::string(yaml::kMaxScalarBytes + 1, 'x') + "\n");
  ASSERT_FALSE(scalar.has_value());
  EXPECT_NE(scalar.error().message.find("4 MiB (the limit per string)"), std::string::npos) << scalar.error().message;
  EXPECT_NE(scalar.error().message.find("line 2"), std::string::npos) << scalar.error().message;

  // Five scalars of 3.5 MiB (each within the string limit) make a second document of 17.5 MiB.
  std::string big = "small: 1\n---\n";
  for (int i = 0; i < 5; ++i) big += "k" + std::to_string(i) + ": " + std::string(7u << 19, 'y') + "\n";
  auto document = yaml::to_json(big);
  ASSERT_FALSE(document.has_value());
  EXPECT_NE(document.error().message.find("16 MiB (the limit per document)"), std::string::npos)
      << document.error().message;
  EXPECT_NE(document.error().message.find("starting at line 2"), std::string::npos) << document.error().message;
  EXPECT_EQ(document.error().line, 2u);

  // Below the limits, several documents of 12 MiB each are fine.
  std::string fine;
  for (int d = 0; d < 3; ++d)
    fine += "---\nk: " + std::string(3u << 20, 'z') + "\nl: " + std::string(3u << 20, 'z') +
            "\nm: " + std::string(3u << 20, 'z') + "\nn: " + std::string(3u << 20, 'z') + "\n";
  auto ok = yaml::to_json(fine);
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  EXPECT_EQ(ok->size(), 3u);
}

// A key spelled "<<" (quoted in the source) is emitted quoted: written plain it would read back as a merge key.
TEST(Yaml, MergeKeySpellingRoundTripsAsAPlainKey) {
  auto docs = yaml::to_json("\"<<\": {a: 1}\nb: 2\n");
  ASSERT_TRUE(docs.has_value()) << docs.error().message;
  ASSERT_TRUE((*docs)[0].HasMember("<<"));
  auto again = yaml::to_json(yaml::from_json((*docs)[0]));
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ((*again)[0], (*docs)[0]) << yaml::from_json((*docs)[0]);
}

// --- locate: a finding's path back to where it is written ---------------------------------------------------------

TEST(YamlLocate, FindsKeysListItemsAndBracketedKeys) {
  const std::string text =
      "# a comment\n"
      "apiVersion: v1\n"
      "kind: Thing\n"
      "---\n"
      "\n"
      "---\n"
      "kind: CodeFlareWorkload\n"
      "spec:\n"
      "  workerGroups:\n"
      "    - name: a\n"
      "    - name: b\n"
      "      resources:\n"
      "        limits: {cpu: \"2\", nvidia.com/gpu: 1}\n";
  auto at = [&](std::size_t doc, const char* path) {
    auto p = cfo::yaml::locate(text, doc, path);
    return p ? std::to_string(p->line) + ":" + std::to_string(p->column) : std::string("none");
  };
  EXPECT_EQ(at(0, "kind"), "3:1");
  EXPECT_EQ(at(0, ""), "2:1");  // the root
  // The empty document between the two is not counted, as to_json does not count it.
  EXPECT_EQ(at(1, "kind"), "7:1");
  EXPECT_EQ(at(1, "spec.workerGroups[1]"), "11:7");
  EXPECT_EQ(at(1, "spec.workerGroups[1].name"), "11:7");
  EXPECT_EQ(at(1, "spec.workerGroups[1].resources.limits.cpu"), "13:18");
  EXPECT_EQ(at(1, "spec.workerGroups[1].resources.limits[nvidia.com/gpu]"), "13:28");
  // Not written: told at the nearest parent that is.
  EXPECT_EQ(at(1, "spec.workerGroups[1].resources.requests.memory"), "12:7");
  EXPECT_EQ(at(1, "spec.workerGroups[5].name"), "9:3");
  EXPECT_EQ(at(1, "RayCluster/demo: spec.headGroupSpec"), "7:1");
  EXPECT_EQ(at(2, "kind"), "none");
}

TEST(YamlLocate, BrokenTextHasNoPosition) {
  EXPECT_FALSE(cfo::yaml::locate("a: [unclosed\n", 0, "b"));  // read to the error looking for b
  EXPECT_FALSE(cfo::yaml::locate("", 0, ""));
}

TEST(YamlSplit, CutsOnlyAtDocumentMarkersWithTheirLines) {
  // Four documents of 2 lines; "----" and a "---" inside a line are not markers.
  const std::string text = "a: 1\nb: ----\n---\nc: x---\nd: 2\n--- |\n  text\n---\ne: 3\n";
  auto parts = yaml::split_documents(text, 8);
  ASSERT_GE(parts.size(), 2u);
  EXPECT_EQ(parts[0].offset, 0u);
  EXPECT_EQ(parts[0].line, 1u);
  for (std::size_t p = 1; p < parts.size(); ++p) {
    EXPECT_GT(parts[p].offset, parts[p - 1].offset);
    EXPECT_EQ(text.compare(parts[p].offset, 3, "---"), 0) << parts[p].offset;
    EXPECT_EQ(text[parts[p].offset - 1], '\n');
    EXPECT_EQ(parts[p].line,
              1u + static_cast<std::size_t>(std::count(text.begin(), text.begin() + parts[p].offset, '\n')));
  }
  // Joined in order, the parts give the documents the whole text gives.
  std::size_t documents = 0;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const std::size_t end = p + 1 < parts.size() ? parts[p + 1].offset : text.size();
    auto part = yaml::to_json(std::string_view(text).substr(parts[p].offset, end - parts[p].offset));
    ASSERT_TRUE(part.has_value()) << part.error().message;
    documents += part->size();
  }
  EXPECT_EQ(documents, yaml::to_json(text)->size());
  EXPECT_EQ(yaml::split_documents(text, 1).size(), 1u);
  EXPECT_EQ(yaml::split_documents("a: 1\nb: 2\n", 4).size(), 1u) << "no marker";
  EXPECT_EQ(yaml::split_documents("%YAML 1.1\n---\na: 1\n---\nb: 2\n---\nc: 3\n", 4).size(), 1u)
      << "a directive belongs to the document after it";
  EXPECT_EQ(yaml::split_documents("a: 1\n---", 2).back().offset, 5u) << "a marker at the very end";
}

// Line numbers of the parts of a long text, whose lines hold bytes next to '\n' in value and UTF-8 (bytes above
// 0x7F): the break counting goes eight bytes at a time and must count exactly the '\n's. A '%' inside a line is not
// a directive; one at a line start is, anywhere in the stream.
TEST(YamlSplit, CountsLinesExactlyInLongTextsAndFindsDirectivesAnywhere) {
  std::string text;
  for (int i = 0; i < 500; ++i) {
    text += "---\nname: \"d" + std::to_string(i) + "\"\n\x0bnote: \"\x0b\x09\x8a\xc3\xa9 \xe2\x82\xac 100%\"\n";
    if (i % 7 == 0) text += "pad: " + std::string(static_cast<std::size_t>(i % 13), 'x') + "\n";
  }
  auto parts = yaml::split_documents(text, 16);
  ASSERT_EQ(parts.size(), 16u);
  for (std::size_t p = 1; p < parts.size(); ++p)
    EXPECT_EQ(parts[p].line,
              1u + static_cast<std::size_t>(std::count(text.begin(), text.begin() + parts[p].offset, '\n')))
        << "part " << p;
  EXPECT_EQ(yaml::split_documents(text + "%TAG ! tag:example.com,2000:\n---\na: 1\n", 16).size(), 1u);
}
