#include "backend/torch_executor.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap {
namespace {

TEST(TorchExecutorTest, BuildsAModelPerBucketOnceAndRunsIt) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  SearchSpace space = testing::MustSpace(workload);
  TorchExecutor executor(workload, space, 2, /*max_models=*/2);
  EXPECT_EQ(executor.name(), "libtorch");
  serve::Execution first = executor.Run({{"batch", 5}}, "ignored");
  ASSERT_TRUE(first.status.ok()) << first.status.ToString();
  EXPECT_EQ(first.config_run, "libtorch");
  EXPECT_GT(first.compile_wait_us, 0);  // the model was built for this batch
  serve::Execution again = executor.Run({{"batch", 6}}, "");  // the same bucket (6)
  ASSERT_TRUE(again.status.ok());
  EXPECT_EQ(again.compile_wait_us, 0);
  EXPECT_EQ(executor.models(), 1u);
  ASSERT_TRUE(executor.Run({{"batch", 1}}, "").status.ok());
  ASSERT_TRUE(executor.Run({{"batch", 100}}, "").status.ok());
  EXPECT_EQ(executor.models(), 2u);  // at most max_models kept
}

}  // namespace
}  // namespace crmap
