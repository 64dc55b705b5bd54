#include "backend/session.h"

#include <gtest/gtest.h>

#include "backend/host.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustConfig;
using testing::MustLoad;
using testing::MustParse;
using testing::MustSpace;

SessionOptions Quick() {
  SessionOptions options;
  options.measure.warmup = 1;
  options.measure.rounds = 3;
  options.measure.cold_samples = 1;
  return options;
}

TEST(SessionTest, ComparesValidatesAndAnchorsOnTheFirstConfig) {
  Workload workload = MustLoad("dlrm_mlp");
  SearchSpace space = MustSpace(workload);
  MeasurementSession session(workload, space, {{"batch", 2}});
  SessionOptions options = Quick();
  options.baselines = {PeerBaseline{}, PeerBaseline{TorchPath::kMkldnn, ""}};
  std::vector<std::string> stages;
  options.on_progress = [&](const std::string& stage, int, int) { stages.push_back(stage); };
  auto results = session.Compare({space.Default(), MustConfig(space, "threads=1;weights=packed"),
                                  MustConfig(space, "precision=bf16")},
                                 options);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].status, CandidateStatus::kOk) << results[0].message;
  EXPECT_EQ(results[1].status, CandidateStatus::kOk) << results[1].message;
  EXPECT_EQ(results[2].status, DetectHost().has_bf16 ? CandidateStatus::kOk : CandidateStatus::kUnsupported);
  for (size_t peer : {3, 4}) {  // eager and the oneDNN path, each validated like a plan
    EXPECT_TRUE(results[peer].is_baseline);
    EXPECT_EQ(results[peer].status, CandidateStatus::kOk) << results[peer].message;
    EXPECT_TRUE(results[peer].validated);
    EXPECT_LE(results[peer].error.scaled, workload.accuracy_budget().f32);
  }
  EXPECT_EQ(results[3].label, "libtorch");
  EXPECT_EQ(results[4].label, "libtorch[mkldnn]");
  EXPECT_EQ(results[0].cold_latency.rounds, 1);
  EXPECT_EQ(results[0].latency.rounds, 3);
  EXPECT_DOUBLE_EQ(results[0].ratio_to_anchor.median, 1.0);
  EXPECT_EQ(results[1].anchor_label, results[0].label);
  EXPECT_GT(results[1].ratio_to_anchor.median, 0);
  // Tail objectives compare the two tails of the same rounds; the median objective the per-round ratios.
  EXPECT_DOUBLE_EQ(results[1].p95_ratio_to_anchor, results[1].latency.p95_us / results[0].latency.p95_us);
  EXPECT_DOUBLE_EQ(RatioToAnchor(results[1], Objective::kP99), results[1].latency.p99_us / results[0].latency.p99_us);
  EXPECT_DOUBLE_EQ(RatioToAnchor(results[1], Objective::kP95), results[1].p95_ratio_to_anchor);
  EXPECT_DOUBLE_EQ(RatioToAnchor(results[1], Objective::kMedian), results[1].ratio_to_anchor.median);
  EXPECT_DOUBLE_EQ(results[0].p95_ratio_to_anchor, 1.0);
  EXPECT_DOUBLE_EQ(RatioToAnchor(results[3], Objective::kP99), results[3].latency.p99_us / results[0].latency.p99_us)
      << "a peer's tail ratio, by the same rule";
  EXPECT_LE(results[0].error.scaled, workload.accuracy_budget().f32);
  EXPECT_DOUBLE_EQ(results[0].accuracy_budget, workload.accuracy_budget().f32);
  if (results[2].status == CandidateStatus::kOk) {
    EXPECT_DOUBLE_EQ(results[2].accuracy_budget, workload.accuracy_budget().bf16);
  }
  EXPECT_GT(results[0].plan.peak_bytes, 0);
  EXPECT_FALSE(results[0].plan.kernels.empty());
  EXPECT_NE(std::find(stages.begin(), stages.end(), "measure"), stages.end());
}

TEST(SessionTest, FailuresAreTypedResults) {
  Workload workload = MustLoad("dlrm_mlp");
  SearchSpace space = MustSpace(workload);
  MeasurementSession session(workload, space, {{"batch", 2}});
  SessionOptions broken = Quick();
  broken.compile.fault = PlanFault::kSkipOp;
  auto wrong = session.Compare({space.Default()}, broken);
  ASSERT_EQ(wrong.size(), 1u);
  EXPECT_EQ(wrong[0].status, CandidateStatus::kWrongAnswer);
  EXPECT_NE(wrong[0].message.find("accuracy budget"), std::string::npos);
  EXPECT_EQ(wrong[0].latency.rounds, 0);  // never timed

  SessionOptions tiny = Quick();
  tiny.compile.memory_budget_bytes = 1000;
  auto over = session.Compare({space.Default()}, tiny);
  EXPECT_EQ(over[0].status, CandidateStatus::kOverMemory);

  SessionOptions slow = Quick();
  slow.measure.timeout_ms = 1e-6;
  auto timed_out = session.Compare({space.Default()}, slow);
  EXPECT_EQ(timed_out[0].status, CandidateStatus::kTimeout);
}

TEST(SessionTest, NoRatiosWhenTheAnchorFails) {
  Workload workload = MustLoad("dlrm_mlp");
  SearchSpace space = MustSpace(workload);
  MeasurementSession session(workload, space, {{"batch", 2}});
  Config broken = space.Default();
  broken.values.pop_back();
  auto results = session.Compare({broken, space.Default(), MustConfig(space, "threads=1")}, Quick());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, CandidateStatus::kError);
  EXPECT_EQ(results[1].status, CandidateStatus::kOk);
  EXPECT_GT(results[1].latency.rounds, 0);
  // The measurer's first runnable was #1, not the anchor: ratios to it would be mislabelled.
  EXPECT_EQ(results[1].ratio_to_anchor.rounds, 0);
  EXPECT_EQ(results[2].ratio_to_anchor.rounds, 0);
  EXPECT_TRUE(results[2].anchor_label.empty());
  for (Objective objective : {Objective::kMedian, Objective::kP95, Objective::kP99}) {
    EXPECT_EQ(RatioToAnchor(results[2], objective), 0) << ObjectiveName(objective);
    EXPECT_EQ(RatioToAnchor(results[0], objective), 0) << "a failed candidate has no ratio";
  }
}

TEST(SessionTest, ReferenceFollowsTheDataSeed) {
  Workload workload = MustLoad("dlrm_mlp");
  SearchSpace space = MustSpace(workload);
  MeasurementSession session(workload, space, {{"batch", 2}});
  SessionOptions first = Quick();
  SessionOptions second = Quick();
  second.compile.data_seed = 7;
  EXPECT_EQ(session.Compare({space.Default()}, first)[0].status, CandidateStatus::kOk);
  auto results = session.Compare({space.Default()}, second);
  EXPECT_EQ(results[0].status, CandidateStatus::kOk) << results[0].message;  // not validated against seed 0
  EXPECT_TRUE(results[0].validated);
  SessionOptions unvalidated = Quick();
  unvalidated.validate = false;
  EXPECT_FALSE(session.Compare({space.Default()}, unvalidated)[0].validated);
}

TEST(SessionTest, StopsAtTheFirstConfigOverBudgetWhenAsked) {
  Workload workload = MustLoad("dlrm_mlp");
  SearchSpace space = MustSpace(workload);
  MeasurementSession session(workload, space, {{"batch", 2}});
  SessionOptions options = Quick();
  options.compile.memory_budget_bytes = 1000;
  options.stop_on_over_memory = true;
  auto results = session.Compare({space.Default(), MustConfig(space, "threads=1")}, options);
  EXPECT_EQ(results[0].status, CandidateStatus::kOverMemory);
  EXPECT_EQ(results[1].latency.rounds, 0);
  EXPECT_TRUE(results[1].label.empty());  // never compiled
}

// 10^10 x 4 floats (160 GB) of input: refused as over the memory budget before the LibTorch model generates any
// tensor. Catching std::bad_alloc was the refusal before: with memory overcommit the allocation succeeds and the
// OOM killer ends the process; under AddressSanitizer (scripts/test_sanitized.sh) it aborted.
TEST(SessionTest, AReferenceOverTheMemoryBudgetIsRefusedBeforeAllocating) {
  Workload workload = MustParse(R"({"format": "crmap.workload/1", "name": "square",
    "dims": {"tokens": {"min": 1, "max": 100000, "typical": 8}},
    "inputs": [{"name": "x", "shape": ["tokens*tokens", 4]}],
    "ops": [{"name": "fc", "op": "linear", "inputs": ["x"], "out_features": 4}], "outputs": ["fc"]})");
  SearchSpace space = MustSpace(workload);
  MeasurementSession session(workload, space, {{"tokens", 100000}});
  auto reference = session.Reference();
  ASSERT_FALSE(reference.ok());
  EXPECT_EQ(reference.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(reference.status().message().find("needs at least 3200000000"), std::string::npos)
      << reference.status().message();

  SessionOptions options = Quick();
  options.baselines = {PeerBaseline{}, PeerBaseline{TorchPath::kMkldnn, ""}};
  auto validated = session.Compare({space.Default()}, options);
  ASSERT_EQ(validated.size(), 1u);  // no reference: nothing measured, the peers included
  EXPECT_EQ(validated[0].status, CandidateStatus::kOverMemory) << validated[0].message;
  options.validate = false;  // the peers alone: eager and the oneDNN path, each refused before allocating
  auto peers = session.Compare({space.Default()}, options);
  ASSERT_EQ(peers.size(), 3u);
  for (const auto& r : peers) EXPECT_EQ(r.status, CandidateStatus::kOverMemory) << r.label << ": " << r.message;

  // A plan budget set low on purpose refuses plans, not the reference (the workload's budget still holds).
  Workload dlrm = MustLoad("dlrm_mlp");
  SearchSpace dlrm_space = MustSpace(dlrm);
  MeasurementSession small(dlrm, dlrm_space, {{"batch", 2}});
  EXPECT_TRUE(small.Reference(0, 1000).ok());
}

TEST(SessionTest, APeerThatCannotStartIsAnErrorRowAndTheRestIsMeasured) {
  Workload workload = MustLoad("dlrm_mlp");
  SearchSpace space = MustSpace(workload);
  MeasurementSession session(workload, space, {{"batch", 2}});
  SessionOptions options = Quick();
  options.baselines = {PeerBaseline{TorchPath::kEager, "Haswell"}};
  options.peer_executable = "/nonexistent/crmap";
  auto results = session.Compare({space.Default()}, options);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, CandidateStatus::kOk) << results[0].message;
  EXPECT_EQ(results[1].label, "libtorch[openblas=Haswell]");
  EXPECT_EQ(results[1].status, CandidateStatus::kError);
  EXPECT_NE(results[1].message.find("/nonexistent/crmap"), std::string::npos) << results[1].message;
}

TEST(SessionTest, StatusNames) {
  EXPECT_STREQ(CandidateStatusName(CandidateStatus::kOk), "ok");
  EXPECT_STREQ(CandidateStatusName(CandidateStatus::kWrongAnswer), "wrong_answer");
  EXPECT_STREQ(CandidateStatusName(CandidateStatus::kOverMemory), "over_memory");
  EXPECT_STREQ(CandidateStatusName(CandidateStatus::kUnsupported), "unsupported");
  EXPECT_STREQ(CandidateStatusName(CandidateStatus::kTimeout), "timeout");
  EXPECT_STREQ(CandidateStatusName(CandidateStatus::kError), "error");
}

}  // namespace
}  // namespace crmap
