#include "tuner/range_probe.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap {
namespace {

Dims Batch(int64_t batch) { return {{"batch", batch}}; }

// Above the range only, the farthest from the nearest tuned shape first (log2), then pool order; a pool shape
// below the range in any dim is never taken, however far, nor is a tuned or repeated one.
TEST(RangeProbeShapesTest, AboveTheRangeOnlyTheFarthestFirst) {
  const std::vector<Dims> tuned = {Batch(4), Batch(16)};
  const std::vector<Dims> pool = {Batch(1), Batch(32), Batch(16), Batch(256), Batch(8), Batch(64), Batch(256)};
  EXPECT_EQ(ShapesAboveRange(tuned, pool), (std::vector<Dims>{Batch(256), Batch(64), Batch(32)}));
  EXPECT_TRUE(ShapesAboveRange(tuned, {Batch(1), Batch(8)}).empty());
  EXPECT_TRUE(ShapesAboveRange({}, pool).empty()) << "no tuned shapes: no range to be above";
}

TEST(RangeProbeShapesTest, EqualDistancesKeepThePoolOrderAndNoDimMayBeBelow) {
  const std::vector<Dims> tuned = {{{"batch", 4}, {"seq", 64}}, {{"batch", 16}, {"seq", 128}}};
  const Dims wider = {{"batch", 16}, {"seq", 512}};   // seq above: two octaves from the second
  const Dims larger = {{"batch", 64}, {"seq", 128}};  // batch above: two octaves from the second
  const Dims mixed = {{"batch", 1024}, {"seq", 32}};  // batch above, seq below: not above the range
  EXPECT_EQ(ShapesAboveRange(tuned, {mixed, wider, larger}), (std::vector<Dims>{wider, larger}));
  EXPECT_EQ(ShapesAboveRange(tuned, {larger, mixed, wider}), (std::vector<Dims>{larger, wider}));
}

// Scores by hand over dlrm_mlp's space on two threads: each config's speedup at each tuned shape.
class RangeProbeConfigsTest : public ::testing::Test {
 protected:
  void Add(int64_t batch, const Config& config, double speedup) {
    ShapeScores& shape = scores_[Batch(batch)];
    shape.dims = Batch(batch);
    const std::string text = space_.ToString(config);
    ConfigScore& score = shape.configs[text];
    score.config = text;
    score.speedup = speedup;
    score.ok = 1;
    score.basis = SpeedupBasis::kInRun;
    score.is_default = config == space_.Default();
  }
  Config WithThreads(Config config, int value_index) const {
    config.values[static_cast<size_t>(threads_)] = value_index;
    return config;
  }
  Workload workload_ = testing::MustLoad("dlrm_mlp");
  SearchSpace space_ = testing::MustSpace(workload_, 2);
  int threads_ = space_.FindKnobOfKind(KnobKind::kThreads);
  std::map<Dims, ShapeScores> scores_;
};

// The label of more tuned shapes first (whatever the config strings' order), each at every thread count; the
// default (measured beside every batch as the anchor) and repeats left out; a tuned shape without scores labels
// nothing.
TEST_F(RangeProbeConfigsTest, LabelsOfMoreShapesFirstAtEveryThreadCountWithoutTheDefault) {
  ASSERT_GE(threads_, 0);
  ASSERT_EQ(space_.knobs()[static_cast<size_t>(threads_)].values.size(), 2u);
  const Config packed = testing::MustConfig(space_, "weights=packed");
  const int default_threads = space_.Default().values[static_cast<size_t>(threads_)];
  const Config other_threads = WithThreads(space_.Default(), 1 - default_threads);
  ASSERT_LT(space_.ToString(packed), space_.ToString(other_threads));  // so the strings' order puts packed first
  for (int64_t batch : {1, 2, 3}) Add(batch, space_.Default(), 1.0);
  Add(1, other_threads, 1.6);
  Add(2, other_threads, 1.5);
  Add(1, packed, 1.1);
  Add(3, packed, 1.4);  // labels batch 3 only
  const std::vector<Config> configs = RangeProbeConfigs(space_, scores_, {Batch(1), Batch(2), Batch(3), Batch(9)});
  const std::vector<Config> expected = {other_threads, WithThreads(packed, 0), WithThreads(packed, 1)};
  EXPECT_EQ(configs, expected);  // the first label at the default's thread count is the default itself
}

TEST_F(RangeProbeConfigsTest, NoScoresNoConfigs) {
  EXPECT_TRUE(RangeProbeConfigs(space_, scores_, {Batch(1)}).empty());
}

// A space of one thread count (a 1-core host) probes the labels themselves.
TEST(RangeProbeConfigsSpaceTest, OneThreadCountTheLabelsAlone) {
  const Workload workload = testing::MustLoad("dlrm_mlp");
  const SearchSpace space = testing::MustSpace(workload, 1);
  const int threads = space.FindKnobOfKind(KnobKind::kThreads);
  ASSERT_GE(threads, 0);
  ASSERT_EQ(space.knobs()[static_cast<size_t>(threads)].values.size(), 1u);
  const Config packed = testing::MustConfig(space, "weights=packed");
  std::map<Dims, ShapeScores> scores;
  ShapeScores& shape = scores[Batch(4)];
  shape.dims = Batch(4);
  for (const auto& [config, speedup] : {std::pair{space.Default(), 1.0}, std::pair{packed, 1.3}}) {
    ConfigScore& score = shape.configs[space.ToString(config)];
    score.config = space.ToString(config);
    score.speedup = speedup;
    score.ok = 1;
    score.basis = SpeedupBasis::kInRun;
    score.is_default = config == space.Default();
  }
  EXPECT_EQ(RangeProbeConfigs(space, scores, {Batch(4)}), (std::vector<Config>{packed}));
}

}  // namespace
}  // namespace crmap
