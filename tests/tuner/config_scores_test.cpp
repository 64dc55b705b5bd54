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
    r.rounds = 500;
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

// The case: threads=2 wins the median by 1.7x and loses p95 by 10x; asked for the tail, the best is the
// config that wins the tail, in-run (ratios of the tails over the same rounds) and across runs alike.
TEST_F(ConfigScoresTest, AtATailObjectiveTheTailDecides) {
  TuningRecord anchor = Record("default", "ok", 100, 1);
  anchor.p95_us = 150;
  anchor.p95_ratio_to_anchor = 1;
  TuningRecord median_winner = Record("weights=packed", "ok", 100 / 1.7, 1 / 1.7);
  median_winner.p95_us = 1500;
  median_winner.p95_ratio_to_anchor = 10;
  TuningRecord tail_winner = Record("threads=1", "ok", 90, 0.9);
  tail_winner.p95_us = 100;
  tail_winner.p95_ratio_to_anchor = 100.0 / 150;
  auto by_median = ScoreConfigs(space_, {anchor, median_winner, tail_winner});
  auto by_p95 = ScoreConfigs(space_, {anchor, median_winner, tail_winner}, Objective::kP95);
  EXPECT_EQ(by_median.at({{"batch", 4}}).Best()->config, median_winner.config);
  EXPECT_EQ(by_p95.at({{"batch", 4}}).Best()->config, tail_winner.config);
  EXPECT_NEAR(Score(by_p95, "weights=packed").speedup, 0.1, 1e-12);
  EXPECT_NEAR(Score(by_p95, "threads=1").speedup, 1.5, 1e-12);
  EXPECT_EQ(Score(by_p95, "threads=1").basis, SpeedupBasis::kInRun);
  EXPECT_DOUBLE_EQ(Score(by_p95, "threads=1").objective_us, 100);
  EXPECT_DOUBLE_EQ(by_p95.at({{"batch", 4}}).default_objective_us, 150);

  // Records from before tail objectives have no tail ratio: the default's p95 over theirs, across runs.
  median_winner.p95_ratio_to_anchor = kNaN;
  tail_winner.p95_ratio_to_anchor = kNaN;
  auto across = ScoreConfigs(space_, {anchor, median_winner, tail_winner}, Objective::kP95);
  EXPECT_EQ(across.at({{"batch", 4}}).Best()->config, tail_winner.config);
  EXPECT_NEAR(Score(across, "threads=1").speedup, 1.5, 1e-12);
  EXPECT_EQ(Score(across, "threads=1").basis, SpeedupBasis::kAcrossRuns);
  // p99 reads the p99 (2x the median in these records): the median winner wins there.
  auto by_p99 = ScoreConfigs(space_, {anchor, median_winner, tail_winner}, Objective::kP99);
  EXPECT_EQ(by_p99.at({{"batch", 4}}).Best()->config, median_winner.config);
}

// A tail read from 10 samples is no evidence: the record ran, its speedup at p95 is unknown, and a resumed tail
// campaign is not fed it (it measures the config again).
TEST_F(ConfigScoresTest, ARecordOfTooFewRoundsHasNoTailFigure) {
  TuningRecord anchor = Record("default", "ok", 100, 1);
  anchor.p95_us = 150;
  TuningRecord few = Record("threads=1", "ok", 90, 0.9);
  few.p95_us = 100;
  few.p95_ratio_to_anchor = 100.0 / 150;
  few.rounds = 10;
  auto by_p95 = ScoreConfigs(space_, {anchor, few}, Objective::kP95);
  EXPECT_TRUE(std::isnan(Score(by_p95, "threads=1").speedup));
  EXPECT_EQ(Score(by_p95, "threads=1").ok, 1u);
  EXPECT_TRUE(std::isnan(RecordLatencyAt(few, Objective::kP95)));
  EXPECT_DOUBLE_EQ(RecordLatencyAt(few, Objective::kMedian), 90);
  EXPECT_NEAR(Score(ScoreConfigs(space_, {anchor, few}), "threads=1").speedup, 1 / 0.9, 1e-12);
  few.rounds = 100;
  EXPECT_NEAR(Score(ScoreConfigs(space_, {anchor, few}, Objective::kP95), "threads=1").speedup, 1.5, 1e-12);
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

TEST_F(ConfigScoresTest, AConfigWithinTheNoiseBandOfTheBestIsTiedOutsideItBehind) {
  // Speedups: threads=1 2.0x (the best), weights=packed 1.95x (2.6% behind: a tie), precision=bf16 1.8x (11%
  // behind), the default 1x; fuse.fc1=bias failed; fuse.fc2=bias never measured.
  auto scores = ScoreConfigs(space_, {Record("default", "ok", 100, 1), Record("threads=1", "ok", 50, 0.5),
                                      Record("weights=packed", "ok", 52, 1 / 1.95),
                                      Record("precision=bf16", "ok", 56, 1 / 1.8),
                                      Record("fuse.fc1=bias", "error", 0, kNaN)});
  const ShapeScores& shape = scores.at({{"batch", 4}});
  auto standing = [&](const std::string& config, double band = kNoiseBand) {
    return StandingAt(shape, space_.ToString(testing::MustConfig(space_, config)), band);
  };
  EXPECT_EQ(standing("threads=1"), Standing::kBest);
  EXPECT_EQ(standing("weights=packed"), Standing::kTied);
  EXPECT_EQ(standing("precision=bf16"), Standing::kBehind);
  EXPECT_EQ(standing("precision=bf16", 0.12), Standing::kTied);  // a wider band ties it
  EXPECT_EQ(standing("weights=packed", 0.01), Standing::kBehind);
  EXPECT_EQ(standing("default"), Standing::kBehind);
  EXPECT_EQ(standing("fuse.fc1=bias"), Standing::kUnknown);
  EXPECT_EQ(standing("fuse.fc2=bias"), Standing::kUnknown);
  EXPECT_STREQ(StandingName(Standing::kTied), "tied");
  // Without the default at the shape no speedup is known: only the best itself stands anywhere.
  auto without_default = ScoreConfigs(space_, {Record("threads=1", "ok", 50, kNaN),
                                               Record("weights=packed", "ok", 51, kNaN)});
  const ShapeScores& unknown = without_default.at({{"batch", 4}});
  EXPECT_EQ(StandingAt(unknown, space_.ToString(testing::MustConfig(space_, "threads=1"))), Standing::kBest);
  EXPECT_EQ(StandingAt(unknown, space_.ToString(testing::MustConfig(space_, "weights=packed"))), Standing::kUnknown);
}

TEST_F(ConfigScoresTest, TheLabelAmongTiedConfigsIsTheOneTiedAtMostShapesNotTheLuckiestSample) {
  const Dims small = {{"batch", 4}}, large = {{"batch", 64}}, mid = {{"batch", 16}};
  // At batch 4 threads=1 is best by 2% (a tie) over weights=packed, which is best at batch 16 and 64, where
  // threads=1 is 20% and 60% behind: weights=packed is the label at batch 4 too.
  std::vector<TuningRecord> records = {
      Record("default", "ok", 100, 1, small), Record("threads=1", "ok", 50, 0.50, small),
      Record("weights=packed", "ok", 51, 0.51, small), Record("precision=bf16", "ok", 40, 0.80, small),
      Record("default", "ok", 100, 1, large), Record("threads=1", "ok", 80, 0.80, large),
      Record("weights=packed", "ok", 50, 0.50, large),
      Record("default", "ok", 100, 1, mid), Record("threads=1", "ok", 60, 0.60, mid),
      Record("weights=packed", "ok", 50, 0.50, mid)};
  auto scores = ScoreConfigs(space_, records);
  auto label = [&](const Dims& dims, double band = kNoiseBand) { return NoiseAwareLabel(scores, dims, band)->config; };
  const std::string packed = space_.ToString(testing::MustConfig(space_, "weights=packed"));
  const std::string one_thread = space_.ToString(testing::MustConfig(space_, "threads=1"));
  EXPECT_EQ(scores.at(small).Best()->config, one_thread);  // what a plain argmax would teach
  EXPECT_EQ(label(small), packed);
  EXPECT_EQ(label(large), packed);
  EXPECT_EQ(label(small, 0.0), one_thread);  // no band: no tie, the best itself
  // Tied at as many shapes: the larger mean log speedup over the shapes where each ran decides.
  auto even = ScoreConfigs(space_, {Record("default", "ok", 100, 1, small), Record("threads=1", "ok", 50, 0.50, small),
                                    Record("weights=packed", "ok", 51, 0.51, small),
                                    Record("default", "ok", 100, 1, large), Record("threads=1", "ok", 72, 0.72, large),
                                    Record("weights=packed", "ok", 70, 0.70, large)});  // tied at both
  EXPECT_EQ(NoiseAwareLabel(even, small)->config, packed);
  EXPECT_EQ(NoiseAwareLabel(even, mid), nullptr);  // not a shape of the scores
}

TEST_F(ConfigScoresTest, GivenTheSpaceATiedConfigThatFusesFurtherTakesTheLabelsPlace) {
  const Dims small = {{"batch", 4}}, large = {{"batch", 64}};
  const std::string head = "weights=packed;fuse.head=bias";                      // best at both shapes
  const std::string sigmoid = "weights=packed;fuse.head=bias+sigmoid";          // 2% behind: tied, one step further
  const std::string fc2 = "weights=packed;fuse.head=bias+sigmoid;fuse.fc2=bias";  // 4% behind: tied, two steps
  const std::string fc1 = "weights=packed;fuse.head=bias+sigmoid;fuse.fc2=bias;fuse.fc1=bias";  // 20% behind
  const std::string threads = "weights=packed;fuse.head=bias+sigmoid;fuse.fc2=bias;threads=1";   // tied, deeper,
                                                                                                 // threads differ
  auto scores = ScoreConfigs(space_, {Record("default", "ok", 100, 1, small), Record(head, "ok", 50, 0.50, small),
                                      Record(sigmoid, "ok", 51, 0.51, small), Record(fc2, "ok", 52, 0.52, small),
                                      Record(fc1, "ok", 60, 0.60, small), Record(threads, "ok", 50.5, 0.505, small),
                                      Record("default", "ok", 100, 1, large), Record(head, "ok", 50, 0.50, large),
                                      Record(sigmoid, "ok", 52, 0.52, large)});
  auto name = [&](const std::string& config) { return space_.ToString(testing::MustConfig(space_, config)); };
  EXPECT_EQ(NoiseAwareLabel(scores, small)->config, name(head)) << "without the space: the general best";
  EXPECT_EQ(NoiseAwareLabel(scores, small, kNoiseBand, 0, &space_)->config, name(fc2))
      << "the deepest tied config that fuses further; not fc1 (behind), not the one on one thread";
  EXPECT_EQ(NoiseAwareLabel(scores, large, kNoiseBand, 0, &space_)->config, name(sigmoid));
  EXPECT_EQ(NoiseAwareLabel(scores, small, 0.0, 0, &space_)->config, name(head)) << "no band: nothing is tied";
  EXPECT_EQ(NoiseAwareLabel(scores, small, kNoiseBand, 0.08, &space_)->config, name(fc1))
      << "a record noise whose band reaches 20% ties fc1 too";
}

TEST_F(ConfigScoresTest, AmongTiedConfigsThatFuseEquallyFarTheBetterScoreTakesTheLabel) {
  const Dims small = {{"batch", 4}};
  const std::string head = "weights=packed;fuse.head=bias";
  const std::string fc1 = "weights=packed;fuse.head=bias;fuse.fc1=bias";  // one step further, 3% behind
  const std::string fc2 = "weights=packed;fuse.head=bias;fuse.fc2=bias";  // one step further, 1% behind
  auto scores = ScoreConfigs(space_, {Record("default", "ok", 100, 1, small), Record(head, "ok", 50, 0.50, small),
                                      Record(fc1, "ok", 51.5, 0.515, small), Record(fc2, "ok", 50.5, 0.505, small)});
  EXPECT_EQ(NoiseAwareLabel(scores, small, kNoiseBand, 0, &space_)->config,
            space_.ToString(testing::MustConfig(space_, fc2)));
  // The best itself, when it fuses further than a label chosen for its generality: at batch 4 fc2 is best by 2%,
  // head is best at batch 64 too (the more general one); given the space, fc2 is the label at batch 4.
  const Dims large = {{"batch", 64}};
  auto fused_best = ScoreConfigs(space_, {Record("default", "ok", 100, 1, small), Record(head, "ok", 50, 0.50, small),
                                          Record(fc2, "ok", 49, 0.49, small), Record("default", "ok", 100, 1, large),
                                          Record(head, "ok", 50, 0.50, large), Record(fc2, "ok", 60, 0.60, large)});
  EXPECT_EQ(NoiseAwareLabel(fused_best, small)->config, space_.ToString(testing::MustConfig(space_, head)));
  EXPECT_EQ(NoiseAwareLabel(fused_best, small, kNoiseBand, 0, &space_)->config,
            space_.ToString(testing::MustConfig(space_, fc2)));
}

TEST_F(ConfigScoresTest, TheDeepestFusionBeyondAConfigIsTheFirstOfTheLargestDepthAndSkipsForeignStrings) {
  auto name = [&](const std::string& config) { return space_.ToString(testing::MustConfig(space_, config)); };
  const std::string chosen = name("fuse.fc1=bias");
  EXPECT_EQ(DeepestFusionOf(space_, chosen, {}), -1);
  EXPECT_EQ(DeepestFusionOf(space_, chosen, {name("fuse.fc1=bias;threads=1"), name("default")}), -1);
  EXPECT_EQ(DeepestFusionOf(space_, chosen,
                            {"not a config", name("fuse.fc1=bias+relu"), name("fuse.fc1=bias;fuse.fc2=bias"),
                             name("fuse.fc1=bias+relu;fuse.fc2=bias"), name("fuse.fc1=bias;fuse.fc2=bias+relu")}),
            3);
  EXPECT_EQ(DeepestFusionOf(space_, "not a config", {name("fuse.fc1=bias+relu")}), -1);
}

// Scores of configs "D" (the default) and "X0".."X<n-1>" at shapes n = first and n = second: every X is `level`x
// at the second and level x exp(changes[i]) at the first, so the change of its log speedup between the two is
// changes[i]. `records` keeps the records the returned scores were made from.
std::map<Dims, ShapeScores> AddShapePair(std::vector<TuningRecord>* records, int64_t first, int64_t second,
                                         const std::vector<double>& changes, double level = 2) {
  for (int64_t n : {first, second}) {
    TuningRecord d;
    d.dims = {{"n", n}};
    d.config = "D";
    d.status = "ok";
    d.median_us = 100;
    records->push_back(d);
    for (size_t i = 0; i < changes.size(); ++i) {
      TuningRecord x = d;
      x.config = "X" + std::to_string(i);
      x.anchor = "D";
      x.ratio_to_anchor = (n == second ? 1 : 1 / std::exp(changes[i])) / level;
      x.median_us = 100 * x.ratio_to_anchor;
      records->push_back(x);
    }
  }
  std::vector<const TuningRecord*> pointers;
  for (const TuningRecord& r : *records) pointers.push_back(&r);
  return ScoreConfigs(pointers, [](const std::string& c) { return c == "D"; });
}

std::map<Dims, ShapeScores> TwoShapes(const std::vector<double>& changes) {
  std::vector<TuningRecord> records;
  return AddShapePair(&records, 1, 2, changes);
}

TEST_F(ConfigScoresTest, ARecordsNoiseIsTheMedianDifferenceOfTwoConfigsChangesBetweenNeighbouringShapes) {
  // 28 differences between the changes -0.06 .. 0.06; their median is 0.04, two records' noise each side.
  const std::vector<double> changes = {-0.06, -0.04, -0.02, 0, 0, 0.02, 0.04, 0.06};
  EXPECT_NEAR(EstimateRecordNoise(TwoShapes(changes)), 0.04 / (2 * 0.6745), 1e-9);
  // A change common to every config is the shapes' own difference, not noise; the default (1x by definition,
  // its change always 0) is left out, or it would count as a config that did not move.
  std::vector<double> shifted = changes;
  for (double& c : shifted) c += 0.3;
  EXPECT_NEAR(EstimateRecordNoise(TwoShapes(shifted)), 0.04 / (2 * 0.6745), 1e-9);
  // Five configs give 10 differences, four only 6: too few to say, 0 (the fixed band alone decides).
  EXPECT_GT(EstimateRecordNoise(TwoShapes({-0.04, -0.02, 0, 0.02, 0.04})), 0);
  EXPECT_EQ(EstimateRecordNoise(TwoShapes({-0.04, -0.02, 0.02, 0.04})), 0);
  // No spread: 0. One shape: no neighbour. Wild changes: capped.
  EXPECT_EQ(EstimateRecordNoise(TwoShapes({0.1, 0.1, 0.1, 0.1, 0.1, 0.1})), 0);
  auto one = TwoShapes(changes);
  one.erase(one.begin());
  EXPECT_EQ(EstimateRecordNoise(one), 0);
  EXPECT_EQ(EstimateRecordNoise(TwoShapes({-3, -2, -1, 0, 1, 2, 3, 4})), kMaxRecordNoise);
}

TEST_F(ConfigScoresTest, ARecordsNoiseComparesEachShapeWithItsNearestOnlyAndSkipsConfigsThatFailed) {
  // Shapes 1 and 2 (changes 0.01 apart), 64 and 128 (0.05 apart): each shape's nearest is its partner, so the
  // 20 differences are 10 of each pair (median 0.045). Pairing 2 with 64 too would add 10 more like 64-128's
  // (median 0.05).
  std::vector<TuningRecord> records;
  AddShapePair(&records, 1, 2, {0, 0.01, 0.02, 0.03, 0.04});
  auto scores = AddShapePair(&records, 64, 128, {0, 0.05, 0.10, 0.15, 0.20}, 3);
  EXPECT_NEAR(EstimateRecordNoise(scores), 0.045 / (2 * 0.6745), 1e-9);
  // A config that failed at one shape of a pair has no change there.
  TuningRecord failed = records.front();
  failed.config = "X9";
  failed.status = "error";
  records.push_back(failed);  // at n=1 only failed; at n=2 it ran
  failed.dims = {{"n", 2}};
  failed.status = "ok";
  failed.anchor = "D";
  failed.ratio_to_anchor = 0.01;
  records.push_back(failed);
  std::vector<const TuningRecord*> pointers;
  for (const TuningRecord& r : records) pointers.push_back(&r);
  auto with_failure = ScoreConfigs(pointers, [](const std::string& c) { return c == "D"; });
  ASSERT_FALSE(with_failure.at({{"n", 1}}).configs.at("X9").ran());
  EXPECT_NEAR(EstimateRecordNoise(with_failure), 0.045 / (2 * 0.6745), 1e-9);
}

// A config measured twice at a shape (a campaign's recheck) has a median less noisy than one record's: it is left
// out, so the estimate is what the single-record configs alone give.
TEST_F(ConfigScoresTest, AConfigOfSeveralRecordsAtAShapeIsLeftOutOfTheNoiseEstimate) {
  const std::vector<double> changes = {-0.06, -0.04, -0.02, 0, 0, 0.02, 0.04, 0.06, 0.5};
  std::vector<TuningRecord> records;
  AddShapePair(&records, 1, 2, changes);
  TuningRecord again = records[1 + changes.size() - 1];  // X8 at n=1, measured a second time
  ASSERT_EQ(again.config, "X8");
  records.push_back(again);
  std::vector<const TuningRecord*> pointers;
  for (const TuningRecord& r : records) pointers.push_back(&r);
  auto scores = ScoreConfigs(pointers, [](const std::string& c) { return c == "D"; });
  ASSERT_EQ(scores.at({{"n", 1}}).configs.at("X8").ok, 2u);
  const std::vector<double> single_record_configs(changes.begin(), changes.end() - 1);
  EXPECT_NEAR(EstimateRecordNoise(scores), EstimateRecordNoise(TwoShapes(single_record_configs)), 1e-12);
  EXPECT_GT(EstimateRecordNoise(TwoShapes(changes)), EstimateRecordNoise(TwoShapes(single_record_configs)));
}

TEST_F(ConfigScoresTest, TheTieBandWidensToWhatSingleRecordsCannotTellApartAndNarrowsWithMoreRecords) {
  EXPECT_EQ(TieBand(kNoiseBand, 0, 1, 1), kNoiseBand);
  EXPECT_NEAR(TieBand(kNoiseBand, 0.04, 1, 1), std::exp(kOneSidedZ95 * 0.04 * std::sqrt(2.0)) - 1, 1e-12);  // 9.8%
  EXPECT_LT(TieBand(kNoiseBand, 0.04, 2, 2), TieBand(kNoiseBand, 0.04, 1, 1));
  EXPECT_EQ(TieBand(kNoiseBand, 0.04, 8, 8), kNoiseBand);  // 3.3% with 8 records each: the band is the floor
  EXPECT_EQ(TieBand(kNoiseBand, 0.04, 0, 1), kNoiseBand);
  // A config 11% behind the best at one record each: behind at a noise of 0.03, tied at 0.05.
  auto scores = ScoreConfigs(space_, {Record("default", "ok", 100, 1), Record("threads=1", "ok", 50, 0.5),
                                      Record("precision=bf16", "ok", 56, 1 / 1.8)});
  const ShapeScores& shape = scores.at({{"batch", 4}});
  const std::string bf16 = space_.ToString(testing::MustConfig(space_, "precision=bf16"));
  EXPECT_EQ(StandingAt(shape, bf16, kNoiseBand, 0.03), Standing::kBehind);
  EXPECT_EQ(StandingAt(shape, bf16, kNoiseBand, 0.05), Standing::kTied);
}

TEST_F(ConfigScoresTest, WithARecordsNoiseTheGeneralConfigIsTheLabelWhereALuckyRecordBeatsItByMoreThanTheBand) {
  const Dims small = {{"batch", 4}}, large = {{"batch", 64}}, mid = {{"batch", 16}};
  // threads=1 is 8% ahead of weights=packed at batch 4, once each; packed is best at 16 and 64.
  std::vector<TuningRecord> records = {
      Record("default", "ok", 100, 1, small), Record("threads=1", "ok", 46, 0.46, small),
      Record("weights=packed", "ok", 50, 0.50, small),
      Record("default", "ok", 100, 1, large), Record("threads=1", "ok", 80, 0.80, large),
      Record("weights=packed", "ok", 50, 0.50, large),
      Record("default", "ok", 100, 1, mid), Record("threads=1", "ok", 60, 0.60, mid),
      Record("weights=packed", "ok", 50, 0.50, mid)};
  auto scores = ScoreConfigs(space_, records);
  const std::string packed = space_.ToString(testing::MustConfig(space_, "weights=packed"));
  const std::string one_thread = space_.ToString(testing::MustConfig(space_, "threads=1"));
  EXPECT_EQ(NoiseAwareLabel(scores, small)->config, one_thread);                      // 8% > 5%
  EXPECT_EQ(NoiseAwareLabel(scores, small, kNoiseBand, 0.04)->config, packed);        // 8% < 9.8%
  EXPECT_EQ(NoiseAwareLabel(scores, large, kNoiseBand, 0.04)->config, packed);
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
