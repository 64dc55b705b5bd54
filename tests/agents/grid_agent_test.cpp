#include "agents/grid_agent.h"

#include <gtest/gtest.h>

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

class GridAgentTest : public ::testing::Test {
 protected:
  Workload workload_ = MustLoad("dlrm_mlp");
  SearchSpace space_ = MustSpace(workload_, 2);  // 216 plan configs
  std::vector<Dims> shapes_ = OneDimShapes("batch", {1, 32, 512});
};

TEST_F(GridAgentTest, SweepsShapeByShapeInIdOrder) {
  GridAgent agent(MakeContext(workload_, space_, shapes_, 1));
  EXPECT_EQ(agent.name(), "grid");
  const uint64_t size = space_.Size(KnobScope::kPlan);
  ASSERT_EQ(size, 216u);
  std::vector<Candidate> all;
  for (std::vector<Candidate> batch = agent.Propose(10); !batch.empty(); batch = agent.Propose(10)) {
    EXPECT_LE(batch.size(), 10u);
    all.insert(all.end(), batch.begin(), batch.end());
  }
  ASSERT_EQ(all.size(), shapes_.size() * size);
  for (size_t s = 0; s < shapes_.size(); ++s)
    for (uint64_t i = 0; i < size; ++i) {
      const Candidate& c = all[s * size + i];
      EXPECT_EQ(c.dims, shapes_[s]);
      EXPECT_EQ(c.config, space_.NthConfig(i, KnobScope::kPlan));
    }
  EXPECT_TRUE(agent.done());
  EXPECT_TRUE(agent.Propose(1).empty());
}

TEST_F(GridAgentTest, CoversShapesTimesPlanSpaceOnceAndFindsTheExactOptimum) {
  SeparableOptions options;
  options.seed = 21;
  options.per_shape = true;
  options.failing = {{"precision", "bf16"}};
  SeparableLandscape landscape(space_, options);
  GridAgent agent(MakeContext(workload_, space_, shapes_, 1));
  testing::LoopResult result = RunLoop(agent, landscape, 100000);
  EXPECT_TRUE(result.ran_dry);
  EXPECT_EQ(result.proposed, shapes_.size() * 216);
  EXPECT_EQ(landscape.evaluations(), shapes_.size() * 216);
  EXPECT_EQ(result.duplicates, 0u);
  EXPECT_EQ(landscape.repeated(), 0u);
  for (const Dims& dims : shapes_) {
    EXPECT_EQ(result.per_shape[DimsToText(dims)], 216u);
    EXPECT_DOUBLE_EQ(testing::OracleRatio(result, landscape, dims), 1.0) << DimsToText(dims);
  }
}

TEST_F(GridAgentTest, SkipsWhatWasAlreadyMeasured) {
  SeparableLandscape landscape(space_, {});
  std::vector<Candidate> history;
  for (uint64_t i = 0; i < 216; i += 2) history.push_back({shapes_[0], space_.NthConfig(i)});
  GridAgent agent(MakeContext(workload_, space_, {shapes_[0]}, 1));
  agent.Observe(history, landscape.Evaluate(history));
  std::vector<Candidate> rest = agent.Propose(1000);
  ASSERT_EQ(rest.size(), 108u);
  for (size_t j = 0; j < rest.size(); ++j) EXPECT_EQ(rest[j].config, space_.NthConfig(2 * j + 1));
  EXPECT_TRUE(agent.done());
}

TEST_F(GridAgentTest, ProposesNothingForZero) {
  GridAgent agent(MakeContext(workload_, space_, shapes_, 1));
  EXPECT_TRUE(agent.Propose(0).empty());
  EXPECT_FALSE(agent.done());
  EXPECT_EQ(agent.Propose(1).front().config, space_.NthConfig(0));
}

}  // namespace
}  // namespace crmap
