#include "agents/model_agent.h"

#include <gtest/gtest.h>

#include "agents/synthetic_evaluator.h"
#include "tests/agents/agent_test_loop.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MakeContext;
using testing::OneDimShapes;
using testing::RunLoop;

TEST(ModelAgentTest, FindsTheOptimumOfEveryShapeWithAFractionOfTheSpace) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  SearchSpace space = testing::MustSpace(workload, 2);
  std::vector<Dims> shapes = OneDimShapes("batch", {1, 32, 512});
  SeparableOptions options;
  options.seed = 6;
  options.per_shape = true;
  options.failing = {{"precision", "bf16"}};
  SeparableLandscape landscape(space, options);
  ModelAgent agent(MakeContext(workload, space, shapes, 2));
  auto result = RunLoop(agent, landscape, 120);
  EXPECT_EQ(result.duplicates, 0u);
  for (const Dims& dims : shapes)
    EXPECT_GE(testing::OracleRatio(result, landscape, dims), 0.98) << DimsToText(dims);
  // The model ranks configs it never measured: the optimum should score above the default.
  const Dims& dims = shapes[0];
  EXPECT_GT(agent.PredictReward(dims, landscape.Optimum(dims)), agent.PredictReward(dims, space.Default()));
}

TEST(ModelAgentTest, DeterministicForASeedAndNeverRepeats) {
  Workload workload = testing::MustLoad("bert_ffn");
  SearchSpace space = testing::MustSpace(workload, 2);
  std::vector<Dims> shapes = OneDimShapes("tokens", {4, 256});
  SeparableLandscape a(space, SeparableOptions{}), b(space, SeparableOptions{});
  ModelAgent first(MakeContext(workload, space, shapes, 4)), second(MakeContext(workload, space, shapes, 4));
  auto ra = RunLoop(first, a, 48);
  RunLoop(second, b, 48);
  EXPECT_EQ(ra.duplicates, 0u);
  ASSERT_EQ(a.evaluated().size(), b.evaluated().size());
  for (size_t i = 0; i < a.evaluated().size(); ++i) EXPECT_EQ(a.evaluated()[i], b.evaluated()[i]) << i;
}

}  // namespace
}  // namespace crmap
