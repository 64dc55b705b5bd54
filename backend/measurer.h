// Interleaved measurement: several candidates timed round by round (A B C, B C A, C A B, ...), never block
// by block, because on this machine block timing misranked variants by up to 40%.
//
// Data flow: candidates (Runnable) -> warm-up runs (each also checked against the per-run timeout) ->
// `rounds` rounds, each running every surviving candidate once with a rotated start -> per-candidate
// samples -> LatencyStats, and per-round ratios to the anchor (candidate 0) -> RatioStats -> cold samples.
//
// Threads are part of what is measured, so the harness controls their state instead of inheriting it from
// whatever ran before. OpenMP workers spin for a few ms after a parallel region, then sleep; waking a sleeping
// team cost 0.03-10 ms on a 2-vCPU VM (a 2-thread plan measured right after a 1-thread one had a p95 20x its
// median). So every timed sample ("hot") comes right after `warm_calls` untimed calls of the same candidate:
// its team is awake and its weights are in cache whatever ran before, and a config's figure does not depend on
// the interleaving order. The cost of a cold team is measured on its own: after the rounds, `cold_samples`
// samples per candidate, each after the process went idle (IdleWaiter) — what a serving executor pays after a
// gap between batches.
//
// The clock and the idle wait are interfaces so that tests can drive them. Not thread-safe: one measurement
// at a time per process (candidates share the cores).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend/statistics.h"
#include "common/status.h"

namespace crmap {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowNanos() = 0;
};

// std::chrono::steady_clock.
class SteadyClock : public Clock {
 public:
  int64_t NowNanos() override;
};

// Blocks until this process's threads are idle (spinning OpenMP workers have gone to sleep).
class IdleWaiter {
 public:
  virtual ~IdleWaiter() = default;
  // False when it gave up before the process went idle.
  virtual bool WaitUntilIdle() = 0;
};

// Polls the process's CPU time (CLOCK_PROCESS_CPUTIME_ID) in 1 ms sleeps until it used under 5% of one core
// over the last `quiet_ms`, or `max_wait_ms` passed. The kernel accounts other threads' CPU time in scheduler
// ticks (4 ms here), so `quiet_ms` should span several.
class CpuTimeIdleWaiter : public IdleWaiter {
 public:
  explicit CpuTimeIdleWaiter(double quiet_ms = 20, double max_wait_ms = 500)
      : quiet_ms_(quiet_ms), max_wait_ms_(max_wait_ms) {}
  bool WaitUntilIdle() override;

 private:
  const double quiet_ms_;
  const double max_wait_ms_;
};

// One thing to time: a compiled plan, the LibTorch baseline, or a fake in tests.
class Runnable {
 public:
  virtual ~Runnable() = default;
  // Untimed set-up before each sample (e.g. the OpenMP thread count, which candidates may differ in and
  // which LibTorch changes expensively).
  virtual void Prepare() {}
  virtual Status RunOnce() = 0;
  // `warm_calls` untimed calls, then one timed call; returns the timed call's duration in ns. The default
  // times RunOnce() with `clock`; a runnable that runs elsewhere (another process) reports what it measured
  // there and must leave its own threads idle before it returns.
  virtual Result<int64_t> TimedRun(Clock& clock, int warm_calls);
};

struct MeasureOptions {
  int warmup = 3;            // untimed rounds of every candidate before the timed rounds
  int rounds = 30;
  int warm_calls = 1;        // untimed calls of a candidate right before each of its timed samples (0: none)
  int cold_samples = 5;      // samples after the process went idle, per candidate (0: none)
  double timeout_ms = 10000; // a single run slower than this drops the candidate with timed_out
  Clock* clock = nullptr;    // nullptr: a SteadyClock
  IdleWaiter* idle = nullptr;  // nullptr: a CpuTimeIdleWaiter
  std::function<void(int round, int rounds)> on_round;  // progress, called after each round
};

struct MeasureOutcome {
  Status status;           // the first failure of a run, if any
  bool timed_out = false;
  LatencyStats latency;        // hot samples
  RatioStats ratio_to_anchor;  // empty if the anchor (candidate 0) failed
  std::vector<double> samples_us;
  LatencyStats cold_latency;   // samples after an idle gap (rounds 0 when cold_samples is 0)
  std::vector<double> cold_samples_us;
  int cold_not_idle = 0;       // cold samples dropped because the process never went idle (e.g. spinning
                               // threads of OMP_WAIT_POLICY=active)
};

std::vector<MeasureOutcome> MeasureInterleaved(const std::vector<Runnable*>& candidates,
                                               const MeasureOptions& options);

}  // namespace crmap
