#include "tuner/backend_evaluator.h"

#include <algorithm>

namespace crmap {

EvalStatus ToEvalStatus(CandidateStatus status) {
  switch (status) {
    case CandidateStatus::kOk: return EvalStatus::kOk;
    case CandidateStatus::kUnsupported: return EvalStatus::kUnsupported;
    case CandidateStatus::kWrongAnswer: return EvalStatus::kWrongAnswer;
    case CandidateStatus::kOverMemory: return EvalStatus::kOverMemory;
    case CandidateStatus::kTimeout: return EvalStatus::kTimeout;
    case CandidateStatus::kError: return EvalStatus::kError;
  }
  return EvalStatus::kError;
}

Evaluation ToEvaluation(const CandidateResult& result, Objective objective) {
  Evaluation e;
  e.status = ToEvalStatus(result.status);
  e.message = result.message;
  if (result.status == CandidateStatus::kOk) {
    e.median_us = result.latency.median_us;
    e.p99_us = result.latency.p99_us;
    const double ratio = RatioToAnchor(result, objective);
    if (ratio > 0) e.speedup = 1 / ratio;
  }
  return e;
}

BackendEvaluator::BackendEvaluator(const Workload& workload, const SearchSpace& space,
                                   BackendEvaluatorOptions options)
    : workload_(workload), space_(space), options_(std::move(options)) {}

MeasurementSession& BackendEvaluator::SessionFor(const Dims& dims) {
  std::string key = DimsToText(dims);
  auto it = sessions_.find(key);
  if (it != sessions_.end()) return *it->second;
  if (sessions_.size() >= options_.max_sessions && !session_order_.empty()) {
    sessions_.erase(session_order_.front());
    session_order_.erase(session_order_.begin());
  }
  session_order_.push_back(key);
  return *(sessions_[key] = std::make_unique<MeasurementSession>(workload_, space_, dims));
}

std::vector<Evaluation> BackendEvaluator::Evaluate(const std::vector<Candidate>& candidates) {
  std::vector<Evaluation> evaluations(candidates.size());
  last_results_.assign(candidates.size(), CandidateResult{});
  last_anchors_.clear();
  const Config anchor = space_.Default();
  std::vector<std::string> order;  // shapes in first-seen order
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::string key = DimsToText(candidates[i].dims);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(i);
  }
  for (const auto& key : order) {
    const std::vector<size_t>& members = groups[key];
    const Dims& dims = candidates[members[0]].dims;
    std::vector<Config> configs = {anchor};
    for (size_t i : members)
      if (candidates[i].config != anchor) configs.push_back(candidates[i].config);
    std::vector<CandidateResult> results = SessionFor(dims).Compare(configs, options_.session);
    last_anchors_.emplace_back(dims, results[0]);
    size_t next = 1;
    for (size_t i : members) {
      const CandidateResult& r = candidates[i].config == anchor ? results[0] : results[next++];
      last_results_[i] = r;
      evaluations[i] = ToEvaluation(r, options_.objective);
    }
  }
  return evaluations;
}

std::vector<std::pair<Candidate, Evaluation>> BackendEvaluator::SideMeasurements() const {
  std::vector<std::pair<Candidate, Evaluation>> out;
  for (const auto& [dims, result] : last_anchors_) {
    Evaluation evaluation = ToEvaluation(result);
    if (evaluation.ok()) evaluation.speedup = 1.0;  // the anchor against itself
    out.push_back({Candidate{dims, space_.Default()}, evaluation});
  }
  return out;
}

}  // namespace crmap
