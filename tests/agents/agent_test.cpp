#include "agents/agent.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/agents/agent_test_loop.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MakeContext;
using testing::MustConfig;
using testing::MustLoad;
using testing::MustSpace;

Evaluation Ok(double speedup) {
  Evaluation evaluation;
  evaluation.status = EvalStatus::kOk;
  evaluation.speedup = speedup;
  return evaluation;
}

Evaluation Failed() {
  Evaluation evaluation;
  evaluation.status = EvalStatus::kUnsupported;
  return evaluation;
}

class AgentTest : public ::testing::Test {
 protected:
  Workload workload_ = MustLoad("bert_ffn");
  SearchSpace space_ = MustSpace(workload_);
  Dims small_{{"tokens", 1}};
  Dims large_{{"tokens", 512}};
};

TEST_F(AgentTest, HistoryTracksSeenCandidates) {
  SearchHistory history(space_);
  Candidate candidate{small_, space_.Default()};
  EXPECT_FALSE(history.Seen(candidate));
  history.MarkSeen(candidate);
  EXPECT_TRUE(history.Seen(candidate));
  EXPECT_FALSE(history.Seen({large_, space_.Default()}));  // same config, other shape
  EXPECT_EQ(history.measured(), 0u);                       // marked, not measured
}

TEST_F(AgentTest, HistoryKeepsTheBestPerShape) {
  SearchHistory history(space_);
  Config packed = MustConfig(space_, "weights=packed");
  Config bf16 = MustConfig(space_, "precision=bf16");
  EXPECT_EQ(history.BestReward(small_), kFailureReward);
  EXPECT_EQ(history.BestConfig(small_), nullptr);

  history.Record({small_, packed}, Ok(2.0));
  history.Record({small_, bf16}, Ok(1.5));  // worse: the best stays
  history.Record({large_, bf16}, Ok(1.8));
  EXPECT_EQ(history.measured(), 3u);
  EXPECT_TRUE(history.Seen({small_, bf16}));
  EXPECT_DOUBLE_EQ(history.BestReward(small_), std::log(2.0));
  ASSERT_NE(history.BestConfig(small_), nullptr);
  EXPECT_EQ(*history.BestConfig(small_), packed);
  ASSERT_NE(history.BestConfig(large_), nullptr);
  EXPECT_EQ(*history.BestConfig(large_), bf16);

  history.Record({large_, packed}, Ok(2.5));  // better: replaces
  EXPECT_EQ(*history.BestConfig(large_), packed);
}

TEST_F(AgentTest, FailuresAreSeenButNeverBest) {
  SearchHistory history(space_);
  history.Record({small_, space_.Default()}, Failed());
  EXPECT_TRUE(history.Seen({small_, space_.Default()}));
  EXPECT_EQ(history.measured(), 1u);
  EXPECT_EQ(history.BestReward(small_), kFailureReward);
  EXPECT_EQ(history.BestConfig(small_), nullptr);
}

TEST_F(AgentTest, RandomUnseenConfigExhaustsTheSpaceExactlyOnce) {
  SearchHistory history(space_);
  std::mt19937_64 rng(7);
  const uint64_t size = space_.Size(KnobScope::kPlan);
  ASSERT_EQ(size, 72u);
  std::set<std::string> drawn;
  for (uint64_t i = 0; i < size; ++i) {
    std::optional<Config> config = RandomUnseenConfig(space_, history, small_, rng);
    ASSERT_TRUE(config.has_value()) << "ran dry after " << i;
    EXPECT_EQ(space_.PlanPart(*config), *config);  // runtime knobs at their defaults
    EXPECT_TRUE(space_.Validate(*config).ok());
    EXPECT_TRUE(drawn.insert(space_.ToString(*config)).second) << "drawn twice: " << space_.ToString(*config);
    history.MarkSeen({small_, *config});
  }
  EXPECT_FALSE(RandomUnseenConfig(space_, history, small_, rng).has_value());
  EXPECT_TRUE(RandomUnseenConfig(space_, history, large_, rng).has_value());  // other shapes are untouched
}

TEST_F(AgentTest, RandomUnseenConfigIsDeterministicForASeed) {
  SearchHistory history(space_);
  std::mt19937_64 a(3), b(3);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(RandomUnseenConfig(space_, history, small_, a), RandomUnseenConfig(space_, history, small_, b));
}

TEST(LeastMeasuredShapeTest, PicksTheFewestAndTheEarliestOnTies) {
  std::vector<Dims> shapes = testing::OneDimShapes("tokens", {1, 8, 64});
  std::map<std::string, size_t> counts;
  EXPECT_EQ(LeastMeasuredShape(shapes, counts), 0u);  // nothing counted: the first
  counts["tokens=1"] = 2;
  EXPECT_EQ(LeastMeasuredShape(shapes, counts), 1u);  // missing counts are zero
  counts["tokens=8"] = 1;
  counts["tokens=64"] = 1;
  EXPECT_EQ(LeastMeasuredShape(shapes, counts), 1u);  // tie between 8 and 64: the earlier
  counts["tokens=8"] = 3;
  EXPECT_EQ(LeastMeasuredShape(shapes, counts), 2u);
  counts["tokens=99"] = 0;  // not a campaign shape: ignored
  EXPECT_EQ(LeastMeasuredShape(shapes, counts), 2u);
}

TEST_F(AgentTest, WarmupDesignHandsOutItsBalancedDesignOnceSkippingSeenConfigs) {
  std::mt19937_64 rng(3), same(3);
  const std::vector<Config> expected = BalancedDesign(space_, 4, same);
  SearchHistory history(space_);
  const Dims dims = {{"tokens", 8}};
  history.MarkSeen({dims, expected[1]});
  WarmupDesign warmup(4);
  std::vector<Config> handed;
  while (std::optional<Config> c = warmup.Next(space_, history, dims, rng)) handed.push_back(*c);
  std::vector<Config> unseen = {expected[0], expected[2], expected[3]};
  if (expected[1] == expected[0] || expected[1] == expected[2] || expected[1] == expected[3])
    unseen.erase(std::remove(unseen.begin(), unseen.end(), expected[1]), unseen.end());
  EXPECT_EQ(handed, unseen);
  EXPECT_FALSE(warmup.Next(space_, history, {{"tokens", 64}}, rng).has_value());  // used up for every shape
}

TEST(ShapeRotationTest, VisitsTheLeastSeenShapeAndSkipsExhaustedOnes) {
  const std::vector<Dims> shapes = {{{"batch", 1}}, {{"batch", 8}}, {{"batch", 64}}};
  ShapeRotation rotation(shapes);
  EXPECT_EQ(rotation.Next(), shapes[0]);  // ties: campaign order
  rotation.Count(shapes[0]);
  EXPECT_EQ(rotation.Next(), shapes[1]);
  rotation.Count(shapes[1]);
  rotation.Count(shapes[2]);
  rotation.Count(shapes[2]);
  EXPECT_EQ(rotation.Next(), shapes[0]);
  EXPECT_EQ(rotation.count(shapes[2]), 2u);

  rotation.Exhaust(shapes[0]);
  rotation.Exhaust(shapes[0]);  // once only
  rotation.Count(shapes[0]);    // an exhausted shape stays exhausted
  EXPECT_FALSE(rotation.done());
  EXPECT_EQ(rotation.Next(), shapes[1]);
  rotation.Exhaust(shapes[1]);
  EXPECT_EQ(rotation.Next(), shapes[2]);
  rotation.Exhaust(shapes[2]);
  EXPECT_TRUE(rotation.done());
}

TEST_F(AgentTest, MakeAgentKnowsAllSixNames) {
  EXPECT_EQ(AgentNames(), (std::vector<std::string>{"random", "grid", "evolution", "bandit", "model", "rl"}));
  for (const std::string& name : AgentNames()) {
    auto agent = MakeAgent(name, MakeContext(workload_, space_, {small_, large_}, 1));
    ASSERT_TRUE(agent.ok()) << name << ": " << agent.status().ToString();
    ASSERT_NE(agent->get(), nullptr) << name;
    EXPECT_EQ((*agent)->name(), name);
  }
}

TEST_F(AgentTest, MakeAgentRejectsUnknownNamesListingTheKnownOnes) {
  auto agent = MakeAgent("annealing", MakeContext(workload_, space_, {small_}, 1));
  ASSERT_FALSE(agent.ok());
  EXPECT_EQ(agent.status().code(), StatusCode::kInvalidArgument);
  const std::string& message = agent.status().message();
  EXPECT_NE(message.find("annealing"), std::string::npos) << message;
  for (const std::string& name : AgentNames()) EXPECT_NE(message.find(name), std::string::npos) << message;
}

TEST_F(AgentTest, MakeAgentNeedsSpaceWorkloadAndShapes) {
  AgentContext no_shapes = MakeContext(workload_, space_, {}, 1);
  EXPECT_EQ(MakeAgent("random", no_shapes).status().code(), StatusCode::kInvalidArgument);
  AgentContext no_space = MakeContext(workload_, space_, {small_}, 1);
  no_space.space = nullptr;
  EXPECT_EQ(MakeAgent("grid", no_space).status().code(), StatusCode::kInvalidArgument);
  AgentContext no_workload = MakeContext(workload_, space_, {small_}, 1);
  no_workload.workload = nullptr;
  EXPECT_EQ(MakeAgent("model", no_workload).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crmap
