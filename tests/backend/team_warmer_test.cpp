#include "backend/team_warmer.h"

#include <atomic>
#include <limits>
#include <thread>

#include <gtest/gtest.h>
#include <omp.h>

namespace crmap {
namespace {

TEST(TeamWarmerTest, SpinsAsATeamUntilToldAndPollsOnlyFromTheCaller) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> polls{0}, foreign{0};
  const double cpu_us = KeepTeamWarm(2, std::numeric_limits<double>::infinity(), [&] {
    if (std::this_thread::get_id() != caller) ++foreign;
    return ++polls >= 1000;
  });
  EXPECT_EQ(polls.load(), 1000);  // ended by the predicate, not before
  EXPECT_EQ(foreign.load(), 0);
  EXPECT_GT(cpu_us, 0);
}

TEST(TeamWarmerTest, AFiniteBudgetEndsTheSpinWithoutTheStop) {
  int polls = 0;
  EXPECT_GT(KeepTeamWarm(2, 500, [&] { ++polls; return false; }), 0);
  EXPECT_GT(polls, 0);
}

TEST(TeamWarmerTest, NothingToKeepWarmForOneThreadOrNoBudget) {
  int polls = 0;
  auto never = [&] { ++polls; return false; };
  EXPECT_EQ(KeepTeamWarm(1, 1e6, never), 0);
  EXPECT_EQ(KeepTeamWarm(2, 0, never), 0);
  EXPECT_EQ(polls, 0);
}

}  // namespace
}  // namespace crmap
