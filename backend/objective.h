// Objective: which statistic of a config's latency tuning minimises — the median (kernels' default), p95 or p99
// (serving's tail) — and how many timed samples a config needs before that statistic can be read.
//
// Samples needed: the q-quantile of n samples is read from the samples above it; with fewer than 5 beyond it one
// outlier decides it (p99 of 30 samples is a blend of the two largest). So a tail objective asks for
// n >= 5 / (1 - q) interleaved rounds: 100 for p95, 500 for p99; the median needs no more than kernels already
// take. A config wins the tail only when its tail is measured in the same interleaved rounds as the anchor's, so
// the figure of one config never depends on what ran in another run.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "backend/statistics.h"

namespace crmap {

enum class Objective { kMedian, kP95, kP99 };

// "median", "p95", "p99".
const char* ObjectiveName(Objective objective);
// The inverse of ObjectiveName; nullopt for anything else.
std::optional<Objective> ParseObjective(const std::string& name);
// "median, p95, p99": for messages listing what is allowed.
const char* ObjectiveNames();

// The quantile an objective reads (0.5, 0.95, 0.99).
double ObjectiveQuantile(Objective objective);
// Timed samples per config the objective needs (see above): 1, 100, 500.
int MinimumRounds(Objective objective);
// The statistic of `latency` the objective reads.
double LatencyAt(const LatencyStats& latency, Objective objective);

}  // namespace crmap
