#include "backend/hang_watchdog.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

namespace crmap {
namespace {

// A flag one thread raises and another waits for (a minute at most, so a broken watchdog fails the test
// instead of hanging it; no assertion depends on how fast it fires).
class Latch {
 public:
  void Raise() {
    std::lock_guard<std::mutex> lock(mutex_);
    raised_ = true;
    changed_.notify_all();
  }
  bool Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::minutes(1), [this] { return raised_; });
  }
  bool raised() {
    std::lock_guard<std::mutex> lock(mutex_);
    return raised_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool raised_ = false;
};

HangEvent Event(const std::string& label) { return HangEvent{label, Dims{{"tokens", 8}}, Config{}, 0}; }

TEST(HangWatchdogTest, ARunPastItsLimitFiresTheHandlerWithWhatWasInFlight) {
  Latch fired;
  HangEvent seen;
  HangWatchdog watchdog([&](const HangEvent& event) {
    seen = event;
    fired.Raise();
  });
  {
    auto scope = watchdog.Watch(Event("threads=2"), 1);
    ASSERT_TRUE(fired.Wait());  // the "kernel" returns only once the watchdog noticed it
  }
  EXPECT_EQ(seen.label, "threads=2");
  EXPECT_EQ(seen.dims, (Dims{{"tokens", 8}}));
  EXPECT_EQ(seen.limit_ms, 1);
  EXPECT_EQ(watchdog.fired(), 1);
  EXPECT_EQ(DescribeHang(seen), "threads=2 at tokens=8 did not return within 1 ms (--hang-ms)");
}

TEST(HangWatchdogTest, RunsThatEndInTimeNeverFire) {
  std::atomic<int> calls{0};
  HangWatchdog watchdog([&](const HangEvent&) { ++calls; });
  for (int i = 0; i < 1000; ++i) auto scope = watchdog.Watch(Event("quick"), 60000);
  std::this_thread::sleep_for(std::chrono::milliseconds(4 * HangWatchdog::kPollMs));
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(watchdog.fired(), 0);
}

TEST(HangWatchdogTest, ANonPositiveLimitWatchesNothing) {
  std::atomic<int> calls{0};
  HangWatchdog watchdog([&](const HangEvent&) { ++calls; });
  auto scope = watchdog.Watch(Event("unwatched"), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(4 * HangWatchdog::kPollMs));
  EXPECT_EQ(calls.load(), 0);
}

TEST(HangWatchdogTest, ARunFiresOnceHoweverLongItGoesOn) {
  Latch fired;
  HangWatchdog watchdog([&](const HangEvent&) { fired.Raise(); });
  {
    auto scope = watchdog.Watch(Event("slow"), 1);
    ASSERT_TRUE(fired.Wait());
    std::this_thread::sleep_for(std::chrono::milliseconds(4 * HangWatchdog::kPollMs));  // still "running"
  }
  EXPECT_EQ(watchdog.fired(), 1);
  // The next run is watched afresh.
  Latch again;
  watchdog.SetHandler([&](const HangEvent&) { again.Raise(); });
  {
    auto scope = watchdog.Watch(Event("slow"), 1);
    ASSERT_TRUE(again.Wait());
  }
  EXPECT_EQ(watchdog.fired(), 2);
}

// The code after a run must never race a handler still recording that run: the scope's end waits for it.
TEST(HangWatchdogTest, AScopeEndingWhileTheHandlerRunsWaitsForIt) {
  Latch started, release;
  std::atomic<bool> handler_done{false};
  HangWatchdog watchdog([&](const HangEvent&) {
    started.Raise();
    release.Wait();
    handler_done = true;
  });
  std::optional<HangWatchdog::Scope> scope;
  scope.emplace(watchdog.Watch(Event("hung"), 1));
  ASSERT_TRUE(started.Wait());
  std::atomic<bool> done_when_scope_ended{false};
  std::thread run_returns([&] {
    scope.reset();
    done_when_scope_ended = handler_done.load();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the scope's end reach its wait
  release.Raise();
  run_returns.join();
  EXPECT_TRUE(done_when_scope_ended.load());
}

TEST(HangWatchdogTest, DescribeHangWithoutDimsNamesTheLabelOnly) {
  HangEvent event{"libtorch", Dims{}, Config{}, 2500};
  EXPECT_EQ(DescribeHang(event), "libtorch did not return within 2500 ms (--hang-ms)");
}

}  // namespace
}  // namespace crmap
