#include "tuner/policy_evaluation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/runtime/hook/policy_test_support.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

// A policy skeleton of dlrm_mlp tuned at batch 2 and 64 (only the table matters here).
PolicyFile TunedAt(std::vector<int64_t> batches) {
  PolicyFile file;
  file.workload = "dlrm_mlp";
  file.dims = {{"batch", 1, 2048}};
  file.knobs = {{"threads", true, {"1", "2"}, 1}};
  for (int64_t b : batches) file.table.push_back(TableEntry{{b}, {0}, 1, 1, 1});
  return file;
}

TEST(PolicyEvaluationTest, HeldOutShapesSkipTunedOnesAndListedShapesAllCount) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  EvaluationRequest request;
  request.shapes = "batch=2;batch=3;batch=64;batch=100";
  auto shapes = HeldOutShapes(request, workload, TunedAt({2, 64}));
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(*shapes, (std::vector<Dims>{{{"batch", 3}}, {{"batch", 100}}}));
  request.held_out = 1;
  request.held_out_given = true;  // --held-out caps the list
  EXPECT_EQ(HeldOutShapes(request, workload, TunedAt({2, 64}))->size(), 1u);
  request.shapes = "batch=2;batch=64";
  auto none = HeldOutShapes(request, workload, TunedAt({2, 64}));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no shape the policy was not tuned on"), std::string::npos);
  request.held_out = 0;
  EXPECT_EQ(HeldOutShapes(request, workload, TunedAt({2})).status().code(), StatusCode::kInvalidArgument);
}

TEST(PolicyEvaluationTest, DrawnShapesAreDeterministicForASeedAndNeverTuned) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  EvaluationRequest request;
  request.shapes = "dlrm_mlp_online";
  request.held_out = 5;
  request.seed = 7;
  auto a = HeldOutShapes(request, workload, TunedAt({1, 2, 4, 8}));
  auto b = HeldOutShapes(request, workload, TunedAt({1, 2, 4, 8}));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(a->size(), 5u);
  for (const Dims& dims : *a) {
    const int64_t batch = dims.at("batch");
    EXPECT_TRUE(batch != 1 && batch != 2 && batch != 4 && batch != 8) << batch;
  }
}

TEST(PolicyEvaluationTest, TheNearestTunedShapeIsNearestInLogSpace) {
  PolicyFile file = TunedAt({2, 64});
  EXPECT_EQ(NearestTunedShape(file, {8}), 0u);   // log2 8 = 3: 2 from log2 2, 3 from log2 64
  EXPECT_EQ(NearestTunedShape(file, {16}), 1u);  // log2 16 = 4: 3 from log2 2, 2 from log2 64
  EXPECT_EQ(NearestTunedShape(file, {1}), 0u);
}

TEST(PolicyEvaluationTest, AMissingPolicyOrOneWithoutTunedShapesIsRefusedBeforeAnythingIsMeasured) {
  EvaluationRequest request;
  request.policy_path = "/nonexistent/p.policy";
  request.shapes = "batch=3";
  EXPECT_EQ(EvaluatePolicy(request).status().code(), StatusCode::kNotFound);
  PolicyFile empty = testing::MakeSyntheticPolicy();
  empty.table.clear();
  request.policy_path = testing::WriteTestPolicy("evaluate_empty_table.policy", empty);
  auto refused = EvaluatePolicy(request);
  ASSERT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("has no tuned shapes"), std::string::npos) << refused.status().message();
}

// A pick measured in a run whose anchor was the oracle: per-round ratios pick / oracle summarised.
CandidateResult PickInRun(double median, double low, double high, double p95_ratio = 0) {
  CandidateResult pick;
  pick.ratio_to_anchor.median = median;
  pick.ratio_to_anchor.median_low = low;
  pick.ratio_to_anchor.median_high = high;
  pick.ratio_to_anchor.rounds = 30;
  pick.p95_ratio_to_anchor = p95_ratio;
  return pick;
}

TEST(PolicyEvaluationTest, TheOracleRatioIsTheInverseOfThePicksRatioToTheOracleAtMostOne) {
  // 10% slower than the oracle, the median's interval 1.02..1.25: ratio 0.909, interval 0.8..0.98.
  OracleRatio slower = OracleRatioInRun(PickInRun(1.1, 1.02, 1.25), Objective::kMedian);
  EXPECT_NEAR(slower.ratio, 1 / 1.1, 1e-12);
  EXPECT_NEAR(slower.low, 0.8, 1e-12);
  EXPECT_NEAR(slower.high, 1 / 1.02, 1e-12);
  // Faster than the oracle in this run (a tie the sweep broke the other way): 1, the interval may pass 1.
  OracleRatio faster = OracleRatioInRun(PickInRun(0.97, 0.9, 1.05), Objective::kMedian);
  EXPECT_DOUBLE_EQ(faster.ratio, 1);
  EXPECT_NEAR(faster.low, 1 / 1.05, 1e-12);
  EXPECT_NEAR(faster.high, 1 / 0.9, 1e-12);
  // A tail objective: the ratio of the tails, its interval unknown.
  OracleRatio tail = OracleRatioInRun(PickInRun(1.0, 0.9, 1.1, 1.25), Objective::kP95);
  EXPECT_DOUBLE_EQ(tail.ratio, 0.8);
  EXPECT_DOUBLE_EQ(tail.low, 0);
  EXPECT_EQ(tail.high, std::numeric_limits<double>::infinity());
  // Too few rounds for a 95% interval of the median (ComputeRatioStats leaves both ends 0): unknown too.
  OracleRatio few = OracleRatioInRun(PickInRun(1.1, 0, 0), Objective::kMedian);
  EXPECT_NEAR(few.ratio, 1 / 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(few.low, 0);
  EXPECT_EQ(few.high, std::numeric_limits<double>::infinity());
  // A failed pick, or one without a ratio, scores 0.
  CandidateResult failed = PickInRun(1.0, 0.9, 1.1);
  failed.status = CandidateStatus::kError;
  EXPECT_DOUBLE_EQ(OracleRatioInRun(failed, Objective::kMedian).ratio, 0);
  EXPECT_DOUBLE_EQ(OracleRatioInRun(CandidateResult{}, Objective::kMedian).high, 0);
}

TEST(PolicyEvaluationTest, ASummaryCountsShapesClearlyWithinAndClearlyMissedApartFromTies) {
  const std::vector<OracleRatio> ratios = {
      {1.0, 1.0, 1.0},     // the oracle itself: clearly within
      {0.97, 0.96, 1.1},   // clearly within
      {0.96, 0.90, 1.02},  // within, but its interval reaches below 0.95: a tie
      {0.93, 0.88, 0.99},  // outside, but its interval reaches 0.95: a tie
      {0.80, 0.70, 0.90},  // clearly missed
  };
  MethodSummary summary = SummarizeOracleRatios(ratios);
  EXPECT_EQ(summary.within, 3u);
  EXPECT_DOUBLE_EQ(summary.ctma, 0.6);
  EXPECT_EQ(summary.clearly_within, 2u);
  EXPECT_EQ(summary.clear_misses, 1u);
  EXPECT_DOUBLE_EQ(summary.worst, 0.80);
  EXPECT_EQ(summary.worst_shape, 4u);
  EXPECT_NEAR(summary.geo_mean, std::pow(1.0 * 0.97 * 0.96 * 0.93 * 0.80, 0.2), 1e-12);
  // A failed pick (0) counts as 1e-6 in the mean and is the worst.
  MethodSummary failing = SummarizeOracleRatios({{1, 1, 1}, {}});
  EXPECT_NEAR(failing.geo_mean, 1e-3, 1e-12);
  EXPECT_EQ(failing.worst_shape, 1u);
  EXPECT_EQ(failing.clear_misses, 1u);
  EXPECT_EQ(SummarizeOracleRatios({}).within, 0u);
  // Shapes without a known interval are neither clearly within nor clearly missed, whatever their ratio.
  MethodSummary unknown = SummarizeOracleRatios({OracleRatio::Unknown(1.0), OracleRatio::Unknown(0.5)});
  EXPECT_EQ(unknown.within, 1u);
  EXPECT_EQ(unknown.clearly_within, 0u);
  EXPECT_EQ(unknown.clear_misses, 0u);
}

}  // namespace
}  // namespace crmap
