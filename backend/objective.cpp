#include "backend/objective.h"

#include <cmath>

namespace crmap {

const char* ObjectiveName(Objective objective) {
  switch (objective) {
    case Objective::kMedian: return "median";
    case Objective::kP95: return "p95";
    case Objective::kP99: return "p99";
  }
  return "median";
}

std::optional<Objective> ParseObjective(const std::string& name) {
  for (Objective objective : {Objective::kMedian, Objective::kP95, Objective::kP99})
    if (name == ObjectiveName(objective)) return objective;
  return std::nullopt;
}

const char* ObjectiveNames() { return "median, p95, p99"; }

double ObjectiveQuantile(Objective objective) {
  switch (objective) {
    case Objective::kMedian: return 0.5;
    case Objective::kP95: return 0.95;
    case Objective::kP99: return 0.99;
  }
  return 0.5;
}

int MinimumRounds(Objective objective) {
  if (objective == Objective::kMedian) return 1;
  constexpr double kSamplesBeyond = 5;
  return static_cast<int>(std::lround(kSamplesBeyond / (1 - ObjectiveQuantile(objective))));
}

double LatencyAt(const LatencyStats& latency, Objective objective) {
  switch (objective) {
    case Objective::kMedian: return latency.median_us;
    case Objective::kP95: return latency.p95_us;
    case Objective::kP99: return latency.p99_us;
  }
  return latency.median_us;
}

}  // namespace crmap
