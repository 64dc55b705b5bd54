#include "agents/cost_model.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace crmap {
namespace {

// y = 2*x0 - x1 + 0.5*x0*x1: a small nonlinear target the MLP must fit and rank correctly.
double Target(const std::vector<float>& x) { return 2.0 * x[0] - x[1] + 0.5 * x[0] * x[1]; }

std::vector<float> Point(std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  return {u(rng), u(rng), u(rng)};
}

TEST(CostModelTest, FitsAndRanksASmoothTarget) {
  CostModel model(3, 7);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200; ++i) {
    auto x = Point(rng);
    model.Add(x, Target(x));
  }
  double before = model.TrainingLoss();
  model.Train(400);
  EXPECT_LT(model.TrainingLoss(), 0.02);
  EXPECT_LT(model.TrainingLoss(), before / 20);

  // Held-out points: predictions close, and the ranking of a pair is right.
  std::vector<std::vector<float>> test;
  for (int i = 0; i < 50; ++i) test.push_back(Point(rng));
  std::vector<double> predicted = model.Predict(test);
  int ordered = 0, pairs = 0;
  for (size_t i = 0; i + 1 < test.size(); i += 2) {
    double a = Target(test[i]), b = Target(test[i + 1]);
    if (std::fabs(a - b) < 0.3) continue;
    ++pairs;
    ordered += (a > b) == (predicted[i] > predicted[i + 1]);
  }
  ASSERT_GT(pairs, 10);
  EXPECT_GE(ordered, pairs - 1);
}

TEST(CostModelTest, DeterministicForASeed) {
  auto run = [](uint64_t seed) {
    CostModel model(3, seed);
    std::mt19937_64 rng(2);
    for (int i = 0; i < 30; ++i) {
      auto x = Point(rng);
      model.Add(x, Target(x));
    }
    model.Train(50);
    return model.Predict({{0.1f, 0.2f, 0.3f}})[0];
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

TEST(CostModelTest, EmptyModelIsHarmless) {
  CostModel model(2, 1);
  model.Train(10);
  EXPECT_EQ(model.samples(), 0u);
  EXPECT_EQ(model.TrainingLoss(), 0);
  EXPECT_TRUE(model.Predict({}).empty());
  EXPECT_EQ(model.Predict({{0.f, 0.f}}).size(), 1u);
}

}  // namespace
}  // namespace crmap
