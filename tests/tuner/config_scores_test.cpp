#include "tuner/config_scores.h"

#include <cmath>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap {
namespace {

class ConfigScoresTest : public ::testing::Test {
 protected:
  TuningRecord Record(const std::string& config, const std::string& status, double median, double ratio,
                      const Dims& dims = {{"batch", 4}}) {
    TuningRecord r;
    r.dims = dims;
    r.config = space_.ToString(testing::MustConfig(space_, config));
    r.status = status;
    r.median_us = median;
    r.p99_us = 2 * median;
    r.ratio_to_anchor = ratio;
    r.anchor = space_.ToString(space_.Default());
    return r;
  }
  const ConfigScore& Score(const std::map<Dims, ShapeScores>& scores, const std::string& config,
                           const Dims& dims = {{"batch", 4}}) {
    return scores.at(dims).configs.at(space_.ToString(testing::MustConfig(space_, config)));
  }
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  Workload workload_ = testing::MustLoad("dlrm_mlp");
  SearchSpace space_ = testing::MustSpace(workload_, 2);
};

TEST_F(ConfigScoresTest, AConfigsSpeedupIsTheMedianOfItsRecordsInRunRatios) {
  auto scores = ScoreConfigs(space_, {Record("default", "ok", 100, 1), Record("threads=1", "ok", 90, 0.5),
                                      Record("threads=1", "ok", 70, 0.8), Record("threads=1", "ok", 60, 0.4)});
  const ConfigScore& s = Score(scores, "threads=1");
  EXPECT_DOUBLE_EQ(s.speedup, 2.0);  // median of 2, 1.25, 2.5; the medians (which say 1.43x) do not decide it
  EXPECT_EQ(s.basis, SpeedupBasis::kInRun);
  EXPECT_DOUBLE_EQ(s.median_us, 70);
  EXPECT_DOUBLE_EQ(s.p99_us, 140);
  EXPECT_EQ(s.ok, 3u);
  EXPECT_DOUBLE_EQ(Score(scores, "default").speedup, 1.0);
}

TEST_F(ConfigScoresTest, WithoutARatioTheDefaultsMedianLatencyOverItsGivesARatioAcrossRuns) {
  auto scores = ScoreConfigs(space_, {Record("default", "ok", 120, 1), Record("default", "ok", 80, 1),
                                      Record("weights=packed", "ok", 50, kNaN)});
  const ConfigScore& s = Score(scores, "weights=packed");
  EXPECT_DOUBLE_EQ(s.speedup, 2.0);  // median default latency 100 / 50
  EXPECT_EQ(s.basis, SpeedupBasis::kAcrossRuns);
  EXPECT_STREQ(SpeedupBasisName(s.basis), "ratio_of_medians");
  EXPECT_DOUBLE_EQ(scores.at({{"batch", 4}}).default_median_us, 100);
}

TEST_F(ConfigScoresTest, AConfigThatNeverRanKeepsItsFirstFailure) {
  TuningRecord failed = Record("precision=bf16", "unsupported", 0, kNaN);
  failed.message = "no bf16 here";
  TuningRecord again = Record("precision=bf16", "error", 0, kNaN);
  auto scores = ScoreConfigs(space_, {Record("default", "ok", 100, 1), failed, again});
  const ConfigScore& s = Score(scores, "precision=bf16");
  EXPECT_FALSE(s.ran());
  EXPECT_EQ(s.failed, 2u);
  EXPECT_EQ(s.failure_status, "unsupported");
  EXPECT_EQ(s.failure_message, "no bf16 here");
  EXPECT_TRUE(std::isnan(s.speedup));
  EXPECT_EQ(scores.at({{"batch", 4}}).Best()->config, space_.ToString(space_.Default()));
}

TEST_F(ConfigScoresTest, TheBestHasAKnownSpeedupThenTheLargestThenTheSmallestMedian) {
  auto scores = ScoreConfigs(space_, {Record("threads=1", "ok", 10, kNaN),  // no default here: speedup unknown
                                      Record("weights=packed", "ok", 20, kNaN)});
  EXPECT_EQ(scores.at({{"batch", 4}}).Best()->config,
            space_.ToString(testing::MustConfig(space_, "threads=1")));  // unknown speedups: the smaller median
  auto with_default = ScoreConfigs(space_, {Record("default", "ok", 100, 1), Record("threads=1", "ok", 10, kNaN),
                                            Record("weights=packed", "ok", 20, 0.4)});
  // Known speedups: 10x (across runs) beats 2.5x (in run) — the rule ranks by speedup whatever its basis.
  EXPECT_EQ(with_default.at({{"batch", 4}}).Best()->config,
            space_.ToString(testing::MustConfig(space_, "threads=1")));
}

TEST_F(ConfigScoresTest, BaselinesAndForeignConfigsAreLeftOutAndShapesKeptApart) {
  TuningRecord peer = Record("default", "ok", 5, 0.05);
  peer.baseline = true;
  peer.config = "libtorch";
  TuningRecord foreign = Record("default", "ok", 1, 0.01);
  foreign.config = "not=a;config=of;this=space";
  auto scores = ScoreConfigs(space_, {Record("default", "ok", 100, 1), peer, foreign,
                                      Record("default", "ok", 900, 1, {{"batch", 64}}),
                                      Record("threads=1", "ok", 300, 0.33, {{"batch", 64}})});
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores.at({{"batch", 4}}).configs.size(), 1u);
  EXPECT_EQ(scores.at({{"batch", 4}}).records, 1u);
  EXPECT_NEAR(Score(scores, "threads=1", {{"batch", 64}}).speedup, 1 / 0.33, 1e-12);
}

TEST_F(ConfigScoresTest, WorksOnConfigStringsWithAPredicateWhenNoSpaceCanParseThem) {
  TuningRecord a, b;
  a.dims = b.dims = {{"n", 1}};
  a.config = "D";
  a.status = b.status = "ok";
  a.median_us = 10;
  b.config = "X";
  b.median_us = 5;
  b.anchor = "D";
  b.ratio_to_anchor = 0.25;
  auto scores = ScoreConfigs({&a, &b}, [](const std::string& c) { return c == "D"; });
  EXPECT_DOUBLE_EQ(scores.at({{"n", 1}}).configs.at("X").speedup, 4.0);
  EXPECT_EQ(scores.at({{"n", 1}}).Best()->config, "X");
}

}  // namespace
}  // namespace crmap
