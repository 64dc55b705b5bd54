#include "runtime/serve/decider.h"

#include <cmath>

#include <gtest/gtest.h>

namespace crmap::serve {
namespace {

const char* kFallback =
    "fuse.fc1=none;fuse.fc2=none;weights=stored;precision=f32;threads=1;batch=16;queue_delay_us=200;placement=shared";

TEST(DeciderTest, LimitsComeFromTheRuntimeKnobsOfTheConfig) {
  BatchLimits limits = LimitsFromConfig(kFallback, BatchLimits{1, 0});
  EXPECT_EQ(limits.max_batch, 16);
  EXPECT_EQ(limits.max_delay_us, 200);
  // Knobs the string lacks or garbles keep the fallback's values.
  BatchLimits kept = LimitsFromConfig("threads=2;batch=x;queue_delay_us=-3;xbatch=9", BatchLimits{2, 50});
  EXPECT_EQ(kept.max_batch, 2);
  EXPECT_EQ(kept.max_delay_us, 50);
  LimitOverrides flags;
  flags.max_batch = 4;
  EXPECT_EQ(flags.Apply(limits).max_batch, 4);
  EXPECT_EQ(flags.Apply(limits).max_delay_us, 200);
}

TEST(DeciderTest, AKnobsValueIsReadFromTheConfigStringByItsWholeName) {
  const std::string config = "threads=2;xplacement=shared;placement=per_core;batch=16";
  EXPECT_EQ(KnobValueOf(config, "placement"), "per_core");  // not the knob whose name ends the same
  EXPECT_EQ(KnobValueOf(config, "threads"), "2");
  EXPECT_EQ(KnobValueOf(config, "batch"), "16");
  EXPECT_EQ(KnobValueOf(config, "chunk"), "");
  EXPECT_EQ(KnobValueOf("", "batch"), "");
}

TEST(DeciderTest, ThreadWaitValuesMapToKeepWarmTimes) {
  EXPECT_EQ(KeepWarmUs("passive"), 0.0);
  EXPECT_EQ(KeepWarmUs("spin_200us"), 200.0);
  EXPECT_EQ(KeepWarmUs("spin_2ms"), 2000.0);
  EXPECT_EQ(KeepWarmUs("spin_0us"), 0.0);
  EXPECT_EQ(KeepWarmUs("spin_10000ms"), 1e7);  // the bound, 10 s
  EXPECT_TRUE(std::isinf(*KeepWarmUs("spin")));
  for (const char* bad : {"", "spin_", "spin_us", "spin_-1us", "spin_2s", "spin_1.5ms", "spin_20000000us", "spin_10001ms", "active",
                          "spin_2msx", "Spin"})
    EXPECT_FALSE(KeepWarmUs(bad).has_value()) << bad;
  EXPECT_EQ(LimitsFromConfig("threads=2;thread_wait=spin_2ms", BatchLimits{}).keep_warm_us, 2000);
  EXPECT_EQ(LimitsFromConfig("threads=2;thread_wait=bogus", BatchLimits{1, 0, 5}).keep_warm_us, 5);
  LimitOverrides flags;
  flags.keep_warm_us = 0;
  EXPECT_EQ(flags.Apply(LimitsFromConfig("thread_wait=spin", BatchLimits{})).keep_warm_us, 0);
}

TEST(DeciderTest, AFixedDeciderAnswersItsConfigEverywhere) {
  FixedDecider decider("default", BatchLimits{16, 100}, "triton");
  Decision d = decider.Decide({{"tokens", 7}}, 3);
  EXPECT_EQ(d.config, "default");
  EXPECT_EQ(d.limits.max_batch, 16);
  EXPECT_EQ(d.source, "triton");
  EXPECT_EQ(d.decision_id, 0u);
}

// Through the real C API: a hook that could not open its policy answers its fallback, whose runtime knobs set
// the batch limits; observing its decisions is accepted.
TEST(DeciderTest, AHookOnItsFallbackDecidesTheFallbackAndItsLimits) {
  crmap_open_options options{};
  options.fallback_config = kFallback;
  crmap_hook* hook = nullptr;
  EXPECT_NE(crmap_hook_open("/nonexistent/policy.crmap", &options, &hook), CRMAP_OK);
  ASSERT_NE(hook, nullptr);
  LimitOverrides none;
  HookDecider decider(hook, none);
  Decision d = decider.Decide({{"tokens", 12}}, 0);
  EXPECT_EQ(d.config, kFallback);
  EXPECT_EQ(d.source, "fallback");
  EXPECT_EQ(d.limits.max_batch, 16);
  EXPECT_EQ(d.limits.max_delay_us, 200);
  EXPECT_NE(d.decision_id, 0u);
  decider.Observe(d, 120, 30);
  crmap_metrics metrics;
  ASSERT_EQ(crmap_hook_metrics(hook, &metrics), CRMAP_OK);
  EXPECT_EQ(metrics.observations, 1u);
  EXPECT_EQ(decider.errors(), 0);
  crmap_hook_close(hook);
}

}  // namespace
}  // namespace crmap::serve
