#include "backend/validator.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace crmap {
namespace {

HostTensor T(Shape shape, std::vector<float> values) { return HostTensor{std::move(shape), std::move(values)}; }

TEST(ValidatorTest, MaxAbsErrorAcrossOutputs) {
  std::map<std::string, HostTensor> ref = {{"a", T({2}, {1, 2})}, {"b", T({1}, {5})}};
  std::map<std::string, HostTensor> out = {{"a", T({2}, {1, 2.25f})}, {"b", T({1}, {4.5f})}};
  auto report = CompareOutputs(out, ref, 0.3);
  ASSERT_TRUE(report.ok());
  EXPECT_DOUBLE_EQ(report->max_abs_error, 0.5);
  EXPECT_EQ(report->worst_output, "b");
  EXPECT_FALSE(report->within_budget);
  EXPECT_TRUE(CompareOutputs(out, ref, 0.5)->within_budget);
}

TEST(ValidatorTest, NanAndInfAreInfiniteErrors) {
  std::map<std::string, HostTensor> ref = {{"a", T({2}, {1, 2})}};
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    auto report = CompareOutputs({{"a", T({2}, {1, bad})}}, ref, 1e9);
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(std::isinf(report->max_abs_error));
    EXPECT_FALSE(report->within_budget);
  }
}

TEST(ValidatorTest, MismatchedNamesOrShapesAreErrors) {
  std::map<std::string, HostTensor> ref = {{"a", T({2}, {1, 2})}};
  EXPECT_FALSE(CompareOutputs({{"b", T({2}, {1, 2})}}, ref, 1).ok());
  EXPECT_FALSE(CompareOutputs({{"a", T({1, 2}, {1, 2})}}, ref, 1).ok());
  EXPECT_FALSE(CompareOutputs({}, ref, 1).ok());
}

}  // namespace
}  // namespace crmap
