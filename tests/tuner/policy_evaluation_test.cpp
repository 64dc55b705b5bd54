#include "tuner/policy_evaluation.h"

#include <gtest/gtest.h>

#include "tests/runtime/hook/policy_test_support.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

// A policy skeleton of dlrm_mlp tuned at batch 2 and 64 (only the table matters here).
PolicyFile TunedAt(std::vector<int64_t> batches) {
  PolicyFile file;
  file.workload = "dlrm_mlp";
  file.dims = {{"batch", 1, 2048}};
  file.knobs = {{"threads", true, {"1", "2"}, 1}};
  for (int64_t b : batches) file.table.push_back(TableEntry{{b}, {0}, 1, 1, 1});
  return file;
}

TEST(PolicyEvaluationTest, HeldOutShapesSkipTunedOnesAndListedShapesAllCount) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  EvaluationRequest request;
  request.shapes = "batch=2;batch=3;batch=64;batch=100";
  auto shapes = HeldOutShapes(request, workload, TunedAt({2, 64}));
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  EXPECT_EQ(*shapes, (std::vector<Dims>{{{"batch", 3}}, {{"batch", 100}}}));
  request.held_out = 1;
  request.held_out_given = true;  // --held-out caps the list
  EXPECT_EQ(HeldOutShapes(request, workload, TunedAt({2, 64}))->size(), 1u);
  request.shapes = "batch=2;batch=64";
  auto none = HeldOutShapes(request, workload, TunedAt({2, 64}));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no shape the policy was not tuned on"), std::string::npos);
  request.held_out = 0;
  EXPECT_EQ(HeldOutShapes(request, workload, TunedAt({2})).status().code(), StatusCode::kInvalidArgument);
}

TEST(PolicyEvaluationTest, DrawnShapesAreDeterministicForASeedAndNeverTuned) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  EvaluationRequest request;
  request.shapes = "dlrm_mlp_online";
  request.held_out = 5;
  request.seed = 7;
  auto a = HeldOutShapes(request, workload, TunedAt({1, 2, 4, 8}));
  auto b = HeldOutShapes(request, workload, TunedAt({1, 2, 4, 8}));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(a->size(), 5u);
  for (const Dims& dims : *a) {
    const int64_t batch = dims.at("batch");
    EXPECT_TRUE(batch != 1 && batch != 2 && batch != 4 && batch != 8) << batch;
  }
}

TEST(PolicyEvaluationTest, TheNearestTunedShapeIsNearestInLogSpace) {
  PolicyFile file = TunedAt({2, 64});
  EXPECT_EQ(NearestTunedShape(file, {8}), 0u);   // log2 8 = 3: 2 from log2 2, 3 from log2 64
  EXPECT_EQ(NearestTunedShape(file, {16}), 1u);  // log2 16 = 4: 3 from log2 2, 2 from log2 64
  EXPECT_EQ(NearestTunedShape(file, {1}), 0u);
}

TEST(PolicyEvaluationTest, AMissingPolicyOrOneWithoutTunedShapesIsRefusedBeforeAnythingIsMeasured) {
  EvaluationRequest request;
  request.policy_path = "/nonexistent/p.policy";
  request.shapes = "batch=3";
  EXPECT_EQ(EvaluatePolicy(request).status().code(), StatusCode::kNotFound);
  PolicyFile empty = testing::MakeSyntheticPolicy();
  empty.table.clear();
  request.policy_path = testing::WriteTestPolicy("evaluate_empty_table.policy", empty);
  auto refused = EvaluatePolicy(request);
  ASSERT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("has no tuned shapes"), std::string::npos) << refused.status().message();
}

}  // namespace
}  // namespace crmap
