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
  // Five rounds are too few for a 95% interval of the median (the whole range covers it 94% of the time): unknown.
  EXPECT_DOUBLE_EQ(r.median_low, 0);
  EXPECT_DOUBLE_EQ(r.median_high, 0);
  RatioStats six = ComputeRatioStats({0.5, 0.6, 0.4, 0.5, 0.5, 0.7});
  EXPECT_DOUBLE_EQ(six.median_low, 0.4);  // six: the whole range, 97%
  EXPECT_DOUBLE_EQ(six.median_high, 0.7);
}

TEST(StatisticsTest, TheMediansIntervalIsTheBinomialOrderStatistics) {
  // Textbook ranks of the 95% interval: n=6 -> [x1, x6], n=20 -> [x6, x15], n=30 -> [x10, x21], n=100 -> [x40, x61].
  EXPECT_EQ(MedianIntervalRank(6), 1);
  EXPECT_EQ(MedianIntervalRank(20), 6);
  EXPECT_EQ(MedianIntervalRank(30), 10);
  EXPECT_EQ(MedianIntervalRank(100), 40);
  EXPECT_EQ(MedianIntervalRank(5), 0);  // too few for 95%
  EXPECT_EQ(MedianIntervalRank(1), 0);
  EXPECT_EQ(MedianIntervalRank(0), 0);
  EXPECT_EQ(MedianIntervalRank(5, 0.9), 1);  // but the whole range covers it at 90%
  std::vector<double> ratios;
  for (int i = 30; i >= 1; --i) ratios.push_back(i / 100.0);  // unsorted on purpose
  RatioStats r = ComputeRatioStats(ratios);
  EXPECT_DOUBLE_EQ(r.median_low, 0.10);
  EXPECT_DOUBLE_EQ(r.median_high, 0.21);
  EXPECT_LE(r.median_low, r.median);
  EXPECT_GE(r.median_high, r.median);
}

}  // namespace
}  // namespace crmap
