// Interleaved measurement: several candidates timed round by round (A B C, B C A, C A B, ...), never block
// by block, because on this machine block timing misranked variants by up to 40%.
//
// Data flow: candidates (Runnable) -> warm-up runs (each also checked against the per-run timeout) ->
// `rounds` rounds, each running every surviving candidate once with a rotated start -> per-candidate
// samples -> LatencyStats, and per-round ratios to the anchor (candidate 0) -> RatioStats.
// The clock is an interface so that tests can drive it; the real one is std::chrono::steady_clock.
// Not thread-safe: one measurement at a time per process (candidates share the cores).
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

// One thing to time: a compiled plan, the LibTorch baseline, or a fake in tests.
class Runnable {
 public:
  virtual ~Runnable() = default;
  // Untimed set-up before each timed run (e.g. the OpenMP thread count, which candidates may differ in and
  // which LibTorch changes expensively).
  virtual void Prepare() {}
  virtual Status RunOnce() = 0;
};

struct MeasureOptions {
  int warmup = 3;
  int rounds = 30;
  double timeout_ms = 10000;  // a single run slower than this drops the candidate with timed_out
  Clock* clock = nullptr;     // nullptr: a SteadyClock
  std::function<void(int round, int rounds)> on_round;  // progress, called after each round
};

struct MeasureOutcome {
  Status status;           // the first failure of RunOnce, if any
  bool timed_out = false;
  LatencyStats latency;
  RatioStats ratio_to_anchor;  // empty if the anchor (candidate 0) failed
  std::vector<double> samples_us;
};

std::vector<MeasureOutcome> MeasureInterleaved(const std::vector<Runnable*>& candidates,
                                               const MeasureOptions& options);

}  // namespace crmap
