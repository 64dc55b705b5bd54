#include "agents/evolution_agent.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "agents/random_agent.h"
#include "agents/synthetic_evaluator.h"
#include "tests/agents/agent_test_loop.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MakeContext;
using testing::MeanOracleRatio;
using testing::MustLoad;
using testing::MustSpace;
using testing::OneDimShapes;
using testing::OracleRatio;
using testing::RunLoop;

// dlrm_mlp with two threads: 216 plan configs per shape, 648 candidates over three shapes.
class EvolutionAgentTest : public ::testing::Test {
 protected:
  Workload workload_ = MustLoad("dlrm_mlp");
  SearchSpace space_ = MustSpace(workload_, 2);
  std::vector<Dims> shapes_ = OneDimShapes("batch", {1, 32, 512});

  SeparableLandscape Landscape(uint64_t seed) const {
    SeparableOptions options;
    options.seed = seed;
    options.per_shape = true;                   // every shape has its own optimum
    options.failing = {{"precision", "bf16"}};  // half the space fails
    return SeparableLandscape(space_, options);
  }
};

int KnobsDiffering(const Config& a, const Config& b) {
  int count = 0;
  for (size_t k = 0; k < a.values.size(); ++k) count += a.values[k] != b.values[k];
  return count;
}

TEST_F(EvolutionAgentTest, FindsTheOptimumOfEveryShapeWithin64PerShape) {
  // Budget: 64 of 216 configs per shape, batches of 8.
  for (uint64_t seed : {1, 2, 3}) {
    SeparableLandscape landscape = Landscape(100 + seed);
    EvolutionAgent agent(MakeContext(workload_, space_, shapes_, seed));
    testing::LoopResult result = RunLoop(agent, landscape, 64 * shapes_.size());
    EXPECT_EQ(result.proposed, 64 * shapes_.size());
    EXPECT_EQ(result.duplicates, 0u);
    EXPECT_EQ(landscape.repeated(), 0u);
    for (const Dims& dims : shapes_)
      EXPECT_GE(OracleRatio(result, landscape, dims), 0.98) << "seed " << seed << " " << DimsToText(dims);
  }
}

TEST_F(EvolutionAgentTest, BeatsRandomAtTheSameBudget) {
  // Budget: 32 per shape; mean over 5 seeds of the mean oracle ratio over shapes.
  double evolution = 0, random = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SeparableLandscape for_evolution = Landscape(200 + seed), for_random = Landscape(200 + seed);
    EvolutionAgent evolution_agent(MakeContext(workload_, space_, shapes_, seed));
    RandomAgent random_agent(MakeContext(workload_, space_, shapes_, seed));
    evolution += MeanOracleRatio(RunLoop(evolution_agent, for_evolution, 32 * shapes_.size()), for_evolution, shapes_);
    random += MeanOracleRatio(RunLoop(random_agent, for_random, 32 * shapes_.size()), for_random, shapes_);
  }
  evolution /= 5;
  random /= 5;
  EXPECT_GT(evolution, random + 0.1) << "evolution " << evolution << " random " << random;
}

TEST_F(EvolutionAgentTest, NeverProposesTwiceEvenWhenTheSpaceRunsDry) {
  Workload bert = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(bert);  // 72 plan configs
  std::vector<Dims> shapes = OneDimShapes("tokens", {1, 256});
  SeparableLandscape landscape(space, {});
  EvolutionAgent agent(MakeContext(bert, space, shapes, 9));
  testing::LoopResult result = RunLoop(agent, landscape, 10000);
  EXPECT_TRUE(result.ran_dry);
  EXPECT_EQ(result.proposed, 2 * 72u);
  EXPECT_EQ(result.duplicates, 0u);
  EXPECT_EQ(landscape.repeated(), 0u);
  EXPECT_EQ(result.oversized, 0u);
  EXPECT_EQ(result.non_plan, 0u);
  EXPECT_TRUE(agent.Propose(4).empty());
}

TEST_F(EvolutionAgentTest, PopulationKeepsTheBest) {
  SeparableLandscape landscape = Landscape(7);
  EvolutionAgent agent(MakeContext(workload_, space_, shapes_, 7));
  testing::LoopResult result = RunLoop(agent, landscape, 96);
  for (const Dims& dims : shapes_) {
    std::vector<Config> population = agent.Population(dims);
    ASSERT_FALSE(population.empty());
    EXPECT_LE(population.size(), EvolutionOptions{}.population);
    for (size_t i = 1; i < population.size(); ++i)  // best first
      EXPECT_GE(landscape.Speedup(dims, population[i - 1]), landscape.Speedup(dims, population[i]));
    EXPECT_DOUBLE_EQ(landscape.Speedup(dims, population.front()), result.best_speedup[DimsToText(dims)]);
  }
  EXPECT_TRUE(agent.Population({{"batch", 3}}).empty());
}

TEST_F(EvolutionAgentTest, MutantsChangeOneKnobOfAMember) {
  // Without crossover and with certain mutation, every child is a neighbour of a population member.
  SeparableLandscape landscape = Landscape(8);
  EvolutionOptions options;
  options.crossover = 0;
  options.mutation = 1;
  EvolutionAgent agent(MakeContext(workload_, space_, {shapes_[0]}, 8), options);
  std::vector<Candidate> seeds = agent.Propose(options.population);  // the random seeding
  agent.Observe(seeds, landscape.Evaluate(seeds));
  for (int round = 0; round < 5; ++round) {
    std::vector<Config> population = agent.Population(shapes_[0]);
    std::vector<Candidate> children = agent.Propose(4);
    ASSERT_EQ(children.size(), 4u);
    for (const Candidate& child : children) {
      bool neighbour = std::any_of(population.begin(), population.end(),
                                   [&](const Config& m) { return KnobsDiffering(m, child.config) == 1; });
      EXPECT_TRUE(neighbour) << space_.ToString(child.config);
    }
    agent.Observe(children, landscape.Evaluate(children));
  }
}

TEST_F(EvolutionAgentTest, DeterministicForASeed) {
  auto run = [&](uint64_t seed) {
    SeparableLandscape landscape = Landscape(3);
    EvolutionAgent agent(MakeContext(workload_, space_, shapes_, seed));
    RunLoop(agent, landscape, 80);
    return landscape.evaluated();
  };
  EXPECT_EQ(run(4), run(4));
  EXPECT_NE(run(4), run(5));
}

}  // namespace
}  // namespace crmap
