#include "tuner/leader_recheck.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace crmap {
namespace {

Dims Batch(int64_t batch) { return {{"batch", batch}}; }

// Scores by hand: each config's speedup and record counts are what the rule reads.
class LeaderRecheckTest : public ::testing::Test {
 protected:
  void Add(int64_t batch, const std::string& config, double speedup, size_t ok, size_t failed = 0) {
    ShapeScores& shape = scores_[Batch(batch)];
    shape.dims = Batch(batch);
    ConfigScore& score = shape.configs[config];
    score.config = config;
    score.speedup = speedup;
    score.ok = ok;
    score.failed = failed;
    score.basis = SpeedupBasis::kInRun;
    score.is_default = config == "default";
  }
  std::map<Dims, ShapeScores> scores_;
  std::vector<Dims> shapes_ = {Batch(1), Batch(2), Batch(3)};
};

TEST_F(LeaderRecheckTest, TheShapeWhoseLeadersAreLeastSeparatedComesFirst) {
  Add(1, "default", 1, 1);
  Add(1, "a", 1.50, 1);
  Add(1, "b", 1.10, 1);
  Add(2, "default", 1, 1);
  Add(2, "c", 1.30, 1);
  Add(2, "d", 1.28, 1);
  Add(2, "e", 1.05, 1);
  auto next = NextLeaderRecheck(scores_, shapes_, 8);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->dims, Batch(2));
  EXPECT_EQ(next->configs, (std::vector<std::string>{"c", "d"}));  // the best first, the third left alone
  EXPECT_NEAR(next->separation, std::log(1.30 / 1.28) / std::sqrt(2.0), 1e-12);
  EXPECT_EQ(next->fewest_records, 1u);
}

// Two truly tied configs stay unseparated however often they are measured: leaders known from fewer records
// go first, so one shape cannot take every recheck.
TEST_F(LeaderRecheckTest, LeadersOfFewerRecordsComeBeforeCloserOnes) {
  Add(1, "a", 1.50, 1);
  Add(1, "b", 1.20, 1);
  Add(2, "c", 1.30, 2);
  Add(2, "d", 1.30, 3);
  auto next = NextLeaderRecheck(scores_, shapes_, 8);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->dims, Batch(1));
  EXPECT_EQ(next->fewest_records, 1u);
  Add(1, "a", 1.50, 2);  // batch 1 rechecked: both shapes' leaders now have two records at least
  Add(1, "b", 1.20, 2);
  next = NextLeaderRecheck(scores_, shapes_, 8);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->dims, Batch(2));  // now the closer pair
  EXPECT_EQ(next->fewest_records, 2u);
  EXPECT_DOUBLE_EQ(next->separation, 0);
}

TEST_F(LeaderRecheckTest, TheDefaultIsNeverMeasuredAgainItsSpeedupIsExact) {
  Add(1, "default", 1, 5);
  Add(1, "a", 1.02, 1);
  Add(1, "b", 0.5, 1);
  auto next = NextLeaderRecheck(scores_, shapes_, 8);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->configs, (std::vector<std::string>{"a"}));
  EXPECT_NEAR(next->separation, std::log(1.02), 1e-12);  // over sqrt(1/1): the default adds no variance
}

TEST_F(LeaderRecheckTest, FailedAndUnknownConfigsAreNoLeaders) {
  Add(1, "a", 2.0, 1, /*failed=*/1);  // the fastest, but it timed out once there
  Add(1, "b", std::numeric_limits<double>::quiet_NaN(), 1);
  Add(1, "c", 1.3, 1);
  Add(1, "d", 1.2, 1);
  Add(1, "never", 3.0, 0, 2);
  auto next = NextLeaderRecheck(scores_, shapes_, 8);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->configs, (std::vector<std::string>{"c", "d"}));
  scores_.clear();
  Add(1, "a", 2.0, 1, 1);
  Add(1, "c", 1.3, 1);
  EXPECT_FALSE(NextLeaderRecheck(scores_, shapes_, 8).has_value());  // one leader: nothing to compare
}

TEST_F(LeaderRecheckTest, ARecheckMustFitTheMeasurementsLeftAndShapesOutsideTheListDoNotCount) {
  Add(1, "a", 1.30, 1);
  Add(1, "b", 1.30, 1);
  Add(2, "default", 1, 1);
  Add(2, "c", 1.5, 1);
  Add(9, "e", 1.30, 1);  // not one of the campaign's shapes
  Add(9, "f", 1.30, 1);
  auto one_left = NextLeaderRecheck(scores_, shapes_, 1);
  ASSERT_TRUE(one_left.has_value());
  EXPECT_EQ(one_left->dims, Batch(2));  // batch 1 is closer but needs two measurements
  EXPECT_FALSE(NextLeaderRecheck(scores_, shapes_, 0).has_value());
  auto two_left = NextLeaderRecheck(scores_, shapes_, 2);
  ASSERT_TRUE(two_left.has_value());
  EXPECT_EQ(two_left->dims, Batch(1));
  EXPECT_FALSE(NextLeaderRecheck(scores_, {Batch(3)}, 8).has_value());  // no scores there
}

TEST(ShareOfBudgetTest, TheShareOfTheBudgetRoundedDownNeverAllOfIt) {
  EXPECT_EQ(ShareOfBudget(25, 0.2), 5u);
  EXPECT_EQ(ShareOfBudget(57, 0.2), 11u);
  EXPECT_EQ(ShareOfBudget(100, 0), 0u);
  EXPECT_EQ(ShareOfBudget(4, 0.2), 0u);
  EXPECT_EQ(ShareOfBudget(10, 0.99), 9u);
  EXPECT_EQ(ShareOfBudget(0, 0.5), 0u);
  EXPECT_EQ(ShareOfBudget(10, std::numeric_limits<double>::quiet_NaN()), 0u);
}

}  // namespace
}  // namespace crmap
