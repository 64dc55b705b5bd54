#include "agents/model_agent.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "agents/random_agent.h"
#include "agents/synthetic_evaluator.h"
#include "tests/agents/agent_test_loop.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MakeContext;
using testing::OneDimShapes;
using testing::RunLoop;

// Mean over shapes of best-found / optimum after `budget` evaluations of `agent` on `landscape`.
double MeanRatio(Agent& agent, SeparableLandscape& landscape, const std::vector<Dims>& shapes, size_t budget) {
  auto result = RunLoop(agent, landscape, budget);
  EXPECT_EQ(result.duplicates, 0u);
  return testing::MeanOracleRatio(result, landscape, shapes);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// 120 evaluations over 3 shapes of 144 plan configs each (half of them failing bf16), on seven seeds (agent and
// landscape seeded together), next to the random agent on the same landscapes. One seed proves nothing here: the
// model's training runs on LibTorch, whose float rounding depends on the BLAS kernels of the CPU, and the
// trajectory with it (one seed reached 0.41 on an AVX-512 host and 1.0 on an AVX2 one).
// Measured, median over the seeds of the mean oracle ratio [min-max]: model 0.92 [0.74-1.00] with OpenBLAS's
// SkylakeX kernels, 1.00 [0.74-1.00] Haswell, 0.93 [0.74-1.00] Prescott; random 0.65 [0.52-0.86].
TEST(ModelAgentTest, FindsTheOptimumWithAFractionOfTheSpaceAndBeatsRandom) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  SearchSpace space = testing::MustSpace(workload, 2);
  std::vector<Dims> shapes = OneDimShapes("batch", {1, 32, 512});
  std::vector<double> model, random;
  std::string trace;
  int ranks_optimum_first = 0;
  for (uint64_t seed = 1; seed <= 7; ++seed) {
    SeparableOptions options;
    options.seed = seed + 5;
    options.per_shape = true;
    options.failing = {{"precision", "bf16"}};
    SeparableLandscape model_landscape(space, options), random_landscape(space, options);
    ModelAgent model_agent(MakeContext(workload, space, shapes, seed));
    RandomAgent random_agent(MakeContext(workload, space, shapes, seed));
    model.push_back(MeanRatio(model_agent, model_landscape, shapes, 120));
    random.push_back(MeanRatio(random_agent, random_landscape, shapes, 120));
    trace += " " + std::to_string(model.back()) + "/" + std::to_string(random.back());
    // The model ranks configs it never measured: the optimum should score above the default.
    const Dims& dims = shapes[0];
    ranks_optimum_first += model_agent.PredictReward(dims, model_landscape.Optimum(dims)) >
                           model_agent.PredictReward(dims, space.Default());
  }
  EXPECT_GE(ranks_optimum_first, 5) << "seeds (of 7) whose model scores the optimum above the default";
  EXPECT_GE(Median(model), 0.85) << "model/random mean oracle ratio by seed:" << trace;
  EXPECT_GE(Median(model), Median(random) + 0.15) << "model/random mean oracle ratio by seed:" << trace;
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
