#include <gtest/gtest.h>

#include <string>

#include "core/quantity.hpp"

using cfo::Quantity;

TEST(Quantity, ParsesDecimalBinaryAndExponentForms) {
  EXPECT_EQ(Quantity::parse("500m")->milli_value(), 500);
  EXPECT_EQ(Quantity::parse("2")->milli_value(), 2000);
  EXPECT_EQ(Quantity::parse("1Gi")->value(), 1073741824);
  EXPECT_EQ(Quantity::parse("12G")->value(), 12000000000);
  EXPECT_EQ(Quantity::parse("1e3")->value(), 1000);
  EXPECT_EQ(Quantity::parse("1.5")->milli_value(), 1500);
  EXPECT_EQ(Quantity::parse(".5")->milli_value(), 500);
  EXPECT_EQ(Quantity::parse("-1k")->value(), -1000);
  EXPECT_EQ(Quantity::parse("+4Ki")->value(), 4096);
}

TEST(Quantity, RejectsTextOutsideTheGrammar) {
  for (const char* bad : {"", "abc", "1.2.3", "5GB", "1Gb", "G", "1e", "1e1.5", "--1", "1 Gi", "0x10"}) {
    EXPECT_FALSE(Quantity::parse(bad).has_value()) << bad;
  }
}

// Sizes written the way other tools write them get a hint (README trial 59: "5g" was refused without one).
TEST(Quantity, ASizeSpelledAsOtherToolsDoGetsAHint) {
  auto message = [](const char* text) {
    auto q = Quantity::parse(text);
    return q ? std::string("<parsed>") : q.error().message;
  };
  EXPECT_NE(message("5g").find("(did you mean \"5G\" or \"5Gi\"?)"), std::string::npos) << message("5g");
  EXPECT_NE(message("512MB").find("(did you mean \"512M\" or \"512Mi\"?)"), std::string::npos);
  EXPECT_NE(message("1.5gib").find("(did you mean \"1.5Gi\"?)"), std::string::npos);
  EXPECT_NE(message("10K").find("(did you mean \"10k\" or \"10Ki\"?)"), std::string::npos);
  EXPECT_NE(message("2mi").find("(did you mean \"2Mi\"?)"), std::string::npos);
  for (const char* no_hint : {"abc", "5x", "5GBs", "G", "-"})
    EXPECT_EQ(message(no_hint).find("did you mean"), std::string::npos) << no_hint;
}

TEST(Quantity, ComparesExactlyAcrossUnits) {
  EXPECT_EQ(*Quantity::parse("1000m"), *Quantity::parse("1"));
  EXPECT_EQ(*Quantity::parse("1Ki"), *Quantity::parse("1024"));
  EXPECT_LT(*Quantity::parse("1G"), *Quantity::parse("1Gi"));
  EXPECT_GT(*Quantity::parse("8G"), *Quantity::parse("5G"));
}

TEST(Quantity, IntegerTest) {
  EXPECT_TRUE(Quantity::parse("2")->is_integer());
  EXPECT_TRUE(Quantity::parse("2000m")->is_integer());
  EXPECT_FALSE(Quantity::parse("1.5")->is_integer());
  EXPECT_FALSE(Quantity::parse("500m")->is_integer());
}

TEST(Quantity, RoundsSubNanoUp) {
  EXPECT_EQ(Quantity::parse("1.0000000001")->nanos(), static_cast<__int128>(1000000001));
}

TEST(Quantity, RejectsValuesTooLarge) {
  EXPECT_FALSE(Quantity::parse("999999999999999999999999999999999999999E").has_value());
}
