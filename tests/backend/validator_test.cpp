#include "backend/validator.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace crmap {
namespace {

HostTensor T(Shape shape, std::vector<float> values) { return HostTensor{std::move(shape), std::move(values)}; }

TEST(ValidatorTest, ScaledErrorIsTheWorstOutputsErrorOverItsLargestValue) {
  // a: scale 2, max abs error 0.25 -> 0.125; b: scale 5, error 0.5 -> 0.1. The worst output is a, although b
  // holds the larger absolute error.
  std::map<std::string, HostTensor> ref = {{"a", T({2}, {1, -2})}, {"b", T({1}, {5})}};
  std::map<std::string, HostTensor> out = {{"a", T({2}, {1, -2.25f})}, {"b", T({1}, {4.5f})}};
  auto report = CompareOutputs(out, ref, 0.12);
  ASSERT_TRUE(report.ok());
  EXPECT_DOUBLE_EQ(report->error.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(report->error.scaled, 0.125);
  EXPECT_EQ(report->error.worst_output, "a");
  EXPECT_FALSE(report->within_budget);
  EXPECT_TRUE(CompareOutputs(out, ref, 0.125)->within_budget);
}

TEST(ValidatorTest, RelativeErrorHasAFloorAtATinyFractionOfTheScale) {
  // 1e-6 next to a value of 1000: the floor is 1e-3 * 1000 = 1, so an error of 0.5 there is 0.5, not 5e5.
  std::map<std::string, HostTensor> ref = {{"a", T({3}, {1000, 1e-6f, 10})}};
  std::map<std::string, HostTensor> out = {{"a", T({3}, {1000, 0.5f, 10.5f})}};
  auto report = CompareOutputs(out, ref, 1);
  ASSERT_TRUE(report.ok());
  EXPECT_NEAR(report->error.max_rel, 0.5, 1e-6);  // max(0.5 / 1 at the tiny value, 0.5 / 10 = 0.05)
  EXPECT_NEAR(report->error.scaled, 0.5 / 1000, 1e-9);
}

TEST(ValidatorTest, AnAllZeroOutputIsJudgedByAbsoluteError) {
  std::map<std::string, HostTensor> ref = {{"a", T({2}, {0, 0})}};
  auto report = CompareOutputs({{"a", T({2}, {0, 0.25f})}}, ref, 1);
  ASSERT_TRUE(report.ok());
  EXPECT_DOUBLE_EQ(report->error.scaled, 0.25);
}

TEST(ValidatorTest, NanAndInfAreInfiniteErrors) {
  std::map<std::string, HostTensor> ref = {{"a", T({2}, {1, 2})}};
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    auto report = CompareOutputs({{"a", T({2}, {1, bad})}}, ref, 1e9);
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(std::isinf(report->error.max_abs));
    EXPECT_TRUE(std::isinf(report->error.scaled));
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
