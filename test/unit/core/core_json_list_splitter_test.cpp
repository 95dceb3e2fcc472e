// json::ListSplitter: a list's items handed on one by one, whatever the sizes of the pieces the text comes in.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/json_list_splitter.hpp"

using namespace cfo;

namespace {

/// What the splitter delivered: the items' texts, and the list's apiVersion and kind as each item saw them.
struct Split {
  std::vector<std::string> items;
  std::vector<std::string> kinds_seen;
  std::string api_version_seen;
  Result<json::Document> envelope = fail("not finished");
  std::string error;
};

Split split_in_pieces(const std::string& text, std::size_t piece, std::size_t max_item = 1 << 20) {
  Split out;
  json::ListSplitter splitter(max_item);
  auto on_item = [&](std::string_view item, std::string_view api_version, std::string_view kind) -> Result<void> {
    out.items.emplace_back(item);
    out.kinds_seen.emplace_back(kind);
    out.api_version_seen = api_version;
    return {};
  };
  for (std::size_t at = 0; at < text.size(); at += piece) {
    auto fed = splitter.feed(std::string_view(text).substr(at, piece), on_item);
    if (!fed) {
      out.error = fed.error().message;
      return out;
    }
  }
  out.envelope = splitter.finish();
  if (!out.envelope) out.error = out.envelope.error().message;
  return out;
}

// Strings that hold braces, brackets, escaped quotes and backslashes, nested arrays and objects, and whitespace
// everywhere: the items are told apart by structure, not by characters.
const std::string kList = R"( {"apiVersion" : "ray.io/v1",
  "items": [ {"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"a}\"{[","labels":{"x":"]\\"}},
               "spec":{"groups":[[1,2],{"n":[{}]}],"s":"\\\\"}} ,
             {"metadata":{"name":"b"},"spec":{}}
           ],
  "kind": "RayClusterList", "metadata": {"resourceVersion": "42", "continue": ""} } )";

}  // namespace

TEST(ListSplitter, HandsOnEachItemWhateverThePiecesAndKeepsTheRest) {
  const std::vector<std::string> want = {
      R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"a}\"{[","labels":{"x":"]\\"}},)"
      "\n"
      R"(               "spec":{"groups":[[1,2],{"n":[{}]}],"s":"\\\\"}})",
      R"({"metadata":{"name":"b"},"spec":{}})"};
  for (std::size_t piece :
       {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{64}, kList.size()}) {
    SCOPED_TRACE("pieces of " + std::to_string(piece) + " bytes");
    Split s = split_in_pieces(kList, piece);
    ASSERT_TRUE(s.error.empty()) << s.error;
    EXPECT_EQ(s.items, want);
    for (const auto& item : s.items) EXPECT_TRUE(json::parse(item).has_value()) << item;
    // A custom resource list names its kind after its items: the items saw no kind; the apiVersion came before.
    EXPECT_EQ(s.kinds_seen, (std::vector<std::string>{"", ""}));
    EXPECT_EQ(s.api_version_seen, "ray.io/v1");
    ASSERT_TRUE(s.envelope.has_value());
    EXPECT_EQ(
        json::dump(*s.envelope),
        R"({"apiVersion":"ray.io/v1","items":[],"kind":"RayClusterList","metadata":{"resourceVersion":"42","continue":""}})");
  }
}

TEST(ListSplitter, AKindThatComesFirstIsToldToEachItem) {
  Split s = split_in_pieces(R"({"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"a":1},{"b":2}]})", 5);
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(s.kinds_seen, (std::vector<std::string>{"PodList", "PodList"}));
  EXPECT_EQ(s.api_version_seen, "v1");
}

TEST(ListSplitter, OnlyTheTopLevelItemsAreSplit) {
  // An "items" key inside metadata or inside an item is data, not the list's items.
  Split s = split_in_pieces(R"({"metadata":{"items":[{"x":1}]},"items":[{"spec":{"items":[{"y":2}]}}]})", 4);
  ASSERT_TRUE(s.error.empty()) << s.error;
  EXPECT_EQ(s.items, (std::vector<std::string>{R"({"spec":{"items":[{"y":2}]}})"}));
  EXPECT_EQ(json::dump(*s.envelope), R"({"metadata":{"items":[{"x":1}]},"items":[]})");
}

TEST(ListSplitter, AnEmptyOrNullItemsIsKept) {
  Split empty = split_in_pieces(R"({"items":[],"metadata":{"resourceVersion":"1"}})", 3);
  ASSERT_TRUE(empty.error.empty()) << empty.error;
  EXPECT_TRUE(empty.items.empty());
  Split null = split_in_pieces(R"({"items":null,"metadata":{"resourceVersion":"1"}})", 3);
  ASSERT_TRUE(null.error.empty()) << null.error;
  EXPECT_TRUE(null.items.empty());
  EXPECT_EQ(json::dump(*null.envelope), R"({"items":null,"metadata":{"resourceVersion":"1"}})");
}

TEST(ListSplitter, RefusesWhatIsNotAListAndSaysWhy) {
  EXPECT_NE(split_in_pieces(R"([{"a":1}])", 2).error.find("a list is a JSON object"), std::string::npos);
  EXPECT_NE(split_in_pieces(R"({"items":[{"a":1},2]})", 2).error.find("item 1 is not an object"), std::string::npos);
  EXPECT_NE(split_in_pieces(R"({"items":[{"a":1}]} {})", 2).error.find("text follows the end of the list"),
            std::string::npos);
  EXPECT_NE(split_in_pieces(R"({"items":[{"a":1},{"b":)", 2).error.find("ends before the list does (after 1 items)"),
            std::string::npos);
  EXPECT_NE(split_in_pieces("", 2).error.find("the response is empty"), std::string::npos);
  // The envelope is parsed at the end: a broken one is an error, not a silent empty list.
  EXPECT_FALSE(split_in_pieces(R"({"metadata":{"resourceVersion":1,,},"items":[]})", 2).error.empty());
}

TEST(ListSplitter, AnItemAboveTheLimitIsRefusedWhetherItCameInOnePieceOrMany) {
  const std::string list = R"({"items":[{"a":"0123456789"},{"b":"01234567890123456789012345"}]})";
  for (std::size_t piece : {std::size_t{3}, list.size()}) {
    Split s = split_in_pieces(list, piece, 24);
    EXPECT_EQ(s.items.size(), 1u);
    EXPECT_NE(s.error.find("item 1 is larger than 24 bytes"), std::string::npos) << s.error;
  }
}

TEST(ListSplitter, TheCallbacksErrorEndsTheSplitting) {
  json::ListSplitter splitter;
  int calls = 0;
  auto refuse_second = [&](std::string_view, std::string_view, std::string_view) -> Result<void> {
    return ++calls == 2 ? Result<void>(fail("no room")) : Result<void>{};
  };
  auto fed = splitter.feed(R"({"items":[{"a":1},{"b":2},{"c":3}]})", refuse_second);
  ASSERT_FALSE(fed.has_value());
  EXPECT_EQ(fed.error().message, "no room");
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(splitter.feed("}", refuse_second).has_value());
  EXPECT_FALSE(splitter.finish().has_value());
}
