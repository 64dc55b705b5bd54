#include "agents/random_agent.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "agents/synthetic_evaluator.h"
#include "tests/agents/agent_test_loop.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MakeContext;
using testing::MustLoad;
using testing::MustSpace;
using testing::OneDimShapes;
using testing::RunLoop;

class RandomAgentTest : public ::testing::Test {
 protected:
  Workload workload_ = MustLoad("bert_ffn");
  SearchSpace space_ = MustSpace(workload_);  // 72 plan configs
  std::vector<Dims> shapes_ = OneDimShapes("tokens", {1, 64, 1024});
};

TEST_F(RandomAgentTest, SpreadsProposalsOverShapes) {
  RandomAgent agent(MakeContext(workload_, space_, shapes_, 1));
  EXPECT_EQ(agent.name(), "random");
  std::vector<Candidate> batch = agent.Propose(7);
  ASSERT_EQ(batch.size(), 7u);
  std::map<std::string, int> per_shape;
  for (const Candidate& c : batch) ++per_shape[DimsToText(c.dims)];
  EXPECT_EQ(per_shape["tokens=1"], 3);  // least-seen order, ties in campaign order
  EXPECT_EQ(per_shape["tokens=64"], 2);
  EXPECT_EQ(per_shape["tokens=1024"], 2);
}

TEST_F(RandomAgentTest, CoversEveryCandidateExactlyOnceThenStops) {
  SeparableLandscape landscape(space_, {});
  RandomAgent agent(MakeContext(workload_, space_, shapes_, 2));
  testing::LoopResult result = RunLoop(agent, landscape, 10000);
  EXPECT_TRUE(result.ran_dry);
  EXPECT_EQ(result.proposed, 3 * 72u);
  EXPECT_EQ(result.duplicates, 0u);
  EXPECT_EQ(landscape.repeated(), 0u);
  EXPECT_EQ(result.oversized, 0u);
  EXPECT_EQ(result.non_plan, 0u);
  EXPECT_TRUE(agent.Propose(8).empty());
  // Exhaustive: the exact optimum of every shape.
  for (const Dims& dims : shapes_) EXPECT_DOUBLE_EQ(testing::OracleRatio(result, landscape, dims), 1.0);
}

TEST_F(RandomAgentTest, FindsTheOptimumOfASmallSpaceWithinItsSize) {
  // Budget: the whole plan space of every shape (3 x 72); the exact optimum even with failing values.
  SeparableOptions options;
  options.seed = 11;
  options.per_shape = true;
  options.failing = {{"precision", "bf16"}};
  SeparableLandscape landscape(space_, options);
  RandomAgent agent(MakeContext(workload_, space_, shapes_, 3));
  testing::LoopResult result = RunLoop(agent, landscape, 3 * 72);
  for (const Dims& dims : shapes_) EXPECT_DOUBLE_EQ(testing::OracleRatio(result, landscape, dims), 1.0);
}

TEST_F(RandomAgentTest, DeterministicForASeed) {
  RandomAgent a(MakeContext(workload_, space_, shapes_, 5));
  RandomAgent b(MakeContext(workload_, space_, shapes_, 5));
  RandomAgent c(MakeContext(workload_, space_, shapes_, 6));
  std::vector<Candidate> pa = a.Propose(16), pb = b.Propose(16), pc = c.Propose(16);
  EXPECT_EQ(pa, pb);
  EXPECT_NE(pa, pc);
}

TEST_F(RandomAgentTest, NeverProposesWhatWasObserved) {
  // A resumed campaign: the history arrives through Observe before the first proposal.
  SeparableLandscape landscape(space_, {});
  std::vector<Candidate> history;
  for (const Config& config : space_.Enumerate(KnobScope::kPlan))
    if (space_.ValueOf(config, KnobKind::kPrecision) == "f32") history.push_back({shapes_[0], config});
  RandomAgent agent(MakeContext(workload_, space_, {shapes_[0]}, 4));
  agent.Observe(history, landscape.Evaluate(history));
  std::vector<Candidate> rest = agent.Propose(100);
  EXPECT_EQ(rest.size(), 36u);  // the bf16 half
  for (const Candidate& c : rest) EXPECT_EQ(space_.ValueOf(c.config, KnobKind::kPrecision), "bf16");
}

TEST_F(RandomAgentTest, ObservedHistoryCountsTowardsShapeOrder) {
  SeparableLandscape landscape(space_, {});
  std::vector<Candidate> history;
  for (int i = 0; i < 4; ++i) history.push_back({shapes_[0], space_.NthConfig(static_cast<uint64_t>(i))});
  RandomAgent agent(MakeContext(workload_, space_, shapes_, 4));
  agent.Observe(history, landscape.Evaluate(history));
  for (const Candidate& c : agent.Propose(4)) EXPECT_NE(c.dims, shapes_[0]);  // the others catch up first
}

}  // namespace
}  // namespace crmap
