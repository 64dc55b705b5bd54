#include "tuner/replay_evaluator.h"

#include <cmath>

#include "tuner/config_scores.h"

namespace crmap {

std::vector<std::pair<Candidate, Evaluation>> ObservationsFromRecords(const SearchSpace& space,
                                                                      const std::vector<TuningRecord>& records,
                                                                      Objective objective) {
  const std::map<Dims, ShapeScores> scores = ScoreConfigs(space, records, objective);
  const std::string anchor = space.ToString(space.Default());
  auto is_default = [&](const std::string& config) { return config == anchor; };
  std::vector<std::pair<Candidate, Evaluation>> observations;
  for (const auto& r : records) {
    if (r.baseline) continue;
    auto config = space.Parse(r.config);
    if (!config.ok()) continue;  // a config of another space version: not replayable
    // Measured with too few rounds for the objective's tail: no evidence either way, so not replayed (a
    // campaign measures it again, with the rounds the tail needs).
    if (r.status == "ok" && !HasFigureAt(r, objective)) continue;
    Evaluation e;
    e.status = EvalStatusFromName(r.status);
    e.message = r.message;
    if (e.ok()) {
      e.median_us = r.median_us;
      e.p99_us = r.p99_us;
      auto shape = scores.find(r.dims);
      bool in_run = false;
      double speedup = RecordSpeedup(r, is_default, shape->second.default_objective_us, &in_run, objective);
      if (std::isfinite(speedup)) e.speedup = speedup;
    }
    observations.push_back({{r.dims, *config}, e});
  }
  return observations;
}

namespace {

// A config's score at a shape as the evaluation a measurement would have returned.
Evaluation EvaluationFromScore(const ConfigScore& score) {
  Evaluation e;
  if (score.ran()) {
    e.status = EvalStatus::kOk;
    e.median_us = score.median_us;
    e.p99_us = score.p99_us;
    if (std::isfinite(score.speedup)) e.speedup = score.speedup;
  } else {
    e.status = EvalStatusFromName(score.failure_status);
    e.message = score.failure_message;
  }
  return e;
}

}  // namespace

std::vector<std::pair<Candidate, Evaluation>> ScoredObservations(const SearchSpace& space,
                                                                 const std::vector<TuningRecord>& records,
                                                                 Objective objective) {
  std::vector<std::pair<Candidate, Evaluation>> observations;
  for (const auto& [dims, shape] : ScoreConfigs(space, records, objective))
    for (const auto& [text, score] : shape.configs) {
      if (score.ran() && !std::isfinite(score.speedup)) continue;  // no figure at the objective's tail
      observations.push_back({{dims, *space.Parse(text)}, EvaluationFromScore(score)});
    }
  return observations;
}

ReplayEvaluator::ReplayEvaluator(const SearchSpace& space, const std::vector<TuningRecord>& records,
                                 Objective objective)
    : space_(space) {
  for (const auto& [dims, shape] : ScoreConfigs(space, records, objective)) {
    const std::string key = DimsToText(dims);
    for (const auto& [text, score] : shape.configs) {
      Config config = *space.Parse(text);
      const Evaluation e = EvaluationFromScore(score);
      table_[CandidateKey(space, {dims, config})] = e;
      if (e.status != EvalStatus::kUnsupported) ++configs_at_[key];  // a refusal is no measurement (campaign.h)
      if (config == space.Default() && score.ran()) shapes_[key] = dims;
    }
    if (const ConfigScore* best = shape.Best(); best && std::isfinite(best->speedup) && best->speedup > 0)
      oracle_[key] = {best->speedup, *space.Parse(best->config)};
  }
}

std::vector<Evaluation> ReplayEvaluator::Evaluate(const std::vector<Candidate>& candidates) {
  std::vector<Evaluation> out;
  for (const auto& c : candidates) {
    auto it = table_.find(CandidateKey(space_, c));
    if (it == table_.end()) {
      ++misses_;
      Evaluation missing;
      missing.status = EvalStatus::kError;
      missing.message = "not in the database";
      out.push_back(missing);
    } else {
      out.push_back(it->second);
    }
  }
  return out;
}

std::vector<Dims> ReplayEvaluator::Shapes() const {
  std::vector<Dims> shapes;
  for (const auto& [key, dims] : shapes_) shapes.push_back(dims);
  return shapes;
}

double ReplayEvaluator::OracleSpeedup(const Dims& dims) const {
  auto it = oracle_.find(DimsToText(dims));
  return it == oracle_.end() ? 0 : it->second.first;
}

Config ReplayEvaluator::OracleConfig(const Dims& dims) const {
  auto it = oracle_.find(DimsToText(dims));
  return it == oracle_.end() ? space_.Default() : it->second.second;
}

size_t ReplayEvaluator::ConfigsAt(const Dims& dims) const {
  auto it = configs_at_.find(DimsToText(dims));
  return it == configs_at_.end() ? 0 : it->second;
}

}  // namespace crmap
