#include "common/tensor_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "common/json_fields.h"

namespace crmap {
namespace {

// Two linear ops of identical shape (so that only their names differ), a grouped conv, a layer norm.
Json TestGraph(int seed = 5) {
  Json json = Json::parse(R"({
    "format": "crmap.workload/1", "name": "params",
    "dims": {"rows": {"min": 1, "max": 8, "typical": 2}},
    "inputs": [{"name": "x", "shape": ["rows", 16]}, {"name": "img", "shape": [1, 8, 6, 6]}],
    "ops": [
      {"name": "fc_a", "op": "linear", "inputs": ["x"], "out_features": 16},
      {"name": "fc_b", "op": "linear", "inputs": ["fc_a"], "out_features": 16},
      {"name": "fc_nobias", "op": "linear", "inputs": ["fc_b"], "out_features": 4, "bias": false},
      {"name": "norm", "op": "layer_norm", "inputs": ["fc_b"]},
      {"name": "act", "op": "eltwise", "inputs": ["norm"], "alg": "relu"},
      {"name": "conv", "op": "conv2d", "inputs": ["img"], "out_channels": 6, "kernel": [3, 1], "groups": 2}
    ],
    "outputs": ["fc_nobias", "act", "conv"]})");
  json["seed"] = seed;
  return json;
}

Workload MustParse(const Json& json) {
  auto workload = ParseWorkload(json.dump(), "test");
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return std::move(workload).value();
}

const OpSpec& Op(const Workload& w, const std::string& name) {
  const OpSpec* op = w.FindOp(name);
  EXPECT_NE(op, nullptr) << name;
  return *op;
}

void ExpectWithin(const std::vector<float>& values, float lo, float hi) {
  ASSERT_FALSE(values.empty());
  auto [min, max] = std::minmax_element(values.begin(), values.end());
  EXPECT_GE(*min, lo);
  EXPECT_LE(*max, hi);
}

TEST(ElementCountTest, ProductOfSizes) {
  EXPECT_EQ(ElementCount({}), 1);
  EXPECT_EQ(ElementCount({7}), 7);
  EXPECT_EQ(ElementCount({2, 3, 4}), 24);
  EXPECT_EQ(ElementCount({5, 0}), 0);
}

TEST(UniformValuesTest, DeterministicForASeed) {
  EXPECT_EQ(UniformValues(42, 100, -1, 1), UniformValues(42, 100, -1, 1));
  EXPECT_NE(UniformValues(42, 100, -1, 1), UniformValues(43, 100, -1, 1));
  EXPECT_TRUE(UniformValues(42, 0, -1, 1).empty());
  // A shorter draw is a prefix of a longer one from the same seed.
  std::vector<float> longer = UniformValues(7, 50, 0, 1);
  std::vector<float> shorter = UniformValues(7, 20, 0, 1);
  EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin()));
}

TEST(UniformValuesTest, StaysInBoundsAndCoversTheRange) {
  std::vector<float> values = UniformValues(1, 20000, -2.0f, 3.0f);
  ASSERT_EQ(values.size(), 20000u);
  auto [min, max] = std::minmax_element(values.begin(), values.end());
  EXPECT_GE(*min, -2.0f);
  EXPECT_LT(*max, 3.0f);
  EXPECT_LT(*min, -1.9f);
  EXPECT_GT(*max, 2.9f);
  double mean = std::accumulate(values.begin(), values.end(), 0.0) / values.size();
  EXPECT_NEAR(mean, 0.5, 0.05);
  // Not a constant or a short cycle: many distinct values.
  std::sort(values.begin(), values.end());
  EXPECT_GT(std::unique(values.begin(), values.end()) - values.begin(), 15000);
}

TEST(GenerateOpParametersTest, LinearShapesAndBounds) {
  Workload w = MustParse(TestGraph());
  OpParameters p = GenerateOpParameters(w, Op(w, "fc_a"), {2, 16});
  EXPECT_EQ(p.weight.shape, (Shape{16, 16}));  // [out, in]
  EXPECT_EQ(p.weight.values.size(), 256u);
  EXPECT_EQ(p.bias.shape, (Shape{16}));
  EXPECT_EQ(p.bias.values.size(), 16u);
  EXPECT_TRUE(p.gamma.empty());
  EXPECT_TRUE(p.beta.empty());
  const float scale = 0.25f;  // 1 / sqrt(in = 16)
  ExpectWithin(p.weight.values, -scale, scale);
  ExpectWithin(p.bias.values, -scale, scale);
  EXPECT_NE(p.weight.values, std::vector<float>(p.weight.values.size(), p.weight.values[0]));
}

TEST(GenerateOpParametersTest, LinearWithoutBiasHasNoBias) {
  Workload w = MustParse(TestGraph());
  OpParameters p = GenerateOpParameters(w, Op(w, "fc_nobias"), {3, 16});
  EXPECT_EQ(p.weight.shape, (Shape{4, 16}));
  EXPECT_TRUE(p.bias.empty());
}

TEST(GenerateOpParametersTest, LinearInFeaturesComeFromTheInputShape) {
  Workload w = MustParse(TestGraph());
  // Only the last input dim matters; leading dims (rows, batch) do not change the weights.
  OpParameters a = GenerateOpParameters(w, Op(w, "fc_a"), {1, 16});
  OpParameters b = GenerateOpParameters(w, Op(w, "fc_a"), {4, 3, 16});
  EXPECT_EQ(a.weight.values, b.weight.values);
  EXPECT_EQ(a.bias.values, b.bias.values);
}

TEST(GenerateOpParametersTest, GroupedConvShapes) {
  Workload w = MustParse(TestGraph());
  OpParameters p = GenerateOpParameters(w, Op(w, "conv"), {1, 8, 6, 6});
  EXPECT_EQ(p.weight.shape, (Shape{6, 4, 3, 1}));  // [oc, ic / groups, kh, kw]
  EXPECT_EQ(p.weight.values.size(), 72u);
  EXPECT_EQ(p.bias.shape, (Shape{6}));
  const float scale = 1.0f / std::sqrt(12.0f);  // fan-in = 4 * 3 * 1
  ExpectWithin(p.weight.values, -scale, scale);
  ExpectWithin(p.bias.values, -scale, scale);
}

TEST(GenerateOpParametersTest, LayerNormShapesAndBounds) {
  Workload w = MustParse(TestGraph());
  OpParameters p = GenerateOpParameters(w, Op(w, "norm"), {2, 16});
  EXPECT_TRUE(p.weight.empty());
  EXPECT_TRUE(p.bias.empty());
  EXPECT_EQ(p.gamma.shape, (Shape{16}));
  EXPECT_EQ(p.beta.shape, (Shape{16}));
  ExpectWithin(p.gamma.values, 0.9f, 1.1f);
  ExpectWithin(p.beta.values, -0.1f, 0.1f);
}

TEST(GenerateOpParametersTest, OpsWithoutParametersGetNone) {
  Workload w = MustParse(TestGraph());
  OpParameters p = GenerateOpParameters(w, Op(w, "act"), {2, 16});
  EXPECT_TRUE(p.weight.empty());
  EXPECT_TRUE(p.bias.empty());
  EXPECT_TRUE(p.gamma.empty());
  EXPECT_TRUE(p.beta.empty());
}

TEST(GenerateOpParametersTest, Deterministic) {
  Workload first = MustParse(TestGraph());
  Workload second = MustParse(TestGraph());
  OpParameters a = GenerateOpParameters(first, Op(first, "fc_a"), {2, 16});
  OpParameters b = GenerateOpParameters(second, Op(second, "fc_a"), {2, 16});
  EXPECT_EQ(a.weight.values, b.weight.values);
  EXPECT_EQ(a.bias.values, b.bias.values);
}

TEST(GenerateOpParametersTest, WeightsDependOnOpNameAndParameter) {
  Workload w = MustParse(TestGraph());
  OpParameters a = GenerateOpParameters(w, Op(w, "fc_a"), {2, 16});
  OpParameters b = GenerateOpParameters(w, Op(w, "fc_b"), {2, 16});
  ASSERT_EQ(a.weight.shape, b.weight.shape);
  EXPECT_NE(a.weight.values, b.weight.values);
  EXPECT_NE(a.bias.values, b.bias.values);
  // Weight and bias of one op are different streams.
  EXPECT_FALSE(std::equal(a.bias.values.begin(), a.bias.values.end(), a.weight.values.begin()));
}

TEST(GenerateOpParametersTest, WeightsDependOnTheWorkloadSeed) {
  Workload five = MustParse(TestGraph(5));
  Workload six = MustParse(TestGraph(6));
  EXPECT_NE(GenerateOpParameters(five, Op(five, "fc_a"), {2, 16}).weight.values,
            GenerateOpParameters(six, Op(six, "fc_a"), {2, 16}).weight.values);
}

TEST(GenerateGraphInputTest, ShapeBoundsAndDeterminism) {
  Workload w = MustParse(TestGraph());
  HostTensor x = GenerateGraphInput(w, "x", {3, 16});
  EXPECT_EQ(x.shape, (Shape{3, 16}));
  EXPECT_EQ(x.values.size(), 48u);
  ExpectWithin(x.values, -1.0f, 1.0f);
  EXPECT_EQ(GenerateGraphInput(w, "x", {3, 16}).values, x.values);
}

TEST(GenerateGraphInputTest, DataSeedAndInputNameChangeValues) {
  Workload w = MustParse(TestGraph());
  HostTensor base = GenerateGraphInput(w, "x", {4, 16}, 0);
  HostTensor reseeded = GenerateGraphInput(w, "x", {4, 16}, 1);
  EXPECT_NE(base.values, reseeded.values);
  EXPECT_EQ(GenerateGraphInput(w, "x", {4, 16}, 1).values, reseeded.values);
  EXPECT_NE(GenerateGraphInput(w, "img", {4, 16}, 0).values, base.values);
}

}  // namespace
}  // namespace crmap

namespace crmap {
namespace {

TEST(ElementCountTest, AnOverflowingProductSaturatesInsteadOfWrapping) {
  EXPECT_EQ(ElementCount({int64_t{1} << 35, int64_t{1} << 35}), INT64_MAX);
  EXPECT_EQ(ElementCount({3, 4, 5}), 60);
  OpSpec wide;
  wide.kind = OpKind::kLinear;
  wide.out_features = int64_t{1} << 35;
  wide.bias = true;
  EXPECT_EQ(OpParameterCount(wide, {1, int64_t{1} << 35}), INT64_MAX);  // was signed overflow (UB)
}

}  // namespace
}  // namespace crmap
