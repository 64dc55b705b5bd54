#include "agents/synthetic_evaluator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/agents/agent_test_loop.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustConfig;
using testing::MustLoad;
using testing::MustSpace;
using testing::OneDimShapes;

class SyntheticEvaluatorTest : public ::testing::Test {
 protected:
  Workload workload_ = MustLoad("dlrm_mlp");
  SearchSpace space_ = MustSpace(workload_, 2);
  std::vector<Dims> shapes_ = OneDimShapes("batch", {1, 32, 512});
};

TEST_F(SyntheticEvaluatorTest, DefaultHasSpeedupOneAndOptimumIsBest) {
  SeparableLandscape landscape(space_, {});
  for (const Dims& dims : shapes_) {
    EXPECT_DOUBLE_EQ(landscape.Speedup(dims, space_.Default()), 1.0);
    const double optimum = landscape.OptimumSpeedup(dims);
    EXPECT_GT(optimum, 1.0);
    for (const Config& config : space_.Enumerate(KnobScope::kPlan))
      EXPECT_LE(landscape.Speedup(dims, config), optimum) << space_.ToString(config);
  }
}

TEST_F(SyntheticEvaluatorTest, ClosedFormOptimumMatchesBruteForce) {
  for (bool per_shape : {false, true}) {
    for (uint64_t seed : {1, 2, 3}) {
      SeparableOptions options;
      options.seed = seed;
      options.per_shape = per_shape;
      options.failing = {{"precision", "bf16"}};
      SeparableLandscape landscape(space_, options);
      for (const Dims& dims : shapes_)
        EXPECT_EQ(landscape.Optimum(dims), landscape.SyntheticEvaluator::Optimum(dims))
            << "seed " << seed << " " << DimsToText(dims);
    }
  }
}

TEST_F(SyntheticEvaluatorTest, EvaluationsReportSpeedupAndLatency) {
  SeparableLandscape landscape(space_, {});
  const Dims& dims = shapes_[1];
  Config config = MustConfig(space_, "weights=packed;fuse.fc1=bias");
  std::vector<Evaluation> evaluations = landscape.Evaluate({{dims, space_.Default()}, {dims, config}});
  ASSERT_EQ(evaluations.size(), 2u);
  for (const Evaluation& e : evaluations) {
    EXPECT_TRUE(e.ok());
    EXPECT_GT(e.median_us, 0);
    EXPECT_GE(e.p99_us, e.median_us);
  }
  EXPECT_DOUBLE_EQ(evaluations[0].speedup, 1.0);
  EXPECT_DOUBLE_EQ(evaluations[1].speedup, evaluations[0].median_us / evaluations[1].median_us);
  EXPECT_DOUBLE_EQ(evaluations[1].median_us, landscape.LatencyUs(dims, config));
}

TEST_F(SyntheticEvaluatorTest, SeparableLatencyIsTheProductOfFactors) {
  SeparableLandscape landscape(space_, {});
  const Dims& dims = shapes_[0];
  Config a = space_.Default();
  Config b = MustConfig(space_, "weights=packed");
  const size_t weights = static_cast<size_t>(space_.FindKnob("weights"));
  EXPECT_NEAR(landscape.LatencyUs(dims, b) / landscape.LatencyUs(dims, a),
              landscape.Factor(dims, weights, 1) / landscape.Factor(dims, weights, 0), 1e-12);
}

TEST_F(SyntheticEvaluatorTest, FailingValuesAreUnsupportedEverywhere) {
  SeparableOptions options;
  options.failing = {{"precision", "bf16"}, {"precision", "fp8"}, {"nonsense", "x"}};
  SeparableLandscape landscape(space_, options);
  EXPECT_EQ(landscape.unknown(), (std::vector<KnobValue>{{"precision", "fp8"}, {"nonsense", "x"}}));
  const Dims& dims = shapes_[2];
  size_t failing = 0;
  for (const Config& config : space_.Enumerate(KnobScope::kPlan)) {
    Evaluation e = landscape.Evaluate({{dims, config}})[0];
    bool bf16 = space_.ValueOf(config, KnobKind::kPrecision) == "bf16";
    EXPECT_EQ(e.status, bf16 ? EvalStatus::kUnsupported : EvalStatus::kOk);
    if (!bf16) continue;
    ++failing;
    EXPECT_EQ(e.speedup, 0);
    EXPECT_EQ(Reward(e), kFailureReward);
    EXPECT_NE(e.message.find("precision=bf16"), std::string::npos) << e.message;
  }
  EXPECT_EQ(failing, space_.Size(KnobScope::kPlan) / 2);
  EXPECT_EQ(space_.ValueOf(landscape.Optimum(dims), KnobKind::kPrecision), "f32");
}

TEST_F(SyntheticEvaluatorTest, FactorsAreFixedBySeed) {
  SeparableOptions options;
  options.seed = 5;
  SeparableLandscape a(space_, options), b(space_, options);
  options.seed = 6;
  SeparableLandscape c(space_, options);
  bool differs = false;
  for (const Config& config : space_.Enumerate(KnobScope::kPlan)) {
    EXPECT_EQ(a.Speedup(shapes_[0], config), b.Speedup(shapes_[0], config));
    differs |= a.Speedup(shapes_[0], config) != c.Speedup(shapes_[0], config);
  }
  EXPECT_TRUE(differs);
  // Spread bounds every factor.
  for (size_t k = 0; k < space_.knobs().size(); ++k)
    for (int v = 0; v < static_cast<int>(space_.knobs()[k].values.size()); ++v) {
      EXPECT_GE(a.Factor(shapes_[0], k, v), 1.0 / 3.0);
      EXPECT_LE(a.Factor(shapes_[0], k, v), 3.0);
    }
}

TEST_F(SyntheticEvaluatorTest, PerShapeFactorsGiveEachShapeItsOwnOptimum) {
  SeparableOptions options;
  SeparableLandscape shared(space_, options);
  options.per_shape = true;
  SeparableLandscape own(space_, options);
  for (const Dims& dims : shapes_) EXPECT_EQ(shared.Optimum(dims), shared.Optimum(shapes_[0]));
  bool differs = false;
  for (const Dims& dims : shapes_) differs |= own.Optimum(dims) != own.Optimum(shapes_[0]);
  EXPECT_TRUE(differs);
}

TEST_F(SyntheticEvaluatorTest, CountsAndRecordsEveryEvaluation) {
  SeparableLandscape landscape(space_, {});
  Candidate a{shapes_[0], space_.Default()};
  Candidate b{shapes_[1], space_.Default()};
  landscape.Evaluate({a, b});
  EXPECT_EQ(landscape.evaluations(), 2u);
  EXPECT_EQ(landscape.repeated(), 0u);
  landscape.Evaluate({a});
  landscape.Evaluate({});
  EXPECT_EQ(landscape.evaluations(), 3u);
  EXPECT_EQ(landscape.repeated(), 1u);
  ASSERT_EQ(landscape.evaluated().size(), 3u);
  EXPECT_EQ(landscape.evaluated()[1], b);
  EXPECT_EQ(landscape.evaluated()[2], a);
}

TEST_F(SyntheticEvaluatorTest, RuntimeKnobsDoNotChangeLatency) {
  SeparableLandscape landscape(space_, {});
  Config batched = MustConfig(space_, "batch=16;placement=per_core");
  EXPECT_DOUBLE_EQ(landscape.LatencyUs(shapes_[1], batched), landscape.LatencyUs(shapes_[1], space_.Default()));
}

TEST_F(SyntheticEvaluatorTest, ShapeFlipOptimumFlipsAtTheThreshold) {
  ShapeFlipOptions options;
  options.knob = "threads";
  options.threshold = 64;
  ShapeFlipLandscape landscape(space_, options);
  const int threads = space_.FindKnob("threads");
  ASSERT_EQ(landscape.flip_knob(), threads);
  const Knob& knob = space_.knobs()[static_cast<size_t>(threads)];
  Dims small{{"batch", 32}}, large{{"batch", 64}};
  EXPECT_TRUE(landscape.IsSmall(small));
  EXPECT_FALSE(landscape.IsSmall(large));
  Config small_best = landscape.Optimum(small), large_best = landscape.Optimum(large);
  EXPECT_EQ(small_best.values[static_cast<size_t>(threads)], 0);
  EXPECT_EQ(large_best.values[static_cast<size_t>(threads)], static_cast<int>(knob.values.size()) - 1);
  // Only the flip knob differs, and each optimum is what brute force finds.
  Config aligned = small_best;
  aligned.values[static_cast<size_t>(threads)] = large_best.values[static_cast<size_t>(threads)];
  EXPECT_EQ(aligned, large_best);
  EXPECT_EQ(small_best, landscape.SyntheticEvaluator::Optimum(small));
  EXPECT_EQ(large_best, landscape.SyntheticEvaluator::Optimum(large));
  // The small shape's optimum costs the large shape the flip gain (1 / 0.4).
  EXPECT_NEAR(landscape.OptimumSpeedup(large) / landscape.Speedup(large, small_best), 2.5, 1e-9);
  EXPECT_EQ(landscape.BestFlipValue(small), 0);
}

TEST_F(SyntheticEvaluatorTest, ShapeFlipTakesValueNames) {
  ShapeFlipOptions options;
  options.knob = "weights";
  options.small_best = "packed";
  options.large_best = "stored";
  ShapeFlipLandscape landscape(space_, options);
  EXPECT_EQ(space_.ValueOf(landscape.Optimum({{"batch", 1}}), KnobKind::kWeights), "packed");
  EXPECT_EQ(space_.ValueOf(landscape.Optimum({{"batch", 2048}}), KnobKind::kWeights), "stored");
}

TEST_F(SyntheticEvaluatorTest, ShapeFlipWithoutTheKnobIsPlainSeparable) {
  ShapeFlipOptions options;
  options.knob = "layout";  // dlrm_mlp has no image ops, hence no layout knob
  ShapeFlipLandscape landscape(space_, options);
  EXPECT_EQ(landscape.flip_knob(), -1);
  EXPECT_EQ(landscape.Optimum(shapes_[0]), landscape.Optimum(shapes_[2]));
  options.knob = "threads";
  options.small_best = "64";  // not a value of the knob
  EXPECT_EQ(ShapeFlipLandscape(space_, options).flip_knob(), -1);
}

}  // namespace
}  // namespace crmap
