#include "tuner/backend_evaluator.h"

#include <gtest/gtest.h>

#include "backend/host.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

TEST(BackendEvaluatorTest, MeasuresEachShapeAgainstTheDefaultAnchor) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  SearchSpace space = testing::MustSpace(workload);
  BackendEvaluatorOptions options;
  options.session.measure.rounds = 3;
  options.session.measure.warmup = 1;
  BackendEvaluator evaluator(workload, space, options);
  Dims a = {{"batch", 1}}, b = {{"batch", 4}};
  std::vector<Candidate> candidates = {{a, testing::MustConfig(space, "threads=1")},
                                       {b, testing::MustConfig(space, "weights=packed")},
                                       {a, testing::MustConfig(space, "precision=bf16")},
                                       {b, space.Default()}};
  std::vector<Evaluation> out = evaluator.Evaluate(candidates);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].status, EvalStatus::kOk) << out[0].message;
  EXPECT_GT(out[0].speedup, 0);
  EXPECT_GT(out[0].median_us, 0);
  EXPECT_EQ(out[1].status, EvalStatus::kOk);
  EXPECT_EQ(out[2].status, DetectHost().has_bf16 ? EvalStatus::kOk : EvalStatus::kUnsupported);
  EXPECT_DOUBLE_EQ(out[3].speedup, 1.0);  // the default is its own anchor
  // Full backend results for the database, parallel to the candidates; one anchor per shape.
  ASSERT_EQ(evaluator.last_results().size(), 4u);
  EXPECT_EQ(evaluator.last_results()[1].config, candidates[1].config);
  EXPECT_EQ(evaluator.last_results()[1].anchor_label, space.ToString(space.Default()));
  ASSERT_EQ(evaluator.last_anchors().size(), 2u);
  EXPECT_EQ(evaluator.last_anchors()[0].first, a);
  EXPECT_EQ(evaluator.last_anchors()[1].first, b);
}

TEST(BackendEvaluatorTest, StatusMapping) {
  EXPECT_EQ(ToEvalStatus(CandidateStatus::kOverMemory), EvalStatus::kOverMemory);
  EXPECT_EQ(ToEvalStatus(CandidateStatus::kWrongAnswer), EvalStatus::kWrongAnswer);
  CandidateResult failed;
  failed.status = CandidateStatus::kTimeout;
  EXPECT_EQ(ToEvaluation(failed).status, EvalStatus::kTimeout);
  EXPECT_EQ(ToEvaluation(failed).speedup, 0);
  CandidateResult ok;
  ok.status = CandidateStatus::kOk;
  ok.ratio_to_anchor = {0.5, 0.4, 0.6, 3};
  EXPECT_DOUBLE_EQ(ToEvaluation(ok).speedup, 2.0);
}

// The case: a config that wins the median by 1.7x and loses p95 by 10x is the agents' loss when the tail
// was asked for.
TEST(BackendEvaluatorTest, TheSpeedupIsReadAtTheObjective) {
  CandidateResult result;
  result.status = CandidateStatus::kOk;
  result.ratio_to_anchor = {1 / 1.7, 0.5, 0.7, 100};
  result.p95_ratio_to_anchor = 10;
  result.p99_ratio_to_anchor = 4;
  EXPECT_NEAR(ToEvaluation(result, Objective::kMedian).speedup, 1.7, 1e-12);
  EXPECT_NEAR(ToEvaluation(result, Objective::kP95).speedup, 0.1, 1e-12);
  EXPECT_NEAR(ToEvaluation(result, Objective::kP99).speedup, 0.25, 1e-12);
  EXPECT_LT(Reward(ToEvaluation(result, Objective::kP95)), 0);
  EXPECT_GT(Reward(ToEvaluation(result, Objective::kMedian)), 0);
  result.p95_ratio_to_anchor = 0;  // no anchor's tail: unknown, never a free win
  EXPECT_EQ(ToEvaluation(result, Objective::kP95).speedup, 0);
}

}  // namespace
}  // namespace crmap
