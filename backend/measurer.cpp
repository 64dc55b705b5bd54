#include "backend/measurer.h"

#include <chrono>

namespace crmap {

int64_t SteadyClock::NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::vector<MeasureOutcome> MeasureInterleaved(const std::vector<Runnable*>& candidates,
                                               const MeasureOptions& options) {
  SteadyClock steady;
  Clock* clock = options.clock ? options.clock : &steady;
  const size_t n = candidates.size();
  std::vector<MeasureOutcome> outcomes(n);
  std::vector<bool> alive(n, true);
  const int64_t timeout_ns = static_cast<int64_t>(options.timeout_ms * 1e6);

  auto time_one = [&](size_t i) -> double {
    candidates[i]->Prepare();
    int64_t start = clock->NowNanos();
    Status status = candidates[i]->RunOnce();
    int64_t elapsed = clock->NowNanos() - start;
    if (!status.ok()) {
      outcomes[i].status = status;
      alive[i] = false;
      return -1;
    }
    if (elapsed > timeout_ns) {
      outcomes[i].timed_out = true;
      alive[i] = false;
      return -1;
    }
    return static_cast<double>(elapsed) / 1000.0;
  };

  for (int w = 0; w < options.warmup; ++w)
    for (size_t i = 0; i < n; ++i)
      if (alive[i]) time_one(i);

  std::vector<std::vector<double>> ratios(n);
  for (int round = 0; round < options.rounds; ++round) {
    std::vector<double> this_round(n, -1);
    for (size_t k = 0; k < n; ++k) {
      size_t i = (k + static_cast<size_t>(round)) % n;
      if (!alive[i]) continue;
      double us = time_one(i);
      if (us >= 0) {
        outcomes[i].samples_us.push_back(us);
        this_round[i] = us;
      }
    }
    if (this_round[0] > 0)
      for (size_t i = 0; i < n; ++i)
        if (this_round[i] > 0) ratios[i].push_back(this_round[i] / this_round[0]);
    if (options.on_round) options.on_round(round + 1, options.rounds);
  }
  for (size_t i = 0; i < n; ++i) {
    outcomes[i].latency = ComputeLatencyStats(outcomes[i].samples_us);
    outcomes[i].ratio_to_anchor = ComputeRatioStats(ratios[i]);
  }
  return outcomes;
}

}  // namespace crmap
