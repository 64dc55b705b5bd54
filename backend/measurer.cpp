#include "backend/measurer.h"

#include <time.h>

#include <chrono>
#include <deque>
#include <thread>

namespace crmap {

int64_t SteadyClock::NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

double ProcessCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

double WallMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

bool CpuTimeIdleWaiter::WaitUntilIdle() {
  const double start = WallMs();
  // (wall, cpu) pairs of the last quiet_ms_.
  std::deque<std::pair<double, double>> window = {{start, ProcessCpuMs()}};
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const double now = WallMs();
    window.emplace_back(now, ProcessCpuMs());
    while (window.size() > 2 && now - window[1].first >= quiet_ms_) window.pop_front();
    const double span = now - window.front().first;
    const double used = window.back().second - window.front().second;
    if (span >= quiet_ms_ && used < 0.05 * span) return true;
    if (now - start >= max_wait_ms_) return false;
  }
}

Result<int64_t> Runnable::TimedRun(Clock& clock, int warm_calls) {
  for (int i = 0; i < warm_calls; ++i) CRMAP_RETURN_IF_ERROR(RunOnce());
  const int64_t start = clock.NowNanos();
  CRMAP_RETURN_IF_ERROR(RunOnce());
  return clock.NowNanos() - start;
}

std::vector<MeasureOutcome> MeasureInterleaved(const std::vector<Runnable*>& candidates,
                                               const MeasureOptions& options) {
  SteadyClock steady;
  CpuTimeIdleWaiter cpu_idle;
  Clock* clock = options.clock ? options.clock : &steady;
  IdleWaiter* idle = options.idle ? options.idle : &cpu_idle;
  const size_t n = candidates.size();
  std::vector<MeasureOutcome> outcomes(n);
  std::vector<bool> alive(n, true);
  const int64_t timeout_ns = static_cast<int64_t>(options.timeout_ms * 1e6);

  // One sample of candidate i in microseconds, or -1 after dropping it (failure or timeout).
  auto sample = [&](size_t i, int warm_calls) -> double {
    candidates[i]->Prepare();
    Result<int64_t> elapsed = candidates[i]->TimedRun(*clock, warm_calls);
    if (!elapsed.ok()) {
      outcomes[i].status = elapsed.status();
      alive[i] = false;
      return -1;
    }
    if (*elapsed > timeout_ns) {
      outcomes[i].timed_out = true;
      alive[i] = false;
      return -1;
    }
    return static_cast<double>(*elapsed) / 1000.0;
  };

  for (int w = 0; w < options.warmup; ++w)
    for (size_t i = 0; i < n; ++i)
      if (alive[i]) sample(i, 0);

  std::vector<std::vector<double>> ratios(n);
  for (int round = 0; round < options.rounds; ++round) {
    std::vector<double> this_round(n, -1);
    for (size_t k = 0; k < n; ++k) {
      size_t i = (k + static_cast<size_t>(round)) % n;
      if (!alive[i]) continue;
      double us = sample(i, options.warm_calls);
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

  // Cold samples: prepared first (preparing may run a parallel region), then after the process idled. A
  // sample whose idle wait gave up is not cold and is dropped (counted); a failure here ends the candidate's
  // cold samples without touching its hot results.
  std::vector<bool> cold_alive = alive;
  for (int s = 0; s < options.cold_samples; ++s) {
    for (size_t i = 0; i < n; ++i) {
      if (!cold_alive[i]) continue;
      candidates[i]->Prepare();
      if (!idle->WaitUntilIdle()) {
        ++outcomes[i].cold_not_idle;
        continue;
      }
      Result<int64_t> elapsed = candidates[i]->TimedRun(*clock, 0);
      if (!elapsed.ok()) {
        cold_alive[i] = false;
        continue;
      }
      outcomes[i].cold_samples_us.push_back(static_cast<double>(*elapsed) / 1000.0);
    }
  }

  for (size_t i = 0; i < n; ++i) {
    outcomes[i].latency = ComputeLatencyStats(outcomes[i].samples_us);
    outcomes[i].ratio_to_anchor = ComputeRatioStats(ratios[i]);
    outcomes[i].cold_latency = ComputeLatencyStats(outcomes[i].cold_samples_us);
  }
  return outcomes;
}

}  // namespace crmap
