#include "agents/policy_network.h"

#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustLoad;
using testing::MustSpace;

TEST(PolicyNetworkTest, SamplesValidPlanConfigsAndRespectsMasks) {
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload);
  PolicyNetwork policy(space, 1, 3);
  std::mt19937_64 rng(1);
  KnobMask mask = AllowAll(space);
  int precision = space.FindKnobOfKind(KnobKind::kPrecision);
  mask[precision][1] = false;  // no bf16
  for (int i = 0; i < 200; ++i) {
    Config c = policy.Sample({0.5f}, mask, rng);
    ASSERT_TRUE(space.Validate(c).ok());
    EXPECT_EQ(c.values[precision], 0);
    EXPECT_EQ(space.PlanPart(c), c);  // runtime knobs stay at their defaults
  }
}

TEST(PolicyNetworkTest, ReinforceLearnsAShapeDependentChoice) {
  // Reward +1 for threads=1 on small shapes (feature 0) and for threads=2 on large ones (feature 1), -1
  // otherwise: the policy must learn the flip from the dims feature alone.
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload, 2);
  const int threads = space.FindKnobOfKind(KnobKind::kThreads);
  PolicyNetwork policy(space, 1, 11);
  std::mt19937_64 rng(5);
  KnobMask mask = AllowAll(space);
  for (int step = 0; step < 150; ++step) {
    std::vector<PolicySample> batch;
    for (float feature : {0.f, 1.f}) {
      for (int i = 0; i < 16; ++i) {
        Config c = policy.Sample({feature}, mask, rng);
        bool right = (feature < 0.5f) == (c.values[threads] == 0);
        batch.push_back({{feature}, c, right ? 1.0 : -1.0});
      }
    }
    policy.Update(batch);
  }
  EXPECT_EQ(policy.Sample({0.f}, mask, rng, /*greedy=*/true).values[threads], 0);
  EXPECT_EQ(policy.Sample({1.f}, mask, rng, /*greedy=*/true).values[threads], 1);
  Config small = space.Default();
  small.values[threads] = 0;
  EXPECT_GT(policy.LogProbability({0.f}, small), policy.LogProbability({1.f}, small));
}

TEST(PolicyNetworkTest, DeterministicForASeedAndExportsParameters) {
  Workload workload = MustLoad("dlrm_mlp");
  SearchSpace space = MustSpace(workload);
  PolicyNetwork a(space, 1, 9), b(space, 1, 9);
  std::mt19937_64 ra(3), rb(3);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(a.Sample({0.3f}, AllowAll(space), ra), b.Sample({0.3f}, AllowAll(space), rb));
  auto params = a.ExportParameters();
  EXPECT_FALSE(params.empty());
  for (const auto& p : params)
    for (float v : p) ASSERT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace crmap
