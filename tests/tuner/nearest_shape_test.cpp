#include "tuner/nearest_shape.h"

#include <gtest/gtest.h>

namespace crmap {
namespace {

TEST(NearestShapesTest, NearestByLog2DistanceOverTheAskedDims) {
  NearestShapes shapes({{{"batch", 1}, {"seq", 128}}, {{"batch", 8}, {"seq", 128}}, {{"batch", 1}, {"seq", 512}}});
  EXPECT_EQ(shapes.Nearest({{"batch", 1}, {"seq", 100}}), 0u);
  EXPECT_EQ(shapes.Nearest({{"batch", 6}, {"seq", 128}}), 1u);  // log2: 6 is nearer 8 than 1
  EXPECT_EQ(shapes.Nearest({{"batch", 2}, {"seq", 400}}), 2u);
  EXPECT_EQ(shapes.Nearest({{"batch", 3}, {"seq", 128}}), 1u);  // |log2 3 - 3| < |log2 3 - 0|
}

TEST(NearestShapesTest, ADimAShapeLacksCountsAsOneAndTiesGoToTheFirst) {
  NearestShapes shapes({{{"tokens", 4}}, {{"tokens", 4}}, {{"batch", 2}}});
  EXPECT_EQ(shapes.Nearest({{"tokens", 4}}), 0u);
  EXPECT_EQ(shapes.Nearest({{"tokens", 1}, {"batch", 2}}), 2u);  // tokens 1 = log 0 on the batch-only shape
}

// The nearest two: in order of distance, the first of equals first, whatever order the shapes come in.
TEST(NearestShapesTest, NearestTwoAreTheNearestAndTheNextInOrder) {
  NearestShapes shapes({{{"batch", 64}}, {{"batch", 2}}, {{"batch", 8}}, {{"batch", 512}}});
  EXPECT_EQ(shapes.NearestTwo({{"batch", 20}}), (std::pair<size_t, size_t>{2, 0}));  // 8 (1.3), then 64 (1.7)
  EXPECT_EQ(shapes.NearestTwo({{"batch", 1}}), (std::pair<size_t, size_t>{1, 2}));
  EXPECT_EQ(shapes.NearestTwo({{"batch", 4096}}), (std::pair<size_t, size_t>{3, 0}));
  EXPECT_EQ(shapes.NearestTwo({{"batch", 4}}), (std::pair<size_t, size_t>{1, 2}));  // 2 and 8 tie: the first first
  NearestShapes two({{{"batch", 16}}, {{"batch", 1}}});
  EXPECT_EQ(two.NearestTwo({{"batch", 1}}), (std::pair<size_t, size_t>{1, 0}));
  NearestShapes one({{{"batch", 16}}});  // as documented: the second index is 1, out of range
  EXPECT_EQ(one.NearestTwo({{"batch", 3}}), (std::pair<size_t, size_t>{0, 1}));
  EXPECT_EQ(one.Nearest({{"batch", 3}}), 0u);
}

// Beyond the range: some dim below the smallest or above the largest value it takes among the shapes; a shape
// inside every dim's range is within it even where no shape has its combination of values.
TEST(NearestShapesTest, BeyondTheRangeMeansSomeDimOutsideTheShapesRange) {
  const std::vector<Dims> tuned = {{{"batch", 2}, {"seq", 16}}, {{"batch", 8}, {"seq", 64}}};
  EXPECT_FALSE(BeyondRangeOf({{"batch", 2}, {"seq", 64}}, tuned));
  EXPECT_FALSE(BeyondRangeOf({{"batch", 8}, {"seq", 16}}, tuned));
  EXPECT_FALSE(BeyondRangeOf({{"batch", 4}, {"seq", 32}}, tuned));
  EXPECT_TRUE(BeyondRangeOf({{"batch", 1}, {"seq", 32}}, tuned));
  EXPECT_TRUE(BeyondRangeOf({{"batch", 4}, {"seq", 65}}, tuned));
  EXPECT_TRUE(BeyondRangeOf({{"batch", 16}, {"seq", 8}}, tuned));
  EXPECT_FALSE(BeyondRangeOf({{"tokens", 100}}, tuned)) << "a dim no tuned shape has is not counted";
  EXPECT_FALSE(BeyondRangeOf({{"batch", 100}}, {})) << "no shapes: no range to be beyond";
}

// Above the range: some dim above the largest value it takes among the shapes, and none below the smallest.
TEST(NearestShapesTest, AboveTheRangeMeansSomeDimAboveAndNoneBelow) {
  const std::vector<Dims> tuned = {{{"batch", 2}, {"seq", 16}}, {{"batch", 8}, {"seq", 64}}};
  EXPECT_FALSE(AboveRangeOf({{"batch", 2}, {"seq", 64}}, tuned)) << "inside";
  EXPECT_TRUE(AboveRangeOf({{"batch", 9}, {"seq", 16}}, tuned));
  EXPECT_TRUE(AboveRangeOf({{"batch", 16}, {"seq", 128}}, tuned));
  EXPECT_FALSE(AboveRangeOf({{"batch", 1}, {"seq", 32}}, tuned)) << "below";
  EXPECT_FALSE(AboveRangeOf({{"batch", 16}, {"seq", 8}}, tuned)) << "one dim above, another below";
  EXPECT_FALSE(AboveRangeOf({{"tokens", 100}}, tuned)) << "a dim no tuned shape has is not counted";
  EXPECT_FALSE(AboveRangeOf({{"batch", 100}}, {})) << "no shapes: no range to be above";
}

}  // namespace
}  // namespace crmap
