#include "agents/evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustConfig;
using testing::MustLoad;
using testing::MustSpace;

TEST(EvaluatorTest, StatusNamesRoundTrip) {
  const EvalStatus all[] = {EvalStatus::kOk,         EvalStatus::kUnsupported, EvalStatus::kWrongAnswer,
                            EvalStatus::kOverMemory, EvalStatus::kTimeout,     EvalStatus::kError};
  std::set<std::string> names;
  for (EvalStatus status : all) {
    names.insert(EvalStatusName(status));
    EXPECT_EQ(EvalStatusFromName(EvalStatusName(status)), status) << EvalStatusName(status);
  }
  EXPECT_EQ(names.size(), 6u);  // distinct
  EXPECT_STREQ(EvalStatusName(EvalStatus::kOk), "ok");
  EXPECT_STREQ(EvalStatusName(EvalStatus::kWrongAnswer), "wrong_answer");
  EXPECT_STREQ(EvalStatusName(EvalStatus::kOverMemory), "over_memory");
}

TEST(EvaluatorTest, UnknownStatusNameIsError) {
  EXPECT_EQ(EvalStatusFromName("fast"), EvalStatus::kError);
  EXPECT_EQ(EvalStatusFromName(""), EvalStatus::kError);
  EXPECT_EQ(EvalStatusFromName("OK"), EvalStatus::kError);  // names are lowercase
}

TEST(EvaluatorTest, OkOnlyWhenStatusOk) {
  Evaluation evaluation;
  EXPECT_FALSE(evaluation.ok());  // the default status is an error
  evaluation.status = EvalStatus::kOk;
  EXPECT_TRUE(evaluation.ok());
}

TEST(EvaluatorTest, RewardIsLogSpeedup) {
  Evaluation evaluation;
  evaluation.status = EvalStatus::kOk;
  evaluation.speedup = 2.0;
  EXPECT_DOUBLE_EQ(Reward(evaluation), std::log(2.0));
  evaluation.speedup = 1.0;
  EXPECT_DOUBLE_EQ(Reward(evaluation), 0.0);
  evaluation.speedup = 0.5;
  EXPECT_DOUBLE_EQ(Reward(evaluation), std::log(0.5));
}

TEST(EvaluatorTest, FailuresGetTheFixedPenalty) {
  EXPECT_DOUBLE_EQ(kFailureReward, std::log(0.25));
  Evaluation evaluation;
  evaluation.speedup = 3.0;  // ignored when the status is not ok
  for (EvalStatus status : {EvalStatus::kUnsupported, EvalStatus::kWrongAnswer, EvalStatus::kOverMemory,
                            EvalStatus::kTimeout, EvalStatus::kError}) {
    evaluation.status = status;
    EXPECT_EQ(Reward(evaluation), kFailureReward) << EvalStatusName(status);
  }
  evaluation.status = EvalStatus::kOk;
  evaluation.speedup = 0;  // ok without a speedup: no log(0)
  EXPECT_EQ(Reward(evaluation), kFailureReward);
  evaluation.speedup = -1;
  EXPECT_EQ(Reward(evaluation), kFailureReward);
}

TEST(EvaluatorTest, CandidateKeyNamesDimsAndConfig) {
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload);
  Config packed = MustConfig(space, "weights=packed");
  Candidate candidate{Dims{{"tokens", 128}}, packed};
  EXPECT_EQ(CandidateKey(space, candidate), "tokens=128|" + space.ToString(packed));
}

TEST(EvaluatorTest, CandidateKeyDistinguishesDimsAndConfigs) {
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload);
  std::set<std::string> keys;
  std::vector<Config> configs = space.Enumerate(KnobScope::kPlan);
  for (int64_t tokens : {1, 128})
    for (const Config& config : configs) keys.insert(CandidateKey(space, {Dims{{"tokens", tokens}}, config}));
  EXPECT_EQ(keys.size(), 2 * configs.size());
  // Equal candidates, equal keys.
  Candidate a{Dims{{"tokens", 8}}, space.Default()};
  Candidate b{Dims{{"tokens", 8}}, space.Default()};
  EXPECT_TRUE(a == b);
  EXPECT_EQ(CandidateKey(space, a), CandidateKey(space, b));
  b.dims["tokens"] = 9;
  EXPECT_FALSE(a == b);
}

}  // namespace
}  // namespace crmap
