#include "tuner/campaign.h"

#include <algorithm>
#include <atomic>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap {
namespace {

// Proposes the plan configs of each shape in id order, round robin over shapes; optionally repeats itself.
class ScriptedAgent : public Agent {
 public:
  ScriptedAgent(const SearchSpace& space, std::vector<Dims> shapes, bool repeat_first = false)
      : space_(space), shapes_(std::move(shapes)), repeat_first_(repeat_first) {}
  std::string name() const override { return "scripted"; }
  std::vector<Candidate> Propose(size_t n) override {
    std::vector<Candidate> out;
    if (repeat_first_) out.push_back({shapes_[0], space_.NthConfig(0)});
    while (out.size() < n && next_ < space_.Size(KnobScope::kPlan) * shapes_.size()) {
      out.push_back({shapes_[next_ % shapes_.size()], space_.NthConfig(next_ / shapes_.size())});
      ++next_;
    }
    return out;
  }
  void Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>&) override {
    observed += candidates.size();
  }
  size_t observed = 0;

 private:
  const SearchSpace& space_;
  std::vector<Dims> shapes_;
  bool repeat_first_;
  uint64_t next_ = 0;
};

// The scripted proposals, every third marked a probe and every fourth a climb (the twelfth both).
class MarkingAgent : public ScriptedAgent {
 public:
  using ScriptedAgent::ScriptedAgent;
  std::vector<Candidate> Propose(size_t n) override {
    std::vector<Candidate> out = ScriptedAgent::Propose(n);
    for (Candidate& c : out) {
      ++proposed_;
      c.probe = proposed_ % 3 == 0;
      c.climb = proposed_ % 4 == 0;
    }
    return out;
  }

 private:
  size_t proposed_ = 0;
};

// Speedup = 1 + config id / 100; every config whose id is a multiple of `fail_every` fails.
class CountingEvaluator : public Evaluator {
 public:
  CountingEvaluator(const SearchSpace& space, uint64_t fail_every) : space_(space), fail_every_(fail_every) {}
  std::vector<Evaluation> Evaluate(const std::vector<Candidate>& candidates) override {
    std::vector<Evaluation> out;
    for (const auto& c : candidates) {
      ++evaluated;
      keys.push_back(CandidateKey(space_, c));
      Evaluation e;
      uint64_t id = space_.ToId(c.config);
      if (fail_every_ && id % fail_every_ == 0) {
        e.status = EvalStatus::kUnsupported;
      } else {
        e.status = EvalStatus::kOk;
        e.speedup = 1.0 + static_cast<double>(id) / 100.0;
        e.median_us = 100.0 / e.speedup;
      }
      out.push_back(e);
    }
    return out;
  }
  size_t evaluated = 0;
  std::vector<std::string> keys;

 private:
  const SearchSpace& space_;
  uint64_t fail_every_;
};

class CampaignTest : public ::testing::Test {
 protected:
  Workload workload_ = testing::MustLoad("dlrm_mlp");
  SearchSpace space_ = testing::MustSpace(workload_, 1);
  std::vector<Dims> shapes_ = {{{"batch", 1}}, {{"batch", 8}}};
  size_t sunk_ = 0;
  ResultSink sink_ = [this](const std::vector<Candidate>& c, const std::vector<Evaluation>&) {
    sunk_ += c.size();
    return Status::Ok();
  };

  // A first campaign by a fresh ScriptedAgent over a CountingEvaluator(fail_every): what it stored (a resumed
  // campaign's history), its outcome, and the keys it evaluated.
  std::vector<std::pair<Candidate, Evaluation>> FirstRun(uint64_t fail_every, const CampaignOptions& options,
                                                          CampaignOutcome* outcome, std::vector<std::string>* keys) {
    ScriptedAgent agent(space_, shapes_);
    CountingEvaluator evaluator(space_, fail_every);
    std::vector<std::pair<Candidate, Evaluation>> history;
    ResultSink keep = [&](const std::vector<Candidate>& c, const std::vector<Evaluation>& e) {
      for (size_t i = 0; i < c.size(); ++i) history.push_back({c[i], e[i]});
      return Status::Ok();
    };
    auto ran = RunCampaign(space_, shapes_, agent, evaluator, keep, {}, options);
    EXPECT_TRUE(ran.ok());
    if (ran.ok()) *outcome = *ran;
    *keys = evaluator.keys;
    return history;
  }
};

TEST_F(CampaignTest, SpendsTheBudgetAndStoresEveryResultBeforeTheAgentSeesIt) {
  ScriptedAgent agent(space_, shapes_);
  CountingEvaluator evaluator(space_, 0);
  CampaignOptions options;
  options.budget = 20;
  options.batch = 8;
  std::vector<CampaignProgress> progress;
  options.on_progress = [&](const CampaignProgress& p) { progress.push_back(p); };
  auto outcome = RunCampaign(space_, shapes_, agent, evaluator, sink_, {}, options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->end, CampaignEnd::kBudget);
  EXPECT_EQ(outcome->measured_now, 20u);
  EXPECT_EQ(evaluator.evaluated, 20u);
  EXPECT_EQ(sunk_, 20u);
  EXPECT_EQ(agent.observed, 20u);
  ASSERT_EQ(outcome->shapes.size(), 2u);
  EXPECT_EQ(outcome->shapes[0].measurements + outcome->shapes[1].measurements, 20u);
  // The best config of a shape is the one with the highest speedup (= highest id here).
  EXPECT_EQ(space_.ToId(outcome->shapes[0].best), 9u);
  EXPECT_EQ(space_.ToId(outcome->shapes[0].leaders[0]), 9u);
  EXPECT_EQ(outcome->shapes[0].leaders.size(), kCampaignLeaders);
  EXPECT_EQ(progress.back().measured, 20u);
  EXPECT_DOUBLE_EQ(progress.back().best_speedup, 1.09);
}

TEST_F(CampaignTest, CountsTheProbesAndClimbsItMeasured) {
  MarkingAgent agent(space_, shapes_);
  CountingEvaluator evaluator(space_, 0);
  CampaignOptions options;
  options.budget = 24;
  options.batch = 8;
  auto outcome = RunCampaign(space_, shapes_, agent, evaluator, sink_, {}, options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->measured_now, 24u);
  EXPECT_EQ(outcome->probes_now, 8u);
  EXPECT_EQ(outcome->climbs_now, 6u);
}

TEST_F(CampaignTest, NeverMeasuresACandidateTwice) {
  ScriptedAgent agent(space_, shapes_, /*repeat_first=*/true);
  CountingEvaluator evaluator(space_, 0);
  CampaignOptions options;
  options.budget = 30;
  auto outcome = RunCampaign(space_, shapes_, agent, evaluator, sink_, {}, options);
  ASSERT_TRUE(outcome.ok());
  std::set<std::string> unique(evaluator.keys.begin(), evaluator.keys.end());
  EXPECT_EQ(unique.size(), evaluator.keys.size());
  EXPECT_GT(outcome->duplicates_dropped, 0u);
}

TEST_F(CampaignTest, ResumedHistoryIsReplayedNotRemeasured) {
  // First run: 12 measurements; then a "resumed" run with them as history and a budget of 20.
  CampaignOptions options;
  options.budget = 12;
  CampaignOutcome before;
  std::vector<std::string> first_keys;
  const auto history = FirstRun(0, options, &before, &first_keys);
  ASSERT_EQ(history.size(), 12u);

  ScriptedAgent resumed_agent(space_, shapes_);  // proposes the same sequence again from the start
  CountingEvaluator second(space_, 0);
  options.budget = 20;
  options.already_measured = 12;
  auto outcome = RunCampaign(space_, shapes_, resumed_agent, second, sink_, history, options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(resumed_agent.observed, 12u + 8u);  // history replayed, then 8 new
  EXPECT_EQ(second.evaluated, 8u);
  EXPECT_EQ(outcome->measured_total, 20u);
  for (const auto& key : second.keys)
    EXPECT_EQ(std::count(first_keys.begin(), first_keys.end(), key), 0) << key << " measured again";
}

TEST_F(CampaignTest, StopsOnRequestAfterTheBatchInFlight) {
  ScriptedAgent agent(space_, shapes_);
  CountingEvaluator evaluator(space_, 0);
  std::atomic<bool> stop{false};
  CampaignOptions options;
  options.budget = 100;
  options.batch = 4;
  options.stop = &stop;
  options.on_progress = [&](const CampaignProgress& p) {
    if (p.measured >= 8) stop = true;
  };
  auto outcome = RunCampaign(space_, shapes_, agent, evaluator, sink_, {}, options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->end, CampaignEnd::kStopped);
  EXPECT_EQ(outcome->measured_now, 8u);
  EXPECT_EQ(sunk_, 8u);
}

TEST_F(CampaignTest, CapsConsecutiveFailures) {
  ScriptedAgent agent(space_, shapes_);
  CountingEvaluator evaluator(space_, 1);  // everything fails
  CampaignOptions options;
  options.budget = 100;
  options.batch = 4;
  options.max_consecutive_failures = 10;
  auto outcome = RunCampaign(space_, shapes_, agent, evaluator, sink_, {}, options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->end, CampaignEnd::kFailureCap);
  EXPECT_EQ(outcome->measured_now, 12u);  // the batch that crossed the cap is complete: refusals count there
  EXPECT_EQ(outcome->refused_now, 12u);
  EXPECT_EQ(outcome->measured_total, 0u);
  EXPECT_FALSE(outcome->shapes[0].found);
}

// A refusal (kUnsupported) is stored and observed but not charged: the budget buys that many configs that ran.
TEST_F(CampaignTest, RefusalsAreStoredAndObservedButNotCharged) {
  ScriptedAgent agent(space_, shapes_);
  CountingEvaluator evaluator(space_, 3);  // ids 0, 3, 6, ... refused
  CampaignOptions options;
  options.budget = 20;
  options.batch = 4;
  std::vector<CampaignProgress> progress;
  options.on_progress = [&](const CampaignProgress& p) { progress.push_back(p); };
  auto outcome = RunCampaign(space_, shapes_, agent, evaluator, sink_, {}, options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->end, CampaignEnd::kBudget);
  EXPECT_EQ(outcome->measured_total, 20u);
  EXPECT_GT(outcome->refused_now, 0u);
  EXPECT_EQ(outcome->measured_now, outcome->measured_total + outcome->refused_now);
  EXPECT_EQ(sunk_, outcome->measured_now);  // every refusal stored
  EXPECT_EQ(agent.observed, outcome->measured_now);
  size_t ran = 0;
  for (const auto& key : evaluator.keys) {
    auto config = space_.Parse(key.substr(key.find('|') + 1));
    ASSERT_TRUE(config.ok()) << key;
    ran += space_.ToId(*config) % 3 != 0;
  }
  EXPECT_EQ(ran, 20u);
  EXPECT_EQ(progress.back().measured, 20u);
}

// Resumed with its refusals in the history, a campaign is charged only for what ran before (already_measured).
TEST_F(CampaignTest, AResumeIsChargedForWhatRanNotForRefusals) {
  CampaignOptions options;
  options.budget = 8;
  options.batch = 4;
  CampaignOutcome before;
  std::vector<std::string> first_keys;
  const auto history = FirstRun(3, options, &before, &first_keys);
  ASSERT_GT(before.refused_now, 0u);
  ScriptedAgent resumed_agent(space_, shapes_);
  CountingEvaluator second(space_, 3);
  options.budget = 16;
  options.batch = 8;  // the resumed agent proposes the stored candidates again first: they are dropped
  options.already_measured = before.measured_total;
  auto outcome = RunCampaign(space_, shapes_, resumed_agent, second, sink_, history, options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->measured_total, 16u);
  EXPECT_EQ(second.evaluated - outcome->refused_now, 8u);
}

TEST_F(CampaignTest, EndsWhenTheAgentRunsDryAndWhenTheSinkFails) {
  ScriptedAgent agent(space_, {shapes_[0]});
  CountingEvaluator evaluator(space_, 0);
  CampaignOptions options;
  options.budget = 1000;
  auto outcome = RunCampaign(space_, {shapes_[0]}, agent, evaluator, sink_, {}, options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->end, CampaignEnd::kExhausted);
  EXPECT_EQ(outcome->measured_now, space_.Size(KnobScope::kPlan));

  ScriptedAgent agent2(space_, shapes_);
  ResultSink broken = [](const std::vector<Candidate>&, const std::vector<Evaluation>&) {
    return Status::Internal("disk full");
  };
  auto failed = RunCampaign(space_, shapes_, agent2, evaluator, broken, {}, options);
  EXPECT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("disk full"), std::string::npos);
}

// Measurements an evaluator makes unasked (the backend's anchors) are recorded as measured: the agent observes
// each once, and a later proposal of the same (dims, config) is dropped rather than measured.
TEST_F(CampaignTest, SideMeasurementsAreObservedOnceAndNeverMeasuredAgain) {
  class AnchoringEvaluator : public CountingEvaluator {
   public:
    AnchoringEvaluator(const SearchSpace& space, Config anchor) : CountingEvaluator(space, 0), anchor_(anchor) {}
    std::vector<Evaluation> Evaluate(const std::vector<Candidate>& candidates) override {
      last_dims_.clear();
      for (const auto& c : candidates)
        if (std::find(last_dims_.begin(), last_dims_.end(), c.dims) == last_dims_.end()) last_dims_.push_back(c.dims);
      return CountingEvaluator::Evaluate(candidates);
    }
    std::vector<std::pair<Candidate, Evaluation>> SideMeasurements() const override {
      std::vector<std::pair<Candidate, Evaluation>> out;
      Evaluation e;
      e.status = EvalStatus::kOk;
      e.speedup = 1;
      for (const auto& dims : last_dims_) out.push_back({Candidate{dims, anchor_}, e});
      return out;
    }

   private:
    Config anchor_;
    std::vector<Dims> last_dims_;
  };
  const Config anchor = space_.NthConfig(5);  // the scripted agent proposes it at both shapes in its 3rd batch
  ScriptedAgent agent(space_, shapes_);
  AnchoringEvaluator evaluator(space_, anchor);
  CampaignOptions options;
  options.budget = 20;
  options.batch = 4;
  auto outcome = RunCampaign(space_, shapes_, agent, evaluator, sink_, {}, options);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->measured_now, 20u);
  EXPECT_EQ(outcome->duplicates_dropped, 2u);
  EXPECT_EQ(agent.observed, 20u + 2u);  // every measurement, and each shape's side measurement once
  for (const auto& dims : shapes_) {
    std::string key = CandidateKey(space_, {dims, anchor});
    EXPECT_EQ(std::count(evaluator.keys.begin(), evaluator.keys.end(), key), 0) << key << " measured again";
  }
  // A side measurement counts like any other result: the anchor (speedup 1) is each shape's best when every
  // config measured there is slower.
  for (const auto& shape : outcome->shapes) {
    EXPECT_EQ(shape.measurements, 10u + 1u);
    EXPECT_EQ(shape.ok, 10u + 1u);
  }
}

TEST_F(CampaignTest, ASideMeasurementCanBeAShapesBest) {
  class SlowerThanTheAnchor : public CountingEvaluator {
   public:
    SlowerThanTheAnchor(const SearchSpace& space, Config anchor) : CountingEvaluator(space, 0), anchor_(anchor) {}
    std::vector<Evaluation> Evaluate(const std::vector<Candidate>& candidates) override {
      dims_ = candidates.front().dims;
      std::vector<Evaluation> out = CountingEvaluator::Evaluate(candidates);
      for (auto& e : out) e.speedup = 0.5;  // everything proposed is twice as slow as the anchor
      return out;
    }
    std::vector<std::pair<Candidate, Evaluation>> SideMeasurements() const override {
      Evaluation e;
      e.status = EvalStatus::kOk;
      e.speedup = 1;
      return {{Candidate{dims_, anchor_}, e}};
    }

   private:
    Config anchor_;
    Dims dims_;
  };
  const Config anchor = space_.NthConfig(100);  // never reached by the scripted agent within the budget
  ScriptedAgent agent(space_, {shapes_[0]});
  SlowerThanTheAnchor evaluator(space_, anchor);
  CampaignOptions options;
  options.budget = 6;
  auto outcome = RunCampaign(space_, {shapes_[0]}, agent, evaluator, sink_, {}, options);
  ASSERT_TRUE(outcome.ok());
  ASSERT_TRUE(outcome->shapes[0].found);
  EXPECT_EQ(outcome->shapes[0].best, anchor);
  EXPECT_DOUBLE_EQ(outcome->shapes[0].best_evaluation.speedup, 1.0);
}

TEST_F(CampaignTest, RefusesABatchSizeOfZero) {
  ScriptedAgent agent(space_, shapes_);
  CountingEvaluator evaluator(space_, 0);
  CampaignOptions options;
  options.batch = 0;
  auto outcome = RunCampaign(space_, shapes_, agent, evaluator, sink_, {{Candidate{shapes_[0], space_.Default()}, {}}},
                             options);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(outcome.status().message().find("batch"), std::string::npos);
  EXPECT_EQ(evaluator.evaluated, 0u);
}

}  // namespace
}  // namespace crmap
