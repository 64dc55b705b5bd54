// KeepTeamWarm: keeps an OpenMP thread team of `threads` spinning — what `crmap serve --thread-wait` does
// between batches in the serving executors (backend/plan_executor, backend/torch_executor).
//
// libgomp's workers spin briefly after a parallel region, then sleep on a futex; waking a sleeping team cost up
// to tens of ms on a 2-vCPU VM (docs/design.md), which lands on the first request after a gap. Inside one
// parallel region of the same size as the plan's, the calling thread polls `stop_waiting` while the others
// spin on a flag; when it says stop (or the budget is spent) the region ends and the next parallel region — the
// batch's kernels — finds the team awake. The spin uses the pause instruction and costs a full core per thread
// for as long as it lasts: the CPU burnt is returned and reported.
#pragma once

#include <functional>

namespace crmap {

// Returns the thread-microseconds spent (threads x wall time); 0 without spinning (threads <= 1, budget <= 0).
double KeepTeamWarm(int threads, double budget_us, const std::function<bool()>& stop_waiting);

}  // namespace crmap
