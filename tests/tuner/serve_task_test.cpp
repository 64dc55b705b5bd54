#include "tuner/serve_task.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>

#include "backend/plan_executor.h"
#include "datasets/catalog.h"
#include "datasets/scenario.h"
#include "datasets/trace.h"

namespace crmap {
namespace {

Workload BuiltIn(const std::string& name) {
  auto workload = LoadWorkload(name);
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return *workload;
}

// "buckets": one shape per plan bucket of the summing dim, from its min to its max, each a bucket's own dims,
// in order, the other dims at the first request's.
TEST(WarmupShapesTest, BucketsCoverTheSummingDimsRangeOnePlanBucketEach) {
  Workload ffn = BuiltIn("bert_ffn");
  auto shapes = WarmupShapes(ffn, "buckets", {{"tokens", 17}});
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  ASSERT_FALSE(shapes->empty());
  EXPECT_EQ(shapes->front().at("tokens"), 1);
  EXPECT_EQ(shapes->back().at("tokens"), ffn.dims().at("tokens").max);
  for (size_t i = 0; i < shapes->size(); ++i) {
    EXPECT_EQ(BucketDims(ffn, (*shapes)[i]), (*shapes)[i]) << "a bucket's own dims";
    if (i > 0) {
      EXPECT_LT((*shapes)[i - 1].at("tokens"), (*shapes)[i].at("tokens"));
    }
  }
  // Every value of the range falls in one of them.
  for (int64_t tokens = 1; tokens <= ffn.dims().at("tokens").max; tokens += 37) {
    const Dims bucket = BucketDims(ffn, {{"tokens", tokens}});
    bool listed = false;
    for (const Dims& d : *shapes) listed |= d == bucket;
    EXPECT_TRUE(listed) << tokens;
  }
}

TEST(WarmupShapesTest, AListIsCheckedAgainstTheRangesAndAnythingElseIsRefused) {
  Workload ffn = BuiltIn("bert_ffn");
  auto listed = WarmupShapes(ffn, "tokens=1;tokens=64", {});
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(*listed, (std::vector<Dims>{{{"tokens", 1}}, {{"tokens", 64}}}));
  auto out_of_range = WarmupShapes(ffn, "tokens=99999", {});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.status().message().find("--warmup-shapes"), std::string::npos);
  auto unknown = WarmupShapes(ffn, "everything", {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("allowed: buckets"), std::string::npos) << unknown.status().message();
}

// "support": every plan bucket the scenario's phases draw, with headroom for batching, each a bucket's own
// dims, once; the same list every time (its seed is fixed).
TEST(WarmupShapesTest, SupportIsEveryPlanBucketAScenariosPhasesDraw) {
  Workload attention = BuiltIn("bert_attention");
  auto scenario = LoadScenario("bert_attention_short_to_long", attention);
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  auto shapes = ScenarioSupportShapes(attention, *scenario);
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  std::set<Dims> listed(shapes->begin(), shapes->end());
  EXPECT_EQ(listed.size(), shapes->size()) << "each bucket once";
  for (const Dims& d : *shapes) EXPECT_EQ(BucketDims(attention, d), d) << "a bucket's own dims";
  // Every shape the stream sends (another seed than the support's) is warm.
  for (const TraceRequest& request : GenerateTrace(*scenario, 7))
    EXPECT_EQ(listed.count(BucketDims(attention, request.dims)), 1u) << DimsToText(request.dims);
  // Headroom for batching: short queries come in batches of up to 8, so up to 16 (the range's max) is warm at
  // each of their seqs; long contexts come one at a time, so up to 2.
  for (int64_t seq = 8; seq <= 128; seq += 8)
    EXPECT_EQ(listed.count({{"batch", 16}, {"seq", seq}}), 1u) << seq;
  for (const Dims& d : *shapes) {
    if (d.at("seq") > 128) {
      EXPECT_LE(d.at("batch"), 2) << DimsToText(d);
    }
  }
  EXPECT_EQ(listed.count({{"batch", 2}, {"seq", 512}}), 1u);
  auto again = ScenarioSupportShapes(attention, *scenario);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *shapes);
}

// Answers config "small" up to 100 tokens and "large" above: the bucket holding 97..128 needs both plans.
class SplitDecider : public serve::Decider {
 public:
  serve::Decision Decide(const Dims& dims, int64_t) override {
    ++asked;
    serve::Decision d;
    d.config = dims.at("tokens") <= 100 ? "small" : "large";
    return d;
  }
  int asked = 0;
};

TEST(WarmupShapesTest, BucketsAsServedWarmEveryDecidedPlanOfEveryBucket) {
  Workload ffn = BuiltIn("bert_ffn");
  auto space = SearchSpace::Build(ffn);
  ASSERT_TRUE(space.ok());
  auto buckets = WarmupShapes(ffn, "buckets", {});
  ASSERT_TRUE(buckets.ok());
  SplitDecider decider;
  std::vector<serve::Warmup> warmups = DecidedPlanWarmups(ffn, *space, decider, {{"tokens", 7}});
  EXPECT_EQ(decider.asked, ffn.dims().at("tokens").max);  // every value once
  ASSERT_EQ(warmups.size(), buckets->size() + 1);
  std::set<std::pair<std::string, Dims>> plans;
  for (const serve::Warmup& w : warmups) {
    EXPECT_EQ(w.config, w.dims.at("tokens") <= 100 ? "small" : "large") << "the config decided there, carried";
    plans.insert({w.config, BucketDims(ffn, w.dims)});
  }
  EXPECT_EQ(plans.size(), warmups.size()) << "each (config, bucket) once";
  const Dims bucket_of_100 = BucketDims(ffn, {{"tokens", 100}});
  EXPECT_EQ(plans.count({"small", bucket_of_100}), 1u);
  EXPECT_EQ(plans.count({"large", bucket_of_100}), 1u);
  EXPECT_EQ(warmups.front().dims, (Dims{{"tokens", 1}}));  // the smallest value of each
}

// Answers the default config with a batch limit that changes at 100 tokens: a runtime knob, the same plan.
class RuntimeKnobDecider : public serve::Decider {
 public:
  explicit RuntimeKnobDecider(const SearchSpace& space) : space_(space) {}
  serve::Decision Decide(const Dims& dims, int64_t) override {
    Config config = space_.Default();
    const int batch = space_.FindKnob("batch");
    EXPECT_GE(batch, 0);
    config.values[batch] = dims.at("tokens") <= 100 ? 0 : 1;
    serve::Decision d;
    d.config = space_.ToString(config);
    return d;
  }

 private:
  const SearchSpace& space_;
};

TEST(WarmupShapesTest, ConfigsThatDifferOnlyInRuntimeKnobsShareOneWarmUp) {
  Workload ffn = BuiltIn("bert_ffn");
  auto space = SearchSpace::Build(ffn);
  ASSERT_TRUE(space.ok());
  auto buckets = WarmupShapes(ffn, "buckets", {});
  ASSERT_TRUE(buckets.ok());
  RuntimeKnobDecider decider(*space);
  std::vector<serve::Warmup> warmups = DecidedPlanWarmups(ffn, *space, decider, {});
  EXPECT_EQ(warmups.size(), buckets->size()) << "one plan per bucket";
}

// Plans are per executor: the cache holds every executor's warm-ups and its first request's, whatever the cores.
TEST(PlanCacheSizeForTest, RoomForEveryExecutorsWarmUps) {
  EXPECT_EQ(PlanCacheSizeFor(64, 0, 64), 64u) << "nothing warmed: as configured";
  EXPECT_EQ(PlanCacheSizeFor(64, 24, 2), 64u);
  EXPECT_EQ(PlanCacheSizeFor(64, 33, 4), 34u * 4);
  EXPECT_GE(PlanCacheSizeFor(64, 33, 16), 33u * 16 + 16);
  EXPECT_EQ(PlanCacheSizeFor(200, 33, 4), 200u) << "never lowered";
}

TEST(WarmupShapesTest, BucketsNeedASummingDim) {
  std::ifstream file(std::string(CRMAP_SOURCE_DIR) + "/tests/data/tiny_mlp.json");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t sum = text.find("\"batching\": \"sum\"");
  ASSERT_NE(sum, std::string::npos);
  auto summing = ParseWorkload(text, "tiny_mlp.json");
  ASSERT_TRUE(summing.ok()) << summing.status().ToString();
  EXPECT_TRUE(WarmupShapes(*summing, "buckets", {}).ok());
  text.replace(sum, std::string("\"batching\": \"sum\"").size(), "\"batching\": \"match\"");
  auto matching = ParseWorkload(text, "tiny_mlp.json");
  ASSERT_TRUE(matching.ok()) << matching.status().ToString();
  auto refused = WarmupShapes(*matching, "buckets", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("needs a summing dim"), std::string::npos);
  EXPECT_TRUE(WarmupShapes(*matching, "batch=4", {}).ok()) << "a list still works";
}

}  // namespace
}  // namespace crmap
