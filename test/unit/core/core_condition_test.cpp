#include <gtest/gtest.h>

#include "core/condition.hpp"

using namespace cfo;

TEST(Condition, TransitionTimeChangesOnlyWithStatus) {
  std::vector<Condition> cs;
  EXPECT_TRUE(set_condition(cs, {"Ready", "False", 1, "", "Pending", "waiting"}, "t1"));
  EXPECT_EQ(cs[0].last_transition_time, "t1");
  EXPECT_TRUE(set_condition(cs, {"Ready", "False", 2, "", "Pending", "still waiting"}, "t2"));
  EXPECT_EQ(cs[0].last_transition_time, "t1");
  EXPECT_EQ(cs[0].observed_generation, 2);
  EXPECT_FALSE(set_condition(cs, {"Ready", "False", 2, "", "Pending", "still waiting"}, "t3"));
  EXPECT_TRUE(set_condition(cs, {"Ready", "True", 2, "", "Ready", "up"}, "t4"));
  EXPECT_EQ(cs[0].last_transition_time, "t4");
}

TEST(Condition, JsonRoundTrip) {
  std::vector<Condition> cs{{"Valid", "True", 3, "t", "Valid", "ok"}};
  json::Document d;
  auto v = conditions_to_json(cs, d.GetAllocator());
  EXPECT_EQ(conditions_from_json(v), cs);
}
