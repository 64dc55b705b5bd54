#include "tuner/policy_trainer.h"

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap {
namespace {

namespace fs = std::filesystem;

class PolicyTrainerTest : public ::testing::Test {
 protected:
  TuningRecord Record(int64_t batch, const std::string& config, const std::string& status, double ratio) {
    TuningRecord r;
    r.workload = "dlrm_mlp";
    r.workload_fingerprint = workload_.fingerprint();
    r.space_fingerprint = space_.fingerprint();
    r.dims = {{"batch", batch}};
    r.config = space_.ToString(testing::MustConfig(space_, config));
    r.status = status;
    r.median_us = 100 * ratio;
    r.p99_us = 150 * ratio;
    r.rounds = 10;
    r.ratio_to_anchor = ratio;
    r.anchor = space_.ToString(space_.Default());
    return r;
  }
  // One record per config at batches 1, 2, 4 and 8: weights=packed 2x everywhere, threads=1 beating it by 7% at
  // batch 8 only, and changes between neighbouring batches that say a record's noise is ~0.065.
  std::vector<TuningRecord> NoisyRecords() {
    return RecordsOf({// packed, threads=1, bf16, fuse.fc1=bias
                      {1, {2.0, 1.9, 1.5, 1.2}}, {2, {2.0, 1.7, 1.6, 1.25}}, {4, {2.0, 1.95, 1.45, 1.15}},
                      {8, {2.0, 2.14, 1.55, 1.3}}});
  }
  // One record per config and batch: the default, then packed, threads=1, bf16 and fuse.fc1=bias at the speedups
  // given per batch.
  std::vector<TuningRecord> RecordsOf(const std::map<int64_t, std::vector<double>>& speedups) {
    const std::vector<std::string> configs = {"weights=packed", "threads=1", "precision=bf16", "fuse.fc1=bias"};
    std::vector<TuningRecord> records;
    for (const auto& [batch, row] : speedups) {
      records.push_back(Record(batch, "default", "ok", 1));
      for (size_t i = 0; i < configs.size(); ++i) records.push_back(Record(batch, configs[i], "ok", 1 / row[i]));
    }
    return records;
  }
  // Records of each config at batches 1 and 64 (shapes_), ok at the ratios given: {config, {at 1, at 64}}, in order.
  std::vector<TuningRecord> AtBothShapes(const std::vector<std::pair<std::string, std::array<double, 2>>>& rows) {
    std::vector<TuningRecord> records;
    for (const auto& [config, ratio] : rows) {
      records.push_back(Record(1, config, "ok", ratio[0]));
      records.push_back(Record(64, config, "ok", ratio[1]));
    }
    return records;
  }
  // A quick training (no critic members) whose policy keeps the incumbent away from the table (the largest switch
  // margin), its report in `report`.
  void TrainKeepingTheIncumbent(const std::vector<TuningRecord>& records, TrainReport* report) {
    TrainOptions options;
    options.critic_epochs = 5;
    options.policy_steps = 5;
    options.critic_members = 0;
    options.switch_margin = 1;
    auto file = TrainPolicy(workload_, space_, records, options, report);
    ASSERT_TRUE(file.ok()) << file.status().message();
  }
  Workload workload_ = testing::MustLoad("dlrm_mlp");
  SearchSpace space_ = testing::MustSpace(workload_, 2);
  std::vector<Dims> shapes_ = {{{"batch", 1}}, {{"batch", 64}}};
};

// The static plan is the best geometric mean over the tuned shapes; the fallback the best worst case; with two
// tuned shapes both only among configs measured ok at both and never failing.
TEST_F(PolicyTrainerTest, StaticPlanAndFallbackRankByTheSharedScores) {
  std::vector<TuningRecord> records = {
      Record(1, "default", "ok", 1), Record(64, "default", "ok", 1),
      Record(1, "threads=1", "ok", 0.25), Record(64, "threads=1", "ok", 1.25),     // 4x and 0.8x: geo 1.79
      Record(1, "weights=packed", "ok", 0.6), Record(64, "weights=packed", "ok", 0.6),  // 1.67x twice
      Record(1, "precision=bf16", "ok", 0.1), Record(64, "precision=bf16", "unsupported", NAN),  // fails once
  };
  EXPECT_EQ(ChooseStaticPlan(space_, records, shapes_), testing::MustConfig(space_, "threads=1"));
  EXPECT_EQ(ChooseFallback(space_, records, shapes_), testing::MustConfig(space_, "weights=packed"));
  // A config missing at one shape is no candidate: with only batch=1 measured for threads=1, packed wins.
  records.erase(records.begin() + 3);
  EXPECT_EQ(ChooseStaticPlan(space_, records, shapes_), testing::MustConfig(space_, "weights=packed"));
}

// The coverage a static plan candidate needs: three quarters of the tuned shapes, rounded up.
TEST(StaticPlanCoverageTest, IsThreeQuartersOfTheTunedShapesRoundedUp) {
  EXPECT_EQ(StaticPlanCoverage(1), 1u);
  EXPECT_EQ(StaticPlanCoverage(2), 2u);
  EXPECT_EQ(StaticPlanCoverage(3), 3u);
  EXPECT_EQ(StaticPlanCoverage(4), 3u);
  EXPECT_EQ(StaticPlanCoverage(8), 6u);
  EXPECT_EQ(StaticPlanCoverage(24), 18u);
}

// With many tuned shapes a campaign measures few configs at each, and only the default (every shape's anchor) may
// have been measured at all of them: a config measured at three quarters of them or more is a candidate, judged by
// its geometric mean where it was measured; one measured at fewer is not, however fast.
TEST_F(PolicyTrainerTest, TheStaticPlanNeedsThreeQuartersOfTheTunedShapes) {
  const std::vector<Dims> four = {{{"batch", 1}}, {{"batch", 2}}, {{"batch", 4}}, {{"batch", 8}}};
  std::vector<TuningRecord> records;
  for (const Dims& dims : four) records.push_back(Record(dims.at("batch"), "default", "ok", 1));
  for (int64_t batch : {1, 2, 4}) records.push_back(Record(batch, "weights=packed", "ok", 0.6));   // 3 of 4
  for (int64_t batch : {1, 8}) records.push_back(Record(batch, "threads=1", "ok", 0.3));          // 2 of 4
  EXPECT_EQ(ChooseStaticPlan(space_, records, four), testing::MustConfig(space_, "weights=packed"));
  // Judged where it was measured: 1.4x at 3 of 4 beats 1.3x at all 4 (counted as 1x at the fourth, or averaged
  // over four, it would lose).
  std::vector<TuningRecord> judged;
  for (const Dims& dims : four) {
    judged.push_back(Record(dims.at("batch"), "default", "ok", 1));
    judged.push_back(Record(dims.at("batch"), "threads=1", "ok", 1 / 1.3));
    if (dims.at("batch") != 8) judged.push_back(Record(dims.at("batch"), "weights=packed", "ok", 1 / 1.4));
  }
  EXPECT_EQ(ChooseStaticPlan(space_, judged, four), testing::MustConfig(space_, "weights=packed"));
  // The fallback still asks for every shape: only the default qualifies.
  EXPECT_EQ(ChooseFallback(space_, records, four), space_.Default());
  // At 2 of 4 the packed config is no candidate either: the default is the static plan.
  records.erase(records.begin() + 6);  // packed at batch 4
  EXPECT_EQ(ChooseStaticPlan(space_, records, four), space_.Default());
  // A failure anywhere disqualifies, whatever the coverage.
  records.push_back(Record(4, "weights=packed", "ok", 0.6));
  records.push_back(Record(8, "weights=packed", "validation_failed", NAN));
  EXPECT_EQ(ChooseStaticPlan(space_, records, four), space_.Default());
}

// Among configs whose geometric mean is within the tie band of the best's, the static plan is the one that fuses
// furthest beyond the best (the rest of its knobs equal); one outside the band, or differing in another knob, is not.
TEST_F(PolicyTrainerTest, TheStaticPlanTakesATiedConfigThatFusesFurther) {
  std::vector<TuningRecord> records = AtBothShapes({{"default", {1, 1}},
                                                     {"weights=packed", {0.50, 0.50}},
                                                     {"weights=packed;fuse.head=bias", {0.51, 0.51}},
                                                     {"weights=packed;fuse.head=bias;threads=1", {0.50, 0.505}}});
  EXPECT_EQ(ChooseStaticPlan(space_, records, shapes_), testing::MustConfig(space_, "weights=packed;fuse.head=bias"));
  // 10% behind: outside the band (5%: two shapes give no record noise to widen it).
  records[4].ratio_to_anchor = records[5].ratio_to_anchor = 0.55;
  EXPECT_EQ(ChooseStaticPlan(space_, records, shapes_), testing::MustConfig(space_, "weights=packed"));
  // Missing at one shape: no candidate.
  records[4].ratio_to_anchor = records[5].ratio_to_anchor = 0.51;
  records.erase(records.begin() + 5);
  EXPECT_EQ(ChooseStaticPlan(space_, records, shapes_), testing::MustConfig(space_, "weights=packed"));
}

// Of several tied configs that fuse further, the static plan is the one that fuses furthest — unless it failed
// somewhere (no candidate then, as for the plain rule).
TEST_F(PolicyTrainerTest, TheStaticPlanTakesTheDeepestTiedFusionThatNeverFailed) {
  std::vector<TuningRecord> records = AtBothShapes({{"default", {1, 1}},
                                                     {"weights=packed", {0.50, 0.50}},
                                                     {"weights=packed;fuse.head=bias", {0.51, 0.51}},
                                                     {"weights=packed;fuse.head=bias;fuse.fc1=bias", {0.52, 0.52}}});
  EXPECT_EQ(ChooseStaticPlan(space_, records, shapes_),
            testing::MustConfig(space_, "weights=packed;fuse.head=bias;fuse.fc1=bias"));
  records.push_back(Record(8, "weights=packed;fuse.head=bias;fuse.fc1=bias", "validation_failed", NAN));
  EXPECT_EQ(ChooseStaticPlan(space_, records, shapes_), testing::MustConfig(space_, "weights=packed;fuse.head=bias"));
}

// `crmap train` gives the rule the space: the table's label at a shape where a config that fuses further ties with
// the best is that config.
TEST_F(PolicyTrainerTest, TheTablesLabelIsATiedConfigThatFusesFurther) {
  const std::vector<TuningRecord> records = AtBothShapes(
      {{"default", {1, 1}}, {"weights=packed", {0.50, 0.50}}, {"weights=packed;fuse.head=bias", {0.51, 0.60}}});
  TrainReport report;
  TrainOptions options;
  options.critic_epochs = 5;
  options.policy_steps = 5;
  options.critic_members = 0;
  auto file = TrainPolicy(workload_, space_, records, options, &report);
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_EQ(file->table.size(), 2u);
  const Config fused = testing::MustConfig(space_, "weights=packed;fuse.head=bias");
  const Config packed = testing::MustConfig(space_, "weights=packed");
  EXPECT_EQ(file->table[0].dims[0], 1);
  EXPECT_EQ(std::vector<int>(file->table[0].config.begin(), file->table[0].config.end()), fused.values)
      << "tied at batch 1";
  EXPECT_EQ(std::vector<int>(file->table[1].config.begin(), file->table[1].config.end()), packed.values)
      << "17% behind at batch 64";
}

// The table's labels tie configs within the noise the database itself shows (config_scores.h:
// EstimateRecordNoise): at batch 8 threads=1 beats weights=packed by 7% in one record each, where packed is best
// at every other shape, and the configs' changes between neighbouring shapes say a record's noise is ~0.065.
TEST_F(PolicyTrainerTest, TheTablesLabelsTieConfigsWithinTheNoiseTheDatabaseShows) {
  const std::vector<TuningRecord> records = NoisyRecords();
  TrainOptions options;
  options.critic_epochs = 5;
  options.policy_steps = 5;
  options.critic_members = 0;
  TrainReport report;
  auto file = TrainPolicy(workload_, space_, records, options, &report);
  ASSERT_TRUE(file.ok()) << file.status().message();
  const double noise = EstimateRecordNoise(ScoreConfigs(space_, records));
  EXPECT_GT(noise, 0.05);
  EXPECT_EQ(report.record_noise, noise);
  EXPECT_EQ(report.label_tie_band, TieBand(kNoiseBand, noise, 1, 1));
  const Config packed = testing::MustConfig(space_, "weights=packed");
  ASSERT_EQ(file->table.size(), 4u);
  for (const TableEntry& entry : file->table) {
    EXPECT_EQ(std::vector<int>(entry.config.begin(), entry.config.end()), packed.values)
        << "batch " << entry.dims[0];
  }
}

// The policy's own answer at a tuned shape is judged twice: within 5% of the best, and within the labels' tie band
// (the record noise). With the largest switch margin it keeps the incumbent, packed, everywhere: at batch 8 that is
// 7% behind threads=1 — a miss at 5%, a tie within the noise the records show.
TEST_F(PolicyTrainerTest, ThePoliciesOwnAnswerIsJudgedWithinTheLabelsTieBandToo) {
  TrainReport report;
  ASSERT_NO_FATAL_FAILURE(TrainKeepingTheIncumbent(NoisyRecords(), &report));
  ASSERT_EQ(report.incumbent, space_.ToString(testing::MustConfig(space_, "weights=packed")));
  ASSERT_GT(report.label_tie_band, 0.07);
  EXPECT_EQ(report.shapes, 4u);
  EXPECT_EQ(report.policy_agrees, 4u);
  EXPECT_EQ(report.policy_within_noise, 3u);
  EXPECT_EQ(report.policy_within_label_band, 4u);
  EXPECT_EQ(report.policy_choice_unmeasured, 0u);
  // Shape by shape: the one miss at 5% is batch 8, where the packed answer is the label and tied in the band.
  const std::string packed = space_.ToString(testing::MustConfig(space_, "weights=packed"));
  ASSERT_EQ(report.tuned_shapes.size(), 4u);
  for (const TunedShapeAnswer& shape : report.tuned_shapes) {
    const bool batch8 = shape.dims.at("batch") == 8;
    EXPECT_EQ(shape.label, packed) << DimsToText(shape.dims);
    EXPECT_EQ(shape.policy_answer, packed) << DimsToText(shape.dims);
    EXPECT_EQ(shape.within_5pct, batch8 ? Standing::kBehind : Standing::kBest) << DimsToText(shape.dims);
    EXPECT_EQ(shape.within_label_band, batch8 ? Standing::kTied : Standing::kBest) << DimsToText(shape.dims);
  }
}

// A tuned shape whose own answer is not its label is reported as such: threads=1 is 1.5x faster than packed at batch
// 8 (beyond any tie band), packed everywhere else; with the largest switch margin the policy keeps packed, the
// incumbent, at batch 8 too.
TEST_F(PolicyTrainerTest, ATunedShapeWhoseOwnAnswerIsNotItsLabelIsReportedSo) {
  const std::vector<TuningRecord> records = RecordsOf({{1, {2.0, 1.5, 1.5, 1.2}}, {2, {2.0, 1.5, 1.6, 1.25}},
                                                       {4, {2.0, 1.5, 1.45, 1.15}}, {8, {2.0, 3.0, 1.55, 1.3}}});
  TrainReport report;
  ASSERT_NO_FATAL_FAILURE(TrainKeepingTheIncumbent(records, &report));
  const std::string packed = space_.ToString(testing::MustConfig(space_, "weights=packed"));
  const std::string one_thread = space_.ToString(testing::MustConfig(space_, "threads=1"));
  ASSERT_EQ(report.incumbent, packed);
  ASSERT_EQ(report.tuned_shapes.size(), 4u);
  EXPECT_EQ(report.policy_agrees, 3u);
  EXPECT_EQ(report.policy_within_label_band, 3u);
  for (const TunedShapeAnswer& shape : report.tuned_shapes) {
    const bool batch8 = shape.dims.at("batch") == 8;
    EXPECT_EQ(shape.label, batch8 ? one_thread : packed) << DimsToText(shape.dims);
    EXPECT_EQ(shape.policy_answer, packed) << DimsToText(shape.dims);
    EXPECT_EQ(shape.within_5pct, batch8 ? Standing::kBehind : Standing::kBest) << DimsToText(shape.dims);
    EXPECT_EQ(shape.within_label_band, batch8 ? Standing::kBehind : Standing::kBest) << DimsToText(shape.dims);
  }
}

TEST_F(PolicyTrainerTest, TrainFromDatabaseRefusesBadInputAndWritesNothing) {
  const fs::path dir = fs::path(::testing::TempDir()) / "crmap_trainer_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string out = (dir / "p.policy").string();
  TrainReport report;
  std::string name;
  EXPECT_EQ(TrainFromDatabase((dir / "none.jsonl").string(), "", out, {}, &report, &name).code(),
            StatusCode::kNotFound);
  std::ofstream((dir / "empty.jsonl").string()).close();
  Status empty = TrainFromDatabase((dir / "empty.jsonl").string(), "", out, {}, &report, &name);
  EXPECT_EQ(empty.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(empty.message().find("holds no records"), std::string::npos) << empty.message();
  TrainOptions negative;
  negative.critic_epochs = -1;
  EXPECT_EQ(TrainFromDatabase((dir / "empty.jsonl").string(), "", out, negative, &report, &name).code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace crmap
