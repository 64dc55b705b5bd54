#include "backend/statistics.h"

#include <cmath>

#include <gtest/gtest.h>

namespace crmap {
namespace {

TEST(StatisticsTest, LatencyStatsOfKnownSamples) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(i);  // unsorted on purpose
  LatencyStats s = ComputeLatencyStats(samples);
  EXPECT_EQ(s.rounds, 100);
  EXPECT_DOUBLE_EQ(s.min_us, 1);
  EXPECT_DOUBLE_EQ(s.median_us, 50.5);
  EXPECT_NEAR(s.p90_us, 90.1, 1e-9);
  EXPECT_NEAR(s.p95_us, 95.05, 1e-9);
  EXPECT_NEAR(s.p99_us, 99.01, 1e-9);
  EXPECT_DOUBLE_EQ(s.mean_us, 50.5);
  EXPECT_NEAR(s.cv, std::sqrt((100.0 * 100 - 1) / 12) / 50.5, 1e-9);
}

TEST(StatisticsTest, ConstantSamplesHaveZeroSpread) {
  LatencyStats s = ComputeLatencyStats({3, 3, 3});
  EXPECT_DOUBLE_EQ(s.cv, 0);
  EXPECT_DOUBLE_EQ(s.p99_us, 3);
  EXPECT_EQ(ComputeLatencyStats({}).rounds, 0);
}

TEST(StatisticsTest, RatioBand) {
  RatioStats r = ComputeRatioStats({0.5, 0.6, 0.4, 0.5, 0.5});
  EXPECT_DOUBLE_EQ(r.median, 0.5);
  EXPECT_NEAR(r.p10, 0.44, 1e-9);
  EXPECT_NEAR(r.p90, 0.56, 1e-9);
  EXPECT_EQ(r.rounds, 5);
}

}  // namespace
}  // namespace crmap
