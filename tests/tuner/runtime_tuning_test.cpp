#include "tuner/runtime_tuning.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "tests/runtime/hook/policy_test_support.h"

namespace crmap {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// `count` requests at `base_us`, the last `slow` of them at `slow_us`.
RuntimeRun Scripted(int count, double base_us, int slow, double slow_us, double wall_s = 1, int64_t within = 0) {
  RuntimeRun run;
  for (int i = 0; i < count; ++i) run.latency_us.push_back(i < count - slow ? base_us : slow_us);
  run.wall_s = wall_s;
  run.within_slo = within;
  return run;
}

std::vector<RuntimeSetting> ThreeSettings() {
  return {{1, 0, "shared", ""}, {16, 200, "shared", ""}, {16, 200, "per_core", ""}};
}

TEST(RuntimeTuningTest, RoundsAreInterleavedAndRotated) {
  std::vector<std::string> order;
  RuntimeTuningOptions options;
  options.rounds = 3;
  auto result = TuneRuntime(ThreeSettings(), options, [&](const RuntimeSetting& s, int round) -> Result<RuntimeRun> {
    order.push_back(std::to_string(round) + ":" + s.placement + std::to_string(s.max_batch));
    return Scripted(10, 100, 0, 0);
  });
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  // Round 0 in order; round 1 reversed and rotated by one; round 2 rotated by two.
  EXPECT_EQ(order, (std::vector<std::string>{"0:shared1", "0:shared16", "0:per_core16",      //
                                             "1:shared16", "1:shared1", "1:per_core16",      //
                                             "2:per_core16", "2:shared1", "2:shared16"}));
  EXPECT_EQ(result->rounds_done, 3);
  for (const RuntimeSettingResult& r : result->settings) EXPECT_EQ(r.requests, 30);
}

// The tail decides: setting 1 wins the median, loses the p99; setting 2 wins the p99. Pooled over the rounds.
// Every round runs every setting once, and over two rounds each setting (but the first slot's) follows two
// different neighbours.
TEST(RuntimeTuningTest, EachRoundIsAPermutationAndPredecessorsAlternate) {
  const size_t n = 7;
  std::vector<std::set<size_t>> before(n);
  for (int round = 0; round < 4; ++round) {
    std::set<size_t> seen;
    for (size_t k = 0; k < n; ++k) {
      seen.insert(RoundOrder(k, round, n));
      if (k > 0) before[RoundOrder(k, round, n)].insert(RoundOrder(k - 1, round, n));
    }
    EXPECT_EQ(seen.size(), n) << "round " << round;
  }
  for (size_t i = 0; i < n; ++i) EXPECT_GE(before[i].size(), 2u) << "setting " << i;
}

TEST(RuntimeTuningTest, TheObjectiveOfThePooledRoundsChoosesTheBest) {
  std::map<int, std::pair<double, double>> script = {{0, {1000, 9000}}, {1, {500, 20000}}, {2, {900, 3000}}};
  auto runner = [&](const RuntimeSetting& s, int) -> Result<RuntimeRun> {
    const int key = s.max_batch == 1 ? 0 : (s.placement == "shared" ? 1 : 2);
    return Scripted(200, script[key].first, 4, script[key].second);  // 2% slow: p99 is the slow value
  };
  RuntimeTuningOptions options;
  options.objective = RuntimeObjective::kP99;
  auto p99 = TuneRuntime(ThreeSettings(), options, runner);
  ASSERT_TRUE(p99.ok());
  EXPECT_EQ(p99->best, 2u);
  EXPECT_DOUBLE_EQ(p99->settings[2].figure, 3000);
  EXPECT_DOUBLE_EQ(p99->settings[2].ratio_to_anchor, 3.0);
  EXPECT_DOUBLE_EQ(p99->settings[1].ratio_to_anchor, 9000.0 / 20000);
  EXPECT_TRUE(p99->clear);
  options.objective = RuntimeObjective::kP50;
  auto p50 = TuneRuntime(ThreeSettings(), options, runner);
  ASSERT_TRUE(p50.ok());
  EXPECT_EQ(p50->best, 1u);
  EXPECT_DOUBLE_EQ(p50->settings[1].ratio_to_anchor, 2.0);
}

// A setting cannot win the tail by not serving its slowest requests: they count as infinite latency.
TEST(RuntimeTuningTest, UnservedRequestsCountAsInfinitelySlow) {
  auto runner = [](const RuntimeSetting& s, int) -> Result<RuntimeRun> {
    if (s.max_batch == 1) return Scripted(100, 1000, 2, 5000);
    return Scripted(100, 800, 2, kInf);  // faster, but drops 2%
  };
  RuntimeTuningOptions options;
  auto result = TuneRuntime({{1, 0, "shared", ""}, {4, 0, "shared", ""}}, options, runner);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->best, 0u);
  EXPECT_EQ(result->settings[1].unserved, 6);
  EXPECT_TRUE(std::isinf(result->settings[1].figure));
  EXPECT_EQ(result->settings[1].ratio_to_anchor, 0);  // undefined, not a number made up
  EXPECT_TRUE(result->settings[1].latency_us.p99 > 1e300);
  Json json = RuntimeTuningJson(*result);
  EXPECT_TRUE(json["settings"][1]["figure"].is_null());  // JSON has no infinity
}

TEST(RuntimeTuningTest, GoodputIsHigherIsBetterAndPooledOverServingTime) {
  auto runner = [](const RuntimeSetting& s, int round) -> Result<RuntimeRun> {
    if (s.max_batch == 1) return Scripted(100, 1000, 0, 0, 2.0, 100);        // 50/s
    return Scripted(100, 1000, 0, 0, round == 0 ? 1.0 : 3.0, 150);            // 150 over 4 s pooled: 37.5/s
  };
  RuntimeTuningOptions options;
  options.objective = RuntimeObjective::kGoodput;
  options.rounds = 2;
  auto result = TuneRuntime({{1, 0, "shared", ""}, {4, 0, "shared", ""}}, options, runner);
  ASSERT_TRUE(result.ok());
  EXPECT_DOUBLE_EQ(result->settings[0].goodput_rps, 50);
  EXPECT_DOUBLE_EQ(result->settings[1].goodput_rps, 75);  // (150 + 150) / (1 + 3)
  EXPECT_EQ(result->best, 1u);
  EXPECT_DOUBLE_EQ(result->settings[1].ratio_to_anchor, 1.5);
  EXPECT_FALSE(result->clear) << "its worst round (50/s) does not beat the anchor's best (50/s)";
}

TEST(RuntimeTuningTest, AWinInsideTheRoundsSpreadIsNotClear) {
  auto runner = [](const RuntimeSetting& s, int round) -> Result<RuntimeRun> {
    const double slow = s.max_batch == 1 ? (round == 0 ? 4000 : 9000) : (round == 0 ? 5000 : 5500);
    return Scripted(100, 100, 3, slow);
  };
  RuntimeTuningOptions options;
  options.rounds = 2;
  auto result = TuneRuntime({{1, 0, "shared", ""}, {4, 0, "shared", ""}}, options, runner);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->best, 1u);    // pooled: 9000 vs 5500
  EXPECT_FALSE(result->clear);    // its worst round (5500) is slower than the anchor's best (4000)
}

TEST(RuntimeTuningTest, TooFewRequestsForTheQuantileAreFlagged) {
  auto runner = [](const RuntimeSetting&, int) -> Result<RuntimeRun> { return Scripted(150, 100, 0, 0); };
  RuntimeTuningOptions options;
  options.rounds = 3;  // 450 pooled < 500 for p99
  auto p99 = TuneRuntime(ThreeSettings(), options, runner);
  ASSERT_TRUE(p99.ok());
  EXPECT_TRUE(p99->too_few_requests);
  EXPECT_NE(RuntimeTuningText(*p99).find("warning"), std::string::npos);
  options.objective = RuntimeObjective::kP95;  // 450 >= 100
  auto p95 = TuneRuntime(ThreeSettings(), options, runner);
  ASSERT_TRUE(p95.ok());
  EXPECT_FALSE(p95->too_few_requests);
}

TEST(RuntimeTuningTest, AStopKeepsTheFullRoundsAndDropsACutRun) {
  std::atomic<bool> stop{false};
  int calls = 0;
  auto runner = [&](const RuntimeSetting&, int) -> Result<RuntimeRun> {
    if (++calls == 5) stop = true;  // raised during the second round's second run
    return Scripted(10, 100, 0, 0);
  };
  RuntimeTuningOptions options;
  options.rounds = 3;
  options.stop = &stop;
  auto result = TuneRuntime(ThreeSettings(), options, runner);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(result->rounds_done, 1);
  for (const RuntimeSettingResult& r : result->settings) EXPECT_EQ(r.requests, 10);
  stop = true;
  calls = 0;
  EXPECT_FALSE(TuneRuntime(ThreeSettings(), options, runner).ok()) << "nothing ran";
  EXPECT_EQ(calls, 0);
}

TEST(RuntimeTuningTest, BadInputAndRunnerErrorsAreReturned) {
  auto ok = [](const RuntimeSetting&, int) -> Result<RuntimeRun> { return Scripted(10, 100, 0, 0); };
  RuntimeTuningOptions options;
  EXPECT_FALSE(TuneRuntime({}, options, ok).ok());
  auto twice = TuneRuntime({{4, 0, "shared", ""}, {4, 0, "shared", ""}}, options, ok);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("listed twice"), std::string::npos);
  options.rounds = 0;
  EXPECT_FALSE(TuneRuntime(ThreeSettings(), options, ok).ok());
  options.rounds = 1;
  auto failing = TuneRuntime(ThreeSettings(), options, [](const RuntimeSetting&, int) -> Result<RuntimeRun> {
    return Status::NotFound("no such trace");
  });
  ASSERT_FALSE(failing.ok());
  EXPECT_EQ(failing.status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(ParseRuntimeObjective("goodput").ok());
  auto bad = ParseRuntimeObjective("p90");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("p50, p95, p99, goodput"), std::string::npos);
}

TEST(RuntimeTuningTest, TheGridSkipsDelaysForABatchOfOne) {
  std::vector<RuntimeSetting> grid = RuntimeGrid({1, 16}, {0, 200}, {"shared", "per_core"}, {""});
  ASSERT_EQ(grid.size(), 2u + 4u);
  EXPECT_EQ(grid[0].Label(), "batch=1;queue_delay_us=0;placement=shared");
  EXPECT_EQ(grid[1].Label(), "batch=1;queue_delay_us=0;placement=per_core");
  EXPECT_EQ(grid[2].Label(), "batch=16;queue_delay_us=0;placement=shared");
  EXPECT_EQ(grid.back().Label(), "batch=16;queue_delay_us=200;placement=per_core");
  EXPECT_EQ(RuntimeGrid({4}, {0}, {"shared"}, {"passive", "spin"})[1].Label(),
            "batch=4;queue_delay_us=0;placement=shared;thread_wait=spin");
  std::vector<RuntimeSetting> chunked = RuntimeGrid({4}, {0}, {"shared"}, {""}, {0, 256});
  ASSERT_EQ(chunked.size(), 2u);
  EXPECT_EQ(chunked[1].chunk, 256);
  EXPECT_EQ(chunked[1].Label(), "batch=4;queue_delay_us=0;placement=shared;chunk=256");
}

TEST(RuntimeTuningTest, TheBestSettingIsWrittenIntoAPolicysRuntimeKnobs) {
  testing::SyntheticPolicyOptions synthetic;
  synthetic.workload = testing::TestWorkload::kBertFfn;
  synthetic.incumbent = true;
  PolicyFile policy = testing::MakeSyntheticPolicy(synthetic);
  auto index_of = [&](const std::string& knob, const std::string& value) {
    for (size_t k = 0; k < policy.knobs.size(); ++k)
      if (policy.knobs[k].name == knob)
        for (size_t v = 0; v < policy.knobs[k].values.size(); ++v)
          if (policy.knobs[k].values[v] == value) return std::make_pair(k, static_cast<uint32_t>(v));
    return std::make_pair(policy.knobs.size(), 0u);
  };
  const auto [batch_knob, batch16] = index_of("batch", "16");
  const auto [delay_knob, delay200] = index_of("queue_delay_us", "200");
  const auto [placement_knob, per_core] = index_of("placement", "per_core");
  ASSERT_LT(std::max({batch_knob, delay_knob, placement_knob}), policy.knobs.size());

  std::vector<std::string> not_stored;
  ASSERT_TRUE(SetPolicyRuntimeKnobs({16, 200, "per_core", "spin", 512}, &policy, &not_stored).ok());
  EXPECT_EQ(policy.knobs[batch_knob].default_index, batch16);
  EXPECT_EQ(policy.knobs[delay_knob].default_index, delay200);
  EXPECT_EQ(policy.knobs[placement_knob].default_index, per_core);
  EXPECT_EQ(policy.fallback[batch_knob], batch16);
  EXPECT_EQ(policy.incumbent[batch_knob], batch16);
  ASSERT_EQ(not_stored.size(), 2u);
  EXPECT_NE(not_stored[0].find("thread_wait=spin"), std::string::npos);
  EXPECT_NE(not_stored[1].find("--chunk 512"), std::string::npos);
  EXPECT_TRUE(ValidatePolicyFile(policy).ok());

  // A value the knob cannot hold: refused, naming the values, and nothing changed.
  PolicyFile before = policy;
  not_stored.clear();
  Status refused = SetPolicyRuntimeKnobs({4, 300, "shared", ""}, &policy, &not_stored);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("queue_delay_us cannot hold 300"), std::string::npos) << refused.message();
  EXPECT_EQ(policy.knobs[batch_knob].default_index, before.knobs[batch_knob].default_index);
}

}  // namespace
}  // namespace crmap
