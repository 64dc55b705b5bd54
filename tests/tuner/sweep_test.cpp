#include "tuner/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "datasets/catalog.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

// One real sweep, shared by the tests below: dlrm_mlp at batch=1 with a one-thread space (108 plan configs),
// one screening round and two confirmation rounds, so that the whole suite stays quick.
class SweepTest : public ::testing::Test {
 protected:
  struct Fixture {
    Workload workload;
    SearchSpace space;
    SweepOptions options;
    SweepResult result;
    std::map<std::string, int> progress_calls;  // stage -> number of calls
  };

  static void SetUpTestSuite() {
    auto workload = LoadWorkload("dlrm_mlp");
    ASSERT_TRUE(workload.ok()) << workload.status().ToString();
    auto space = SearchSpace::Build(*workload, SpaceOptions{1});
    ASSERT_TRUE(space.ok()) << space.status().ToString();
    fixture_ = new Fixture{std::move(workload).value(), std::move(space).value(), {}, {}, {}};
    SweepOptions& options = fixture_->options;
    options.screen_rounds = 1;
    options.rounds = 2;
    options.warmup = 0;
    options.top = 2;
    options.on_progress = [](const std::string& stage, int, int) { ++fixture_->progress_calls[stage]; };
    MeasurementSession session(fixture_->workload, fixture_->space, Dims{{"batch", 1}});
    fixture_->result = SweepPlanSpace(session, fixture_->space, options);
  }

  static void TearDownTestSuite() {
    delete fixture_;
    fixture_ = nullptr;
  }

  void SetUp() override { ASSERT_NE(fixture_, nullptr); }

  static Fixture* fixture_;
};

SweepTest::Fixture* SweepTest::fixture_ = nullptr;

TEST_F(SweepTest, ScreenedCoversEveryPlanConfigExactlyOnce) {
  const SearchSpace& space = fixture_->space;
  ASSERT_EQ(space.Size(KnobScope::kPlan), 3u * 3 * 3 * 2 * 2 * 1);
  const auto& screened = fixture_->result.screened;
  EXPECT_EQ(screened.size(), space.Size(KnobScope::kPlan));
  std::map<Config, int> count;
  for (const auto& r : screened) {
    EXPECT_FALSE(r.is_baseline);
    ++count[r.config];
  }
  for (const Config& config : space.Enumerate(KnobScope::kPlan)) EXPECT_EQ(count[config], 1) << space.ToString(config);
  EXPECT_EQ(count.size(), space.Size(KnobScope::kPlan));
}

TEST_F(SweepTest, ScreenedOkRowsCarryRatiosToTheDefault) {
  int ok = 0;
  for (const auto& r : fixture_->result.screened) {
    if (r.status != CandidateStatus::kOk) {
      EXPECT_FALSE(r.message.empty()) << r.label << " failed without saying why";
      continue;
    }
    ++ok;
    EXPECT_EQ(r.latency.rounds, 1) << r.label;
    EXPECT_GT(r.latency.median_us, 0) << r.label;
    EXPECT_EQ(r.ratio_to_anchor.rounds, 1) << r.label;
    EXPECT_GT(r.ratio_to_anchor.median, 0) << r.label;
  }
  // At least every f32 config compiles and runs on any x86 host oneDNN supports.
  EXPECT_GE(ok, 54);
}

TEST_F(SweepTest, FinalStartsWithTheDefaultAndHoldsAtMostTopPlusOne) {
  const auto& final = fixture_->result.final;
  ASSERT_FALSE(final.empty());
  EXPECT_EQ(final[0].config, fixture_->space.Default());
  EXPECT_FALSE(final[0].is_baseline);
  EXPECT_LE(final.size(), static_cast<size_t>(fixture_->options.top) + 1);
  EXPECT_GE(final.size(), 2u) << "some non-default config screened ok";
  std::set<Config> distinct;
  for (const auto& r : final) {
    EXPECT_FALSE(r.is_baseline) << "no baseline was asked for";
    distinct.insert(r.config);
  }
  EXPECT_EQ(distinct.size(), final.size()) << "no config is confirmed twice";
}

TEST_F(SweepTest, FinalistsAreTheBestScreenedRatios) {
  // Every finalist after the default screened ok, and no ok screened config (other than the default) has a
  // smaller ratio than the worst finalist unless the top list is full of better ones.
  const auto& result = fixture_->result;
  std::map<Config, double> screened_ratio;
  for (const auto& r : result.screened)
    if (r.status == CandidateStatus::kOk && r.config != fixture_->space.Default())
      screened_ratio[r.config] = r.ratio_to_anchor.median;
  double worst_finalist = 0;
  for (size_t i = 1; i < result.final.size(); ++i) {
    auto it = screened_ratio.find(result.final[i].config);
    ASSERT_NE(it, screened_ratio.end()) << "finalist " << i << " did not screen ok";
    worst_finalist = std::max(worst_finalist, it->second);
  }
  int better = 0;
  for (const auto& [config, ratio] : screened_ratio) better += ratio < worst_finalist;
  EXPECT_LE(better, fixture_->options.top - 1);
}

TEST_F(SweepTest, BestIndexHasTheSmallestRatioToTheDefault) {
  const auto& result = fixture_->result;
  ASSERT_GE(result.best_index, 0);
  ASSERT_LT(result.best_index, static_cast<int>(result.final.size()));
  const CandidateResult& best = result.final[result.best_index];
  EXPECT_EQ(best.status, CandidateStatus::kOk);
  EXPECT_FALSE(best.is_baseline);
  EXPECT_EQ(best.latency.rounds, fixture_->options.rounds);
  for (const auto& r : result.final) {
    if (r.is_baseline || r.status != CandidateStatus::kOk) continue;
    EXPECT_LE(best.ratio_to_anchor.median, r.ratio_to_anchor.median) << r.label;
  }
  EXPECT_TRUE(result.status.ok()) << result.status.ToString();
}

TEST(SweepFailureTest, DefaultOverTheMemoryBudgetStopsTheSweepWithAReason) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  SearchSpace space = testing::MustSpace(workload, 1);
  MeasurementSession session(workload, space, {{"batch", 2}});
  SweepOptions options;
  options.compile.memory_budget_bytes = 1000;
  options.screen_rounds = 1;
  options.rounds = 1;
  SweepResult result = SweepPlanSpace(session, space, options);
  EXPECT_EQ(result.status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(result.status.message().find("default config"), std::string::npos);
  EXPECT_EQ(result.best_index, -1);
  EXPECT_TRUE(result.final.empty());
}

TEST_F(SweepTest, ProgressIsReported) {
  EXPECT_GT(fixture_->progress_calls["screen"], 0);
  int confirm = 0;
  for (const auto& [stage, calls] : fixture_->progress_calls)
    if (stage.rfind("confirm ", 0) == 0) confirm += calls;
  EXPECT_GT(confirm, 0);
}

}  // namespace
}  // namespace crmap
