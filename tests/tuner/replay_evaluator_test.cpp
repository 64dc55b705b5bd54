#include "tuner/replay_evaluator.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap {
namespace {

class ReplayEvaluatorTest : public ::testing::Test {
 protected:
  TuningRecord Record(const Dims& dims, const std::string& config, const std::string& status, double median,
                      double ratio) {
    TuningRecord r;
    r.dims = dims;
    r.config = space_.ToString(testing::MustConfig(space_, config));
    r.status = status;
    r.median_us = median;
    r.ratio_to_anchor = ratio;
    r.anchor = space_.ToString(space_.Default());
    return r;
  }
  Workload workload_ = testing::MustLoad("dlrm_mlp");
  SearchSpace space_ = testing::MustSpace(workload_, 2);
  Dims small_ = {{"batch", 1}}, large_ = {{"batch", 64}};
};

TEST_F(ReplayEvaluatorTest, ReplaysSpeedupsFromRatiosOrMedians) {
  std::vector<TuningRecord> records = {
      Record(small_, "default", "ok", 100, 1.0),
      Record(small_, "threads=1", "ok", 80, 0.5),  // ratio wins over the medians (which say 1.25x)
      Record(small_, "precision=bf16", "unsupported", 0, 0),
      Record(large_, "default", "ok", 1000, 1.0),
  };
  TuningRecord no_ratio = Record(large_, "weights=packed", "ok", 800, 0);
  no_ratio.ratio_to_anchor = std::numeric_limits<double>::quiet_NaN();
  records.push_back(no_ratio);
  TuningRecord baseline = Record(large_, "default", "ok", 5, 0.01);
  baseline.baseline = true;
  baseline.config = "libtorch";
  records.push_back(baseline);

  ReplayEvaluator replay(space_, records);
  EXPECT_EQ(replay.size(), 5u);
  auto out = replay.Evaluate({{small_, testing::MustConfig(space_, "threads=1")},
                              {small_, testing::MustConfig(space_, "precision=bf16")},
                              {large_, testing::MustConfig(space_, "weights=packed")},
                              {large_, testing::MustConfig(space_, "threads=1")},
                              {small_, space_.Default()}});
  EXPECT_DOUBLE_EQ(out[0].speedup, 2.0);
  EXPECT_EQ(out[1].status, EvalStatus::kUnsupported);
  EXPECT_DOUBLE_EQ(out[2].speedup, 1.25);  // no ratio: default median / median
  EXPECT_EQ(out[3].status, EvalStatus::kError);  // not in the database
  EXPECT_DOUBLE_EQ(out[4].speedup, 1.0);
  EXPECT_EQ(replay.misses(), 1u);
  EXPECT_EQ(replay.Shapes().size(), 2u);
  EXPECT_DOUBLE_EQ(replay.OracleSpeedup(small_), 2.0);
  EXPECT_EQ(replay.OracleConfig(small_), testing::MustConfig(space_, "threads=1"));
  EXPECT_EQ(replay.ConfigsAt(small_), 2u);  // the refused bf16 config is no measurement
}

// A candidate measured several times replays its score by the rule of config_scores.h (the median of its
// speedups), as db best ranks it — not whichever record came first.
TEST_F(ReplayEvaluatorTest, RepeatedMeasurementsReplayTheirMedianAndForeignConfigsAreSkipped) {
  std::vector<TuningRecord> records = {Record(small_, "default", "ok", 100, 1.0),
                                       Record(small_, "threads=1", "ok", 50, 0.5),
                                       Record(small_, "threads=1", "ok", 10, 0.1)};
  TuningRecord foreign = records[0];
  foreign.config = "fuse.nope=1";
  records.push_back(foreign);
  ReplayEvaluator replay(space_, records);
  EXPECT_EQ(replay.size(), 2u);
  Evaluation e = replay.Evaluate({{small_, testing::MustConfig(space_, "threads=1")}})[0];
  EXPECT_DOUBLE_EQ(e.speedup, 6.0);  // median of 2 and 10
  EXPECT_DOUBLE_EQ(e.median_us, 30);
  auto observations = ObservationsFromRecords(space_, records);
  EXPECT_EQ(observations.size(), 3u);  // every parsable record, in file order (duplicates included)
}

// What training learns from: one observation per shape and config, at its median score — a config measured
// twice counts once, so neither of its records decides alone.
TEST_F(ReplayEvaluatorTest, ScoredObservationsHoldEachConfigOnceAtItsMedian) {
  TuningRecord failed = Record(small_, "weights=packed", "error", 0, 1.0);
  std::vector<TuningRecord> records = {Record(small_, "default", "ok", 100, 1.0),
                                       Record(small_, "threads=1", "ok", 50, 0.5),
                                       Record(small_, "threads=1", "ok", 10, 0.1), failed};
  auto observations = ScoredObservations(space_, records);
  ASSERT_EQ(observations.size(), 3u);
  std::map<std::string, Evaluation> by_config;
  for (const auto& [candidate, evaluation] : observations) by_config[space_.ToString(candidate.config)] = evaluation;
  const Evaluation& one_thread = by_config.at(space_.ToString(testing::MustConfig(space_, "threads=1")));
  EXPECT_DOUBLE_EQ(one_thread.speedup, 6.0);
  EXPECT_FALSE(by_config.at(space_.ToString(testing::MustConfig(space_, "weights=packed"))).ok());
  EXPECT_DOUBLE_EQ(by_config.at(space_.ToString(space_.Default())).speedup, 1.0);
}

}  // namespace
}  // namespace crmap
