#include "common/numeric.h"

#include <cmath>

#include <gtest/gtest.h>

namespace crmap {
namespace {

TEST(NumericTest, PercentileInterpolatesBetweenRanks) {
  std::vector<double> v = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(Percentile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.5), 3);
  EXPECT_DOUBLE_EQ(Percentile(v, 1.0), 5);
  EXPECT_DOUBLE_EQ(Percentile(v, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(Percentile(v, 7), 5);  // q clamped
  EXPECT_DOUBLE_EQ(Percentile({7}, 0.99), 7);
  EXPECT_DOUBLE_EQ(Percentile({}, 0.5), 0);
}

TEST(NumericTest, MedianSkipsNonFiniteValues) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, NAN, 2, 3}), 2.5);
  EXPECT_TRUE(std::isnan(Median({})));
}

TEST(NumericTest, GeometricMeanOfPositiveValuesOnly) {
  EXPECT_DOUBLE_EQ(GeometricMean({2, 8}), 4);
  EXPECT_TRUE(std::isnan(GeometricMean({2, 0})));
  EXPECT_TRUE(std::isnan(GeometricMean({})));
}

}  // namespace
}  // namespace crmap
