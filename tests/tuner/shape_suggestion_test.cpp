#include "tuner/shape_suggestion.h"

#include <cmath>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "tests/runtime/hook/policy_test_support.h"
#include "tuner/nearest_shape.h"

namespace crmap {
namespace {

std::unique_ptr<PolicyModel> MustModel(PolicyFile file) {
  auto model = PolicyModel::Create(std::move(file));
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? std::move(model).value() : nullptr;
}

Dims Batch(int64_t batch) { return {{"batch", batch}}; }

// A synthetic policy with 3 calibrated critic members from `seed`, tuned at `table_dims` (the synthetic batches 1,
// 32 and 256 when empty).
PolicyFile CalibratedPolicy(uint32_t seed, std::vector<std::vector<int64_t>> table_dims = {}) {
  testing::SyntheticPolicyOptions options;
  options.critic_members = 3;
  options.calibrated = true;
  options.seed = seed;
  options.table_dims = std::move(table_dims);
  return testing::MakeSyntheticPolicy(options);
}

// 60 batches drawn log-uniformly from [1, 2^max_log2] with `seed`.
std::vector<Dims> LogUniformBatches(uint32_t seed, double max_log2) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log2_batch(0, max_log2);
  std::vector<Dims> pool;
  for (int i = 0; i < 60; ++i) pool.push_back(Batch(static_cast<int64_t>(std::exp2(log2_batch(rng)))));
  return pool;
}

// Without critic members every confidence is unknown (-1), so the rule is farthest-point coverage in scaled log
// dims (batch over [1, 2048]: log2 / 11): from the tuned batch 1, first 1024 (10/11 away), then 128 (3/11 from
// 1024), then 4 (2/11 from 1), then 2. Tuned shapes and duplicates never come back, and asking for more than the
// pool holds gives what it holds.
TEST(ShapeSuggestionTest, WithoutConfidenceTheShapesFarthestFromTheTunedOnesComeFirst) {
  testing::SyntheticPolicyOptions options;
  options.critic_members = 0;
  options.table_dims = {{1}};
  auto model = MustModel(testing::MakeSyntheticPolicy(options));
  ASSERT_TRUE(model);
  const std::vector<Dims> pool = {Batch(1), Batch(2), Batch(4), Batch(1024), Batch(128), Batch(2)};
  std::vector<SuggestedShape> three = SuggestShapes(*model, pool, 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0].dims, Batch(1024));
  EXPECT_EQ(three[1].dims, Batch(128));
  EXPECT_EQ(three[2].dims, Batch(4));
  EXPECT_NEAR(three[0].distance, 10.0 / 11, 1e-6);
  EXPECT_NEAR(three[1].distance, 3.0 / 11, 1e-6);
  EXPECT_NEAR(three[2].distance, 2.0 / 11, 1e-6);
  EXPECT_EQ(three[0].confidence, -1.0);
  std::vector<SuggestedShape> all = SuggestShapes(*model, pool, 10);
  ASSERT_EQ(all.size(), 4u);  // batch 1 is tuned, the second batch 2 a duplicate
  EXPECT_EQ(all[3].dims, Batch(2));
  EXPECT_TRUE(SuggestShapes(*model, {Batch(1)}, 2).empty());
}

// With a calibrated ensemble and a pool inside the tuned range (the synthetic table: batches 1, 32 and 256): the
// least confident shape first, confidences never decreasing, and among equal confidences the farthest first; each
// suggestion carries the policy's own decision there.
TEST(ShapeSuggestionTest, TheLeastConfidentShapesComeFirst) {
  for (uint32_t seed : {3u, 9u}) {
    PolicyFile file = CalibratedPolicy(seed);
    auto model = MustModel(file);
    ASSERT_TRUE(model);
    const std::vector<Dims> pool = LogUniformBatches(seed, 8);
    double lowest = 2;
    for (const Dims& dims : pool) {
      std::vector<int64_t> values = {dims.at("batch")};
      if (model->FindTableEntry(values.data()) >= 0) continue;
      std::vector<uint32_t> config(model->knob_count());
      double confidence = -2;
      model->Decide(values.data(), config.data(), &confidence);
      lowest = std::min(lowest, confidence);
    }
    std::vector<SuggestedShape> suggested = SuggestShapes(*model, pool, 8);
    ASSERT_EQ(suggested.size(), 8u);
    EXPECT_EQ(suggested[0].confidence, lowest) << "seed " << seed;
    std::set<double> confidences;
    for (size_t i = 0; i < suggested.size(); ++i) {
      confidences.insert(suggested[i].confidence);
      std::vector<int64_t> values = {suggested[i].dims.at("batch")};
      std::vector<uint32_t> config(model->knob_count());
      double confidence = -2;
      model->Decide(values.data(), config.data(), &confidence);
      model->SetRuntimeKnobs(config.data());
      EXPECT_EQ(suggested[i].config, PolicyConfigString(file.knobs, config));
      EXPECT_EQ(suggested[i].confidence, confidence);
      EXPECT_FALSE(suggested[i].beyond_tuned_range);
      if (i == 0) continue;
      EXPECT_GE(suggested[i].confidence, suggested[i - 1].confidence) << "seed " << seed << " pick " << i;
      if (suggested[i].confidence == suggested[i - 1].confidence) {
        EXPECT_LE(suggested[i].distance, suggested[i - 1].distance) << "seed " << seed << " pick " << i;
      }
    }
  }
}

// Beyond the tuned range first, whatever the distance: tuned at batches 2 and 1024, batch 45 lies farthest from
// both (4.49/11 in scaled log dims) but inside, batch 1 (1/11) and 1500 (0.55/11) beyond. Batch 1 comes first (the
// farther of the two beyond), then 1500 (still beyond the range 1-1024 the first pick leaves), then 45.
TEST(ShapeSuggestionTest, ShapesBeyondTheTunedRangeComeFirst) {
  testing::SyntheticPolicyOptions options;
  options.critic_members = 0;
  options.table_dims = {{2}, {1024}};
  auto model = MustModel(testing::MakeSyntheticPolicy(options));
  ASSERT_TRUE(model);
  std::vector<SuggestedShape> picks = SuggestShapes(*model, {Batch(45), Batch(1500), Batch(1)}, 3);
  ASSERT_EQ(picks.size(), 3u);
  EXPECT_EQ(picks[0].dims, Batch(1));
  EXPECT_EQ(picks[1].dims, Batch(1500));
  EXPECT_EQ(picks[2].dims, Batch(45));
  EXPECT_TRUE(picks[0].beyond_tuned_range);
  EXPECT_TRUE(picks[1].beyond_tuned_range);
  EXPECT_FALSE(picks[2].beyond_tuned_range);
  EXPECT_NEAR(picks[2].distance, std::log2(45.0 / 2) / 11, 1e-6);
}

// Among the shapes beyond the range the farthest comes first, whatever the critics' confidence — not one a step
// past a tuned shape: tuned at 16, batch 1024 (6/11 away), then 2 (3/11), then 15. A dim past its declared range
// is answered as the range's end, so batch 4096 is batch 2048 — inside the range once 2048 is tuned.
TEST(ShapeSuggestionTest, TheFarthestShapeBeyondTheRangeComesFirstAndDimsAreClampedFirst) {
  for (uint32_t seed : {3u, 9u}) {
    auto model = MustModel(CalibratedPolicy(seed, {{16}}));
    ASSERT_TRUE(model);
    std::vector<SuggestedShape> picks = SuggestShapes(*model, {Batch(15), Batch(2), Batch(1024)}, 3);
    ASSERT_EQ(picks.size(), 3u);
    EXPECT_EQ(picks[0].dims, Batch(1024)) << "seed " << seed;
    EXPECT_EQ(picks[1].dims, Batch(2)) << "seed " << seed;
    EXPECT_EQ(picks[2].dims, Batch(15)) << "seed " << seed;
  }
  testing::SyntheticPolicyOptions options;
  options.critic_members = 0;
  options.table_dims = {{1}, {2048}};
  auto model = MustModel(testing::MakeSyntheticPolicy(options));
  ASSERT_TRUE(model);
  std::vector<SuggestedShape> picks = SuggestShapes(*model, {Batch(4096), Batch(45)}, 2);
  ASSERT_EQ(picks.size(), 2u);
  EXPECT_EQ(picks[0].dims, Batch(45));
  EXPECT_FALSE(picks[1].beyond_tuned_range);
}

// With a calibrated ensemble over the whole support: no pick inside the range of the tuned shapes and the earlier
// picks while some shape of the pool lies beyond it, and a pick says whether it was beyond.
TEST(ShapeSuggestionTest, NoShapeInsideTheRangeIsPickedWhileOneBeyondItIsLeft) {
  for (uint32_t seed : {3u, 9u}) {
    auto model = MustModel(CalibratedPolicy(seed, {{2}, {1500}}));
    ASSERT_TRUE(model);
    std::vector<Dims> pool = LogUniformBatches(seed, 11);
    pool.push_back(Batch(1));  // below the tuned 2 and above the tuned 1500, whatever was drawn
    pool.push_back(Batch(2048));
    std::vector<SuggestedShape> picks = SuggestShapes(*model, pool, 10);
    ASSERT_EQ(picks.size(), 10u);
    std::vector<Dims> covered = {Batch(2), Batch(1500)};
    std::set<Dims> picked;
    size_t beyond_picks = 0;
    for (const SuggestedShape& pick : picks) {
      bool any_beyond = false;
      for (const Dims& dims : pool)
        any_beyond |= !picked.count(dims) && !(dims == Batch(2) || dims == Batch(1500)) && BeyondRangeOf(dims, covered);
      EXPECT_EQ(pick.beyond_tuned_range, BeyondRangeOf(pick.dims, covered)) << "seed " << seed;
      EXPECT_EQ(pick.beyond_tuned_range, any_beyond) << "seed " << seed;
      beyond_picks += pick.beyond_tuned_range;
      covered.push_back(pick.dims);
      picked.insert(pick.dims);
    }
    EXPECT_GE(beyond_picks, 2u) << "seed " << seed;  // batches 1 and 2048 at least
  }
}

}  // namespace
}  // namespace crmap
