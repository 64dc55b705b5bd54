#include "common/workload.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/json_fields.h"

namespace crmap {
namespace {

namespace fs = std::filesystem;

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path WorkloadDir() { return fs::path(CRMAP_SOURCE_DIR) / "datasets" / "workloads"; }

Workload MustParse(const std::string& text, const std::string& source = "test") {
  auto workload = ParseWorkload(text, source);
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return std::move(workload).value();
}

Workload Builtin(const std::string& name) {
  fs::path path = WorkloadDir() / (name + ".json");
  return MustParse(ReadText(path), path.string());
}

// A small valid graph: x [rows, 16] -> linear 16 -> relu -> + x.
Json TinyGraph() {
  return Json::parse(R"({
    "format": "crmap.workload/1",
    "name": "tiny",
    "description": "a test graph",
    "seed": 3,
    "dims": {"rows": {"min": 1, "max": 64, "typical": 8}},
    "inputs": [{"name": "x", "shape": ["rows", 16]}],
    "ops": [
      {"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 16},
      {"name": "act", "op": "eltwise", "inputs": ["fc"], "alg": "relu"},
      {"name": "sum", "op": "add", "inputs": ["act", "x"]}
    ],
    "outputs": ["sum"]
  })");
}

// The error message of parsing `json`, which must fail with InvalidArgument.
std::string ParseError(const Json& json) {
  auto workload = ParseWorkload(json.dump(), "bad.json");
  if (workload.ok()) {
    ADD_FAILURE() << "parsed although invalid: " << json.dump();
    return "";
  }
  EXPECT_EQ(workload.status().code(), StatusCode::kInvalidArgument) << workload.status().ToString();
  EXPECT_TRUE(Contains(workload.status().message(), "bad.json"));
  return workload.status().message();
}

// --- dims text ------------------------------------------------------------------------------------------

TEST(DimsTextTest, ParsesItemsIgnoringWhitespace) {
  auto dims = ParseDimsText(" tokens = 128 , batch=4 ");
  ASSERT_TRUE(dims.ok()) << dims.status().ToString();
  EXPECT_EQ(*dims, (Dims{{"batch", 4}, {"tokens", 128}}));
}

TEST(DimsTextTest, ToTextIsSortedAndRoundTrips) {
  Dims dims = {{"tokens", 128}, {"batch", 4}, {"seq", 77}};
  std::string text = DimsToText(dims);
  EXPECT_EQ(text, "batch=4,seq=77,tokens=128");
  auto back = ParseDimsText(text);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, dims);
  EXPECT_EQ(DimsToText({}), "");
}

TEST(DimsTextTest, EmptyTextIsAnError) {
  for (const char* text : {"", " ", ",,"}) {
    auto dims = ParseDimsText(text);
    ASSERT_FALSE(dims.ok()) << "'" << text << "'";
    EXPECT_TRUE(Contains(dims.status().message(), "empty"));
  }
}

TEST(DimsTextTest, MalformedItemsAreErrorsNamingTheItem) {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"tokens", "expected name=value, got 'tokens'"},
      {"tokens=abc", "value of 'tokens' must be an integer in [1, 9223372036854775807]"},
      {"tokens=-3", "value of 'tokens' must be an integer in [1, "},
      {"tokens=9223372036854775808", "value of 'tokens' must be an integer in [1, 9223372036854775807]"},
      {"tokens=", "value of 'tokens'"},
      {"tokens=1.5", "value of 'tokens'"},
      {"tokens=99999999999999999999", "value of 'tokens'"},
      {"Tokens=3", "bad dim name 'Tokens'"},
      {"=3", "bad dim name ''"},
      {"batch=1,batch=2", "'batch' given twice"},
  };
  for (const auto& c : cases) {
    auto dims = ParseDimsText(c.text);
    ASSERT_FALSE(dims.ok()) << c.text;
    EXPECT_EQ(dims.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(dims.status().message(), c.expected)) << c.text;
  }
}

TEST(DimsTextTest, TheLargestInt64IsADimValueForCheckDimsToJudge) {
  auto dims = ParseDimsText("tokens=9223372036854775807");
  ASSERT_TRUE(dims.ok()) << dims.status().message();  // was "must be a positive integer"
  EXPECT_EQ(dims->at("tokens"), INT64_MAX);
}

// --- names and small helpers ----------------------------------------------------------------------------

TEST(OpKindTest, NamesAndComputeOps) {
  EXPECT_STREQ(OpKindName(OpKind::kLinear), "linear");
  EXPECT_STREQ(OpKindName(OpKind::kConv2d), "conv2d");
  EXPECT_STREQ(OpKindName(OpKind::kMergeHeads), "merge_heads");
  EXPECT_STREQ(EltwiseAlgName(EltwiseAlg::kGeluErf), "gelu_erf");
  EXPECT_STREQ(EltwiseAlgName(EltwiseAlg::kLinear), "linear");
  EXPECT_TRUE(IsComputeOp(OpKind::kLinear));
  EXPECT_TRUE(IsComputeOp(OpKind::kMatmul));
  EXPECT_TRUE(IsComputeOp(OpKind::kConv2d));
  for (OpKind kind : {OpKind::kEltwise, OpKind::kAdd, OpKind::kLayerNorm, OpKind::kSoftmax, OpKind::kPool,
                      OpKind::kSplitHeads, OpKind::kTranspose, OpKind::kMergeHeads})
    EXPECT_FALSE(IsComputeOp(kind)) << OpKindName(kind);
}

TEST(SizeExprTest, EvaluatesProductsAndPrints) {
  SizeExpr expr{6, {"batch", "seq"}};
  EXPECT_EQ(expr.Evaluate({{"batch", 2}, {"seq", 5}}), 60);
  EXPECT_EQ(expr.ToString(), "6*batch*seq");
  EXPECT_EQ((SizeExpr{1, {"rows"}}).ToString(), "rows");
  EXPECT_EQ((SizeExpr{768, {}}).ToString(), "768");
  EXPECT_EQ((SizeExpr{1, {}}).ToString(), "1");
}

// --- parsing a small graph ------------------------------------------------------------------------------

TEST(ParseWorkloadTest, ParsesASmallGraph) {
  Workload w = MustParse(TinyGraph().dump(2));
  EXPECT_EQ(w.name(), "tiny");
  EXPECT_EQ(w.description(), "a test graph");
  EXPECT_EQ(w.seed(), 3u);
  ASSERT_EQ(w.dims().size(), 1u);
  const DimRange& rows = w.dims().at("rows");
  EXPECT_EQ(rows.min, 1);
  EXPECT_EQ(rows.max, 64);
  EXPECT_EQ(rows.typical, 8);
  EXPECT_EQ(w.TypicalDims(), (Dims{{"rows", 8}}));

  ASSERT_EQ(w.inputs().size(), 1u);
  EXPECT_EQ(w.inputs()[0].name, "x");
  ASSERT_EQ(w.inputs()[0].shape.size(), 2u);
  EXPECT_EQ(w.inputs()[0].shape[0].ToString(), "rows");
  EXPECT_EQ(w.inputs()[0].shape[1].ToString(), "16");

  ASSERT_EQ(w.ops().size(), 3u);
  EXPECT_EQ(w.ops()[0].kind, OpKind::kLinear);
  EXPECT_EQ(w.ops()[0].out_features, 16);
  EXPECT_TRUE(w.ops()[0].bias) << "linear has a bias unless it says otherwise";
  EXPECT_EQ(w.ops()[1].kind, OpKind::kEltwise);
  EXPECT_EQ(w.ops()[1].eltwise, EltwiseAlg::kRelu);
  EXPECT_EQ(w.ops()[2].kind, OpKind::kAdd);
  EXPECT_EQ(w.ops()[2].inputs, (std::vector<std::string>{"act", "x"}));
  EXPECT_EQ(w.outputs(), (std::vector<std::string>{"sum"}));

  // Defaults of the optional top-level fields.
  EXPECT_EQ(w.memory_budget_bytes(), int64_t{8} << 30);
  EXPECT_DOUBLE_EQ(w.accuracy_budget().f32, 1e-4);
  EXPECT_DOUBLE_EQ(w.accuracy_budget().bf16, 3e-2);
}

TEST(ParseWorkloadTest, AccuracyBudgetsNameTheirMetricAndAreScaledErrors) {
  for (const auto& [budget, expected] : std::vector<std::pair<Json, std::string>>{
           {Json{{"f32", 1e-3}, {"bf16", 0.25}}, "'metric' must be \"scaled_error\""},
           {Json{{"metric", "max_abs_error"}, {"bf16", 0.25}}, "got \"max_abs_error\""},
           {Json{{"metric", "scaled_error"}, {"bf16", 2}}, "scaled errors in (0, 1]"},
           {Json{{"metric", "scaled_error"}, {"f32", 0}}, "scaled errors in (0, 1]"},
           {Json{{"metric", "scaled_error"}, {"int8", 0.1}}, "unknown field 'int8'"}}) {
    Json json = TinyGraph();
    json["accuracy_budget"] = budget;
    auto w = ParseWorkload(json.dump(), "w.json");
    ASSERT_FALSE(w.ok()) << budget.dump();
    EXPECT_NE(w.status().message().find(expected), std::string::npos) << w.status().message();
  }
}

TEST(ParseWorkloadTest, GraphQueries) {
  Workload w = MustParse(TinyGraph().dump());
  ASSERT_NE(w.FindOp("act"), nullptr);
  EXPECT_EQ(w.FindOp("act")->name, "act");
  EXPECT_EQ(w.FindOp("x"), nullptr);  // a graph input, not an op
  EXPECT_EQ(w.FindOp("nope"), nullptr);
  EXPECT_EQ(w.ConsumersOf("x"), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(w.ConsumersOf("fc"), (std::vector<size_t>{1}));
  EXPECT_TRUE(w.ConsumersOf("sum").empty());
  EXPECT_TRUE(w.IsGraphOutput("sum"));
  EXPECT_FALSE(w.IsGraphOutput("act"));
  EXPECT_TRUE(w.IsGraphInput("x"));
  EXPECT_FALSE(w.IsGraphInput("fc"));
  EXPECT_FALSE(w.HasImageOps());
}

TEST(ParseWorkloadTest, ReadsOptionalFieldsAndAttributes) {
  Json json = TinyGraph();
  json["memory_budget_bytes"] = 12345;
  json["accuracy_budget"] = {{"metric", "scaled_error"}, {"f32", 2e-3}, {"bf16", 0.5}};
  json["ops"][0]["bias"] = false;
  json["ops"][1] = {{"name", "act"},   {"op", "eltwise"}, {"inputs", {"fc"}},
                    {"alg", "linear"}, {"alpha", 0.5},    {"beta", 2}};
  Workload w = MustParse(json.dump());
  EXPECT_EQ(w.memory_budget_bytes(), 12345);
  EXPECT_DOUBLE_EQ(w.accuracy_budget().f32, 2e-3);
  EXPECT_DOUBLE_EQ(w.accuracy_budget().bf16, 0.5);
  EXPECT_FALSE(w.ops()[0].bias);
  EXPECT_EQ(w.ops()[1].eltwise, EltwiseAlg::kLinear);
  EXPECT_FLOAT_EQ(w.ops()[1].alpha, 0.5f);
  EXPECT_FLOAT_EQ(w.ops()[1].beta, 2.0f);
}

TEST(ParseWorkloadTest, SizeProductsOfDimsAndConstants) {
  Json json = TinyGraph();
  json["dims"]["heads"] = {{"min", 1}, {"max", 4}, {"typical", 2}};
  json["inputs"][0]["shape"] = {"rows", "8*heads*2"};
  json["ops"][0]["out_features"] = 16;
  json["ops"][2] = {{"name", "sum"}, {"op", "add"}, {"inputs", {"act", "act"}}};
  Workload w = MustParse(json.dump());
  auto shapes = w.InferShapes({{"rows", 3}, {"heads", 4}});
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(shapes->at("x"), (Shape{3, 64}));
  EXPECT_EQ(w.inputs()[0].shape[1].constant, 16);
}

TEST(ParseWorkloadTest, EveryBuiltinWorkloadFileParses) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(WorkloadDir())) {
    if (entry.path().extension() != ".json") continue;
    auto workload = ParseWorkload(ReadText(entry.path()), entry.path().string());
    ASSERT_TRUE(workload.ok()) << entry.path() << ": " << workload.status().ToString();
    EXPECT_EQ(workload->name(), entry.path().stem().string()) << "a file is named after its workload";
    EXPECT_FALSE(workload->description().empty());
    EXPECT_EQ(workload->fingerprint().size(), 16u);
    auto shapes = workload->InferShapes(workload->TypicalDims());
    EXPECT_TRUE(shapes.ok()) << workload->name() << ": " << shapes.status().ToString();
    names.insert(workload->name());
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"bert_attention", "bert_ffn", "dlrm_mlp", "resnet_bottleneck", "resnet_stem"}));
}

TEST(ParseWorkloadTest, ImageWorkloadsHaveImageOps) {
  EXPECT_TRUE(Builtin("resnet_bottleneck").HasImageOps());
  EXPECT_TRUE(Builtin("resnet_stem").HasImageOps());
  EXPECT_FALSE(Builtin("bert_ffn").HasImageOps());
  EXPECT_FALSE(Builtin("bert_attention").HasImageOps());
  EXPECT_FALSE(Builtin("dlrm_mlp").HasImageOps());
}

// --- shapes ---------------------------------------------------------------------------------------------

TEST(InferShapesTest, BertFfn) {
  Workload w = Builtin("bert_ffn");
  auto shapes = w.InferShapes({{"tokens", 7}});
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(shapes->at("x"), (Shape{7, 768}));
  EXPECT_EQ(shapes->at("fc1"), (Shape{7, 3072}));
  EXPECT_EQ(shapes->at("act"), (Shape{7, 3072}));
  EXPECT_EQ(shapes->at("fc2"), (Shape{7, 768}));
  EXPECT_EQ(shapes->at("residual"), (Shape{7, 768}));
  EXPECT_EQ(shapes->at("norm"), (Shape{7, 768}));
  EXPECT_EQ(shapes->size(), 6u);  // one input + five ops
}

TEST(InferShapesTest, ResnetBottleneckKeepsSpatialSizeWithPadding) {
  Workload w = Builtin("resnet_bottleneck");
  auto shapes = w.InferShapes({{"batch", 2}, {"size", 14}});
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(shapes->at("x"), (Shape{2, 256, 14, 14}));
  EXPECT_EQ(shapes->at("conv1"), (Shape{2, 64, 14, 14}));
  EXPECT_EQ(shapes->at("conv2"), (Shape{2, 64, 14, 14}));  // 3x3, padding 1
  EXPECT_EQ(shapes->at("conv3"), (Shape{2, 256, 14, 14}));
  EXPECT_EQ(shapes->at("out"), (Shape{2, 256, 14, 14}));
  const OpSpec* conv2 = w.FindOp("conv2");
  ASSERT_NE(conv2, nullptr);
  EXPECT_EQ(conv2->kernel[0], 3);
  EXPECT_EQ(conv2->kernel[1], 3);
  EXPECT_EQ(conv2->padding[0], 1);
  EXPECT_EQ(conv2->stride[0], 1);
}

TEST(InferShapesTest, ResnetStemStrideAndPadding) {
  Workload w = Builtin("resnet_stem");
  auto full = w.InferShapes({{"batch", 1}, {"size", 224}});
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(full->at("conv"), (Shape{1, 64, 112, 112}));  // (224 + 2*3 - 7) / 2 + 1
  EXPECT_EQ(full->at("pool"), (Shape{1, 64, 56, 56}));    // (112 + 2*1 - 3) / 2 + 1
  auto odd = w.InferShapes({{"batch", 3}, {"size", 33}});
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_EQ(odd->at("conv"), (Shape{3, 64, 17, 17}));  // (33 + 6 - 7) / 2 + 1 = 17
  EXPECT_EQ(odd->at("pool"), (Shape{3, 64, 9, 9}));    // (17 + 2 - 3) / 2 + 1 = 9
}

TEST(InferShapesTest, ConvWithDistinctHeightAndWidthAttributes) {
  Json json = Json::parse(R"({
    "format": "crmap.workload/1", "name": "conv", "dims": {"size": {"min": 8, "max": 32, "typical": 16}},
    "inputs": [{"name": "img", "shape": [2, 6, "size", 20]}],
    "ops": [{"name": "c", "op": "conv2d", "inputs": ["img"], "out_channels": 4, "kernel": [3, 5],
             "stride": [2, 3], "padding": [1, 0], "groups": 2, "bias": false},
            {"name": "p", "op": "pool", "inputs": ["c"], "alg": "avg", "kernel": 2}],
    "outputs": ["p"]})");
  Workload w = MustParse(json.dump());
  const OpSpec* conv = w.FindOp("c");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->groups, 2);
  EXPECT_FALSE(conv->bias);
  const OpSpec* pool = w.FindOp("p");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->pool, PoolAlg::kAvg);
  EXPECT_EQ(pool->stride[0], 2) << "pool stride defaults to its kernel";
  EXPECT_EQ(pool->stride[1], 2);
  auto shapes = w.InferShapes({{"size", 16}});
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  // h: (16 + 2 - 3) / 2 + 1 = 8; w: (20 + 0 - 5) / 3 + 1 = 6
  EXPECT_EQ(shapes->at("c"), (Shape{2, 4, 8, 6}));
  EXPECT_EQ(shapes->at("p"), (Shape{2, 4, 4, 3}));
}

TEST(InferShapesTest, SizeProductsThatOverflowInt64AreTooLargeNotWrapped) {
  // tokens*tokens at tokens = 2^32 is 2^64: it wrapped to 0, passed the parse-time check at the range's corners,
  // and a later division raised SIGFPE. Now the product saturates and the workload is refused when parsed.
  for (const char* max : {"4294967296", "3037000500", "4611686018427387904"}) {
    std::string text = std::string(R"({
      "format": "crmap.workload/1", "name": "square", "dims": {"tokens": {"min": 1, "max": )") + max +
                       R"(, "typical": 8}},
      "inputs": [{"name": "x", "shape": ["tokens*tokens", 4]}],
      "ops": [{"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 4}],
      "outputs": ["fc"]})";
    auto w = ParseWorkload(text, "square.json");
    ASSERT_FALSE(w.ok()) << max;
    EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(w.status().message(), "elements")) << w.status().message();
  }
  SizeExpr square{1, {"tokens", "tokens"}};
  EXPECT_EQ(square.Evaluate({{"tokens", int64_t{1} << 32}}), INT64_MAX);
  EXPECT_EQ(square.Evaluate({{"tokens", 1000}}), 1000000);
}

TEST(InferShapesTest, ConvPaddingThatOverflowsIsAnError) {
  Json json = Json::parse(R"({
    "format": "crmap.workload/1", "name": "conv", "dims": {"size": {"min": 8, "max": 32, "typical": 16}},
    "inputs": [{"name": "img", "shape": [1, 4, "size", "size"]}],
    "ops": [{"name": "c", "op": "conv2d", "inputs": ["img"], "out_channels": 4, "kernel": 3,
             "padding": 4611686018427387904}],
    "outputs": ["c"]})");
  auto w = ParseWorkload(json.dump(), "conv.json");
  if (!w.ok()) return;  // refusing the attribute at parse time is as good
  auto shapes = w->InferShapes({{"size", 16}});
  EXPECT_FALSE(shapes.ok());
}

TEST(InferShapesTest, BertAttentionHeads) {
  Workload w = Builtin("bert_attention");
  auto shapes = w.InferShapes({{"batch", 2}, {"seq", 10}});
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(shapes->at("qkv"), (Shape{2, 10, 2304}));
  EXPECT_EQ(shapes->at("q"), (Shape{2, 12, 10, 64}));  // split_heads -> [B, H, S, D]
  EXPECT_EQ(shapes->at("k"), (Shape{2, 12, 10, 64}));
  EXPECT_EQ(shapes->at("v"), (Shape{2, 12, 10, 64}));
  EXPECT_EQ(shapes->at("k_t"), (Shape{2, 12, 64, 10}));
  EXPECT_EQ(shapes->at("scores"), (Shape{2, 12, 10, 10}));
  EXPECT_EQ(shapes->at("probs"), (Shape{2, 12, 10, 10}));
  EXPECT_EQ(shapes->at("context"), (Shape{2, 12, 10, 64}));
  EXPECT_EQ(shapes->at("merged"), (Shape{2, 10, 768}));  // merge_heads -> [B, S, H*D]
  EXPECT_EQ(shapes->at("proj"), (Shape{2, 10, 768}));
  EXPECT_EQ(shapes->at("norm"), (Shape{2, 10, 768}));
  const OpSpec* k = w.FindOp("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->heads, 12);
  EXPECT_EQ(k->parts, 3);
  EXPECT_EQ(k->part, 1);
}

TEST(InferShapesTest, FailsOnInvalidDims) {
  Workload w = Builtin("bert_ffn");
  auto shapes = w.InferShapes({{"tokens", 0}});
  ASSERT_FALSE(shapes.ok());
  EXPECT_TRUE(Contains(shapes.status().message(), "tokens"));
}

// --- CheckDims ------------------------------------------------------------------------------------------

TEST(CheckDimsTest, AcceptsTheCornersOfTheRanges) {
  Workload w = Builtin("bert_attention");
  EXPECT_TRUE(w.CheckDims({{"batch", 1}, {"seq", 8}}).ok());
  EXPECT_TRUE(w.CheckDims({{"batch", 16}, {"seq", 512}}).ok());
  EXPECT_TRUE(w.CheckDims(w.TypicalDims()).ok());
}

TEST(CheckDimsTest, OutOfRangeNamesTheDimAndRange) {
  Workload w = Builtin("bert_attention");
  Status high = w.CheckDims({{"batch", 1}, {"seq", 513}});
  ASSERT_FALSE(high.ok());
  EXPECT_EQ(high.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(high.message(), "'seq'"));
  EXPECT_TRUE(Contains(high.message(), "513"));
  EXPECT_TRUE(Contains(high.message(), "[8, 512]"));
  Status low = w.CheckDims({{"batch", 0}, {"seq", 64}});
  ASSERT_FALSE(low.ok());
  EXPECT_TRUE(Contains(low.message(), "'batch'"));
  EXPECT_TRUE(Contains(low.message(), "[1, 16]"));
}

TEST(CheckDimsTest, MissingDimIsNamedWithTheNeededOnes) {
  Workload w = Builtin("bert_attention");
  Status status = w.CheckDims({{"batch", 1}});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(Contains(status.message(), "missing dim 'seq'"));
  EXPECT_TRUE(Contains(status.message(), "batch in [1, 16]"));
  EXPECT_TRUE(Contains(status.message(), "seq in [8, 512]"));
}

TEST(CheckDimsTest, UnknownDimIsNamedWithTheDeclaredOnes) {
  Workload w = Builtin("bert_ffn");
  Status status = w.CheckDims({{"tokens", 4}, {"heads", 2}});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(Contains(status.message(), "no dim 'heads'"));
  EXPECT_TRUE(Contains(status.message(), "tokens in [1, 4096]"));
}

// --- bad input ------------------------------------------------------------------------------------------

TEST(ParseWorkloadErrorTest, MalformedJson) {
  auto workload = ParseWorkload("{\"format\": ", "broken.json");
  ASSERT_FALSE(workload.ok());
  EXPECT_TRUE(Contains(workload.status().message(), "broken.json"));
  EXPECT_TRUE(Contains(workload.status().message(), "malformed JSON"));
}

TEST(ParseWorkloadErrorTest, WrongOrMissingFormat) {
  Json json = TinyGraph();
  json["format"] = "crmap.workload/2";
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "'crmap.workload/2'"));
  EXPECT_TRUE(Contains(message, "'crmap.workload/1'"));
  json.erase("format");
  EXPECT_TRUE(Contains(ParseError(json), "missing field 'format'"));
}

TEST(ParseWorkloadErrorTest, UnknownTopLevelField) {
  Json json = TinyGraph();
  json["opz"] = Json::array();
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "unknown field 'opz'"));
  EXPECT_TRUE(Contains(message, "ops"));
}

TEST(ParseWorkloadErrorTest, UnknownOpListsAllowedOps) {
  Json json = TinyGraph();
  json["ops"][1]["op"] = "gelu";
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "op 'act'"));
  EXPECT_TRUE(Contains(message, "unknown op 'gelu'"));
  EXPECT_TRUE(Contains(message,
                       "linear, matmul, conv2d, eltwise, add, layer_norm, softmax, pool, split_heads, "
                       "transpose, merge_heads"));
}

TEST(ParseWorkloadErrorTest, UnknownAttributeListsAllowedOnes) {
  Json json = TinyGraph();
  json["ops"][0]["kernel"] = 3;  // conv2d has one, linear does not
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "op 'fc'"));
  EXPECT_TRUE(Contains(message, "unknown field 'kernel'"));
  EXPECT_TRUE(Contains(message, "out_features"));
}

TEST(ParseWorkloadErrorTest, UnknownEltwiseAlgListsAllowedOnes) {
  Json json = TinyGraph();
  json["ops"][1]["alg"] = "leaky";
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "unknown eltwise alg 'leaky'"));
  EXPECT_TRUE(Contains(message, "gelu_erf"));
}

TEST(ParseWorkloadErrorTest, EltwiseParametersOnlyWhereTheAlgUsesThem) {
  Json json = TinyGraph();
  json["ops"][1]["alg"] = "gelu_erf";
  json["ops"][1]["alpha"] = 0.5;  // oneDNN would ignore it, LibTorch too: a silent no-op is an error
  EXPECT_TRUE(Contains(ParseError(json), "takes no such parameter"));
  json = TinyGraph();
  json["ops"][1]["beta"] = 0.5;  // relu has a slope (alpha), no shift
  EXPECT_TRUE(Contains(ParseError(json), "takes no such parameter"));
  json = TinyGraph();
  json["ops"][1]["alpha"] = 0.1;  // leaky relu
  EXPECT_TRUE(ParseWorkload(json.dump(), "ok.json").ok());
}

TEST(ParseWorkloadErrorTest, PoolPaddingAtMostHalfTheKernel) {
  Json json = Json::parse(R"({"format": "crmap.workload/1", "name": "p", "dims": {"n": {"min": 1, "max": 2}},
    "inputs": [{"name": "x", "shape": ["n", 4, 8, 8]}],
    "ops": [{"name": "y", "op": "pool", "inputs": ["x"], "alg": "max", "kernel": 2, "padding": 2}],
    "outputs": ["y"]})");
  EXPECT_TRUE(Contains(ParseError(json), "at most half the kernel"));
}

TEST(ParseWorkloadErrorTest, AttributeOfTheWrongTypeNamesTheField) {
  Json json = TinyGraph();
  json["ops"][0]["out_features"] = "16";
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "op 'fc'"));
  EXPECT_TRUE(Contains(message, "'out_features' must be an integer"));
  json = TinyGraph();
  json["ops"][0].erase("out_features");
  EXPECT_TRUE(Contains(ParseError(json), "missing field 'out_features'"));
}

TEST(ParseWorkloadErrorTest, InputReferencingALaterOp) {
  Json json = TinyGraph();
  json["ops"][1]["inputs"] = {"sum"};
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "op 'act'"));
  EXPECT_TRUE(Contains(message, "input 'sum'"));
  EXPECT_TRUE(Contains(message, "topological order"));
}

TEST(ParseWorkloadErrorTest, InputReferencingItselfOrNothing) {
  Json json = TinyGraph();
  json["ops"][1]["inputs"] = {"act"};
  EXPECT_TRUE(Contains(ParseError(json), "input 'act'"));
  json = TinyGraph();
  json["ops"][1]["inputs"] = {"ghost"};
  EXPECT_TRUE(Contains(ParseError(json), "input 'ghost'"));
}

TEST(ParseWorkloadErrorTest, DuplicateNames) {
  Json json = TinyGraph();
  json["ops"][1]["name"] = "fc";
  json["ops"][2]["inputs"] = {"fc", "x"};
  EXPECT_TRUE(Contains(ParseError(json), "op 'fc': duplicate name"));
  json = TinyGraph();
  json["ops"][0]["name"] = "x";  // an op named like a graph input
  json["ops"][1]["inputs"] = {"x"};
  EXPECT_TRUE(Contains(ParseError(json), "duplicate name"));
}

TEST(ParseWorkloadErrorTest, WrongInputCount) {
  Json json = TinyGraph();
  json["ops"][2]["inputs"] = {"act"};
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "op 'sum'"));
  EXPECT_TRUE(Contains(message, "add takes 2 input(s), got 1"));
  json = TinyGraph();
  json["ops"][1]["inputs"] = {"fc", "x"};
  EXPECT_TRUE(Contains(ParseError(json), "eltwise takes 1 input(s), got 2"));
}

TEST(ParseWorkloadErrorTest, AddOfDifferentShapes) {
  Json json = TinyGraph();
  json["ops"][0]["out_features"] = 8;  // act is [rows, 8], x is [rows, 16]
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "op 'sum' (add)"));
  EXPECT_TRUE(Contains(message, "shapes differ"));
  EXPECT_TRUE(Contains(message, "[1, 8] vs [1, 16]")) << "checked first at the smallest dims";
}

TEST(ParseWorkloadErrorTest, MatmulInnerDimsDiffer) {
  Json json = Json::parse(R"({
    "format": "crmap.workload/1", "name": "mm", "dims": {"m": {"min": 1, "max": 8}},
    "inputs": [{"name": "a", "shape": ["m", 4]}, {"name": "b", "shape": [5, 3]}],
    "ops": [{"name": "y", "op": "matmul", "inputs": ["a", "b"]}],
    "outputs": ["y"]})");
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "op 'y' (matmul)"));
  EXPECT_TRUE(Contains(message, "inner dims differ"));
  json["inputs"][1]["shape"] = {4, 3};
  Workload w = MustParse(json.dump());
  EXPECT_EQ(w.dims().at("m").typical, 1) << "typical defaults to min";
  auto shapes = w.InferShapes({{"m", 6}});
  ASSERT_TRUE(shapes.ok());
  EXPECT_EQ(shapes->at("y"), (Shape{6, 3}));
}

TEST(ParseWorkloadErrorTest, ShapeInconsistentOnlyAtTheLargestDims) {
  // split_heads of a feature dim that is divisible by 4 at min (4) and typical (8) but not at max (10).
  Json json = Json::parse(R"({
    "format": "crmap.workload/1", "name": "split", "dims": {"f": {"min": 4, "max": 10, "typical": 8}},
    "inputs": [{"name": "x", "shape": [1, 2, "f"]}],
    "ops": [{"name": "h", "op": "split_heads", "inputs": ["x"], "heads": 4}],
    "outputs": ["h"]})");
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "at dims f=10"));
  EXPECT_TRUE(Contains(message, "not divisible"));
}

TEST(ParseWorkloadErrorTest, DimRangesMustBeOrdered) {
  Json json = TinyGraph();
  json["dims"]["rows"] = {{"min", 8}, {"max", 64}, {"typical", 100}};
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "dim 'rows'"));
  EXPECT_TRUE(Contains(message, "min <= typical <= max"));
  json["dims"]["rows"] = {{"min", 9}, {"max", 4}};
  EXPECT_TRUE(Contains(ParseError(json), "dim 'rows'"));
  json["dims"]["rows"] = {{"min", 0}, {"max", 4}};
  EXPECT_TRUE(Contains(ParseError(json), "dim 'rows'"));
  json["dims"]["rows"] = {{"min", 1}, {"max", 4}, {"step", 2}};
  EXPECT_TRUE(Contains(ParseError(json), "unknown field 'step'"));
}

TEST(ParseWorkloadErrorTest, BatchingIsSumOrMatchAndOneDimSumsAtMost) {
  Json json = TinyGraph();
  json["dims"]["rows"]["batching"] = "stack";
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "dim 'rows'")) << message;
  EXPECT_TRUE(Contains(message, "\"sum\"")) << message;
  json = TinyGraph();
  json["dims"]["rows"]["batching"] = "sum";
  json["dims"]["cols"] = {{"min", 1}, {"max", 4}, {"batching", "sum"}};
  json["inputs"][0]["shape"] = {"rows", "cols*16"};
  EXPECT_TRUE(Contains(ParseError(json), "only one dim may have batching \"sum\"")) << ParseError(json);
}

TEST(WorkloadTest, TheSummingDimIsDeclaredInTheFile) {
  EXPECT_EQ(MustParse(TinyGraph().dump()).batch_dim(), "");  // default: requests batch only with equal dims
  Json json = TinyGraph();
  json["dims"]["rows"]["batching"] = "sum";
  EXPECT_EQ(MustParse(json.dump()).batch_dim(), "rows");
  json["dims"]["rows"]["batching"] = "match";
  EXPECT_EQ(MustParse(json.dump()).batch_dim(), "");
  EXPECT_EQ(Builtin("bert_ffn").batch_dim(), "tokens");
  EXPECT_EQ(Builtin("resnet_stem").batch_dim(), "batch");
}

TEST(ParseWorkloadErrorTest, UndeclaredAndUnusedDims) {
  Json json = TinyGraph();
  json["inputs"][0]["shape"] = {"batch*rows", 16};
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "input 'x'"));
  EXPECT_TRUE(Contains(message, "undeclared dim 'batch'"));

  json = TinyGraph();
  json["dims"]["unused"] = {{"min", 1}, {"max", 2}};
  EXPECT_TRUE(Contains(ParseError(json), "dim 'unused' is declared but no input uses it"));
}

TEST(ParseWorkloadErrorTest, BadSizes) {
  Json json = TinyGraph();
  json["inputs"][0]["shape"] = {"rows", 0};
  EXPECT_TRUE(Contains(ParseError(json), "sizes must be in [1, "));
  json["inputs"][0]["shape"] = {"rows", int64_t{1} << 40};
  EXPECT_TRUE(Contains(ParseError(json), "sizes must be in [1, "));
  json["inputs"][0]["shape"] = {"rows", "rows*"};
  EXPECT_TRUE(Contains(ParseError(json), "bad size 'rows*'"));
  json["inputs"][0]["shape"] = {"rows", 1, 1, 1, 1, 4};
  EXPECT_TRUE(Contains(ParseError(json), "at most 5 dims"));
  json["inputs"][0]["shape"] = {"rows", "16+1"};
  EXPECT_TRUE(Contains(ParseError(json), "bad size factor '16+1'"));
  json["inputs"][0]["shape"] = {"rows", 1.5};
  EXPECT_TRUE(Contains(ParseError(json), "input 'x'"));
}

TEST(ParseWorkloadErrorTest, MergeHeadsMustReadASingleUseMatmul) {
  // merge_heads fed by split_heads directly (not a matmul).
  Json json = Json::parse(R"({
    "format": "crmap.workload/1", "name": "heads", "dims": {"s": {"min": 1, "max": 8}},
    "inputs": [{"name": "x", "shape": [1, "s", 8]}],
    "ops": [{"name": "h", "op": "split_heads", "inputs": ["x"], "heads": 2},
            {"name": "m", "op": "merge_heads", "inputs": ["h"]}],
    "outputs": ["m"]})");
  std::string message = ParseError(json);
  EXPECT_TRUE(Contains(message, "op 'm'"));
  EXPECT_TRUE(Contains(message, "merge_heads must read a matmul output"));

  // The same through a matmul parses...
  json["ops"] = Json::parse(R"([
    {"name": "h", "op": "split_heads", "inputs": ["x"], "heads": 2},
    {"name": "ht", "op": "transpose", "inputs": ["h"]},
    {"name": "mm", "op": "matmul", "inputs": ["h", "ht"]},
    {"name": "m", "op": "merge_heads", "inputs": ["mm"]}])");
  Workload w = MustParse(json.dump());
  auto shapes = w.InferShapes({{"s", 5}});
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(shapes->at("mm"), (Shape{1, 2, 5, 5}));
  EXPECT_EQ(shapes->at("m"), (Shape{1, 5, 10}));

  // ...but not when the matmul output is also a graph output.
  json["outputs"] = {"m", "mm"};
  EXPECT_TRUE(Contains(ParseError(json), "merge_heads must read a matmul output"));
}

TEST(ParseWorkloadErrorTest, OutputsMustBeOps) {
  Json json = TinyGraph();
  json["outputs"] = {"x"};
  EXPECT_TRUE(Contains(ParseError(json), "is not an op name"));
  json["outputs"] = Json::array();
  EXPECT_TRUE(Contains(ParseError(json), "outputs"));
}

TEST(ParseWorkloadErrorTest, NamesMustBeIdentifiers) {
  Json json = TinyGraph();
  json["name"] = "Tiny Graph";
  EXPECT_TRUE(Contains(ParseError(json), "workload name"));
  json = TinyGraph();
  json["ops"][0]["name"] = "FC";
  EXPECT_TRUE(Contains(ParseError(json), "op 'FC'"));
}

// --- fingerprint ----------------------------------------------------------------------------------------

TEST(FingerprintTest, StableAcrossParsesAndFormatting) {
  Workload a = MustParse(TinyGraph().dump());
  Workload b = MustParse(TinyGraph().dump());
  Workload indented = MustParse(TinyGraph().dump(4));
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
  EXPECT_EQ(a.fingerprint(), indented.fingerprint());
  EXPECT_EQ(a.canonical_json(), indented.canonical_json());
  EXPECT_EQ(a.fingerprint().size(), 16u);
  EXPECT_EQ(Builtin("bert_ffn").fingerprint(), Builtin("bert_ffn").fingerprint());
}

// Batching is serving metadata: tuning databases and policies stay valid when a file gains it.
TEST(FingerprintTest, BatchingDoesNotChangeIt) {
  Json json = TinyGraph();
  const std::string base = MustParse(json.dump()).fingerprint();
  json["dims"]["rows"]["batching"] = "sum";
  EXPECT_EQ(MustParse(json.dump()).fingerprint(), base);
}

TEST(FingerprintTest, ChangesWhenOneAttributeChanges) {
  const std::string base = MustParse(TinyGraph().dump()).fingerprint();
  Json json = TinyGraph();
  json["ops"][1]["alg"] = "tanh";
  EXPECT_NE(MustParse(json.dump()).fingerprint(), base);
  json = TinyGraph();
  json["dims"]["rows"]["max"] = 65;
  EXPECT_NE(MustParse(json.dump()).fingerprint(), base);
  json = TinyGraph();
  json["seed"] = 4;
  EXPECT_NE(MustParse(json.dump()).fingerprint(), base);
  EXPECT_NE(Builtin("bert_ffn").fingerprint(), Builtin("dlrm_mlp").fingerprint());
}

}  // namespace
}  // namespace crmap
