// Evaluator: what an agent sees of the world. A batch of (dims, config) candidates goes in, one Evaluation
// per candidate comes out, in the same order.
//
// Three implementations: the real backend (tuner/backend_evaluator.h: compiles, validates and measures on
// oneDNN, interleaved, with the default config as the anchor of every batch), replay from a tuning database
// (tuner/replay_evaluator.h: deterministic experiments), and synthetic landscapes with known optima
// (agents/synthetic_evaluator.h: unit tests). Agents never touch oneDNN or files.
//
// An Evaluator is used by one campaign thread at a time (not thread-safe).
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap {

struct Candidate {
  Dims dims;
  Config config;
  // Proposed as an active-learning probe — a config that won at another shape, never measured at this one
  // (RlAgent) — rather than by the agent's own search; campaigns report the share of the budget it took.
  bool probe = false;
  // Proposed as a climb — an unmeasured one-knob neighbour of the shape's best so far (RlAgent); reported too.
  bool climb = false;
  bool operator==(const Candidate& other) const { return dims == other.dims && config == other.config; }
};

// Mirrors the backend's candidate statuses (agents may not depend on the backend).
enum class EvalStatus { kOk, kUnsupported, kWrongAnswer, kOverMemory, kTimeout, kError };
const char* EvalStatusName(EvalStatus status);
// "ok" -> kOk, ...; unknown names -> kError.
EvalStatus EvalStatusFromName(const std::string& name);

struct Evaluation {
  EvalStatus status = EvalStatus::kError;
  std::string message;
  double median_us = 0;  // latency of the candidate (ok only)
  double p99_us = 0;
  // Latency of the default config at the same dims / latency of the candidate, measured side by side
  // (interleaved rounds) when the evaluator can: the quantity agents maximise. > 1: faster than default.
  double speedup = 0;
  bool ok() const { return status == EvalStatus::kOk; }
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual std::vector<Evaluation> Evaluate(const std::vector<Candidate>& candidates) = 0;
  // Measurements the last Evaluate made without being asked (the real backend's anchor: the default config at
  // each shape of the batch). A campaign records them as measured, so no agent spends budget on them again.
  virtual std::vector<std::pair<Candidate, Evaluation>> SideMeasurements() const { return {}; }
};

// The reward agents learn from: log(speedup) for ok candidates, a fixed penalty for failures (as if 4x slower
// than the default) so that failing regions are avoided but do not dominate the scale.
constexpr double kFailureReward = -1.3862943611198906;  // log(1/4)
inline double Reward(const Evaluation& evaluation) {
  return evaluation.ok() && evaluation.speedup > 0 ? std::log(evaluation.speedup) : kFailureReward;
}

// "tokens=128|fuse.fc1=bias;..." : the identity of a measurement (no (dims, config) is measured twice).
std::string CandidateKey(const SearchSpace& space, const Candidate& candidate);

}  // namespace crmap
