#include "backend/objective.h"

#include <vector>

#include <gtest/gtest.h>

namespace crmap {
namespace {

TEST(ObjectiveTest, NamesRoundTrip) {
  for (Objective objective : {Objective::kMedian, Objective::kP95, Objective::kP99})
    EXPECT_EQ(ParseObjective(ObjectiveName(objective)), objective);
  for (const char* bad : {"", "P95", "p90", "mean", "median "}) EXPECT_FALSE(ParseObjective(bad).has_value()) << bad;
  EXPECT_STREQ(ObjectiveNames(), "median, p95, p99");
}

TEST(ObjectiveTest, LatencyAtReadsTheObjectivesStatistic) {
  std::vector<double> samples;
  for (int i = 1; i <= 1000; ++i) samples.push_back(i);
  LatencyStats stats = ComputeLatencyStats(samples);
  EXPECT_DOUBLE_EQ(LatencyAt(stats, Objective::kMedian), stats.median_us);
  EXPECT_DOUBLE_EQ(LatencyAt(stats, Objective::kP95), stats.p95_us);
  EXPECT_DOUBLE_EQ(LatencyAt(stats, Objective::kP99), stats.p99_us);
  EXPECT_LT(LatencyAt(stats, Objective::kMedian), LatencyAt(stats, Objective::kP95));
  EXPECT_LT(LatencyAt(stats, Objective::kP95), LatencyAt(stats, Objective::kP99));
}

// The rule: at the minimum, at least 5 samples lie above the quantile, so that no single outlier decides it.
TEST(ObjectiveTest, MinimumRoundsLeaveFiveSamplesBeyondTheQuantile) {
  EXPECT_EQ(MinimumRounds(Objective::kMedian), 1);
  EXPECT_EQ(MinimumRounds(Objective::kP95), 100);
  EXPECT_EQ(MinimumRounds(Objective::kP99), 500);
  for (Objective objective : {Objective::kP95, Objective::kP99}) {
    const int n = MinimumRounds(objective);
    std::vector<double> samples;
    for (int i = 0; i < n; ++i) samples.push_back(i);
    const double quantile = LatencyAt(ComputeLatencyStats(samples), objective);
    int beyond = 0;
    for (double s : samples) beyond += s > quantile;
    EXPECT_GE(beyond, 5) << ObjectiveName(objective);
    // Up to 4 outliers cannot move it; the 5th can (5 samples beyond, no fewer and not needlessly more).
    for (int k = 1; k <= 4; ++k) samples[static_cast<size_t>(n - k)] = 1e9;
    EXPECT_NEAR(LatencyAt(ComputeLatencyStats(samples), objective), quantile, 1e-9) << ObjectiveName(objective);
    samples[static_cast<size_t>(n - 5)] = 1e9;
    EXPECT_GT(LatencyAt(ComputeLatencyStats(samples), objective), quantile + 1) << ObjectiveName(objective);
  }
}

}  // namespace
}  // namespace crmap
