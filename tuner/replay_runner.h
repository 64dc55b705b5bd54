// Replay runner: agents run against a recorded tuning database instead of the hardware (`crmap replay`):
// deterministic and instant, which is how agents are compared (experiments/agent_efficiency).
//
// Each (agent, seed) runs the same campaign loop as `crmap tune` (campaign.h: dedupe, failure cap — none for
// grid —, exhaustion) over a ReplayEvaluator, so a replay and a campaign of the same agent and seed over the same
// answers propose the same candidates. After every batch, the curve records the geometric mean over shapes of
// best-found / oracle speedup (a shape where nothing beat the default yet counts the default, speedup 1). With
// `transfer` N (rl only) the agent trains on all shapes but the last N, then its first recommendation for each of
// those N is rated against their oracle, next to the nearest trained shape's best config. Not thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "agents/agent.h"
#include "common/json_fields.h"
#include "common/status.h"
#include "tuner/replay_evaluator.h"

namespace crmap {

struct ReplayRun {
  std::vector<std::pair<size_t, double>> curve;  // (measurements, geo-mean oracle ratio), from (0, ...)
  size_t measured = 0;  // charged to the budget: refusals (unsupported) are proposed and stored, not charged
  size_t misses = 0;  // candidates the database did not hold
  std::vector<Candidate> proposed;  // in the order they were evaluated
};

// One agent over `replay` at `shapes` for `budget` measurements in batches of `batch`; `grid` lifts the failure
// cap as `tune` does for the grid agent.
Result<ReplayRun> ReplayAgent(Agent& agent, ReplayEvaluator& replay, const SearchSpace& space,
                              const std::vector<Dims>& shapes, size_t budget, size_t batch);

struct ReplayRequest {
  std::string db_path;
  std::string workload;  // --workload ("": the database's only one)
  std::string agents = "rl";  // comma-separated
  int seeds = 5;
  int budget = 0;  // 0: a quarter of the recorded measurements
  int batch = 8;
  int transfer = 0;
};

struct ReplayReport {
  Json json;
  std::string text;
};

// InvalidArgument for bad input (an unknown agent, out-of-range numbers, a database without a measured default).
Result<ReplayReport> RunReplay(const ReplayRequest& request);

}  // namespace crmap
