#include "common/two_nearest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace crmap {
namespace {

TwoNearest OfferAll(const std::vector<double>& distances) {
  TwoNearest nearest;
  for (size_t i = 0; i < distances.size(); ++i) nearest.Offer(static_cast<long>(i), distances[i]);
  return nearest;
}

TEST(TwoNearestTest, NothingOfferedLeavesBothEmptyAndOneOfferLeavesTheSecondEmpty) {
  EXPECT_EQ(OfferAll({}).first, -1);
  EXPECT_EQ(OfferAll({}).second, -1);
  const TwoNearest one = OfferAll({3.5});
  EXPECT_EQ(one.first, 0);
  EXPECT_EQ(one.second, -1);
  EXPECT_EQ(one.first_distance, 3.5);
}

TEST(TwoNearestTest, KeepsTheNearestAndTheNextWhateverTheOrderOfOffers) {
  const TwoNearest nearest = OfferAll({5, 1, 4, 0.5, 2});
  EXPECT_EQ(nearest.first, 3);
  EXPECT_EQ(nearest.second, 1);
  EXPECT_EQ(nearest.first_distance, 0.5);
  EXPECT_EQ(nearest.second_distance, 1);
  // A new nearest pushes the old one to second place.
  const TwoNearest pushed = OfferAll({2, 1});
  EXPECT_EQ(pushed.first, 1);
  EXPECT_EQ(pushed.second, 0);
}

// Ties: the first offered of equals comes first, and an equal distance never displaces an earlier offer from
// either place — the table order breaks ties, the same in the hook and the tuner's folds.
TEST(TwoNearestTest, TheFirstOfEqualsComesFirst) {
  const TwoNearest three = OfferAll({1, 1, 1});
  EXPECT_EQ(three.first, 0);
  EXPECT_EQ(three.second, 1);
  const TwoNearest later = OfferAll({4, 2, 3, 2, 3});
  EXPECT_EQ(later.first, 1);
  EXPECT_EQ(later.second, 3);
  const TwoNearest second_tie = OfferAll({1, 3, 3});
  EXPECT_EQ(second_tie.second, 1);
}

// Against a sort: over random distances with many ties, the two are the first two of a stable sort by distance.
TEST(TwoNearestTest, AgreesWithAStableSortOverRandomDistances) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> value(0, 6);  // few values: ties are common
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> distances(2 + static_cast<size_t>(trial % 9));
    for (double& d : distances) d = value(rng);
    std::vector<long> order(distances.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](long a, long b) {
      return distances[static_cast<size_t>(a)] < distances[static_cast<size_t>(b)];
    });
    const TwoNearest nearest = OfferAll(distances);
    EXPECT_EQ(nearest.first, order[0]) << "trial " << trial;
    EXPECT_EQ(nearest.second, order[1]) << "trial " << trial;
  }
}

// Distances are finite where they are used (log2 of positive dims); the rule for NaN is stated so it is known.
TEST(TwoNearestTest, ANaNDistanceTakesOnlyAnEmptyPlaceAndKeepsIt) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const TwoNearest after = OfferAll({1, 2, nan});
  EXPECT_EQ(after.first, 0);
  EXPECT_EQ(after.second, 1);
  const TwoNearest before = OfferAll({nan, 1});
  EXPECT_EQ(before.first, 0);  // nothing compares below NaN, so nothing displaces it
  EXPECT_EQ(before.second, 1);
}

}  // namespace
}  // namespace crmap
