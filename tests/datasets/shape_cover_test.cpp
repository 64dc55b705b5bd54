#include "datasets/shape_cover.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "datasets/catalog.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

// bert_ffn: tokens in [1, 4096]; bert_attention: batch in [1, 16], seq in [8, 512].
const Workload& BertFfn() { return testing::MustLoadOnce("bert_ffn"); }
const Workload& BertAttention() { return testing::MustLoadOnce("bert_attention"); }

ShapeDistribution Parse(const std::string& dims, const Workload& workload) {
  return testing::MustParseDistribution(dims, workload);
}

// Decode batch sizes as in datasets/heldout/distributions/qwen2_mlp_decode.json: mostly small, up to 64.
ShapeDistribution Decode() {
  return Parse(R"({"tokens": {"type": "lognormal", "median": 6, "sigma": 1.0, "min": 1, "max": 64}})", BertFfn());
}

int64_t Largest(const std::vector<Dims>& shapes, const std::string& dim) {
  int64_t largest = 0;
  for (const Dims& dims : shapes) largest = std::max(largest, dims.at(dim));
  return largest;
}

int64_t Smallest(const std::vector<Dims>& shapes, const std::string& dim) {
  int64_t smallest = INT64_MAX;
  for (const Dims& dims : shapes) smallest = std::min(smallest, dims.at(dim));
  return smallest;
}

TEST(ShapeCoverTest, ChoosesDistinctShapesInRangeAndTheSameForASeed) {
  ShapeDistribution attention = Parse(R"({"batch": {"type": "categorical", "values": [1, 2, 4, 8, 16]},
      "seq": {"type": "lognormal", "median": 64, "sigma": 1.2, "min": 8, "max": 512}})",
                                      BertAttention());
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<Dims> cover = CoveringShapes(attention, 8, seed);
    ASSERT_EQ(cover.size(), 8u);
    EXPECT_EQ(std::set<Dims>(cover.begin(), cover.end()).size(), 8u) << "distinct";
    for (const Dims& dims : cover) EXPECT_TRUE(BertAttention().CheckDims(dims).ok());
    EXPECT_EQ(CoveringShapes(attention, 8, seed), cover) << "deterministic for a seed";
  }
  EXPECT_TRUE(CoveringShapes(attention, 0, 1).empty());
}

TEST(ShapeCoverTest, AllShapesWhenTheDistributionHasNoMoreThanAsked) {
  ShapeDistribution three = Parse(R"({"tokens": {"type": "categorical", "values": [1, 8, 32]}})", BertFfn());
  std::vector<Dims> cover = CoveringShapes(three, 5, 1);
  ASSERT_EQ(cover.size(), 3u);
  EXPECT_EQ(std::set<Dims>(cover.begin(), cover.end()).size(), 3u);
}

TEST(ShapeCoverTest, FindsTheMedoidsOfEvenlySpacedShapes) {
  // log2 values 0..8, evenly spaced: the only three medoids of least mean distance are log2 1, 4 and 7.
  ShapeDistribution powers =
      Parse(R"({"tokens": {"type": "categorical", "values": [1, 2, 4, 8, 16, 32, 64, 128, 256]}})", BertFfn());
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<Dims> cover = CoveringShapes(powers, 3, seed);
    std::set<int64_t> tokens;
    for (const Dims& dims : cover) tokens.insert(dims.at("tokens"));
    EXPECT_EQ(tokens, (std::set<int64_t>{2, 16, 128})) << "seed " << seed;
  }
}

TEST(ShapeCoverTest, SwapsOutTheMiddleShapeAGreedyFirstPickLeaves) {
  // log2 values 0, 1, 5, 9, 10: the greedy first pick is the middle (32), after which any second pick leaves a
  // mean distance of 10/5; the best pairs ({1 or 2} with {512 or 1024}, but not 1 with 1024) reach 6/5.
  ShapeDistribution two_clusters =
      Parse(R"({"tokens": {"type": "categorical", "values": [1, 2, 32, 512, 1024]}})", BertFfn());
  std::vector<Dims> all = {{{"tokens", 1}}, {{"tokens", 2}}, {{"tokens", 32}}, {{"tokens", 512}}, {{"tokens", 1024}}};
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<Dims> cover = CoveringShapes(two_clusters, 2, seed);
    ASSERT_EQ(cover.size(), 2u);
    EXPECT_DOUBLE_EQ(MeanCoverDistance(all, cover), 6.0 / 5) << "seed " << seed;
  }
}

TEST(ShapeCoverTest, CoversThePoolBetterThanDrawsAndReachesTheRareLargeShapes) {
  ShapeDistribution decode = Decode();
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    std::vector<Dims> pool = SampleDistinct(decode, kCoverPoolMinDraws, seed, kCoverPoolMinDraws);  // the cover's
    std::vector<Dims> cover = CoveringShapes(decode, 8, seed);
    std::vector<Dims> drawn = SampleDistinct(decode, 8, seed, 1600);
    EXPECT_LT(MeanCoverDistance(pool, cover), MeanCoverDistance(pool, drawn)) << "seed " << seed;
    // The 95th percentile of lognormal(median 6, sigma 1) is 6 e^1.645 = 31: eight draws pass it with
    // probability 1 - 0.95^8 = 34%; the cover does at every seed here, and keeps a single-token shape too.
    EXPECT_GE(Largest(cover, "tokens"), 31) << "seed " << seed;
    EXPECT_LE(Smallest(cover, "tokens"), 2) << "seed " << seed;
  }
}

TEST(ShapeCoverTest, EdgeShapesAreEachDimsSmallestAndLargestOnce) {
  // batch's extremes are shapes 0 (1) and 2 (16); seq's are shape 1 (8) and shape 2 again (512): three shapes.
  std::vector<Dims> pool = {{{"batch", 1}, {"seq", 64}},
                            {{"batch", 4}, {"seq", 8}},
                            {{"batch", 16}, {"seq", 512}},
                            {{"batch", 2}, {"seq", 128}}};
  EXPECT_EQ(EdgeShapeIndices(pool), (std::vector<size_t>{0, 2, 1}));
  EXPECT_TRUE(EdgeShapeIndices({}).empty());
}

TEST(ShapeCoverTest, EdgesFirstTunesEachDimsExtremesOfThePoolThenCovers) {
  ShapeDistribution attention = Parse(R"({"batch": {"type": "categorical", "values": [1, 2, 4, 8, 16]},
      "seq": {"type": "lognormal", "median": 64, "sigma": 1.2, "min": 8, "max": 512}})",
                                      BertAttention());
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<Dims> pool = SampleDistinct(attention, kCoverPoolMinDraws, seed, kCoverPoolMinDraws);  // the cover's
    std::vector<Dims> edges = EdgesFirstShapes(attention, 8, seed);
    ASSERT_EQ(edges.size(), 8u);
    EXPECT_EQ(std::set<Dims>(edges.begin(), edges.end()).size(), 8u) << "distinct";
    for (const char* dim : {"batch", "seq"}) {
      EXPECT_EQ(Smallest(edges, dim), Smallest(pool, dim)) << dim << ", seed " << seed;
      EXPECT_EQ(Largest(edges, dim), Largest(pool, dim)) << dim << ", seed " << seed;
    }
    // The rest is a cover around the edges: every shape of the pool nearer a chosen one than with the edges alone.
    std::vector<Dims> edges_alone;
    for (size_t index : EdgeShapeIndices(pool)) edges_alone.push_back(pool[index]);
    EXPECT_LT(MeanCoverDistance(pool, edges), MeanCoverDistance(pool, edges_alone)) << "seed " << seed;
    EXPECT_EQ(EdgesFirstShapes(attention, 8, seed), edges) << "deterministic for a seed";
  }
  // Fewer shapes than edges: the first n edges (batch's smallest and largest, dims by name).
  std::vector<Dims> two = EdgesFirstShapes(attention, 2, 1);
  ASSERT_EQ(two.size(), 2u);
  std::vector<Dims> pool = SampleDistinct(attention, kCoverPoolMinDraws, 1, kCoverPoolMinDraws);
  EXPECT_EQ(std::min(two[0].at("batch"), two[1].at("batch")), Smallest(pool, "batch"));
  EXPECT_EQ(std::max(two[0].at("batch"), two[1].at("batch")), Largest(pool, "batch"));
  EXPECT_TRUE(EdgesFirstShapes(attention, 0, 1).empty());
}

TEST(ShapeCoverTest, MeanCoverDistanceIsTheMeanLog2DistanceToTheNearestChosenShape) {
  std::vector<Dims> pool = {{{"tokens", 1}}, {{"tokens", 4}}, {{"tokens", 64}}};
  EXPECT_DOUBLE_EQ(MeanCoverDistance(pool, {{{"tokens", 4}}}), (2.0 + 0.0 + 4.0) / 3);
  EXPECT_DOUBLE_EQ(MeanCoverDistance(pool, {{{"tokens", 1}}, {{"tokens", 64}}}), (0.0 + 2.0 + 0.0) / 3);
  EXPECT_DOUBLE_EQ(MeanCoverDistance(pool, {}), 0.0);
}

}  // namespace
}  // namespace crmap
