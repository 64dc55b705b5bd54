// BackendEvaluator: the real Evaluator. Candidates are compiled, validated against LibTorch and measured on
// oneDNN; the default config is the anchor of every interleaved batch, so each candidate's speedup is a ratio
// measured side by side, not a comparison of absolute times taken minutes apart.
//
// Data flow: candidates -> grouped by dims (order kept) -> per dims a MeasurementSession (cached: the LibTorch
// reference is computed once per shape) -> Compare([default, candidates...]) -> Evaluations, plus the full
// CandidateResults for the tuning database (last_results(), last_anchors()).
// Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/evaluator.h"
#include "backend/session.h"

namespace crmap {

struct BackendEvaluatorOptions {
  SessionOptions session;  // rounds, warm-up, timeout, compile options, validation
  Objective objective = Objective::kMedian;  // which latency statistic the speedup compares
  size_t max_sessions = 16;  // shapes whose LibTorch reference stays cached
};

class BackendEvaluator : public Evaluator {
 public:
  BackendEvaluator(const Workload& workload, const SearchSpace& space, BackendEvaluatorOptions options);
  std::vector<Evaluation> Evaluate(const std::vector<Candidate>& candidates) override;
  // The anchors of the last Evaluate, as (dims, default config) with speedup 1 when they ran.
  std::vector<std::pair<Candidate, Evaluation>> SideMeasurements() const override;

  // The backend's full results of the last Evaluate, parallel to its candidates.
  const std::vector<CandidateResult>& last_results() const { return last_results_; }
  // The anchor (default config) result of each shape measured by the last Evaluate.
  const std::vector<std::pair<Dims, CandidateResult>>& last_anchors() const { return last_anchors_; }
  MeasurementSession& SessionFor(const Dims& dims);

 private:
  const Workload& workload_;
  const SearchSpace& space_;
  BackendEvaluatorOptions options_;
  std::map<std::string, std::unique_ptr<MeasurementSession>> sessions_;
  std::vector<std::string> session_order_;  // oldest first, for eviction
  std::vector<CandidateResult> last_results_;
  std::vector<std::pair<Dims, CandidateResult>> last_anchors_;
};

// Maps the backend's status to the agents' mirror of it.
EvalStatus ToEvalStatus(CandidateStatus status);
// An Evaluation from a backend result: speedup = 1 / RatioToAnchor(result, objective) when there is an anchor
// (the anchor itself: 1).
Evaluation ToEvaluation(const CandidateResult& result, Objective objective = Objective::kMedian);

}  // namespace crmap
