#include "common/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace crmap {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kOk);
  EXPECT_EQ(status.message(), "");
  EXPECT_EQ(status.ToString(), "ok");
  EXPECT_TRUE(Status::Ok().ok());
}

TEST(StatusTest, FactoriesSetCodeAndMessage) {
  struct Case {
    Status status;
    StatusCode code;
    std::string prefix;
  };
  const std::vector<Case> cases = {
      {Status::InvalidArgument("m"), StatusCode::kInvalidArgument, "invalid argument"},
      {Status::NotFound("m"), StatusCode::kNotFound, "not found"},
      {Status::Corruption("m"), StatusCode::kCorruption, "corruption"},
      {Status::Unsupported("m"), StatusCode::kUnsupported, "unsupported"},
      {Status::ResourceExhausted("m"), StatusCode::kResourceExhausted, "resource exhausted"},
      {Status::Internal("m"), StatusCode::kInternal, "internal error"},
  };
  for (const auto& c : cases) {
    EXPECT_FALSE(c.status.ok()) << c.prefix;
    EXPECT_EQ(c.status.code(), c.code) << c.prefix;
    EXPECT_EQ(c.status.message(), "m") << c.prefix;
    EXPECT_EQ(c.status.ToString(), c.prefix + ": m");
    EXPECT_EQ(std::string(StatusCodeName(c.code)), c.prefix);
  }
  EXPECT_EQ(std::string(StatusCodeName(StatusCode::kOk)), "ok");
}

TEST(StatusTest, WithContextPrefixesTheMessageAndKeepsTheCode) {
  Status status = Status::NotFound("no such file").WithContext("workload.json");
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "workload.json: no such file");
  // Contexts nest outermost-first.
  EXPECT_EQ(status.WithContext("load").message(), "load: workload.json: no such file");
}

TEST(StatusTest, WithContextLeavesOkUnchanged) {
  Status status = Status::Ok().WithContext("ignored");
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.message(), "");
}

TEST(ResultTest, HoldsAValue) {
  Result<int> result(42);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result.status().ok());
  EXPECT_EQ(result.value(), 42);
  EXPECT_EQ(*result, 42);
  *result = 7;
  EXPECT_EQ(result.value(), 7);
}

TEST(ResultTest, ArrowReachesMembers) {
  Result<std::string> result(std::string("abc"));
  EXPECT_EQ(result->size(), 3u);
  const Result<std::string>& constant = result;
  EXPECT_EQ(constant->front(), 'a');
}

TEST(ResultTest, HoldsAnError) {
  Result<int> result(Status::InvalidArgument("bad"));
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), "bad");
}

TEST(ResultTest, OkStatusWithoutAValueBecomesInternalError) {
  Result<int> result(Status::Ok());
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInternal);
}

TEST(ResultTest, MoveOnlyValueMovesOut) {
  Result<std::unique_ptr<int>> result(std::make_unique<int>(5));
  std::unique_ptr<int> taken = std::move(result).value();
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(*taken, 5);
}

TEST(ResultDeathTest, ValueOfAnErrorAborts) {
  Result<int> result(Status::NotFound("missing thing"));
  EXPECT_DEATH((void)result.value(), "missing thing");
}

// Helpers exercising the macros the way library code uses them.
Status FailIf(bool fail) { return fail ? Status::InvalidArgument("inner failure") : Status::Ok(); }

Status ReturnIfError(bool fail, int* reached) {
  CRMAP_RETURN_IF_ERROR(FailIf(fail));
  ++*reached;
  return Status::Ok();
}

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x, int* reached) {
  CRMAP_ASSIGN_OR_RETURN(int half, Half(x));
  ++*reached;
  CRMAP_ASSIGN_OR_RETURN(int quarter, Half(half));  // two uses in one function must not collide
  ++*reached;
  return quarter;
}

Status AssignIntoExisting(int x, int* out) {
  CRMAP_ASSIGN_OR_RETURN(*out, Half(x));
  return Status::Ok();
}

Result<std::unique_ptr<int>> MakeBox(bool fail) {
  if (fail) return Status::NotFound("no box");
  return std::make_unique<int>(9);
}

Result<int> Unbox(bool fail) {
  CRMAP_ASSIGN_OR_RETURN(std::unique_ptr<int> box, MakeBox(fail));
  return *box;
}

TEST(StatusMacrosTest, ReturnIfErrorContinuesOnOk) {
  int reached = 0;
  EXPECT_TRUE(ReturnIfError(false, &reached).ok());
  EXPECT_EQ(reached, 1);
}

TEST(StatusMacrosTest, ReturnIfErrorReturnsTheErrorUnchanged) {
  int reached = 0;
  Status status = ReturnIfError(true, &reached);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "inner failure");
  EXPECT_EQ(reached, 0);
}

TEST(StatusMacrosTest, AssignOrReturnAssignsOnSuccess) {
  int reached = 0;
  Result<int> result = Quarter(12, &reached);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, 3);
  EXPECT_EQ(reached, 2);

  int out = -1;
  EXPECT_TRUE(AssignIntoExisting(8, &out).ok());
  EXPECT_EQ(out, 4);
}

TEST(StatusMacrosTest, AssignOrReturnStopsAtTheFirstError) {
  int reached = 0;
  Result<int> first = Quarter(7, &reached);
  EXPECT_FALSE(first.ok());
  EXPECT_EQ(first.status().message(), "odd: 7");
  EXPECT_EQ(reached, 0);

  reached = 0;
  Result<int> second = Quarter(6, &reached);  // 6 -> 3 -> odd
  EXPECT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(), "odd: 3");
  EXPECT_EQ(reached, 1);

  int out = -1;
  EXPECT_FALSE(AssignIntoExisting(5, &out).ok());
  EXPECT_EQ(out, -1);  // the output is untouched on failure
}

TEST(StatusMacrosTest, AssignOrReturnWorksWithMoveOnlyValues) {
  Result<int> ok = Unbox(false);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 9);
  Result<int> failed = Unbox(true);
  EXPECT_EQ(failed.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace crmap
