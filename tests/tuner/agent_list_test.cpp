#include "tuner/agent_list.h"

#include <gtest/gtest.h>

namespace crmap {
namespace {

const std::vector<std::string> kAllowed = {"random", "grid", "rl"};

TEST(AgentListTest, SplitsOnCommasInOrder) {
  auto names = SplitAgentList("rl,random", kAllowed);
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  EXPECT_EQ(*names, (std::vector<std::string>{"rl", "random"}));
  auto one = SplitAgentList("grid", kAllowed);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, (std::vector<std::string>{"grid"}));
}

TEST(AgentListTest, RefusesEmptyUnknownAndRepeatedNamesListingWhatIsAllowed) {
  for (const char* bad : {"", ",", "rl,", ",rl", "rl,,grid", "bogus", "rl,RL", "rl,rl", "rl ,grid"}) {
    auto names = SplitAgentList(bad, kAllowed);
    ASSERT_FALSE(names.ok()) << bad;
    EXPECT_EQ(names.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_NE(SplitAgentList("bogus", kAllowed).status().message().find("random, grid, rl"), std::string::npos);
  EXPECT_NE(SplitAgentList("rl,,grid", kAllowed).status().message().find("empty name"), std::string::npos);
  EXPECT_NE(SplitAgentList("rl,rl", kAllowed).status().message().find("listed twice"), std::string::npos);
}

}  // namespace
}  // namespace crmap
