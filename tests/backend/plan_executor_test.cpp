#include "backend/plan_executor.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap {
namespace {

TEST(BucketDimsTest, TheSummingDimRoundsUpToTheBucketGrid) {
  Workload ffn = testing::MustLoad("bert_ffn");  // tokens sums, max 4096
  std::vector<int64_t> got;
  for (int64_t tokens : {1, 2, 3, 4, 5, 6, 7, 9, 13, 17, 25, 33, 100, 3000, 4096})
    got.push_back(BucketDims(ffn, {{"tokens", tokens}}).at("tokens"));
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 3, 4, 6, 6, 8, 12, 16, 24, 32, 48, 128, 3072, 4096}));
  EXPECT_EQ(BucketDims(ffn, {{"tokens", 4000}}).at("tokens"), 4096);  // capped at the range
  Workload attention = testing::MustLoad("bert_attention");  // batch sums, seq must match
  EXPECT_EQ(BucketDims(attention, {{"batch", 5}, {"seq", 77}}), (Dims{{"batch", 6}, {"seq", 77}}));
}

class PlanCacheTest : public ::testing::Test {
 protected:
  PlanCacheTest() : workload_(testing::MustLoad("dlrm_mlp")), space_(testing::MustSpace(workload_)) {}
  Config Parse(const std::string& text) {
    auto config = space_.Parse(text);
    EXPECT_TRUE(config.ok()) << config.status().ToString();
    return space_.PlanPart(*config);
  }
  Workload workload_;
  SearchSpace space_;
};

TEST_F(PlanCacheTest, CompilesOnceThenHitsAndEvictsTheLeastRecentlyUsed) {
  PlanCacheOptions options;
  options.background_compile = false;
  options.max_plans = 1;
  PlanCache cache(workload_, space_, options);
  const Config a = Parse("threads=1"), b = Parse("threads=2");
  auto first = cache.Acquire(a, {{"batch", 4}}, "e0");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(first->substituted);
  EXPECT_EQ(first->config, space_.ToString(a));
  auto again = cache.Acquire(a, {{"batch", 4}}, "e0");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->plan, first->plan);
  EXPECT_EQ(cache.stats().compiles, 1);
  // A second plan over the count limit: the older one goes (it is no longer leased once e0 takes b).
  ASSERT_TRUE(cache.Acquire(b, {{"batch", 4}}, "e0").ok());
  EXPECT_EQ(cache.stats().plans, 1u);
  EXPECT_EQ(cache.stats().evictions, 1);
  // A plan another executor holds is never evicted under it.
  ASSERT_TRUE(cache.Acquire(a, {{"batch", 8}}, "e1").ok());
  EXPECT_EQ(cache.stats().plans, 2u);  // over the limit rather than pulling a leased plan away
}

TEST_F(PlanCacheTest, WhileAPlanCompilesAReadyPlanOfTheSameDimsRunsInstead) {
  PlanCache cache(workload_, space_, PlanCacheOptions{});  // background compile
  const Config a = Parse("threads=1"), b = Parse("threads=2");
  auto first = cache.Acquire(a, {{"batch", 4}}, "e0");  // nothing ready: waits for its compile
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(first->substituted);
  EXPECT_GT(first->compile_wait_us, 0);
  auto meanwhile = cache.Acquire(b, {{"batch", 4}}, "e0");
  ASSERT_TRUE(meanwhile.ok());
  EXPECT_TRUE(meanwhile->substituted);  // b was only just queued
  EXPECT_EQ(meanwhile->config, space_.ToString(a));
  EXPECT_EQ(meanwhile->compile_wait_us, 0);
  // Once b's compile is done, b itself runs.
  for (int i = 0; i < 6000; ++i) {
    auto later = cache.Acquire(b, {{"batch", 4}}, "e0");
    ASSERT_TRUE(later.ok());
    if (!later->substituted) {
      EXPECT_EQ(later->config, space_.ToString(b));
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "the plan for b never became ready";
}

// With no ready plan of its own dims, a batch runs on the ready plan of the smallest larger summing dim, at most
// twice its own, whose other dims are equal (padded further along the dim it adds up on); never on a smaller
// one, one more than twice it, or another seq.
TEST(PlanCacheSubstituteTest, AReadyPlanOfALargerSummingDimRunsWhileTheExactOneCompiles) {
  Workload attention = testing::MustLoad("bert_attention");  // batch sums, seq must match
  SearchSpace space = testing::MustSpace(attention);
  PlanCache cache(attention, space, PlanCacheOptions{});  // background compile
  const Config a = space.PlanPart(space.Default());
  auto eight = cache.Acquire(a, {{"batch", 8}, {"seq", 32}}, "e0");  // nothing ready: waits
  ASSERT_TRUE(eight.ok()) << eight.status().ToString();
  EXPECT_FALSE(eight->substituted);
  auto sixteen = cache.Acquire(a, {{"batch", 16}, {"seq", 32}}, "e0");  // nothing larger ready: waits
  ASSERT_TRUE(sixteen.ok());
  EXPECT_FALSE(sixteen->substituted);
  EXPECT_GT(sixteen->compile_wait_us, 0);
  auto six = cache.Acquire(a, {{"batch", 6}, {"seq", 32}}, "e0");
  ASSERT_TRUE(six.ok());
  EXPECT_TRUE(six->substituted);
  EXPECT_EQ(six->plan, eight->plan) << "the smallest larger one, not batch 16's";
  EXPECT_EQ(six->compile_wait_us, 0);
  auto too_small = cache.Acquire(a, {{"batch", 2}, {"seq", 32}}, "e0");  // 8 is more than twice 2: waits
  ASSERT_TRUE(too_small.ok());
  EXPECT_FALSE(too_small->substituted);
  EXPECT_GT(too_small->compile_wait_us, 0);
  auto other_seq = cache.Acquire(a, {{"batch", 4}, {"seq", 64}}, "e0");  // seq must match: waits
  ASSERT_TRUE(other_seq.ok());
  EXPECT_FALSE(other_seq->substituted);
  EXPECT_GT(other_seq->compile_wait_us, 0);
  auto other_owner = cache.Acquire(a, {{"batch", 2}, {"seq", 32}}, "e1");  // plans are per executor: waits
  ASSERT_TRUE(other_owner.ok());
  EXPECT_FALSE(other_owner->substituted);
}

// A warm-up wants the plan it asked for: it waits for the compile where a run would take a ready stand-in.
TEST_F(PlanCacheTest, AWarmUpWaitsForItsPlanInsteadOfAStandIn) {
  PlanCache cache(workload_, space_, PlanCacheOptions{});  // background compile
  PlanExecutor executor(space_, workload_, &cache, /*max_threads=*/2, /*core=*/-1);
  const std::string a = space_.ToString(Parse("threads=1")), b = space_.ToString(Parse("threads=2"));
  ASSERT_TRUE(executor.Warm({{"batch", 4}}, a).status.ok());
  serve::Execution warm = executor.Warm({{"batch", 4}}, b);
  ASSERT_TRUE(warm.status.ok()) << warm.status.ToString();
  EXPECT_FALSE(warm.substituted);
  EXPECT_EQ(warm.config_run, b);
  EXPECT_GT(warm.compile_wait_us, 0);
  EXPECT_EQ(cache.stats().substitutions, 0);
  // Once warm, a run finds it.
  serve::Execution run = executor.Run({{"batch", 4}}, b);
  EXPECT_FALSE(run.substituted);
  EXPECT_EQ(run.compile_wait_us, 0);
}

TEST_F(PlanCacheTest, AConfigThatCannotCompileHereRunsTheDefaultPlan) {
  PlanCacheOptions options;
  options.background_compile = false;
  PlanCache cache(workload_, space_, options);
  const Config bf16 = Parse("precision=bf16");
  auto lease = cache.Acquire(bf16, {{"batch", 4}}, "e0");
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  auto direct = CompilePlan(workload_, space_, {{"batch", 4}}, bf16);
  if (direct.ok()) {  // a host with bf16 kernels (native or emulated)
    EXPECT_FALSE(lease->substituted);
    EXPECT_EQ(lease->config, space_.ToString(bf16));
  } else {  // e.g. AVX2 only: the default config instead, said so
    EXPECT_TRUE(lease->substituted);
    EXPECT_EQ(lease->config, space_.ToString(space_.PlanPart(space_.Default())));
    EXPECT_EQ(cache.stats().compile_failures, 1);
  }
}

TEST_F(PlanCacheTest, AnExecutorCapsThreadsAndRunsAtTheBucket) {
  PlanCacheOptions options;
  options.background_compile = false;
  PlanCache cache(workload_, space_, options);
  PlanExecutor executor(space_, workload_, &cache, /*max_threads=*/1, /*core=*/-1);
  EXPECT_EQ(executor.name(), "onednn");
  serve::Execution run = executor.Run({{"batch", 5}}, space_.ToString(Parse("threads=2")));
  ASSERT_TRUE(run.status.ok()) << run.status.ToString();
  EXPECT_EQ(run.config_run, space_.ToString(Parse("threads=1")));
  serve::Execution bad = executor.Run({{"batch", 5}}, "threads=99");
  EXPECT_FALSE(bad.status.ok());
}

TEST(AllowedCpusTest, ListsTheCpusThisProcessMayUse) {
  std::vector<int> cpus = AllowedCpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
  EXPECT_LE(cpus.size(), static_cast<size_t>(std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace crmap
