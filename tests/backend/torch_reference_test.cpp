#include "backend/torch_reference.h"

#include <cmath>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustParse;

// The reference itself is checked against loops written out by hand, so that a plan that agrees with it is
// right, not merely consistent.
TEST(TorchReferenceTest, LinearGeluMatchesHandComputation) {
  Workload w = MustParse(R"({"format": "crmap.workload/1", "name": "t", "seed": 5,
    "dims": {"n": {"min": 1, "max": 8}}, "inputs": [{"name": "x", "shape": ["n", 6]}],
    "ops": [{"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 4},
            {"name": "g", "op": "eltwise", "inputs": ["fc"], "alg": "gelu_erf"}],
    "outputs": ["g"]})");
  Dims dims = {{"n", 3}};
  auto model = TorchReference::Create(w, dims, 1);
  ASSERT_TRUE(model.ok());
  ASSERT_TRUE((*model)->Run().ok());
  auto outputs = (*model)->Outputs();
  ASSERT_TRUE(outputs.ok());
  const HostTensor& y = outputs->at("g");
  ASSERT_EQ(y.shape, (Shape{3, 4}));

  HostTensor x = GenerateGraphInput(w, "x", {3, 6});
  OpParameters p = GenerateOpParameters(w, w.ops()[0], {3, 6});
  for (int i = 0; i < 3; ++i) {
    for (int o = 0; o < 4; ++o) {
      double acc = p.bias.values[o];
      for (int k = 0; k < 6; ++k) acc += x.values[i * 6 + k] * p.weight.values[o * 6 + k];
      double gelu = 0.5 * acc * (1 + std::erf(acc / std::sqrt(2.0)));
      EXPECT_NEAR(y.values[i * 4 + o], gelu, 1e-5);
    }
  }
}

TEST(TorchReferenceTest, StridedConvMatchesHandComputation) {
  Workload w = MustParse(R"({"format": "crmap.workload/1", "name": "t", "seed": 5,
    "dims": {"n": {"min": 1, "max": 2}}, "inputs": [{"name": "x", "shape": ["n", 2, 5, 5]}],
    "ops": [{"name": "c", "op": "conv2d", "inputs": ["x"], "out_channels": 3, "kernel": 3, "stride": 2, "padding": 1}],
    "outputs": ["c"]})");
  auto model = TorchReference::Create(w, {{"n", 1}}, 1);
  ASSERT_TRUE(model.ok());
  ASSERT_TRUE((*model)->Run().ok());
  const HostTensor y = (*model)->Outputs()->at("c");
  ASSERT_EQ(y.shape, (Shape{1, 3, 3, 3}));
  HostTensor x = GenerateGraphInput(w, "x", {1, 2, 5, 5});
  OpParameters p = GenerateOpParameters(w, w.ops()[0], {1, 2, 5, 5});
  for (int oc = 0; oc < 3; ++oc)
    for (int oh = 0; oh < 3; ++oh)
      for (int ow = 0; ow < 3; ++ow) {
        double acc = p.bias.values[oc];
        for (int ic = 0; ic < 2; ++ic)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
              int ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
              if (ih < 0 || ih >= 5 || iw < 0 || iw >= 5) continue;
              acc += x.values[(ic * 5 + ih) * 5 + iw] * p.weight.values[((oc * 2 + ic) * 3 + kh) * 3 + kw];
            }
        EXPECT_NEAR(y.values[(oc * 3 + oh) * 3 + ow], acc, 1e-5);
      }
}

TEST(TorchReferenceTest, OutputsBeforeRunIsAnError) {
  Workload w = testing::MustLoad("dlrm_mlp");
  auto model = TorchReference::Create(w, {{"batch", 2}}, 1);
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE((*model)->Outputs().ok());
  ASSERT_TRUE((*model)->Run().ok());
  auto first = (*model)->Outputs();
  ASSERT_TRUE((*model)->Run().ok());
  EXPECT_EQ(first->at("prob").values, (*model)->Outputs()->at("prob").values);
}

TEST(TorchReferenceTest, RejectsDimsOutsideTheirRange) {
  Workload w = testing::MustLoad("dlrm_mlp");
  EXPECT_EQ(TorchReference::Create(w, {{"batch", 0}}, 1).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crmap
