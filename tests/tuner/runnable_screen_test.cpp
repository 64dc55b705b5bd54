#include "tuner/runnable_screen.h"

#include <gtest/gtest.h>

#include "backend/host.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

Workload TinyMlp() { return testing::MustLoad(std::string(CRMAP_SOURCE_DIR) + "/tests/data/tiny_mlp.json"); }

// Every plan config compiled once; bf16 runs exactly where oneDNN says this ISA has it (the avx2. copy of this test
// caps oneDNN at AVX2, where every bf16 config is refused and nothing else is).
TEST(RunnableScreenTest, CountsEveryPlanConfigAndRefusesBf16WhereTheIsaHasNone) {
  Workload workload = TinyMlp();
  SearchSpace space = testing::MustSpace(workload, 2);
  size_t calls = 0;
  auto screen = ScreenRunnable(workload, space, workload.TypicalDims(), [&](size_t done, size_t total) {
    ++calls;
    EXPECT_EQ(done, calls);
    EXPECT_EQ(total, space.Size(KnobScope::kPlan));
  });
  ASSERT_TRUE(screen.ok()) << screen.status().ToString();
  EXPECT_EQ(screen->plan_configs, space.Size(KnobScope::kPlan));
  EXPECT_EQ(calls, screen->plan_configs);
  EXPECT_EQ(screen->runnable + screen->refused + screen->failed, screen->plan_configs);
  EXPECT_EQ(screen->not_runnable.size(), screen->refused + screen->failed);
  EXPECT_EQ(screen->failed, 0u) << "tiny_mlp fits any memory budget";
  const int precision = space.FindKnob("precision");
  ASSERT_GE(precision, 0);
  size_t bf16_refused = 0;
  for (const ScreenedConfig& s : screen->not_runnable) {
    EXPECT_EQ(space.knobs()[precision].values[s.config.values[precision]], "bf16") << space.ToString(s.config);
    EXPECT_EQ(s.code, StatusCode::kUnsupported);
    EXPECT_FALSE(s.message.empty());
    ++bf16_refused;
  }
  const size_t bf16_configs = screen->plan_configs / space.knobs()[precision].values.size();
  EXPECT_EQ(bf16_refused, DetectHost().has_bf16 ? 0u : bf16_configs) << DetectHost().isa;

  const std::vector<NotRunnableValue> by_value = NotRunnableByValue(space, *screen);
  if (DetectHost().has_bf16) {
    EXPECT_TRUE(by_value.empty());
  } else {
    ASSERT_EQ(by_value.size(), 1u) << "only precision=bf16 explains the refusals";
    EXPECT_EQ(by_value[0].knob, "precision");
    EXPECT_EQ(by_value[0].value, "bf16");
    EXPECT_EQ(by_value[0].configs, bf16_configs);
    EXPECT_EQ(by_value[0].not_runnable, bf16_configs);
  }
}

// The explanation is a knob value over-represented among the failures, not every value a failing config holds.
TEST(RunnableScreenTest, NotRunnableByValueNamesTheValuesThatFailMoreThanTheSpace) {
  Workload workload = TinyMlp();
  SearchSpace space = testing::MustSpace(workload, 2);
  RunnableScreen screen;
  screen.plan_configs = space.Size(KnobScope::kPlan);
  const int threads = space.FindKnob("threads");
  ASSERT_GE(threads, 0);
  // Every config with threads=2 (the knob's second value) fails, nothing else.
  for (uint64_t i = 0; i < screen.plan_configs; ++i) {
    Config c = space.NthConfig(i);
    if (c.values[threads] == 1) screen.not_runnable.push_back({c, StatusCode::kResourceExhausted, "over"});
  }
  screen.failed = screen.not_runnable.size();
  screen.runnable = screen.plan_configs - screen.failed;
  const std::vector<NotRunnableValue> by_value = NotRunnableByValue(space, screen);
  ASSERT_EQ(by_value.size(), 1u);
  EXPECT_EQ(by_value[0].knob, "threads");
  EXPECT_EQ(by_value[0].value, space.knobs()[threads].values[1]);
  EXPECT_EQ(by_value[0].not_runnable, screen.failed);
  const RunnableScreen all_ran{{}, screen.plan_configs, screen.plan_configs, 0, 0, {}};
  EXPECT_TRUE(NotRunnableByValue(space, all_ran).empty());
}

TEST(RunnableScreenTest, RefusesDimsOutsideTheWorkloadsLimitsBeforeCompilingAnything) {
  Workload workload = TinyMlp();
  SearchSpace space = testing::MustSpace(workload, 2);
  size_t calls = 0;
  Dims too_big = workload.TypicalDims();
  too_big.begin()->second = int64_t{1} << 40;
  auto screen = ScreenRunnable(workload, space, too_big, [&](size_t, size_t) { ++calls; });
  EXPECT_EQ(screen.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(calls, 0u);
}

}  // namespace
}  // namespace crmap
