#include <gtest/gtest.h>

#include "core/names.hpp"

namespace names = cfo::names;

TEST(Names, DNS1035Label) {
  EXPECT_TRUE(names::dns1035_label("raycluster-1").empty());
  EXPECT_FALSE(names::dns1035_label("1-cluster").empty());
  EXPECT_FALSE(names::dns1035_label("my.cluster").empty());
  EXPECT_FALSE(names::dns1035_label("Cluster").empty());
  EXPECT_FALSE(names::dns1035_label("cluster-").empty());
  EXPECT_FALSE(names::dns1035_label(std::string(64, 'a')).empty());
}

TEST(Names, DNS1123LabelAndSubdomain) {
  EXPECT_TRUE(names::dns1123_label("123-abc").empty());
  EXPECT_FALSE(names::dns1123_label("a.b").empty());
  EXPECT_TRUE(names::dns1123_subdomain("a.b-c.d").empty());
  EXPECT_FALSE(names::dns1123_subdomain("a..b").empty());
  EXPECT_FALSE(names::dns1123_subdomain("").empty());
  EXPECT_FALSE(names::dns1123_subdomain(std::string(254, 'a')).empty());
}

TEST(Names, QualifiedNameAndLabelValue) {
  EXPECT_TRUE(names::qualified_name("kueue.x-k8s.io/queue-name").empty());
  EXPECT_TRUE(names::qualified_name("app").empty());
  EXPECT_FALSE(names::qualified_name("a/b/c").empty());
  EXPECT_FALSE(names::qualified_name("/b").empty());
  EXPECT_FALSE(names::qualified_name("Bad_Prefix/x").empty());
  EXPECT_FALSE(names::qualified_name("-x").empty());
  EXPECT_TRUE(names::label_value("").empty());
  EXPECT_TRUE(names::label_value("My_value.1").empty());
  EXPECT_FALSE(names::label_value("bad value").empty());
  EXPECT_FALSE(names::label_value(std::string(64, 'a')).empty());
}
