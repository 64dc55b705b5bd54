#include "backend/team_warmer.h"

#include <atomic>
#include <chrono>
#include <cmath>

#include <omp.h>

namespace crmap {

namespace {

inline void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

double KeepTeamWarm(int threads, double budget_us, const std::function<bool()>& stop_waiting) {
  if (threads <= 1 || !(budget_us > 0)) return 0;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const bool forever = std::isinf(budget_us);
  const Clock::time_point deadline =
      forever ? Clock::time_point::max()
              : start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(budget_us));
  std::atomic<bool> done{false};
  int team = 1;
#pragma omp parallel num_threads(threads)
  {
    if (omp_get_thread_num() == 0) {
      team = omp_get_num_threads();
      while (!stop_waiting() && (forever || Clock::now() < deadline))
        for (int i = 0; i < 32; ++i) Pause();
      done.store(true, std::memory_order_release);
    } else {
      while (!done.load(std::memory_order_acquire)) Pause();
    }
  }
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() * team;
}

}  // namespace crmap
