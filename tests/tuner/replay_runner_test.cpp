#include "tuner/replay_runner.h"

#include <gtest/gtest.h>

#include "agents/random_agent.h"
#include "tests/agents/agent_test_loop.h"
#include "tests/test_support.h"
#include "tuner/campaign.h"

namespace crmap {
namespace {

class ReplayRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // An exhaustive recording at two shapes: threads=1 is twice as fast at batch 1, packed weights at batch 64;
    // bf16 never runs.
    for (const Dims& dims : shapes_) {
      for (const Config& config : space_.Enumerate(KnobScope::kPlan)) {
        TuningRecord r;
        r.dims = dims;
        r.config = space_.ToString(config);
        r.anchor = space_.ToString(space_.Default());
        const bool bf16 = space_.ValueOf(config, KnobKind::kPrecision) == "bf16";
        r.status = bf16 ? "unsupported" : "ok";
        double ratio = 1.0;
        if (dims.at("batch") == 1 && space_.ValueOf(config, KnobKind::kThreads) == "1") ratio *= 0.5;
        if (dims.at("batch") == 64 && space_.ValueOf(config, KnobKind::kWeights) == "packed") ratio *= 0.5;
        r.ratio_to_anchor = ratio;
        r.median_us = 100 * ratio;
        records_.push_back(r);
      }
    }
  }
  Workload workload_ = testing::MustLoad("dlrm_mlp");
  SearchSpace space_ = testing::MustSpace(workload_, 2);
  std::vector<Dims> shapes_ = {{{"batch", 1}}, {{"batch", 64}}};
  std::vector<TuningRecord> records_;
};

TEST_F(ReplayRunnerTest, TheCurveStartsAtTheDefaultRisesToTheOracleAndRespectsTheBudget) {
  ReplayEvaluator replay(space_, records_);
  RandomAgent agent(testing::MakeContext(workload_, space_, shapes_, 3));
  auto run = ReplayAgent(agent, replay, space_, shapes_, 200, 8);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->measured, 200u);
  EXPECT_EQ(run->misses, 0u);
  EXPECT_DOUBLE_EQ(run->curve.front().second, 0.5);  // the default is half the oracle at both shapes
  for (size_t i = 1; i < run->curve.size(); ++i) EXPECT_GE(run->curve[i].second, run->curve[i - 1].second);
  EXPECT_DOUBLE_EQ(run->curve.back().second, 1.0);
}

// Replay drives the campaign loop of `tune`: the same agent and seed over the same answers proposes the same
// candidates in both.
TEST_F(ReplayRunnerTest, AReplayProposesWhatACampaignOverTheSameAnswersProposes) {
  ReplayEvaluator for_replay(space_, records_), for_campaign(space_, records_);
  RandomAgent replayed(testing::MakeContext(workload_, space_, shapes_, 5));
  RandomAgent campaigned(testing::MakeContext(workload_, space_, shapes_, 5));
  auto run = ReplayAgent(replayed, for_replay, space_, shapes_, 40, 8);
  ASSERT_TRUE(run.ok());
  std::vector<Candidate> proposed;
  ResultSink sink = [&](const std::vector<Candidate>& candidates, const std::vector<Evaluation>&) {
    proposed.insert(proposed.end(), candidates.begin(), candidates.end());
    return Status::Ok();
  };
  CampaignOptions options;
  options.budget = 40;
  options.batch = 8;
  ASSERT_TRUE(RunCampaign(space_, shapes_, campaigned, for_campaign, sink, {}, options).ok());
  EXPECT_EQ(run->measured, 40u);  // refusals proposed on top, not charged
  ASSERT_EQ(run->proposed.size(), proposed.size());
  ASSERT_GT(proposed.size(), 40u);  // the fixture refuses every bf16 config: some were proposed on top
  for (size_t i = 0; i < proposed.size(); ++i)
    EXPECT_EQ(CandidateKey(space_, run->proposed[i]), CandidateKey(space_, proposed[i])) << i;
}

TEST_F(ReplayRunnerTest, RunReplayRefusesBadInput) {
  ReplayRequest request;
  request.db_path = "/nonexistent/db.jsonl";
  EXPECT_EQ(RunReplay(request).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace crmap
