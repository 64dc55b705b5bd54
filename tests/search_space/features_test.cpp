#include "search_space/features.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "datasets/catalog.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustLoad;
using testing::MustSpace;

size_t SlotCount(const SearchSpace& space, bool include_runtime) {
  size_t slots = 0;
  for (const auto& knob : space.knobs())
    if (knob.scope == KnobScope::kPlan || include_runtime) slots += knob.values.size();
  return slots;
}

bool HasFeaturePrefix(const FeatureSpec& spec, const std::string& prefix) {
  for (const auto& f : spec.features())
    if (f.name.rfind(prefix, 0) == 0) return true;
  return false;
}

TEST(FeatureSpecTest, SizeIsDimsPlusOneHotSlots) {
  Workload w = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(w);
  FeatureSpec spec(w, space);
  EXPECT_EQ(spec.dim_feature_count(), 1u);
  // tokens + fuse.fc1 (3) + fuse.fc2 (3) + weights (2) + precision (2) + threads (2)
  EXPECT_EQ(spec.size(), 1u + 12u);
  EXPECT_EQ(spec.size(), spec.dim_feature_count() + SlotCount(space, false));
  EXPECT_EQ(spec.features().size(), spec.size());

  Workload attention = MustLoad("bert_attention");
  SearchSpace attention_space = MustSpace(attention);
  FeatureSpec attention_spec(attention, attention_space);
  EXPECT_EQ(attention_spec.dim_feature_count(), 2u);
  EXPECT_EQ(attention_spec.size(), 2u + SlotCount(attention_space, false));
}

TEST(FeatureSpecTest, FeatureNamesAndOrder) {
  Workload w = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(w);
  FeatureSpec spec(w, space);
  const auto& f = spec.features();
  ASSERT_EQ(f.size(), 13u);
  EXPECT_EQ(f[0].name, "dim.tokens");
  EXPECT_DOUBLE_EQ(f[0].lo, 0.0);   // log2(1)
  EXPECT_DOUBLE_EQ(f[0].hi, 12.0);  // log2(4096)
  EXPECT_EQ(f[1].name, "knob.fuse.fc1=none");
  EXPECT_EQ(f[3].name, "knob.fuse.fc1=bias+gelu_erf");
  EXPECT_EQ(f[4].name, "knob.fuse.fc2=none");
  EXPECT_EQ(f[9].name, "knob.precision=f32");
  EXPECT_EQ(f[10].name, "knob.precision=bf16");
  EXPECT_EQ(f[12].name, "knob.threads=2");
}

TEST(FeatureSpecTest, DimScalingIsZeroAtMinAndOneAtMax) {
  Workload w = MustLoad("bert_attention");  // batch in [1, 16], seq in [8, 512]
  SearchSpace space = MustSpace(w);
  FeatureSpec spec(w, space);
  float out[2];
  spec.EncodeDims({{"batch", 1}, {"seq", 8}}, out);
  EXPECT_FLOAT_EQ(out[0], 0.f);
  EXPECT_FLOAT_EQ(out[1], 0.f);
  spec.EncodeDims({{"batch", 16}, {"seq", 512}}, out);
  EXPECT_FLOAT_EQ(out[0], 1.f);
  EXPECT_FLOAT_EQ(out[1], 1.f);
  spec.EncodeDims({{"batch", 4}, {"seq", 64}}, out);
  EXPECT_FLOAT_EQ(out[0], 0.5f);  // log2(4) / log2(16)
  EXPECT_FLOAT_EQ(out[1], 0.5f);  // (log2(64) - 3) / (9 - 3)
  // Monotone in the dim.
  float smaller[2];
  spec.EncodeDims({{"batch", 4}, {"seq", 63}}, smaller);
  EXPECT_LT(smaller[1], out[1]);
}

TEST(FeatureSpecTest, EncodeStartsWithTheDimFeatures) {
  Workload w = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(w);
  FeatureSpec spec(w, space);
  std::vector<float> features = spec.Encode({{"tokens", 64}}, space.Default());
  ASSERT_EQ(features.size(), spec.size());
  EXPECT_FLOAT_EQ(features[0], 0.5f);  // log2(64) / log2(4096)
}

TEST(FeatureSpecTest, ExactlyOneHotPerKnob) {
  Workload w = MustLoad("resnet_bottleneck");
  SearchSpace space = MustSpace(w);
  FeatureSpec spec(w, space);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 40; ++i) {
    Config config = i == 0 ? space.Default() : space.Sample(rng);
    std::vector<float> features = spec.Encode({{"batch", 2}, {"size", 14}}, config);
    ASSERT_EQ(features.size(), spec.size());
    size_t offset = spec.dim_feature_count();
    for (size_t k = 0; k < space.knobs().size(); ++k) {
      const Knob& knob = space.knobs()[k];
      if (knob.scope != KnobScope::kPlan) continue;
      float sum = 0;
      for (size_t v = 0; v < knob.values.size(); ++v) {
        float value = features[offset + v];
        EXPECT_TRUE(value == 0.f || value == 1.f);
        sum += value;
        EXPECT_EQ(value == 1.f, static_cast<int>(v) == config.values[k]) << spec.features()[offset + v].name;
      }
      EXPECT_FLOAT_EQ(sum, 1.f) << knob.name;
      offset += knob.values.size();
    }
    EXPECT_EQ(offset, spec.size());
  }
}

TEST(FeatureSpecTest, BufferAndVectorEncodingsAgree) {
  Workload w = MustLoad("dlrm_mlp");
  SearchSpace space = MustSpace(w);
  FeatureSpec spec(w, space);
  std::mt19937_64 rng(3);
  Config config = space.Sample(rng);
  std::vector<float> buffer(spec.size(), 7.f);  // stale values must be overwritten
  spec.Encode({{"batch", 100}}, config, buffer.data());
  EXPECT_EQ(buffer, spec.Encode({{"batch", 100}}, config));
}

TEST(FeatureSpecTest, RuntimeKnobsExcludedByDefault) {
  Workload w = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(w);
  FeatureSpec spec(w, space);
  EXPECT_FALSE(HasFeaturePrefix(spec, "knob.batch="));
  EXPECT_FALSE(HasFeaturePrefix(spec, "knob.queue_delay_us="));
  EXPECT_FALSE(HasFeaturePrefix(spec, "knob.placement="));
  // Configs that differ only in runtime knobs encode identically.
  auto runtime = space.Parse("batch=64;placement=per_core");
  ASSERT_TRUE(runtime.ok());
  EXPECT_EQ(spec.Encode({{"tokens", 8}}, *runtime), spec.Encode({{"tokens", 8}}, space.Default()));
}

TEST(FeatureSpecTest, RuntimeKnobsIncludedWhenAsked) {
  Workload w = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(w);
  FeatureSpec spec(w, space, /*include_runtime_knobs=*/true);
  EXPECT_EQ(spec.size(), 1u + SlotCount(space, true));
  EXPECT_EQ(spec.size(), 1u + 12u + 4u + 4u + 2u);
  EXPECT_TRUE(HasFeaturePrefix(spec, "knob.batch="));
  EXPECT_TRUE(HasFeaturePrefix(spec, "knob.placement="));
  auto runtime = space.Parse("batch=64;placement=per_core");
  ASSERT_TRUE(runtime.ok());
  std::vector<float> a = spec.Encode({{"tokens", 8}}, *runtime);
  std::vector<float> b = spec.Encode({{"tokens", 8}}, space.Default());
  EXPECT_NE(a, b);
  float hot = 0;
  for (float v : a) hot += v;
  // One hot per knob (8 knobs) plus the dim feature.
  EXPECT_FLOAT_EQ(hot - a[0], static_cast<float>(space.knobs().size()));
}

}  // namespace
}  // namespace crmap
