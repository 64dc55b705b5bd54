#include "datasets/shape_quantiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "datasets/catalog.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

// bert_ffn: tokens in [1, 4096]; bert_attention: batch in [1, 16], seq in [8, 512].
const Workload& BertFfn() { return testing::MustLoadOnce("bert_ffn"); }
const Workload& BertAttention() { return testing::MustLoadOnce("bert_attention"); }

using testing::MustParseDistribution;

ShapeDistribution Chat() {  // tokens: lognormal around 64, up to 4096
  return MustParseDistribution(
      R"({"tokens": {"type": "lognormal", "median": 64, "sigma": 1.0, "min": 1, "max": 4096}})", BertFfn());
}

ShapeDistribution Attention() {
  return MustParseDistribution(
      R"({"batch": {"type": "categorical", "values": [1, 2, 4, 8, 16], "weights": [8, 4, 2, 1, 1]},
      "seq": {"type": "lognormal", "median": 64, "sigma": 1.2, "min": 8, "max": 512}})",
      BertAttention());
}

// The share of `draws` fresh draws (another generator than the quantiles') whose `dim` lies strictly below the
// smallest or above the largest of `shapes`.
double ShareBeyondRange(const ShapeDistribution& distribution, const std::vector<Dims>& shapes, const std::string& dim,
                        uint64_t seed, int draws = 20000) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const Dims& dims : shapes) {
    lo = std::min(lo, dims.at(dim));
    hi = std::max(hi, dims.at(dim));
  }
  std::mt19937_64 rng(seed);
  int beyond = 0;
  for (int i = 0; i < draws; ++i) {
    int64_t value = distribution.Sample(rng).at(dim);
    beyond += value < lo || value > hi;
  }
  return static_cast<double>(beyond) / draws;
}

TEST(ShapeQuantilesTest, OneShapePerEqualShareOfTheMass) {
  ShapeDistribution chat = Chat();
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<Dims> shapes = QuantileShapes(chat, 8, seed);
    ASSERT_EQ(shapes.size(), 8u);
    EXPECT_EQ(std::set<Dims>(shapes.begin(), shapes.end()).size(), 8u) << "distinct";
    // Each of the 8 shares of fresh draws' mass holds one tuned value: the share of fresh draws below the i-th
    // smallest tuned value is near its quantile (i + 0.5) / 8 (the pool's quantiles, so within a few percent).
    std::vector<int64_t> tuned;
    for (const Dims& dims : shapes) tuned.push_back(dims.at("tokens"));
    std::sort(tuned.begin(), tuned.end());
    std::mt19937_64 rng(seed + 1000);
    std::vector<int64_t> fresh(20000);
    for (int64_t& value : fresh) value = chat.Sample(rng).at("tokens");
    for (size_t i = 0; i < tuned.size(); ++i) {
      double below =
          static_cast<double>(std::count_if(fresh.begin(), fresh.end(), [&](int64_t v) { return v < tuned[i]; })) /
          fresh.size();
      EXPECT_NEAR(below, (i + 0.5) / 8, 0.04) << "tuned value " << tuned[i] << ", seed " << seed;
    }
    EXPECT_EQ(QuantileShapes(chat, 8, seed), shapes) << "deterministic for a seed";
  }
}

TEST(ShapeQuantilesTest, FewerFreshDrawsLieBeyondTheRangeThanBeyondDrawnShapes) {
  // Over seeds, a fresh draw lies beyond 8 quantile shapes' range about 1 in 8 times, beyond 8 distinct draws'
  // range about 2 in 9: the point of the choice. The drawn share varies much from seed to seed (sd about 0.13), so
  // the mean is taken over 200 seeds (its sd about 0.01 against a difference near 0.09).
  ShapeDistribution chat = Chat();
  double quantiles = 0, drawn = 0;
  const int seeds = 200;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    quantiles += ShareBeyondRange(chat, QuantileShapes(chat, 8, seed), "tokens", seed + 500, 2000) / seeds;
    drawn += ShareBeyondRange(chat, SampleDistinct(chat, 8, seed, 1600), "tokens", seed + 500, 2000) / seeds;
  }
  EXPECT_NEAR(quantiles, 1.0 / 8, 0.03);
  EXPECT_GT(drawn, quantiles + 0.05) << "draws " << drawn << ", quantiles " << quantiles;
}

TEST(ShapeQuantilesTest, EveryDimIsStratifiedAndThePairingIsShuffledBySeed) {
  ShapeDistribution attention = Attention();
  int shuffled = 0;
  std::set<std::vector<size_t>> pairings;  // seq's quantile rank in each shape, shape by shape
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<Dims> shapes = QuantileShapes(attention, 8, seed);
    ASSERT_EQ(shapes.size(), 8u);
    EXPECT_EQ(std::set<Dims>(shapes.begin(), shapes.end()).size(), 8u) << "distinct";
    for (const Dims& dims : shapes) EXPECT_TRUE(BertAttention().CheckDims(dims).ok());
    // batch (the first dim by name) in quantile order, seq its quantiles in some order: each dim's values are
    // exactly its quantiles, each once (seq's are distinct here, so no pairing coincides).
    std::map<std::string, std::vector<int64_t>> quantiles = DimQuantiles(attention, 8, seed);
    std::vector<int64_t> batch, seq;
    for (const Dims& dims : shapes) {
      batch.push_back(dims.at("batch"));
      seq.push_back(dims.at("seq"));
    }
    EXPECT_EQ(batch, quantiles.at("batch")) << "seed " << seed;
    shuffled += !std::is_sorted(seq.begin(), seq.end());
    std::vector<size_t> ranks;
    for (int64_t value : seq)
      ranks.push_back(static_cast<size_t>(std::find(quantiles.at("seq").begin(), quantiles.at("seq").end(), value) -
                                          quantiles.at("seq").begin()));
    pairings.insert(ranks);
    std::sort(seq.begin(), seq.end());
    EXPECT_EQ(seq, quantiles.at("seq")) << "seed " << seed;
    // batch's mass: 8/16 at 1, so half its quantiles are batch 1, not one each as a cover of the support would take.
    EXPECT_EQ(std::count(batch.begin(), batch.end(), 1), 4) << "seed " << seed;
  }
  EXPECT_GE(shuffled, 4) << "the pairing is a shuffle, not the quantiles side by side";
  EXPECT_GE(pairings.size(), 4u) << "each seed shuffles its own way";
}

TEST(ShapeQuantilesTest, OneShapeIsEachDimsMedianAndMultiplesStayMultiples) {
  ShapeDistribution padded =
      MustParseDistribution(R"({"tokens": {"type": "lognormal", "median": 64, "sigma": 1.0, "min": 8,
      "max": 4096, "multiple_of": 8}})",
                            BertFfn());
  std::vector<Dims> one = QuantileShapes(padded, 1, 7);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].at("tokens"), DimQuantiles(padded, 1, 7).at("tokens")[0]);
  EXPECT_GE(one[0].at("tokens"), 48) << "near the median 64";
  EXPECT_LE(one[0].at("tokens"), 80);
  for (const Dims& dims : QuantileShapes(padded, 16, 7)) EXPECT_EQ(dims.at("tokens") % 8, 0);
}

TEST(ShapeQuantilesTest, TheSameSeedGivesTheSameShapesOnEveryPlatform) {
  // Categorical dims only (no libm in the draws): the portable draws, quantiles and shuffle give these shapes
  // for seed 1 whatever the standard library; a change here changes every quantile campaign's shapes.
  ShapeDistribution attention = MustParseDistribution(R"({"batch": {"type": "categorical", "values": [1, 2, 4, 8, 16]},
      "seq": {"type": "categorical", "values": [8, 16, 32, 64, 128, 256, 512]}})",
                                                      BertAttention());
  std::vector<Dims> shapes = QuantileShapes(attention, 5, 1);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const Dims& dims : shapes) pairs.emplace_back(dims.at("batch"), dims.at("seq"));
  EXPECT_EQ(pairs, (std::vector<std::pair<int64_t, int64_t>>{{1, 512}, {2, 32}, {4, 64}, {8, 8}, {16, 128}}));
}

TEST(ShapeQuantilesTest, CoincidingPairingsAreFilledWithDistinctDraws) {
  // Three values of batch and a fixed seq: at most three distinct shapes exist, whatever n asks.
  ShapeDistribution few = MustParseDistribution(R"({"batch": {"type": "categorical", "values": [1, 2, 4]},
      "seq": {"type": "fixed", "value": 64}})",
                                                BertAttention());
  std::vector<Dims> shapes = QuantileShapes(few, 8, 3);
  EXPECT_EQ(std::set<Dims>(shapes.begin(), shapes.end()).size(), shapes.size()) << "distinct";
  EXPECT_EQ(shapes.size(), 3u) << "every distinct shape, none twice";
  // Two dims with 90% of their mass on one value: every quantile is batch 1, seq 8, so all pairings coincide in
  // one shape, and distinct draws fill the other places with the three remaining shapes.
  ShapeDistribution grid =
      MustParseDistribution(R"({"batch": {"type": "categorical", "values": [1, 2], "weights": [9, 1]},
      "seq": {"type": "categorical", "values": [8, 16], "weights": [9, 1]}})",
                            BertAttention());
  std::vector<Dims> four = QuantileShapes(grid, 4, 1);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four[0], (Dims{{"batch", 1}, {"seq", 8}})) << "the quantiles' shape first";
  EXPECT_EQ(std::set<Dims>(four.begin(), four.end()).size(), 4u);
  EXPECT_TRUE(QuantileShapes(grid, 0, 1).empty());
}

}  // namespace
}  // namespace crmap
