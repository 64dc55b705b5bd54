#include "search_space/search_space.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "datasets/catalog.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustLoad;
using testing::MustSpace;

using Names = std::vector<std::string>;

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

Workload MustParse(const std::string& text) {
  auto workload = ParseWorkload(text, "test");
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return std::move(workload).value();
}

Config MustParseConfig(const SearchSpace& space, const std::string& text) {
  auto config = space.Parse(text);
  EXPECT_TRUE(config.ok()) << text << ": " << config.status().ToString();
  return config.ok() ? *config : space.Default();
}

Names KnobNames(const SearchSpace& space) {
  Names names;
  for (const auto& knob : space.knobs()) names.push_back(knob.name);
  return names;
}

// x [rows, 8] -> linear -> relu: one fusion knob with three values; the smallest useful space.
const char* kTinyWorkload = R"({"format": "crmap.workload/1", "name": "tiny",
  "dims": {"rows": {"min": 1, "max": 4}}, "inputs": [{"name": "x", "shape": ["rows", 8]}],
  "ops": [{"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 8},
          {"name": "act", "op": "eltwise", "inputs": ["fc"], "alg": "relu"}],
  "outputs": ["act"]})";

// Only a matmul of two activations: no weights anywhere.
const char* kMatmulOnly = R"({"format": "crmap.workload/1", "name": "mm",
  "dims": {"m": {"min": 1, "max": 4}},
  "inputs": [{"name": "a", "shape": ["m", 8]}, {"name": "b", "shape": [8, 4]}],
  "ops": [{"name": "y", "op": "matmul", "inputs": ["a", "b"]}],
  "outputs": ["y"]})";

// No compute op at all.
const char* kEltwiseOnly = R"({"format": "crmap.workload/1", "name": "elt",
  "dims": {"m": {"min": 1, "max": 4}}, "inputs": [{"name": "a", "shape": ["m", 8]}],
  "ops": [{"name": "y", "op": "eltwise", "inputs": ["a"], "alg": "relu"}],
  "outputs": ["y"]})";

TEST(SearchSpaceTest, BertFfnKnobs) {
  Workload w = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(w);
  EXPECT_EQ(space.workload_name(), "bert_ffn");
  EXPECT_EQ(KnobNames(space),
            (Names{"fuse.fc1", "fuse.fc2", "weights", "precision", "threads", "batch", "queue_delay_us", "placement"}));
  const Knob& fc1 = space.knobs()[space.FindKnob("fuse.fc1")];
  EXPECT_EQ(fc1.kind, KnobKind::kFusion);
  EXPECT_EQ(fc1.scope, KnobScope::kPlan);
  EXPECT_EQ(fc1.values, (Names{"none", "bias", "bias+gelu_erf"}));
  EXPECT_EQ(fc1.op_index, 0u);
  EXPECT_EQ(space.knobs()[space.FindKnob("fuse.fc2")].op_index, 2u);
  EXPECT_EQ(space.knobs()[space.FindKnob("weights")].values, (Names{"stored", "packed"}));
  EXPECT_EQ(space.knobs()[space.FindKnob("precision")].values, (Names{"f32", "bf16"}));
  EXPECT_EQ(space.knobs()[space.FindKnob("batch")].values, (Names{"1", "4", "16", "64"}));
  EXPECT_EQ(space.knobs()[space.FindKnob("batch")].scope, KnobScope::kRuntime);
  EXPECT_EQ(space.knobs()[space.FindKnob("placement")].scope, KnobScope::kRuntime);
  EXPECT_EQ(space.knobs()[space.FindKnob("queue_delay_us")].scope, KnobScope::kRuntime);
  EXPECT_EQ(space.FindKnob("layout"), -1) << "no image ops, no layout knob";
  EXPECT_EQ(space.FindKnob("nope"), -1);
  for (const auto& knob : space.knobs()) EXPECT_FALSE(knob.help.empty()) << knob.name;
}

TEST(SearchSpaceTest, LayoutKnobOnlyForImageWorkloads) {
  for (const char* name : {"resnet_bottleneck", "resnet_stem"}) {
    SearchSpace space = MustSpace(MustLoad(name));
    int layout = space.FindKnob("layout");
    ASSERT_GE(layout, 0) << name;
    EXPECT_EQ(space.knobs()[layout].values, (Names{"plain", "nhwc", "blocked", "any"}));
    EXPECT_EQ(space.knobs()[layout].default_index, 0);
    EXPECT_EQ(space.FindKnobOfKind(KnobKind::kLayout), layout);
  }
  for (const char* name : {"bert_ffn", "bert_attention", "dlrm_mlp"})
    EXPECT_EQ(MustSpace(MustLoad(name)).FindKnobOfKind(KnobKind::kLayout), -1) << name;
}

TEST(SearchSpaceTest, FusionKnobsOnlyForOpsWithAChain) {
  SearchSpace space = MustSpace(MustLoad("bert_attention"));
  EXPECT_GE(space.FindKnob("fuse.qkv"), 0);
  EXPECT_GE(space.FindKnob("fuse.scores"), 0);
  EXPECT_GE(space.FindKnob("fuse.proj"), 0);
  EXPECT_EQ(space.FindKnob("fuse.context"), -1) << "context feeds merge_heads: nothing to fuse";
  SearchSpace resnet = MustSpace(MustLoad("resnet_bottleneck"));
  EXPECT_EQ(resnet.knobs()[resnet.FindKnob("fuse.conv3")].values, (Names{"none", "bias", "bias+add", "bias+add+relu"}));
}

TEST(SearchSpaceTest, WeightsKnobAbsentWhenOnlyMatmuls) {
  SearchSpace mm = MustSpace(MustParse(kMatmulOnly));
  EXPECT_EQ(mm.FindKnob("weights"), -1);
  EXPECT_GE(mm.FindKnob("precision"), 0);
  EXPECT_EQ(KnobNames(mm), (Names{"precision", "threads", "batch", "queue_delay_us", "placement"}));

  SearchSpace elt = MustSpace(MustParse(kEltwiseOnly));
  EXPECT_EQ(KnobNames(elt), (Names{"threads", "batch", "queue_delay_us", "placement"}));

  EXPECT_GE(MustSpace(MustLoad("bert_attention")).FindKnob("weights"), 0) << "it has linear ops besides matmuls";
}

TEST(SearchSpaceTest, ThreadDomainFromMaxThreads) {
  Workload w = MustLoad("bert_ffn");
  struct Case {
    int max_threads;
    Names values;
  };
  const Case cases[] = {
      {1, {"1"}}, {2, {"1", "2"}}, {3, {"1", "2", "3"}}, {6, {"1", "2", "4", "6"}}, {8, {"1", "2", "4", "8"}},
  };
  for (const auto& c : cases) {
    SearchSpace space = MustSpace(w, c.max_threads);
    const Knob& threads = space.knobs()[space.FindKnob("threads")];
    EXPECT_EQ(threads.values, c.values) << c.max_threads;
    EXPECT_EQ(threads.values[threads.default_index], std::to_string(c.max_threads)) << "default: all cores";
  }
  // 0 means the host's cores: some non-empty domain whose default is its largest value.
  SearchSpace host = MustSpace(w, 0);
  const Knob& threads = host.knobs()[host.FindKnob("threads")];
  EXPECT_EQ(threads.default_index, static_cast<int>(threads.values.size()) - 1);
}

TEST(SearchSpaceTest, DefaultConfig) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  Config config = space.Default();
  EXPECT_EQ(space.ToString(config),
            "fuse.fc1=none;fuse.fc2=none;weights=stored;precision=f32;threads=2;batch=1;queue_delay_us=0;"
            "placement=shared");
  EXPECT_EQ(space.ValueOf(config, KnobKind::kPrecision), "f32");
  EXPECT_EQ(space.ValueOf(config, KnobKind::kWeights), "stored");
  EXPECT_EQ(space.ValueOf(config, KnobKind::kThreads), "2");
  EXPECT_EQ(space.ValueOf(config, KnobKind::kBatch), "1");
  EXPECT_EQ(space.ValueOf(config, KnobKind::kLayout), "") << "bert_ffn has no layout knob";
  EXPECT_EQ(MustParseConfig(space, "default"), config);
  EXPECT_EQ(MustParseConfig(space, "  default "), config);
  EXPECT_TRUE(space.Validate(config).ok());

  SearchSpace resnet = MustSpace(MustLoad("resnet_stem"));
  EXPECT_EQ(resnet.ValueOf(resnet.Default(), KnobKind::kLayout), "plain");
}

TEST(SearchSpaceTest, SizesAndConstraints) {
  Workload w = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(w);
  EXPECT_EQ(space.Size(KnobScope::kPlan), 3u * 3 * 2 * 2 * 2);
  EXPECT_EQ(space.Size(KnobScope::kRuntime), 4u * 4 * 2);
  EXPECT_EQ(space.TotalSize(), space.Size(KnobScope::kPlan) * space.Size(KnobScope::kRuntime));
  EXPECT_EQ(space.constraints().memory_budget_bytes, w.memory_budget_bytes());
  EXPECT_DOUBLE_EQ(space.constraints().accuracy.f32, w.accuracy_budget().f32);
  EXPECT_DOUBLE_EQ(space.constraints().accuracy.bf16, w.accuracy_budget().bf16);
}

TEST(SearchSpaceTest, CanonicalStringAndIdRoundTripForEveryConfig) {
  SearchSpace space = MustSpace(MustParse(kTinyWorkload), 1);
  // fuse.fc (3) x weights (2) x precision (2) x threads (1) x batch (4) x queue delay (4) x placement (2)
  ASSERT_EQ(space.TotalSize(), 384u);
  std::set<std::string> texts;
  for (uint64_t id = 0; id < space.TotalSize(); ++id) {
    auto config = space.FromId(id);
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    EXPECT_TRUE(space.Validate(*config).ok());
    EXPECT_EQ(space.ToId(*config), id);
    std::string text = space.ToString(*config);
    auto parsed = space.Parse(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, *config) << text;
    texts.insert(text);
  }
  EXPECT_EQ(texts.size(), space.TotalSize()) << "canonical strings are distinct";
}

TEST(SearchSpaceTest, IdRoundTripOnALargeSpace) {
  SearchSpace space = MustSpace(MustLoad("bert_attention"));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200; ++i) {
    std::uniform_int_distribution<uint64_t> pick(0, space.TotalSize() - 1);
    uint64_t id = pick(rng);
    auto config = space.FromId(id);
    ASSERT_TRUE(config.ok());
    EXPECT_EQ(space.ToId(*config), id);
  }
  EXPECT_EQ(space.ToId(space.Default()), space.ToId(*space.FromId(space.ToId(space.Default()))));
}

TEST(SearchSpaceTest, FromIdOutOfRange) {
  SearchSpace space = MustSpace(MustParse(kTinyWorkload), 1);
  EXPECT_TRUE(space.FromId(space.TotalSize() - 1).ok());
  for (uint64_t id : {space.TotalSize(), space.TotalSize() + 1, ~uint64_t{0}}) {
    auto config = space.FromId(id);
    ASSERT_FALSE(config.ok()) << id;
    EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(config.status().message(), "out of range"));
    EXPECT_TRUE(Contains(config.status().message(), std::to_string(space.TotalSize())));
  }
}

TEST(SearchSpaceTest, ParsePartialStringsTakeDefaultsForTheRest) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  Config config = MustParseConfig(space, "precision=bf16");
  EXPECT_EQ(space.ToString(config),
            "fuse.fc1=none;fuse.fc2=none;weights=stored;precision=bf16;threads=2;batch=1;queue_delay_us=0;"
            "placement=shared");
  // Order does not matter; ',' separates like ';'; whitespace is ignored; empty items are skipped.
  Config two = MustParseConfig(space, " threads = 1 ,weights=packed;; fuse.fc2=bias+add ");
  EXPECT_EQ(space.ValueOf(two, KnobKind::kThreads), "1");
  EXPECT_EQ(space.ValueOf(two, KnobKind::kWeights), "packed");
  EXPECT_EQ(space.knobs()[space.FindKnob("fuse.fc2")].values[two.values[space.FindKnob("fuse.fc2")]], "bias+add");
  EXPECT_EQ(space.ValueOf(two, KnobKind::kPrecision), "f32");
  EXPECT_EQ(two, MustParseConfig(space, "fuse.fc2=bias+add;weights=packed;threads=1"));
}

TEST(SearchSpaceTest, ParseJsonObjects) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  Config config = MustParseConfig(space, R"({"precision": "bf16", "threads": 1, "batch": 16})");
  EXPECT_EQ(config, MustParseConfig(space, "precision=bf16;threads=1;batch=16"));
  EXPECT_EQ(MustParseConfig(space, "{}"), space.Default());

  auto wrong_type = space.Parse(R"({"threads": true})");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_TRUE(Contains(wrong_type.status().message(), "'threads'"));
  auto array = space.Parse(R"([1, 2])");
  EXPECT_FALSE(array.ok()) << "'[' is not a knob=value item either";
  auto malformed = space.Parse("{bad");
  ASSERT_FALSE(malformed.ok());
  EXPECT_TRUE(Contains(malformed.status().message(), "malformed JSON"));
}

TEST(SearchSpaceTest, ParseUnknownKnobListsTheKnobs) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  for (const char* text : {"nope=1", R"({"nope": 1})"}) {
    auto config = space.Parse(text);
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(config.status().message(), "unknown knob 'nope'"));
    EXPECT_TRUE(Contains(config.status().message(), "'bert_ffn'"));
    EXPECT_TRUE(Contains(config.status().message(),
                         "fuse.fc1, fuse.fc2, weights, precision, threads, batch, queue_delay_us, placement"));
  }
}

TEST(SearchSpaceTest, ParseUnknownValueListsTheAllowedValues) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  auto config = space.Parse("precision=f16");
  ASSERT_FALSE(config.ok());
  EXPECT_TRUE(Contains(config.status().message(), "knob 'precision' has no value 'f16'"));
  EXPECT_TRUE(Contains(config.status().message(), "allowed: f32, bf16"));
  auto fusion = space.Parse("fuse.fc1=gelu_erf");
  ASSERT_FALSE(fusion.ok());
  EXPECT_TRUE(Contains(fusion.status().message(), "allowed: none, bias, bias+gelu_erf"));
  auto threads = space.Parse(R"({"threads": 3})");
  ASSERT_FALSE(threads.ok());
  EXPECT_TRUE(Contains(threads.status().message(), "allowed: 1, 2"));
}

TEST(SearchSpaceTest, ParseOtherErrors) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  auto empty = space.Parse("  ");
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(Contains(empty.status().message(), "empty"));
  auto no_equals = space.Parse("precision");
  ASSERT_FALSE(no_equals.ok());
  EXPECT_TRUE(Contains(no_equals.status().message(), "expected knob=value, got 'precision'"));
  auto twice = space.Parse("threads=1;threads=2");
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(Contains(twice.status().message(), "'threads' given twice"));
}

TEST(SearchSpaceTest, ValidateRejectsMalformedConfigs) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  Config short_config{{0, 0}};
  Status size = space.Validate(short_config);
  ASSERT_FALSE(size.ok());
  EXPECT_TRUE(Contains(size.message(), "8 knobs"));
  Config out_of_range = space.Default();
  out_of_range.values[space.FindKnob("precision")] = 2;
  Status range = space.Validate(out_of_range);
  ASSERT_FALSE(range.ok());
  EXPECT_TRUE(Contains(range.message(), "'precision'"));
  out_of_range.values[space.FindKnob("precision")] = -1;
  EXPECT_FALSE(space.Validate(out_of_range).ok());
}

TEST(SearchSpaceTest, EnumerateCoversThePlanSpaceOnce) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  std::vector<Config> configs = space.Enumerate(KnobScope::kPlan);
  ASSERT_EQ(configs.size(), space.Size(KnobScope::kPlan));
  std::set<Config> distinct(configs.begin(), configs.end());
  EXPECT_EQ(distinct.size(), configs.size());
  for (size_t i = 1; i < configs.size(); ++i)
    EXPECT_LT(space.ToId(configs[i - 1]), space.ToId(configs[i])) << "in id order";
  for (const Config& config : configs) {
    EXPECT_TRUE(space.Validate(config).ok());
    EXPECT_EQ(space.PlanPart(config), config) << "runtime knobs stay at their defaults";
  }
  EXPECT_EQ(distinct.count(space.Default()), 1u);
}

TEST(SearchSpaceTest, EnumerateRuntimeHoldsPlanKnobsAtDefaults) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  std::vector<Config> configs = space.Enumerate(KnobScope::kRuntime);
  ASSERT_EQ(configs.size(), space.Size(KnobScope::kRuntime));
  std::set<Config> distinct(configs.begin(), configs.end());
  EXPECT_EQ(distinct.size(), configs.size());
  const std::string default_key = space.PlanKey(space.Default());
  for (const Config& config : configs) EXPECT_EQ(space.PlanKey(config), default_key);
}

TEST(SearchSpaceTest, NthConfigMatchesEnumerate) {
  SearchSpace space = MustSpace(MustLoad("resnet_bottleneck"));
  for (KnobScope scope : {KnobScope::kPlan, KnobScope::kRuntime}) {
    std::vector<Config> configs = space.Enumerate(scope);
    for (uint64_t i = 0; i < configs.size(); ++i) ASSERT_EQ(space.NthConfig(i, scope), configs[i]) << i;
  }
}

TEST(SearchSpaceTest, SampleIsDeterministicAndValid) {
  SearchSpace space = MustSpace(MustLoad("bert_attention"));
  std::mt19937_64 a(123);
  std::mt19937_64 b(123);
  std::mt19937_64 c(124);
  int differ = 0;
  std::set<Config> seen;
  for (int i = 0; i < 100; ++i) {
    Config x = space.Sample(a);
    EXPECT_EQ(x, space.Sample(b));
    differ += x != space.Sample(c);
    EXPECT_TRUE(space.Validate(x).ok());
    EXPECT_EQ(space.PlanPart(x), x) << "plan-scope samples keep runtime defaults";
    seen.insert(x);
  }
  EXPECT_GT(differ, 0) << "another seed gives another sequence";
  EXPECT_GT(seen.size(), 20u) << "samples spread over the space";

  std::mt19937_64 rng(5);
  for (int i = 0; i < 50; ++i) {
    Config runtime = space.Sample(rng, KnobScope::kRuntime);
    EXPECT_TRUE(space.Validate(runtime).ok());
    EXPECT_EQ(space.PlanKey(runtime), space.PlanKey(space.Default()));
  }
}

TEST(SearchSpaceTest, NeighboursDifferInExactlyOneKnob) {
  SearchSpace space = MustSpace(MustLoad("resnet_bottleneck"));
  for (const Config& start : {space.Default(), MustParseConfig(space, "layout=blocked;precision=bf16;threads=1")}) {
    for (KnobScope scope : {KnobScope::kPlan, KnobScope::kRuntime}) {
      size_t expected = 0;
      for (const auto& knob : space.knobs())
        if (knob.scope == scope) expected += knob.values.size() - 1;
      std::vector<Config> neighbours = space.Neighbours(start, scope);
      EXPECT_EQ(neighbours.size(), expected);
      std::set<Config> distinct(neighbours.begin(), neighbours.end());
      EXPECT_EQ(distinct.size(), neighbours.size());
      for (const Config& n : neighbours) {
        int changed = 0;
        for (size_t k = 0; k < space.knobs().size(); ++k) {
          if (n.values[k] == start.values[k]) continue;
          ++changed;
          EXPECT_EQ(space.knobs()[k].scope, scope) << space.knobs()[k].name;
        }
        EXPECT_EQ(changed, 1) << space.ToString(n);
        EXPECT_TRUE(space.Validate(n).ok());
      }
    }
  }
}

TEST(SearchSpaceTest, FingerprintStableAndSensitive) {
  Workload ffn = MustLoad("bert_ffn");
  const std::string base = MustSpace(ffn, 2).fingerprint();
  EXPECT_EQ(base.size(), 16u);
  EXPECT_EQ(MustSpace(MustLoad("bert_ffn"), 2).fingerprint(), base);
  EXPECT_NE(MustSpace(ffn, 4).fingerprint(), base) << "thread domain changed";
  EXPECT_NE(MustSpace(MustLoad("dlrm_mlp"), 2).fingerprint(), base) << "another workload";

  // The same graph with one attribute changed.
  Json json = Json::parse(kTinyWorkload);
  const std::string tiny = MustSpace(MustParse(json.dump()), 2).fingerprint();
  json["ops"][0]["out_features"] = 16;
  EXPECT_NE(MustSpace(MustParse(json.dump()), 2).fingerprint(), tiny);
}

TEST(SearchSpaceTest, PlanKeyIgnoresRuntimeKnobs) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  Config base = MustParseConfig(space, "weights=packed");
  Config runtime = MustParseConfig(space, "weights=packed;batch=16;queue_delay_us=200;placement=per_core");
  EXPECT_NE(base, runtime);
  EXPECT_EQ(space.PlanKey(base), space.PlanKey(runtime));
  EXPECT_EQ(space.PlanKey(base), "fuse.fc1=none;fuse.fc2=none;weights=packed;precision=f32;threads=2");
  EXPECT_NE(space.PlanKey(base), space.PlanKey(MustParseConfig(space, "weights=packed;precision=bf16")));
  EXPECT_EQ(space.PlanPart(runtime), base);
}

TEST(SearchSpaceTest, FusionDepthSumsHowFarEachOpFusesAlongItsChain) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  EXPECT_EQ(space.FusionDepth(space.Default()), 0);
  EXPECT_EQ(space.FusionDepth(MustParseConfig(space, "fuse.fc1=bias;weights=packed;threads=1")), 1);
  EXPECT_EQ(space.FusionDepth(MustParseConfig(space, "fuse.fc1=bias+gelu_erf;fuse.fc2=bias")), 3);
}

TEST(SearchSpaceTest, AConfigFusesFurtherOnlyWhenEveryOtherKnobIsEqualAndNoChainIsShorter) {
  SearchSpace space = MustSpace(MustLoad("bert_ffn"));
  const Config shallow = MustParseConfig(space, "fuse.fc1=bias;fuse.fc2=bias;weights=packed;threads=1");
  const Config deeper = MustParseConfig(space, "fuse.fc1=bias+gelu_erf;fuse.fc2=bias;weights=packed;threads=1");
  EXPECT_TRUE(space.FusesFurther(deeper, shallow));
  EXPECT_FALSE(space.FusesFurther(shallow, deeper));
  EXPECT_FALSE(space.FusesFurther(deeper, deeper)) << "further along one chain at least";
  EXPECT_FALSE(space.FusesFurther(
      MustParseConfig(space, "fuse.fc1=bias+gelu_erf;fuse.fc2=bias;weights=packed;threads=2"), shallow))
      << "another knob differs (threads)";
  EXPECT_FALSE(space.FusesFurther(
      MustParseConfig(space, "fuse.fc1=bias+gelu_erf;fuse.fc2=bias;weights=stored;threads=1"), shallow))
      << "another knob differs (weights)";
  EXPECT_FALSE(space.FusesFurther(
      MustParseConfig(space, "fuse.fc1=bias+gelu_erf;fuse.fc2=none;weights=packed;threads=1"), shallow))
      << "one chain further, another shorter";
  EXPECT_FALSE(space.FusesFurther(Config{{1}}, shallow)) << "a config of another space";
}

TEST(KnobKindTest, Names) {
  EXPECT_STREQ(KnobKindName(KnobKind::kFusion), "fusion");
  EXPECT_STREQ(KnobKindName(KnobKind::kLayout), "layout");
  EXPECT_STREQ(KnobKindName(KnobKind::kThreads), "threads");
  EXPECT_STREQ(KnobKindName(KnobKind::kPlacement), "placement");
}

}  // namespace
}  // namespace crmap
