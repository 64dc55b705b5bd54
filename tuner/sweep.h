// Sweep: measure a workload's whole plan space at one shape and confirm the best plans side by side.
//
// Data flow: every plan config (runtime knobs at defaults) -> chunks of `chunk` candidates, each with the
// default config as anchor, `screen_rounds` interleaved rounds (ratios to the anchor survive the machine's
// drift between chunks; absolute times do not) -> rank by median ratio (and, for a tail objective, also by the
// screening rounds' tail) -> the `top` best of each plus the default (plus LibTorch eager if asked) in one final
// interleaved comparison of `rounds` rounds, ranked at the objective.
// Not thread-safe (it measures).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backend/session.h"

namespace crmap {

struct SweepOptions {
  int screen_rounds = 5;
  int chunk = 12;
  int top = 5;
  int rounds = 30;         // of the final comparison; a tail objective needs MinimumRounds(objective)
  Objective objective = Objective::kMedian;
  int warmup = 2;
  int warm_calls = 1;     // untimed calls right before each timed sample (screening and final)
  int cold_samples = 5;   // cold-team samples per config, final comparison only (screening only ranks)
  double timeout_ms = 10000;
  std::shared_ptr<HangWatchdog> watchdog;  // hung kernels (SessionOptions)
  double hang_ms = 0;
  std::vector<PeerBaseline> baselines;  // peers in the final comparison
  std::string peer_executable;          // the crmap binary, for peers in a child process (SessionOptions)
  bool validate = true;
  // Configs measured in the final comparison whatever their screening rank (e.g. the picks being evaluated).
  std::vector<Config> must_confirm;
  CompileOptions compile;
  std::function<void(const std::string& stage, int done, int total)> on_progress;
};

// The largest plan space a sweep measures exhaustively.
constexpr uint64_t kMaxSweepConfigs = 100000;

struct SweepResult {
  // Not ok if the final rounds are too few for the objective (InvalidArgument), if the space is too large to
  // sweep, or if the default config (every ratio's anchor) failed at these dims: then nothing can be ranked, and
  // the status says why (e.g. ResourceExhausted: over memory).
  Status status;
  std::vector<CandidateResult> screened;  // every plan config, ratio_to_anchor against the default
  std::vector<CandidateResult> final;     // default first, then the top configs, then the baseline
  int best_index = -1;  // into final: the ok plan with the smallest ratio to the default at the objective
};

// The session options of the final comparison (rounds, warm-up, cold samples, timeouts, peers, validation and
// compile options of `options`; no progress callback).
SessionOptions FinalSessionOptions(const SweepOptions& options);

SweepResult SweepPlanSpace(MeasurementSession& session, const SearchSpace& space, const SweepOptions& options);

}  // namespace crmap
