#include "backend/measurer.h"

#include <gtest/gtest.h>

namespace crmap {
namespace {

// A clock that only moves when a fake candidate runs.
class FakeClock : public Clock {
 public:
  int64_t NowNanos() override { return now_; }
  void Advance(int64_t nanos) { now_ += nanos; }

 private:
  int64_t now_ = 0;
};

class FakeRunnable : public Runnable {
 public:
  FakeRunnable(FakeClock* clock, std::vector<int64_t> latencies_us, int id, std::vector<int>* log)
      : clock_(clock), latencies_(std::move(latencies_us)), id_(id), log_(log) {}
  void Prepare() override { ++prepared_; }
  Status RunOnce() override {
    log_->push_back(id_);
    if (fail_at_ >= 0 && calls_ == fail_at_) return Status::Internal("boom");
    clock_->Advance(latencies_[static_cast<size_t>(calls_++) % latencies_.size()] * 1000);
    return Status::Ok();
  }
  int fail_at_ = -1;
  int prepared_ = 0;

 private:
  FakeClock* clock_;
  std::vector<int64_t> latencies_;
  int id_;
  std::vector<int>* log_;
  int calls_ = 0;
};

TEST(MeasurerTest, InterleavesRoundsWithRotatedStart) {
  FakeClock clock;
  std::vector<int> log;
  FakeRunnable a(&clock, {100}, 0, &log), b(&clock, {200}, 1, &log), c(&clock, {50}, 2, &log);
  MeasureOptions options;
  options.warmup = 1;
  options.rounds = 3;
  options.clock = &clock;
  MeasureInterleaved({&a, &b, &c}, options);
  EXPECT_EQ(log, (std::vector<int>{0, 1, 2, /* rounds: */ 0, 1, 2, 1, 2, 0, 2, 0, 1}));
  EXPECT_EQ(a.prepared_, 4);  // before every run, warm-up included
}

TEST(MeasurerTest, StatisticsAndRatiosToTheAnchor) {
  FakeClock clock;
  std::vector<int> log;
  FakeRunnable anchor(&clock, {100, 100, 100, 200}, 0, &log);
  FakeRunnable half(&clock, {50, 50, 50, 100}, 1, &log);
  MeasureOptions options;
  options.warmup = 0;
  options.rounds = 4;
  options.clock = &clock;
  auto outcomes = MeasureInterleaved({&anchor, &half}, options);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].latency.rounds, 4);
  EXPECT_DOUBLE_EQ(outcomes[0].latency.min_us, 100);
  EXPECT_DOUBLE_EQ(outcomes[0].latency.median_us, 100);
  EXPECT_DOUBLE_EQ(outcomes[0].latency.mean_us, 125);
  // The machine slowed both down in round 4: the ratio did not move.
  EXPECT_DOUBLE_EQ(outcomes[1].ratio_to_anchor.median, 0.5);
  EXPECT_DOUBLE_EQ(outcomes[1].ratio_to_anchor.p10, 0.5);
  EXPECT_DOUBLE_EQ(outcomes[1].ratio_to_anchor.p90, 0.5);
  EXPECT_DOUBLE_EQ(outcomes[0].ratio_to_anchor.median, 1.0);
}

TEST(MeasurerTest, TimeoutAndFailureDropACandidateButNotTheOthers) {
  FakeClock clock;
  std::vector<int> log;
  FakeRunnable ok(&clock, {10}, 0, &log), slow(&clock, {5000}, 1, &log), broken(&clock, {10}, 2, &log);
  broken.fail_at_ = 2;
  MeasureOptions options;
  options.warmup = 1;
  options.rounds = 5;
  options.timeout_ms = 1;
  options.clock = &clock;
  auto outcomes = MeasureInterleaved({&ok, &slow, &broken}, options);
  EXPECT_TRUE(outcomes[0].status.ok());
  EXPECT_EQ(outcomes[0].latency.rounds, 5);
  EXPECT_TRUE(outcomes[1].timed_out);
  EXPECT_EQ(outcomes[1].latency.rounds, 0);
  EXPECT_FALSE(outcomes[2].status.ok());
  EXPECT_EQ(outcomes[2].latency.rounds, 1);  // warm-up, one timed round, then the failure
  int slow_runs = 0;
  for (int id : log) slow_runs += id == 1;
  EXPECT_EQ(slow_runs, 1);  // never run again after timing out
}

TEST(MeasurerTest, RealClockMeasuresSomething) {
  SteadyClock clock;
  int64_t a = clock.NowNanos();
  int64_t b = clock.NowNanos();
  EXPECT_GE(b, a);
}

}  // namespace
}  // namespace crmap
