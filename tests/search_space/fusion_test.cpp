#include "search_space/fusion.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/json_fields.h"
#include "datasets/catalog.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustLoad;
using testing::MustSpace;

// A one-input graph x [rows, 8] with the given outputs and ops (JSON arrays).
Workload MustParseOps(const std::string& outputs, const std::string& ops) {
  const std::string head = R"({"format": "crmap.workload/1", "name": "g",
    "dims": {"rows": {"min": 1, "max": 4}}, "inputs": [{"name": "x", "shape": ["rows", 8]}], )";
  std::string text = head + "\"ops\": " + ops + ", \"outputs\": " + outputs + "}";
  auto workload = ParseWorkload(text, "test");
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return std::move(workload).value();
}

size_t IndexOf(const Workload& w, const std::string& name) {
  for (size_t i = 0; i < w.ops().size(); ++i)
    if (w.ops()[i].name == name) return i;
  ADD_FAILURE() << "no op " << name;
  return 0;
}

std::vector<FusableStep> ChainOf(const Workload& w, const std::string& op) { return FusionChain(w, IndexOf(w, op)); }

std::vector<std::string> Labels(const std::vector<FusableStep>& chain) {
  std::vector<std::string> labels;
  for (const auto& step : chain) labels.push_back(step.label);
  return labels;
}

using Names = std::vector<std::string>;

TEST(FusionChainTest, BertFfn) {
  Workload w = MustLoad("bert_ffn");
  std::vector<FusableStep> fc1 = ChainOf(w, "fc1");
  EXPECT_EQ(Labels(fc1), (Names{"bias", "gelu_erf"}));
  ASSERT_EQ(fc1.size(), 2u);
  EXPECT_EQ(fc1[0].kind, PostOpKind::kBias);
  EXPECT_EQ(fc1[1].kind, PostOpKind::kEltwise);
  EXPECT_EQ(fc1[1].absorbed_op, IndexOf(w, "act"));

  std::vector<FusableStep> fc2 = ChainOf(w, "fc2");
  EXPECT_EQ(Labels(fc2), (Names{"bias", "add"}));
  ASSERT_EQ(fc2.size(), 2u);
  EXPECT_EQ(fc2[1].kind, PostOpKind::kAdd);
  EXPECT_EQ(fc2[1].absorbed_op, IndexOf(w, "residual"));
  EXPECT_EQ(fc2[1].other_input, "x");
}

TEST(FusionChainTest, ResnetBottleneck) {
  Workload w = MustLoad("resnet_bottleneck");
  EXPECT_EQ(Labels(ChainOf(w, "conv1")), (Names{"bias", "relu"}));
  EXPECT_EQ(Labels(ChainOf(w, "conv2")), (Names{"bias", "relu"}));
  std::vector<FusableStep> conv3 = ChainOf(w, "conv3");
  EXPECT_EQ(Labels(conv3), (Names{"bias", "add", "relu"}));
  ASSERT_EQ(conv3.size(), 3u);
  EXPECT_EQ(conv3[1].other_input, "x");
  EXPECT_EQ(conv3[2].absorbed_op, IndexOf(w, "out"));
}

TEST(FusionChainTest, BertAttention) {
  Workload w = MustLoad("bert_attention");
  // qkv feeds three split_heads ops: only its own bias can move into its primitive.
  EXPECT_EQ(Labels(ChainOf(w, "qkv")), (Names{"bias"}));
  // The scores matmul has no bias; its single consumer is the scaling eltwise, then softmax stops the chain.
  std::vector<FusableStep> scores = ChainOf(w, "scores");
  EXPECT_EQ(Labels(scores), (Names{"linear"}));
  ASSERT_EQ(scores.size(), 1u);
  EXPECT_EQ(scores[0].absorbed_op, IndexOf(w, "scaled"));
  // The context matmul feeds merge_heads: nothing to fuse.
  EXPECT_TRUE(ChainOf(w, "context").empty());
  EXPECT_EQ(Labels(ChainOf(w, "proj")), (Names{"bias", "add"}));
}

TEST(FusionChainTest, DlrmStopsAtTheGraphOutput) {
  Workload w = MustLoad("dlrm_mlp");
  EXPECT_EQ(Labels(ChainOf(w, "fc1")), (Names{"bias", "relu"}));
  EXPECT_EQ(Labels(ChainOf(w, "head")), (Names{"bias", "sigmoid"}));
}

TEST(FusionChainTest, NonComputeOpsHaveNoChain) {
  Workload w = MustLoad("bert_ffn");
  EXPECT_TRUE(ChainOf(w, "act").empty());
  EXPECT_TRUE(ChainOf(w, "residual").empty());
  EXPECT_TRUE(ChainOf(w, "norm").empty());
}

TEST(FusionChainTest, StopsAtAGraphOutputEvenWithAConsumer) {
  Workload w = MustParseOps(R"(["fc", "act"])", R"([
      {"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 8},
      {"name": "act", "op": "eltwise", "inputs": ["fc"], "alg": "relu"}])");
  EXPECT_EQ(Labels(ChainOf(w, "fc")), (Names{"bias"}));
}

TEST(FusionChainTest, StopsAtAnOpWithTwoConsumers) {
  Workload w = MustParseOps(R"(["s"])", R"([
      {"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 8, "bias": false},
      {"name": "act", "op": "eltwise", "inputs": ["fc"], "alg": "tanh"},
      {"name": "a", "op": "eltwise", "inputs": ["act"], "alg": "relu"},
      {"name": "b", "op": "eltwise", "inputs": ["act"], "alg": "sigmoid"},
      {"name": "s", "op": "add", "inputs": ["a", "b"]}])");
  // fc -> act is single-consumer and fuses; act has two consumers, so the chain ends there.
  EXPECT_EQ(Labels(ChainOf(w, "fc")), (Names{"tanh"}));
}

TEST(FusionChainTest, AddOfALaterOperandIsNotFused) {
  Workload w = MustParseOps(R"(["s"])", R"([
      {"name": "a", "op": "linear", "inputs": ["x"], "out_features": 8},
      {"name": "b", "op": "linear", "inputs": ["x"], "out_features": 8},
      {"name": "s", "op": "add", "inputs": ["a", "b"]}])");
  // When `a` runs, `b` does not exist yet; when `b` runs, `a` does.
  EXPECT_EQ(Labels(ChainOf(w, "a")), (Names{"bias"}));
  std::vector<FusableStep> b = ChainOf(w, "b");
  EXPECT_EQ(Labels(b), (Names{"bias", "add"}));
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].other_input, "a");
}

TEST(FusionChainTest, AddOfItselfIsNotFused) {
  Workload w = MustParseOps(R"(["s"])", R"([
      {"name": "a", "op": "linear", "inputs": ["x"], "out_features": 8},
      {"name": "s", "op": "add", "inputs": ["a", "a"]}])");
  EXPECT_EQ(Labels(ChainOf(w, "a")), (Names{"bias"}));
}

TEST(FusionChainTest, WithoutBiasStartsWithTheEltwise) {
  Workload w = MustParseOps(R"(["act"])", R"([
      {"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 8, "bias": false},
      {"name": "act", "op": "eltwise", "inputs": ["fc"], "alg": "swish"}])");
  EXPECT_EQ(Labels(ChainOf(w, "fc")), (Names{"swish"}));
}

TEST(FusionChainTest, ChainLengthIsCapped) {
  Workload w = MustParseOps(R"(["e5"])", R"([
      {"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 8},
      {"name": "e1", "op": "eltwise", "inputs": ["fc"], "alg": "relu"},
      {"name": "e2", "op": "eltwise", "inputs": ["e1"], "alg": "tanh"},
      {"name": "e3", "op": "eltwise", "inputs": ["e2"], "alg": "sigmoid"},
      {"name": "e4", "op": "eltwise", "inputs": ["e3"], "alg": "relu"},
      {"name": "e5", "op": "eltwise", "inputs": ["e4"], "alg": "relu"}])");
  EXPECT_EQ(Labels(ChainOf(w, "fc")), (Names{"bias", "relu", "tanh", "sigmoid"}));
}

TEST(FusionValueNamesTest, CumulativeNames) {
  EXPECT_EQ(FusionValueNames({}), (Names{"none"}));
  Workload ffn = MustLoad("bert_ffn");
  EXPECT_EQ(FusionValueNames(ChainOf(ffn, "fc1")), (Names{"none", "bias", "bias+gelu_erf"}));
  EXPECT_EQ(FusionValueNames(ChainOf(ffn, "fc2")), (Names{"none", "bias", "bias+add"}));
  Workload resnet = MustLoad("resnet_bottleneck");
  EXPECT_EQ(FusionValueNames(ChainOf(resnet, "conv3")), (Names{"none", "bias", "bias+add", "bias+add+relu"}));
  Workload attention = MustLoad("bert_attention");
  EXPECT_EQ(FusionValueNames(ChainOf(attention, "scores")), (Names{"none", "linear"}));
}

}  // namespace
}  // namespace crmap
