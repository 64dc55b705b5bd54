#include "backend/plan.h"

#include <cstring>

#include <gtest/gtest.h>

#include "backend/plan_compiler.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

TEST(PlanTest, InputsOutputsAndRepeatedExecution) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  SearchSpace space = testing::MustSpace(workload);
  auto plan = CompilePlan(workload, space, {{"batch", 3}}, space.Default());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->Input("nope"), nullptr);
  EXPECT_EQ(plan->ReadOutput("nope").status().code(), StatusCode::kNotFound);
  ASSERT_EQ(plan->output_names(), std::vector<std::string>{"prob"});

  ASSERT_TRUE(plan->Execute().ok());
  HostTensor first = plan->ReadOutput("prob").value();
  ASSERT_EQ(first.shape, (Shape{3, 1}));
  ASSERT_TRUE(plan->Execute().ok());
  EXPECT_EQ(plan->ReadOutput("prob")->values, first.values);  // deterministic

  dnnl::memory* input = plan->Input("features");
  ASSERT_NE(input, nullptr);
  std::memset(input->get_data_handle(), 0, 3 * 512 * sizeof(float));
  ASSERT_TRUE(plan->Execute().ok());
  HostTensor zeros = plan->ReadOutput("prob").value();
  EXPECT_NE(zeros.values, first.values);
  EXPECT_EQ(zeros.values[0], zeros.values[1]);  // same input row, same output
}

}  // namespace
}  // namespace crmap
