#include "agents/bandit_agent.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "agents/random_agent.h"
#include "agents/synthetic_evaluator.h"
#include "tests/agents/agent_test_loop.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MakeContext;
using testing::MeanOracleRatio;
using testing::MustLoad;
using testing::MustSpace;
using testing::OneDimShapes;
using testing::OracleRatio;
using testing::RunLoop;

// --- AucBandit: the selection rule --------------------------------------------------------------------------

TEST(AucBanditTest, UnusedArmsComeFirst) {
  AucBandit bandit(3, 100, 0.05);
  bandit.Record(0, true);
  bandit.Record(1, true);
  EXPECT_EQ(bandit.Score(2), std::numeric_limits<double>::infinity());
  std::mt19937_64 rng(1);
  EXPECT_EQ(bandit.Order({}, rng).front(), 2u);
  EXPECT_LT(bandit.Score(2, {0, 0, 1}), std::numeric_limits<double>::infinity());  // pending counts as use
}

TEST(AucBanditTest, AucWeighsRecentSuccessesMore) {
  AucBandit bandit(2, 100, 0.0);
  for (bool s : {true, false, false, false}) bandit.Record(0, s);  // success long ago
  for (bool s : {false, false, false, true}) bandit.Record(1, s);  // success just now
  EXPECT_DOUBLE_EQ(bandit.Auc(0), 1.0 / 10);
  EXPECT_DOUBLE_EQ(bandit.Auc(1), 4.0 / 10);
  std::mt19937_64 rng(1);
  EXPECT_EQ(bandit.Order({}, rng).front(), 1u);
  AucBandit always(1, 100, 0.0);
  for (int i = 0; i < 5; ++i) always.Record(0, true);
  EXPECT_DOUBLE_EQ(always.Auc(0), 1.0);
  EXPECT_DOUBLE_EQ(AucBandit(1, 10, 0.0).Auc(0), 0.0);
}

TEST(AucBanditTest, WindowForgetsOldOutcomes) {
  AucBandit bandit(2, 4, 0.0);
  bandit.Record(0, true);
  EXPECT_EQ(bandit.uses(0), 1u);
  for (int i = 0; i < 4; ++i) bandit.Record(1, false);
  EXPECT_EQ(bandit.uses(0), 0u);  // slid out of the window
  EXPECT_EQ(bandit.uses(1), 4u);
  EXPECT_EQ(bandit.Score(0), std::numeric_limits<double>::infinity());
}

TEST(AucBanditTest, ExplorationFavoursLessUsedArms) {
  AucBandit bandit(2, 100, 0.5);
  for (int i = 0; i < 8; ++i) bandit.Record(0, false);
  for (int i = 0; i < 2; ++i) bandit.Record(1, false);
  EXPECT_DOUBLE_EQ(bandit.Score(0), 0.5 * std::sqrt(2 * std::log2(10.0) / 8));
  EXPECT_GT(bandit.Score(1), bandit.Score(0));
  // Pending proposals shrink the bonus before their results arrive: a batch spreads over the arms.
  EXPECT_LT(bandit.Score(1, {0, 8}), bandit.Score(0, {0, 8}));
}

TEST(AucBanditTest, TiesAreBrokenByTheRng) {
  AucBandit bandit(4, 100, 0.0);
  for (size_t arm = 0; arm < 4; ++arm) bandit.Record(arm, false);
  std::set<size_t> firsts;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 40; ++i) {
    std::vector<size_t> order = bandit.Order({}, rng);
    ASSERT_EQ(order.size(), 4u);
    EXPECT_EQ(std::set<size_t>(order.begin(), order.end()).size(), 4u);  // a permutation
    firsts.insert(order.front());
  }
  EXPECT_GT(firsts.size(), 1u);
}

// --- BanditAgent ---------------------------------------------------------------------------------------------

// dlrm_mlp with two threads: 216 plan configs per shape. Arms: random, evolution, model (LibTorch).
class BanditAgentTest : public ::testing::Test {
 protected:
  Workload workload_ = MustLoad("dlrm_mlp");
  SearchSpace space_ = MustSpace(workload_, 2);
  std::vector<Dims> shapes_ = OneDimShapes("batch", {1, 32, 512});

  SeparableLandscape Landscape(uint64_t seed) const {
    SeparableOptions options;
    options.seed = seed;
    options.per_shape = true;
    options.failing = {{"precision", "bf16"}};
    return SeparableLandscape(space_, options);
  }

  std::unique_ptr<BanditAgent> Make(uint64_t seed, BanditOptions options = {}) {
    auto agent = BanditAgent::Create(MakeContext(workload_, space_, shapes_, seed), options);
    EXPECT_TRUE(agent.ok()) << agent.status().ToString();
    return agent.ok() ? std::move(agent).value() : nullptr;
  }
};

TEST_F(BanditAgentTest, CreateChecksTheArms) {
  AgentContext context = MakeContext(workload_, space_, shapes_, 1);
  BanditOptions none;
  none.arms = {};
  EXPECT_EQ(BanditAgent::Create(context, none).status().code(), StatusCode::kInvalidArgument);
  BanditOptions recursive;
  recursive.arms = {"random", "bandit"};
  auto bad = BanditAgent::Create(context, recursive);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'bandit'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("evolution"), std::string::npos);  // lists the allowed arms
  BanditOptions unknown;
  unknown.arms = {"hill_climb"};
  EXPECT_EQ(BanditAgent::Create(context, unknown).status().code(), StatusCode::kInvalidArgument);
  auto made = MakeAgent("bandit", context);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ((*made)->name(), "bandit");
  EXPECT_EQ(Make(1)->arm_names(), (std::vector<std::string>{"random", "evolution", "model"}));
}

TEST_F(BanditAgentTest, FindsTheOptimumOfEveryShapeWithin64PerShape) {
  // Budget: 64 of 216 configs per shape (192 evaluations, 24 batches of 8).
  for (uint64_t seed : {1, 2}) {
    SeparableLandscape landscape = Landscape(100 + seed);
    std::unique_ptr<BanditAgent> agent = Make(seed);
    testing::LoopResult result = RunLoop(*agent, landscape, 64 * shapes_.size());
    EXPECT_EQ(result.proposed, 64 * shapes_.size());
    EXPECT_EQ(result.duplicates, 0u);
    EXPECT_EQ(landscape.repeated(), 0u);
    for (const Dims& dims : shapes_)
      EXPECT_GE(OracleRatio(result, landscape, dims), 0.98) << "seed " << seed << " " << DimsToText(dims);
    // Every proposal is credited to an arm or counted as a fallback; every arm got a share.
    const auto& proposals = agent->proposals();
    EXPECT_EQ(std::accumulate(proposals.begin(), proposals.end(), size_t{0}) + agent->fallbacks(), result.proposed);
    for (size_t arm = 0; arm < proposals.size(); ++arm) {
      EXPECT_GT(proposals[arm], 0u) << agent->arm_names()[arm];
      EXPECT_LE(agent->successes()[arm], proposals[arm]);
    }
  }
}

TEST_F(BanditAgentTest, BeatsRandomAtTheSameBudget) {
  // Budget: 32 per shape; mean over 3 seeds of the mean oracle ratio over shapes.
  double bandit = 0, random = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    SeparableLandscape for_bandit = Landscape(200 + seed), for_random = Landscape(200 + seed);
    std::unique_ptr<BanditAgent> bandit_agent = Make(seed);
    RandomAgent random_agent(MakeContext(workload_, space_, shapes_, seed));
    bandit += MeanOracleRatio(RunLoop(*bandit_agent, for_bandit, 32 * shapes_.size()), for_bandit, shapes_);
    random += MeanOracleRatio(RunLoop(random_agent, for_random, 32 * shapes_.size()), for_random, shapes_);
  }
  bandit /= 3;
  random /= 3;
  EXPECT_GT(bandit, random + 0.1) << "bandit " << bandit << " random " << random;
}

TEST_F(BanditAgentTest, NeverProposesTwiceEvenWhenTheSpaceRunsDry) {
  // Cheap arms, so that running a space dry stays fast; two evolution arms propose overlapping children.
  Workload bert = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(bert);  // 72 plan configs
  std::vector<Dims> shapes = OneDimShapes("tokens", {1, 256});
  BanditOptions options;
  options.arms = {"random", "evolution", "evolution", "grid"};
  auto agent = BanditAgent::Create(MakeContext(bert, space, shapes, 4), options);
  ASSERT_TRUE(agent.ok()) << agent.status().ToString();
  SeparableLandscape landscape(space, {});
  testing::LoopResult result = RunLoop(**agent, landscape, 10000);
  EXPECT_TRUE(result.ran_dry);
  EXPECT_EQ(result.proposed, 2 * 72u);
  EXPECT_EQ(result.duplicates, 0u);
  EXPECT_EQ(landscape.repeated(), 0u);
  EXPECT_EQ(result.oversized, 0u);
  EXPECT_TRUE((*agent)->Propose(8).empty());
}

// A test double: proposes only bf16 configs (which always fail on the landscapes here), so it never improves
// a shape's best.
class FailingArm : public Agent {
 public:
  FailingArm(const SearchSpace& space, std::vector<Dims> shapes)
      : space_(space), shapes_(std::move(shapes)), history_(space) {}
  std::string name() const override { return "failing"; }
  std::vector<Candidate> Propose(size_t n) override {
    std::vector<Candidate> out;
    for (; out.size() < n && next_ < space_.Size(KnobScope::kPlan) * shapes_.size(); ++next_) {
      Candidate c{shapes_[next_ % shapes_.size()], space_.NthConfig(next_ / shapes_.size())};
      if (space_.ValueOf(c.config, KnobKind::kPrecision) != "bf16" || history_.Seen(c)) continue;
      history_.MarkSeen(c);
      out.push_back(c);
    }
    return out;
  }
  void Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) override {
    for (size_t i = 0; i < candidates.size(); ++i) history_.Record(candidates[i], evaluations[i]);
  }

 private:
  const SearchSpace& space_;
  std::vector<Dims> shapes_;
  SearchHistory history_;
  uint64_t next_ = 0;
};

TEST_F(BanditAgentTest, CreateTakesReadyMadeArms) {
  AgentContext context = MakeContext(workload_, space_, shapes_, 1);
  std::vector<std::unique_ptr<Agent>> arms;
  arms.push_back(std::make_unique<FailingArm>(space_, shapes_));
  arms.push_back(nullptr);
  EXPECT_EQ(BanditAgent::Create(context, std::move(arms)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(BanditAgent::Create(context, std::vector<std::unique_ptr<Agent>>{}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(BanditAgentTest, SharesTheBudgetByRecentSuccess) {
  // Budget 120: an arm that never improves gets far less of it than random, which often does early on.
  AgentContext context = MakeContext(workload_, space_, shapes_, 6);
  std::vector<std::unique_ptr<Agent>> arms;
  arms.push_back(std::make_unique<FailingArm>(space_, shapes_));
  arms.push_back(MakeRandomAgent(context));
  auto agent = BanditAgent::Create(context, std::move(arms));
  ASSERT_TRUE(agent.ok()) << agent.status().ToString();
  EXPECT_EQ((*agent)->arm_names(), (std::vector<std::string>{"failing", "random"}));
  SeparableLandscape landscape = Landscape(66);
  testing::LoopResult result = RunLoop(**agent, landscape, 120);
  EXPECT_EQ(result.proposed, 120u);
  const auto& proposals = (*agent)->proposals();
  EXPECT_GT(proposals[0], 0u);  // explored
  EXPECT_GT(proposals[1], 2 * proposals[0]) << proposals[0] << " vs " << proposals[1];
  EXPECT_EQ((*agent)->successes()[0], 0u);

  // Credit: successes are exactly the candidates that beat their shape's best so far.
  size_t improvements = 0;
  std::map<std::string, double> best;
  for (const Candidate& c : landscape.evaluated()) {
    double speedup = landscape.Speedup(c.dims, c.config);
    auto [it, first] = best.try_emplace(DimsToText(c.dims), 0.0);
    if (speedup > 0 && (first || speedup > it->second)) ++improvements;
    it->second = std::max(it->second, speedup);
  }
  EXPECT_EQ((*agent)->fallbacks(), 0u);
  EXPECT_EQ((*agent)->successes()[1], improvements);
}

TEST_F(BanditAgentTest, DeterministicForASeed) {
  BanditOptions options;
  options.arms = {"random", "evolution"};  // the model arm is deterministic too, but slower
  auto run = [&](uint64_t seed) {
    SeparableLandscape landscape = Landscape(3);
    std::unique_ptr<BanditAgent> agent = Make(seed, options);
    RunLoop(*agent, landscape, 64);
    return landscape.evaluated();
  };
  EXPECT_EQ(run(4), run(4));
  EXPECT_NE(run(4), run(5));
}

}  // namespace
}  // namespace crmap
