#include "tuner/shape_suggestion.h"

#include <random>
#include <set>

#include <gtest/gtest.h>

#include "tests/runtime/hook/policy_test_support.h"

namespace crmap {
namespace {

std::unique_ptr<PolicyModel> MustModel(PolicyFile file) {
  auto model = PolicyModel::Create(std::move(file));
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? std::move(model).value() : nullptr;
}

Dims Batch(int64_t batch) { return {{"batch", batch}}; }

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

// With a calibrated ensemble: the least confident shape first, confidences never decreasing, and among equal
// confidences the farthest first; each suggestion carries the policy's own decision there.
TEST(ShapeSuggestionTest, TheLeastConfidentShapesComeFirst) {
  for (uint32_t seed : {3u, 9u}) {
    testing::SyntheticPolicyOptions options;
    options.critic_members = 3;
    options.calibrated = true;
    options.seed = seed;
    PolicyFile file = testing::MakeSyntheticPolicy(options);
    auto model = MustModel(file);
    ASSERT_TRUE(model);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> log2_batch(0, 11);
    std::vector<Dims> pool;
    for (int i = 0; i < 60; ++i) pool.push_back(Batch(static_cast<int64_t>(std::exp2(log2_batch(rng)))));
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
      if (i == 0) continue;
      EXPECT_GE(suggested[i].confidence, suggested[i - 1].confidence) << "seed " << seed << " pick " << i;
      if (suggested[i].confidence == suggested[i - 1].confidence) {
        EXPECT_LE(suggested[i].distance, suggested[i - 1].distance) << "seed " << seed << " pick " << i;
      }
    }
  }
}

}  // namespace
}  // namespace crmap
