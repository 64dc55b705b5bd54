#include "datasets/distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "datasets/catalog.h"

namespace crmap {
namespace {

const Workload& BertFfn() {
  static const Workload workload = LoadWorkload("bert_ffn").value();  // tokens in [1, 4096]
  return workload;
}

const Workload& BertAttention() {
  static const Workload workload = LoadWorkload("bert_attention").value();  // batch [1, 16], seq [8, 512]
  return workload;
}

// A bert_ffn distribution file whose only dim spec is `tokens_spec`.
std::string TokensFile(const std::string& tokens_spec) {
  return R"({"format": "crmap.distribution/1", "name": "t", "workload": "bert_ffn", "dims": {"tokens": )" +
         tokens_spec + "}}";
}

Result<ShapeDistribution> Parse(const std::string& text, const Workload& workload = BertFfn()) {
  CRMAP_ASSIGN_OR_RETURN(Json json, ParseJsonText(text, "test.json"));
  return ParseDistribution(json, "test.json", workload);
}

std::vector<int64_t> Draw(const ShapeDistribution& distribution, const std::string& dim, int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> values;
  for (int i = 0; i < n; ++i) values.push_back(distribution.Sample(rng).at(dim));
  return values;
}

TEST(DistributionTest, LognormalStaysInBoundsAndRespectsMultipleOf) {
  auto distribution =
      Parse(TokensFile(R"({"type": "lognormal", "median": 64, "sigma": 1.0, "min": 1, "max": 2048,
                           "multiple_of": 8})"));
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  auto values = Draw(*distribution, "tokens", 20000, 1);
  for (int64_t v : values) {
    ASSERT_GE(v, 8);  // the smallest multiple of 8 in [1, 2048]
    ASSERT_LE(v, 2048);
    ASSERT_EQ(v % 8, 0) << v;
  }
  std::sort(values.begin(), values.end());
  int64_t median = values[values.size() / 2];
  EXPECT_GE(median, 56);
  EXPECT_LE(median, 72);
  EXPECT_EQ(values.front(), 8) << "draws below 4 are clamped up to the smallest multiple";
}

TEST(DistributionTest, LognormalMinMaxDefaultToTheWorkloadRange) {
  auto distribution = Parse(TokensFile(R"({"type": "lognormal", "median": 100, "sigma": 3})"));
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  const DimSpec& spec = distribution->dims().at("tokens");
  EXPECT_EQ(spec.min, 1);
  EXPECT_EQ(spec.max, 4096);
  auto values = Draw(*distribution, "tokens", 5000, 2);
  EXPECT_EQ(*std::min_element(values.begin(), values.end()), 1);
  EXPECT_EQ(*std::max_element(values.begin(), values.end()), 4096);
}

TEST(DistributionTest, CategoricalFrequenciesMatchWeights) {
  auto distribution =
      Parse(TokensFile(R"({"type": "categorical", "values": [1, 8, 32], "weights": [5, 3, 2]})"));
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  std::map<int64_t, int> counts;
  const int n = 40000;
  for (int64_t v : Draw(*distribution, "tokens", n, 3)) ++counts[v];
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_NEAR(counts[1] / double(n), 0.5, 0.015);
  EXPECT_NEAR(counts[8] / double(n), 0.3, 0.015);
  EXPECT_NEAR(counts[32] / double(n), 0.2, 0.015);
}

TEST(DistributionTest, WeightsNearTheLargestDoubleStillDrawEveryValue) {
  // [1e308, 1e308] summed to infinity: every normalised weight became 0 and only one value was ever drawn.
  auto distribution =
      Parse(TokensFile(R"({"type": "categorical", "values": [1, 8, 32], "weights": [1e308, 1e308, 1e308]})"));
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  std::map<int64_t, int> counts;
  const int n = 30000;
  for (int64_t v : Draw(*distribution, "tokens", n, 5)) ++counts[v];
  ASSERT_EQ(counts.size(), 3u);
  for (const auto& [value, count] : counts) EXPECT_NEAR(count / double(n), 1.0 / 3, 0.02) << value;
}

TEST(DistributionTest, CategoricalWithoutWeightsIsUniform) {
  auto distribution = Parse(TokensFile(R"({"type": "categorical", "values": [2, 4, 6, 8]})"));
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  std::map<int64_t, int> counts;
  const int n = 40000;
  for (int64_t v : Draw(*distribution, "tokens", n, 4)) ++counts[v];
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [value, count] : counts) EXPECT_NEAR(count / double(n), 0.25, 0.015) << value;
}

TEST(DistributionTest, HistogramPicksBinsByWeightAndRespectsMultipleOf) {
  auto distribution = Parse(TokensFile(R"({"type": "histogram", "multiple_of": 8, "bins": [
      {"lo": 1, "hi": 16, "weight": 0.3}, {"lo": 17, "hi": 64, "weight": 0.7}]})"));
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  const int n = 40000;
  int low = 0;
  std::set<int64_t> seen;
  for (int64_t v : Draw(*distribution, "tokens", n, 5)) {
    ASSERT_EQ(v % 8, 0) << v;
    ASSERT_GE(v, 8);
    ASSERT_LE(v, 64);
    if (v <= 16) ++low;
    seen.insert(v);
  }
  EXPECT_NEAR(low / double(n), 0.3, 0.015);
  EXPECT_EQ(seen, (std::set<int64_t>{8, 16, 24, 32, 40, 48, 56, 64})) << "every multiple in a bin is reachable";
}

TEST(DistributionTest, HistogramIsUniformWithinABin) {
  auto distribution =
      Parse(TokensFile(R"({"type": "histogram", "bins": [{"lo": 10, "hi": 13, "weight": 1}]})"));
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  std::map<int64_t, int> counts;
  const int n = 40000;
  for (int64_t v : Draw(*distribution, "tokens", n, 6)) ++counts[v];
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [value, count] : counts) EXPECT_NEAR(count / double(n), 0.25, 0.015) << value;
}

TEST(DistributionTest, FixedAlwaysGivesItsValue) {
  auto distribution = Parse(TokensFile(R"({"type": "fixed", "value": 128})"));
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  for (int64_t v : Draw(*distribution, "tokens", 100, 7)) EXPECT_EQ(v, 128);
}

TEST(DistributionTest, SamplesEveryDimIndependently) {
  auto distribution = Parse(R"({"format": "crmap.distribution/1", "name": "two", "workload": "bert_attention",
      "dims": {"batch": {"type": "categorical", "values": [1, 4]}, "seq": {"type": "fixed", "value": 64}}})",
                            BertAttention());
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  std::mt19937_64 rng(8);
  std::set<int64_t> batches;
  for (int i = 0; i < 200; ++i) {
    Dims dims = distribution->Sample(rng);
    ASSERT_EQ(dims.size(), 2u);
    EXPECT_EQ(dims.at("seq"), 64);
    batches.insert(dims.at("batch"));
    EXPECT_TRUE(BertAttention().CheckDims(dims).ok());
  }
  EXPECT_EQ(batches, (std::set<int64_t>{1, 4}));
}

TEST(DistributionTest, SamplingIsDeterministicForASeed) {
  auto distribution = Parse(TokensFile(R"({"type": "lognormal", "median": 64, "sigma": 1})"));
  ASSERT_TRUE(distribution.ok());
  EXPECT_EQ(Draw(*distribution, "tokens", 100, 42), Draw(*distribution, "tokens", 100, 42));
  EXPECT_NE(Draw(*distribution, "tokens", 100, 42), Draw(*distribution, "tokens", 100, 43));
}

TEST(DistributionTest, RandomDrawsUseOnlyTheStandardGeneratorSequence) {
  // mt19937_64's sequence is fixed by the C++ standard (first output for the default seed 5489 below), so
  // draws built on it alone are the same with every standard library.
  std::mt19937_64 rng;
  EXPECT_EQ(rng(), 14514284786278117030ULL);
  rng.seed(5489);
  EXPECT_EQ(UniformUnit(rng), static_cast<double>(14514284786278117030ULL >> 11) * 0x1.0p-53);
  rng.seed(5489);
  EXPECT_EQ(UniformInt(rng, 10, 19), 10 + static_cast<int64_t>(14514284786278117030ULL % 10));
  for (int i = 0; i < 1000; ++i) {
    int64_t v = UniformInt(rng, -3, 3);
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 3);
    double e = Exponential(rng, 2.0);
    ASSERT_TRUE(std::isfinite(e));
    ASSERT_GE(e, 0.0);
  }
  EXPECT_EQ(UniformInt(rng, 5, 5), 5);
}

TEST(DistributionTest, DescribeHasOneLinePerDim) {
  auto lognormal = Parse(TokensFile(R"({"type": "lognormal", "median": 64, "sigma": 1.0, "min": 1, "max": 2048,
                                       "multiple_of": 8})"));
  ASSERT_TRUE(lognormal.ok());
  EXPECT_EQ(lognormal->Describe(), "tokens ~ lognormal(median 64, sigma 1) in [1, 2048], multiple of 8");

  auto two = Parse(R"({"format": "crmap.distribution/1", "name": "two", "workload": "bert_attention",
      "dims": {"seq": {"type": "histogram", "bins": [{"lo": 8, "hi": 64, "weight": 1},
                                                     {"lo": 65, "hi": 512, "weight": 3}]},
               "batch": {"type": "categorical", "values": [1, 8], "weights": [3, 1]}}})",
                   BertAttention());
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->Describe(),
            "batch ~ categorical(1: 0.75, 8: 0.25)\n"
            "seq ~ histogram([8, 64]: 0.25, [65, 512]: 0.75)");

  auto fixed = Parse(TokensFile(R"({"type": "fixed", "value": 128})"));
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->Describe(), "tokens ~ fixed(128)");
}

TEST(DistributionTest, KeepsNameWorkloadAndDescription) {
  auto distribution = Parse(R"({"format": "crmap.distribution/1", "name": "mine", "workload": "bert_ffn",
      "description": "hello", "dims": {"tokens": {"type": "fixed", "value": 1}}})");
  ASSERT_TRUE(distribution.ok());
  EXPECT_EQ(distribution->name(), "mine");
  EXPECT_EQ(distribution->workload_name(), "bert_ffn");
  EXPECT_EQ(distribution->description(), "hello");
}

TEST(DistributionTest, SampleDistinctReturnsDistinctShapesUpToN) {
  auto three = Parse(TokensFile(R"({"type": "categorical", "values": [1, 8, 32]})"));
  ASSERT_TRUE(three.ok());
  auto all = SampleDistinct(*three, 10, 9, 1000);
  EXPECT_EQ(all.size(), 3u) << "only three shapes exist";
  EXPECT_EQ(std::set<Dims>(all.begin(), all.end()).size(), 3u);
  EXPECT_EQ(SampleDistinct(*three, 2, 9, 1000).size(), 2u);
  EXPECT_EQ(SampleDistinct(*three, 10, 9, 1000), all) << "deterministic for a seed";
  EXPECT_EQ(SampleDistinct(*three, 10, 9, 1).size(), 1u) << "stops after max_attempts draws";
  EXPECT_TRUE(SampleDistinct(*three, 0, 9, 1000).empty());

  auto wide = Parse(TokensFile(R"({"type": "lognormal", "median": 256, "sigma": 1})"));
  ASSERT_TRUE(wide.ok());
  auto shapes = SampleDistinct(*wide, 50, 10, 10000);
  ASSERT_EQ(shapes.size(), 50u);
  EXPECT_EQ(std::set<Dims>(shapes.begin(), shapes.end()).size(), 50u);
  for (const auto& dims : shapes) EXPECT_TRUE(BertFfn().CheckDims(dims).ok());
}

TEST(DistributionTest, InlineDistributionNeedsOnlyDims) {
  auto json = ParseJsonText(R"({"dims": {"tokens": {"type": "fixed", "value": 5}}})", "inline");
  ASSERT_TRUE(json.ok());
  auto distribution = ParseInlineDistribution(*json, "inline", BertFfn(), "scenario/phase");
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  EXPECT_EQ(distribution->name(), "scenario/phase");
  EXPECT_EQ(distribution->workload_name(), "bert_ffn");

  auto strict = ParseDistribution(*json, "file.json", BertFfn());
  ASSERT_FALSE(strict.ok()) << "a file needs format, name and workload";
  EXPECT_NE(strict.status().message().find("format"), std::string::npos);

  auto other = ParseJsonText(R"({"workload": "dlrm_mlp", "dims": {"tokens": {"type": "fixed", "value": 5}}})", "i");
  ASSERT_TRUE(other.ok());
  auto mismatch = ParseInlineDistribution(*other, "inline", BertFfn(), "x");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("dlrm_mlp"), std::string::npos);
}

TEST(DistributionTest, LoadRejectsADistributionOfAnotherWorkload) {
  auto dlrm = LoadWorkload("dlrm_mlp");
  ASSERT_TRUE(dlrm.ok());
  auto result = LoadDistribution("bert_ffn_chat", *dlrm);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("'bert_ffn'"), std::string::npos) << result.status().message();
  EXPECT_NE(result.status().message().find("'dlrm_mlp'"), std::string::npos) << result.status().message();
}

struct BadCase {
  const char* label;
  std::string text;
  std::vector<std::string> expected;  // substrings of the message
};

std::string File(const std::string& dims) {
  return R"({"format": "crmap.distribution/1", "name": "t", "workload": "bert_attention", "dims": )" + dims + "}";
}
std::string BatchSpec(const std::string& spec) {
  return File(R"({"seq": {"type": "fixed", "value": 64}, "batch": )" + spec + "}");
}

TEST(DistributionTest, BadInputIsInvalidArgumentNamingTheField) {
  const std::vector<BadCase> cases = {
      {"malformed json", "{\"format\": ", {"test.json", "malformed"}},
      {"not an object", "[1, 2]", {"object"}},
      {"unknown top field", R"({"format": "crmap.distribution/1", "name": "t", "workload": "bert_attention",
          "dimz": {}, "dims": {}})", {"'dimz'", "allowed"}},
      {"wrong format", R"({"format": "crmap.distribution/2", "name": "t", "workload": "bert_attention", "dims": {}})",
       {"'format'", "crmap.distribution/1"}},
      {"missing name", R"({"format": "crmap.distribution/1", "workload": "bert_attention", "dims": {}})", {"'name'"}},
      {"missing workload", R"({"format": "crmap.distribution/1", "name": "t", "dims": {}})", {"'workload'"}},
      {"other workload", R"({"format": "crmap.distribution/1", "name": "t", "workload": "bert_ffn", "dims": {}})",
       {"'workload'", "bert_ffn", "bert_attention"}},
      {"missing dims", R"({"format": "crmap.distribution/1", "name": "t", "workload": "bert_attention"})", {"'dims'"}},
      {"dims not object", File("[]"), {"'dims'"}},
      {"missing dim", File(R"({"batch": {"type": "fixed", "value": 1}})"), {"'seq'", "batch", "seq in [8, 512]"}},
      {"unknown dim", File(R"({"tokens": {"type": "fixed", "value": 1}})"), {"'tokens'", "batch in [1, 16]"}},
      {"spec not object", BatchSpec("3"), {"dims.batch", "'type'"}},
      {"missing type", BatchSpec(R"({"value": 3})"), {"dims.batch", "'type'"}},
      {"unknown type", BatchSpec(R"({"type": "poisson", "lambda": 3})"),
       {"dims.batch", "'type'", "poisson", "categorical, lognormal, histogram, fixed"}},
      {"unknown spec field", BatchSpec(R"({"type": "fixed", "value": 3, "mean": 2})"), {"dims.batch", "'mean'"}},
      // categorical
      {"missing values", BatchSpec(R"({"type": "categorical"})"), {"'values'"}},
      {"empty values", BatchSpec(R"({"type": "categorical", "values": []})"), {"'values'", "non-empty"}},
      {"values not array", BatchSpec(R"({"type": "categorical", "values": 4})"), {"'values'"}},
      {"fractional value", BatchSpec(R"({"type": "categorical", "values": [1.5]})"), {"'values[0]'", "integer"}},
      {"value out of range", BatchSpec(R"({"type": "categorical", "values": [1, 17]})"),
       {"'values[1]'", "17", "[1, 16]"}},
      {"duplicate value", BatchSpec(R"({"type": "categorical", "values": [2, 2]})"), {"'values'", "distinct"}},
      {"weights length", BatchSpec(R"({"type": "categorical", "values": [1, 2], "weights": [1]})"),
       {"'weights'", "2 positive numbers"}},
      {"negative weight", BatchSpec(R"({"type": "categorical", "values": [1, 2], "weights": [1, -1]})"),
       {"'weights[1]'", "positive"}},
      {"zero weight", BatchSpec(R"({"type": "categorical", "values": [1, 2], "weights": [0, 1]})"),
       {"'weights[0]'", "positive"}},
      {"string weight", BatchSpec(R"({"type": "categorical", "values": [1], "weights": ["1"]})"), {"'weights[0]'"}},
      // lognormal
      {"missing median", BatchSpec(R"({"type": "lognormal", "sigma": 1})"), {"'median'"}},
      {"missing sigma", BatchSpec(R"({"type": "lognormal", "median": 2})"), {"'sigma'"}},
      {"zero sigma", BatchSpec(R"({"type": "lognormal", "median": 2, "sigma": 0})"), {"'sigma'", "> 0"}},
      {"negative sigma", BatchSpec(R"({"type": "lognormal", "median": 2, "sigma": -1})"), {"'sigma'"}},
      {"min below range", BatchSpec(R"({"type": "lognormal", "median": 2, "sigma": 1, "min": 0})"),
       {"'min'", "[1, 16]"}},
      {"max above range", BatchSpec(R"({"type": "lognormal", "median": 2, "sigma": 1, "max": 64})"),
       {"'max'", "[1, 16]"}},
      {"min above max", BatchSpec(R"({"type": "lognormal", "median": 2, "sigma": 1, "min": 8, "max": 4})"),
       {"'min'", "'max'"}},
      {"median outside", BatchSpec(R"({"type": "lognormal", "median": 12, "sigma": 1, "max": 8})"),
       {"'median'", "[1, 8]"}},
      {"zero multiple_of", BatchSpec(R"({"type": "lognormal", "median": 2, "sigma": 1, "multiple_of": 0})"),
       {"'multiple_of'", ">= 1"}},
      {"no multiple in range",
       BatchSpec(R"({"type": "lognormal", "median": 2, "sigma": 1, "min": 1, "max": 4, "multiple_of": 8})"),
       {"'multiple_of'", "no multiple"}},
      {"fractional min", BatchSpec(R"({"type": "lognormal", "median": 2, "sigma": 1, "min": 1.5})"), {"'min'"}},
      // histogram
      {"missing bins", BatchSpec(R"({"type": "histogram"})"), {"'bins'"}},
      {"empty bins", BatchSpec(R"({"type": "histogram", "bins": []})"), {"'bins'", "non-empty"}},
      {"bin not object", BatchSpec(R"({"type": "histogram", "bins": [3]})"), {"bins[0]", "object"}},
      {"bin unknown field", BatchSpec(R"({"type": "histogram", "bins": [{"lo": 1, "hi": 2, "weight": 1, "p": 1}]})"),
       {"bins[0]", "'p'"}},
      {"bin missing weight", BatchSpec(R"({"type": "histogram", "bins": [{"lo": 1, "hi": 2}]})"),
       {"bins[0]", "'weight'"}},
      {"bin zero weight",
       BatchSpec(R"({"type": "histogram", "bins": [{"lo": 1, "hi": 2, "weight": 1},
                                                   {"lo": 3, "hi": 4, "weight": 0}]})"),
       {"bins[1]", "'weight'", "> 0"}},
      {"bin lo above hi", BatchSpec(R"({"type": "histogram", "bins": [{"lo": 4, "hi": 2, "weight": 1}]})"),
       {"bins[0]", "'lo'", "'hi'"}},
      {"bin hi out of range", BatchSpec(R"({"type": "histogram", "bins": [{"lo": 4, "hi": 20, "weight": 1}]})"),
       {"bins[0]", "'hi'", "[1, 16]"}},
      {"bin without a multiple",
       BatchSpec(R"({"type": "histogram", "multiple_of": 8, "bins": [{"lo": 1, "hi": 7, "weight": 1}]})"),
       {"bins[0]", "'multiple_of'"}},
      // fixed
      {"fixed missing value", BatchSpec(R"({"type": "fixed"})"), {"'value'"}},
      {"fixed out of range", BatchSpec(R"({"type": "fixed", "value": 0})"), {"'value'", "[1, 16]"}},
      {"fixed string", BatchSpec(R"({"type": "fixed", "value": "4"})"), {"'value'", "integer"}},
  };
  for (const auto& c : cases) {
    auto result = Parse(c.text, BertAttention());
    ASSERT_FALSE(result.ok()) << c.label;
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << c.label;
    for (const auto& expected : c.expected)
      EXPECT_NE(result.status().message().find(expected), std::string::npos)
          << c.label << ": '" << expected << "' not in: " << result.status().message();
  }
}

TEST(DistributionTest, NonFiniteNumbersAreRejected) {
  // JSON text cannot hold NaN, but a Json built in code can.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Json base = Json::parse(TokensFile(R"({"type": "categorical", "values": [1, 2], "weights": [1, 1]})"));

  Json nan_weight = base;
  nan_weight["dims"]["tokens"]["weights"][1] = nan;
  auto result = ParseDistribution(nan_weight, "nan.json", BertFfn());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("'weights[1]'"), std::string::npos) << result.status().message();

  Json inf_weight = base;
  inf_weight["dims"]["tokens"]["weights"][0] = inf;
  result = ParseDistribution(inf_weight, "inf.json", BertFfn());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("'weights[0]'"), std::string::npos) << result.status().message();

  Json lognormal = Json::parse(TokensFile(R"({"type": "lognormal", "median": 2, "sigma": 1})"));
  lognormal["dims"]["tokens"]["median"] = nan;
  result = ParseDistribution(lognormal, "nan.json", BertFfn());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("'median'"), std::string::npos) << result.status().message();
  lognormal["dims"]["tokens"]["median"] = 2;
  lognormal["dims"]["tokens"]["sigma"] = inf;
  result = ParseDistribution(lognormal, "inf.json", BertFfn());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("'sigma'"), std::string::npos) << result.status().message();

  Json histogram = Json::parse(TokensFile(R"({"type": "histogram", "bins": [{"lo": 1, "hi": 2, "weight": 1}]})"));
  histogram["dims"]["tokens"]["bins"][0]["weight"] = nan;
  result = ParseDistribution(histogram, "nan.json", BertFfn());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("'weight'"), std::string::npos) << result.status().message();
}

}  // namespace
}  // namespace crmap
