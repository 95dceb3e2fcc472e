#include <gtest/gtest.h>

#include <string>

#include "core/json.hpp"
#include "json_doc.hpp"
#include "runtime/object_key.hpp"

using namespace cfo;
using namespace cfo::runtime;
using cfo::runtime::test::doc;

namespace {

json::Document owned_by(const std::string& refs) {
  return doc(R"({"metadata":{"name":"child","namespace":"team-a","ownerReferences":)" + refs + "}}");
}

}  // namespace

TEST(ObjectKey, NamespacedAndClusterScoped) {
  EXPECT_EQ(key_of(doc(R"({"metadata":{"name":"demo","namespace":"team-a"}})")), "team-a/demo");
  EXPECT_EQ(key_of(doc(R"({"metadata":{"name":"node-1"}})")), "node-1");
  EXPECT_EQ(key_of(doc(R"({"metadata":{}})")), "");
  EXPECT_EQ(key_of(doc("[]")), "");
}

TEST(ObjectKey, SplitKey) {
  EXPECT_EQ(split_key("team-a/demo"), (std::pair<std::string, std::string>{"team-a", "demo"}));
  EXPECT_EQ(split_key("node-1"), (std::pair<std::string, std::string>{"", "node-1"}));
}

TEST(ControllerOwnerKey, FindsTheControllingOwnerOfGroupAndKind) {
  auto child = owned_by(R"([
    {"apiVersion":"codeflare.dev/v1alpha1","kind":"CodeFlareWorkload","name":"other","uid":"1"},
    {"apiVersion":"codeflare.dev/v1alpha1","kind":"CodeFlareWorkload","name":"wl","uid":"2","controller":true}])");
  EXPECT_EQ(controller_owner_key(child, "codeflare.dev", "CodeFlareWorkload"), "team-a/wl");
}

TEST(ControllerOwnerKey, IgnoresNonControllersOtherGroupsAndKinds) {
  EXPECT_EQ(controller_owner_key(owned_by(R"([{"apiVersion":"codeflare.dev/v1alpha1","kind":"CodeFlareWorkload",
                                               "name":"wl","controller":false}])"),
                                 "codeflare.dev", "CodeFlareWorkload"),
            std::nullopt);
  EXPECT_EQ(controller_owner_key(owned_by(R"([{"apiVersion":"other.dev/v1alpha1","kind":"CodeFlareWorkload",
                                               "name":"wl","controller":true}])"),
                                 "codeflare.dev", "CodeFlareWorkload"),
            std::nullopt);
  EXPECT_EQ(controller_owner_key(owned_by(R"([{"apiVersion":"codeflare.dev/v1alpha1","kind":"AppWrapper",
                                               "name":"wl","controller":true}])"),
                                 "codeflare.dev", "CodeFlareWorkload"),
            std::nullopt);
  EXPECT_EQ(
      controller_owner_key(doc(R"({"metadata":{"name":"x","namespace":"n"}})"), "codeflare.dev", "CodeFlareWorkload"),
      std::nullopt);
}

TEST(ControllerOwnerKey, CoreGroupHasNoSlashInApiVersion) {
  auto child = owned_by(R"([{"apiVersion":"v1","kind":"Pod","name":"p","controller":true}])");
  EXPECT_EQ(controller_owner_key(child, "", "Pod"), "team-a/p");
  EXPECT_EQ(controller_owner_key(child, "v1", "Pod"), std::nullopt);
}
