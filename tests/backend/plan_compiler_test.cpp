#include "backend/plan_compiler.h"

#include <gtest/gtest.h>

#include "backend/host.h"
#include "backend/torch_reference.h"
#include "backend/validator.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustConfig;
using testing::MustLoad;
using testing::MustParse;
using testing::MustSpace;

std::map<std::string, HostTensor> ReferenceOutputs(const Workload& workload, const Dims& dims) {
  auto model = TorchReference::Create(workload, dims, 1);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_TRUE((*model)->Run().ok());
  auto outputs = (*model)->Outputs();
  EXPECT_TRUE(outputs.ok());
  return *outputs;
}

// Compiles and validates; returns the status of compilation and the errors (scaled -1 if not validated).
struct Checked {
  Status status;
  ErrorStats error{-1, -1, -1, ""};
  PlanInfo info;
};

Checked CompileAndCheck(const Workload& workload, const SearchSpace& space, const Dims& dims, const Config& config,
                        const std::map<std::string, HostTensor>& reference, CompileOptions options = {}) {
  Checked checked;
  auto plan = CompilePlan(workload, space, dims, config, options);
  checked.status = plan.status();
  if (!plan.ok()) return checked;
  checked.info = plan->info();
  auto report = ValidatePlan(*plan, reference, 1.0);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  if (report.ok()) checked.error = report->error;
  return checked;
}

std::string OneOpWorkload(const std::string& input_shape, const std::string& ops, const std::string& output,
                          const std::string& extra_input = "") {
  return R"({"format": "crmap.workload/1", "name": "one_op", "seed": 3,
             "dims": {"n": {"min": 1, "max": 64, "typical": 2}},
             "inputs": [{"name": "x", "shape": )" + input_shape + "}" + extra_input + R"(],
             "ops": [)" + ops + R"(], "outputs": [")" + output + "\"]}";
}

struct OpCase {
  const char* name;
  std::string workload;
  bool compute = false;  // has a linear, matmul or conv2d: its space has a precision knob (f32, bf16)
};
// gtest prints a parameter in failure messages: the case's name, not its bytes.
void PrintTo(const OpCase& op, std::ostream* out) { *out << op.name; }

// bf16 plans need oneDNN's avx512_core ISA or newer (emulated below avx512_core_bf16); on other hosts the bf16
// cases are skipped with the reason, and PlanCompilerTest checks that bf16 is an explicit Unsupported there.
bool HostRunsBf16() { return DetectHost().has_bf16; }

class EachOpTest : public ::testing::TestWithParam<std::tuple<OpCase, const char*>> {};

// Every op kind, in every plan config of one precision, agrees with the independent LibTorch f32 reference
// within that precision's accuracy budget (the workload's defaults: a bound on the scaled error). The bf16
// errors measured on an avx512_core_vnni host (bf16 emulated) reach 1.1e-2 of the output's scale on these tiny
// ops (K = 24) against a budget of 3e-2; f32 errors stay below 1e-6 against 1e-4.
TEST_P(EachOpTest, MatchesLibTorchReferenceInEveryPlanConfig) {
  const auto& [op, precision] = GetParam();
  if (std::string(precision) == "bf16" && !HostRunsBf16())
    GTEST_SKIP() << "bf16 needs oneDNN's avx512_core or newer; this host runs " << DetectHost().isa;
  Workload workload = MustParse(op.workload);
  SearchSpace space = MustSpace(workload, 2);
  Dims dims = {{"n", 3}};
  auto reference = ReferenceOutputs(workload, dims);
  const bool bf16 = std::string(precision) == "bf16";
  const double budget = bf16 ? workload.accuracy_budget().bf16 : workload.accuracy_budget().f32;
  ASSERT_EQ(space.FindKnobOfKind(KnobKind::kPrecision) >= 0, op.compute) << "OpCase::compute is wrong";
  int compiled = 0;
  for (const Config& config : space.Enumerate(KnobScope::kPlan)) {
    std::string value = space.ValueOf(config, KnobKind::kPrecision);  // "" without a precision knob: f32
    if ((value.empty() ? "f32" : value) != precision) continue;
    Checked checked = CompileAndCheck(workload, space, dims, config, reference);
    if (checked.status.code() == StatusCode::kUnsupported) continue;  // an answer, checked elsewhere
    ASSERT_TRUE(checked.status.ok()) << space.ToString(config) << ": " << checked.status.ToString();
    EXPECT_LE(checked.error.scaled, budget) << space.ToString(config) << " max abs " << checked.error.max_abs;
    ++compiled;
  }
  EXPECT_GE(compiled, 1);
}

// Every op case in f32; the compute ones (those with a precision knob) in bf16 too.
std::vector<std::tuple<OpCase, const char*>> OpPrecisions() {
  std::vector<OpCase> cases = {
      OpCase{"linear", OneOpWorkload(R"(["n", 5, 24])", R"({"name": "y", "op": "linear", "inputs": ["x"], "out_features": 7})", "y"), true},
      OpCase{"linear_no_bias", OneOpWorkload(R"(["n", 24])", R"({"name": "y", "op": "linear", "inputs": ["x"], "out_features": 9, "bias": false})", "y"), true},
      OpCase{"conv_stride_pad", OneOpWorkload(R"(["n", 8, 11, 11])", R"({"name": "y", "op": "conv2d", "inputs": ["x"], "out_channels": 16, "kernel": 3, "stride": 2, "padding": 1})", "y"), true},
      OpCase{"conv_groups", OneOpWorkload(R"(["n", 16, 9, 9])", R"({"name": "y", "op": "conv2d", "inputs": ["x"], "out_channels": 16, "kernel": [3, 1], "padding": [1, 0], "groups": 4})", "y"), true},
      OpCase{"conv_depthwise", OneOpWorkload(R"(["n", 8, 9, 9])", R"({"name": "y", "op": "conv2d", "inputs": ["x"], "out_channels": 8, "kernel": 3, "padding": 1, "groups": 8, "bias": false})", "y"), true},
      OpCase{"max_pool", OneOpWorkload(R"(["n", 8, 10, 10])", R"({"name": "y", "op": "pool", "inputs": ["x"], "alg": "max", "kernel": 3, "stride": 2, "padding": 1})", "y")},
      OpCase{"avg_pool", OneOpWorkload(R"(["n", 8, 10, 10])", R"({"name": "y", "op": "pool", "inputs": ["x"], "alg": "avg", "kernel": 3, "stride": 2, "padding": 1})", "y")},
      OpCase{"relu", OneOpWorkload(R"(["n", 40])", R"({"name": "y", "op": "eltwise", "inputs": ["x"], "alg": "relu"})", "y")},
      OpCase{"leaky_relu", OneOpWorkload(R"(["n", 40])", R"({"name": "y", "op": "eltwise", "inputs": ["x"], "alg": "relu", "alpha": 0.1})", "y")},
      OpCase{"gelu_tanh", OneOpWorkload(R"(["n", 40])", R"({"name": "y", "op": "eltwise", "inputs": ["x"], "alg": "gelu_tanh"})", "y")},
      OpCase{"gelu_erf", OneOpWorkload(R"(["n", 40])", R"({"name": "y", "op": "eltwise", "inputs": ["x"], "alg": "gelu_erf"})", "y")},
      OpCase{"sigmoid", OneOpWorkload(R"(["n", 40])", R"({"name": "y", "op": "eltwise", "inputs": ["x"], "alg": "sigmoid"})", "y")},
      OpCase{"swish", OneOpWorkload(R"(["n", 40])", R"({"name": "y", "op": "eltwise", "inputs": ["x"], "alg": "swish", "alpha": 1.5})", "y")},
      OpCase{"tanh", OneOpWorkload(R"(["n", 40])", R"({"name": "y", "op": "eltwise", "inputs": ["x"], "alg": "tanh"})", "y")},
      OpCase{"scale", OneOpWorkload(R"(["n", 40])", R"({"name": "y", "op": "eltwise", "inputs": ["x"], "alg": "linear", "alpha": 0.5, "beta": 0.25})", "y")},
      OpCase{"add", OneOpWorkload(R"(["n", 6, 7])", R"({"name": "y", "op": "add", "inputs": ["x", "z"]})", "y", R"(, {"name": "z", "shape": ["n", 6, 7]})")},
      OpCase{"layer_norm", OneOpWorkload(R"(["n", 4, 48])", R"({"name": "y", "op": "layer_norm", "inputs": ["x"], "epsilon": 1e-6})", "y")},
      OpCase{"softmax", OneOpWorkload(R"(["n", 3, 33])", R"({"name": "y", "op": "softmax", "inputs": ["x"]})", "y")},
      OpCase{"batched_matmul_views",
               OneOpWorkload(R"(["n", 5, 24])",
                             R"({"name": "q", "op": "split_heads", "inputs": ["x"], "heads": 2, "parts": 2, "part": 0},
                                {"name": "k", "op": "split_heads", "inputs": ["x"], "heads": 2, "parts": 2, "part": 1},
                                {"name": "kt", "op": "transpose", "inputs": ["k"]},
                                {"name": "s", "op": "matmul", "inputs": ["q", "kt"]},
                                {"name": "c", "op": "matmul", "inputs": ["s", "q"]},
                                {"name": "y", "op": "merge_heads", "inputs": ["c"]})",
                             "y"), true},
      OpCase{"fused_chain",
               OneOpWorkload(R"(["n", 16])",
                             R"({"name": "a", "op": "linear", "inputs": ["x"], "out_features": 16},
                                {"name": "b", "op": "eltwise", "inputs": ["a"], "alg": "gelu_erf"},
                                {"name": "y", "op": "add", "inputs": ["b", "x"]})",
                             "y"), true}};
  std::vector<std::tuple<OpCase, const char*>> out;
  for (const OpCase& c : cases) {
    out.emplace_back(c, "f32");
    if (c.compute) out.emplace_back(c, "bf16");
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Ops, EachOpTest, ::testing::ValuesIn(OpPrecisions()),
    [](const ::testing::TestParamInfo<std::tuple<OpCase, const char*>>& info) {
      return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param);
    });

// The built-in workloads: every plan config agrees with the reference within its precision's budget (f32
// configs far tighter), or is an explicit Unsupported answer.
TEST(PlanCompilerTest, EveryPlanConfigOfBuiltinWorkloadsAgreesWithReference) {
  for (const auto& [name, dims] : std::vector<std::pair<std::string, Dims>>{
           {"bert_ffn", {{"tokens", 3}}},
           {"dlrm_mlp", {{"batch", 2}}},
           {"bert_attention", {{"batch", 1}, {"seq", 8}}},
           {"resnet_bottleneck", {{"batch", 1}, {"size", 7}}},
           {"resnet_stem", {{"batch", 1}, {"size", 32}}}}) {
    Workload workload = MustLoad(name);
    SearchSpace space = MustSpace(workload, 1);
    auto reference = ReferenceOutputs(workload, dims);
    int ok = 0, unsupported = 0;
    for (const Config& config : space.Enumerate(KnobScope::kPlan)) {
      Checked checked = CompileAndCheck(workload, space, dims, config, reference);
      if (checked.status.code() == StatusCode::kUnsupported) {
        ++unsupported;
        continue;
      }
      ASSERT_TRUE(checked.status.ok()) << name << " " << space.ToString(config) << ": " << checked.status.ToString();
      bool bf16 = space.ValueOf(config, KnobKind::kPrecision) == "bf16";
      EXPECT_LE(checked.error.scaled, bf16 ? workload.accuracy_budget().bf16 : workload.accuracy_budget().f32)
          << name << " " << space.ToString(config);
      ++ok;
    }
    EXPECT_GT(ok, 0) << name;
    SCOPED_TRACE(name + ": " + std::to_string(ok) + " ok, " + std::to_string(unsupported) + " unsupported");
  }
}

TEST(PlanCompilerTest, Bf16IsAnExplicitUnsupportedBelowAvx512) {
  if (DetectHost().has_bf16) GTEST_SKIP() << "this host runs bf16 (" << DetectHost().isa << ")";
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload);
  Dims dims = {{"tokens", 4}};
  auto reference = ReferenceOutputs(workload, dims);
  Checked checked = CompileAndCheck(workload, space, dims, MustConfig(space, "precision=bf16;weights=packed"), reference);
  EXPECT_EQ(checked.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(checked.status.message().find(DetectHost().isa), std::string::npos) << checked.status.message();
}

TEST(PlanCompilerTest, Bf16RunsWithinItsBudgetAndIsMeasurablyLessExactThanF32) {
  if (!DetectHost().has_bf16)
    GTEST_SKIP() << "bf16 needs oneDNN's avx512_core or newer; this host runs " << DetectHost().isa;
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload);
  Dims dims = {{"tokens", 4}};
  auto reference = ReferenceOutputs(workload, dims);
  Checked bf16 = CompileAndCheck(workload, space, dims, MustConfig(space, "precision=bf16;weights=packed"), reference);
  Checked f32 = CompileAndCheck(workload, space, dims, MustConfig(space, "weights=packed"), reference);
  ASSERT_TRUE(bf16.status.ok()) << bf16.status.ToString();
  ASSERT_TRUE(f32.status.ok()) << f32.status.ToString();
  EXPECT_LE(bf16.error.scaled, workload.accuracy_budget().bf16);
  // bf16 really ran: 8 significant bits leave errors far above f32's (measured 9e-4 vs 3e-7 of the scale).
  EXPECT_GT(bf16.error.scaled, 100 * f32.error.scaled);
  EXPECT_GT(bf16.error.scaled, 1e-5);  // and not because f32 happened to be exact
}

TEST(PlanCompilerTest, InjectedSkippedOpIsCaughtByValidation) {
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload);
  Dims dims = {{"tokens", 4}};
  auto reference = ReferenceOutputs(workload, dims);
  CompileOptions options;
  options.fault = PlanFault::kSkipOp;
  Checked checked = CompileAndCheck(workload, space, dims, space.Default(), reference, options);
  ASSERT_TRUE(checked.status.ok()) << checked.status.ToString();
  EXPECT_GT(checked.error.scaled, workload.accuracy_budget().bf16);  // caught whatever the precision
}

TEST(PlanCompilerTest, InjectedWrongWeightLayoutIsCaughtByValidation) {
  for (const auto& [name, dims] : std::vector<std::pair<std::string, Dims>>{
           {"bert_ffn", {{"tokens", 4}}}, {"resnet_bottleneck", {{"batch", 1}, {"size", 7}}}}) {
    Workload workload = MustLoad(name);
    SearchSpace space = MustSpace(workload);
    auto reference = ReferenceOutputs(workload, dims);
    CompileOptions options;
    options.fault = PlanFault::kWrongLayout;
    CompileOptions allow = options;
    allow.allow_reference_kernels = true;  // the wrong layout may only have a reference kernel
    Checked checked = CompileAndCheck(workload, space, dims, space.Default(), reference, allow);
    ASSERT_TRUE(checked.status.ok()) << name << ": " << checked.status.ToString();
    EXPECT_GT(checked.error.scaled, workload.accuracy_budget().bf16) << name;
  }
}

TEST(PlanCompilerTest, OverMemoryBudgetIsResourceExhaustedBeforeAllocating) {
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload);
  CompileOptions options;
  options.memory_budget_bytes = 1000;
  auto plan = CompilePlan(workload, space, {{"tokens", 4}}, space.Default(), options);
  ASSERT_EQ(plan.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(plan.status().message().find("memory budget of 1000 bytes"), std::string::npos);
}

TEST(PlanCompilerTest, RejectsDimsOutsideRangeAndForeignConfigs) {
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload);
  auto plan = CompilePlan(workload, space, {{"tokens", 5000}}, space.Default());
  EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
  Config broken = space.Default();
  broken.values.pop_back();
  EXPECT_EQ(CompilePlan(workload, space, {{"tokens", 4}}, broken).status().code(), StatusCode::kInvalidArgument);
  Workload other = MustLoad("dlrm_mlp");
  SearchSpace other_space = MustSpace(other);
  EXPECT_EQ(CompilePlan(workload, other_space, {{"tokens", 4}}, other_space.Default()).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(PlanCompilerTest, ReferenceKernelsAreRefusedUnlessAllowed) {
  Workload workload = MustLoad("resnet_stem");
  SearchSpace space = MustSpace(workload);
  Dims dims = {{"batch", 1}, {"size", 32}};
  // Stored (oihw) weights with a channels-last activation: no jit kernel takes that pair on AVX2.
  Config config = MustConfig(space, "layout=nhwc;weights=stored");
  auto refused = CompilePlan(workload, space, dims, config);
  if (refused.ok()) GTEST_SKIP() << "this CPU has a jit kernel for nhwc with oihw weights";
  ASSERT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("reference kernel"), std::string::npos) << refused.status().message();
  CompileOptions allow;
  allow.allow_reference_kernels = true;
  auto allowed = CompilePlan(workload, space, dims, config, allow);
  ASSERT_TRUE(allowed.ok()) << allowed.status().ToString();
  bool has_ref = false;
  for (const auto& kernel : allowed->info().kernels) has_ref |= kernel.impl.rfind("ref", 0) == 0;
  EXPECT_TRUE(has_ref);
}

TEST(PlanCompilerTest, FusionRemovesStepsAndLayoutsReorderOnlyAtBoundaries) {
  Workload workload = MustLoad("resnet_bottleneck");
  SearchSpace space = MustSpace(workload);
  Dims dims = {{"batch", 1}, {"size", 7}};
  auto unfused = CompilePlan(workload, space, dims, MustConfig(space, "layout=blocked;weights=packed"));
  auto fused = CompilePlan(workload, space, dims,
                           MustConfig(space, "layout=blocked;weights=packed;fuse.conv1=bias+relu;"
                                             "fuse.conv2=bias+relu;fuse.conv3=bias+add+relu"));
  auto plain = CompilePlan(workload, space, dims, space.Default());
  ASSERT_TRUE(unfused.ok()) << unfused.status().ToString();
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  // 3 convs, 3 bias adds, 2 relus, residual, relu + 2 reorders vs 3 convs + 2 reorders.
  EXPECT_EQ(unfused->steps().size(), 12u);
  EXPECT_EQ(fused->steps().size(), 5u);
  // Blocked activations: the input is reordered once (reused by the residual) and the output once.
  EXPECT_EQ(fused->info().reorders, 2);
  EXPECT_EQ(unfused->info().reorders, 2);
  EXPECT_EQ(plain->info().reorders, 0);
  EXPECT_LT(fused->info().peak_bytes, unfused->info().peak_bytes);
  EXPECT_GT(fused->info().weight_bytes, 0);
  EXPECT_GT(fused->info().peak_bytes, fused->info().weight_bytes);
  for (const auto& kernel : fused->info().kernels) EXPECT_FALSE(kernel.impl.empty()) << kernel.step;
}

TEST(PlanCompilerTest, MergeHeadsCostsNoCopy) {
  Workload workload = MustLoad("bert_attention");
  SearchSpace space = MustSpace(workload);
  auto plan = CompilePlan(workload, space, {{"batch", 1}, {"seq", 8}}, space.Default());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  // split_heads, transpose and merge_heads are views: no reorder anywhere in the f32 plan.
  EXPECT_EQ(plan->info().reorders, 0);
}

}  // namespace
}  // namespace crmap
