#include "tuner/policy_trainer.h"

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
    r.ratio_to_anchor = ratio;
    r.anchor = space_.ToString(space_.Default());
    return r;
  }
  Workload workload_ = testing::MustLoad("dlrm_mlp");
  SearchSpace space_ = testing::MustSpace(workload_, 2);
  std::vector<Dims> shapes_ = {{{"batch", 1}}, {{"batch", 64}}};
};

// The static plan is the best geometric mean over every tuned shape; the fallback the best worst case; both only
// among configs measured ok everywhere and never failing.
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
