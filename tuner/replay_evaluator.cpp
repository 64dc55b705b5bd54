#include "tuner/replay_evaluator.h"

#include <cmath>

namespace crmap {

std::vector<std::pair<Candidate, Evaluation>> ObservationsFromRecords(const SearchSpace& space,
                                                                      const std::vector<TuningRecord>& records) {
  const std::string anchor = space.ToString(space.Default());
  std::map<std::string, double> default_median;
  for (const auto& r : records)
    if (!r.baseline && r.config == anchor && r.status == "ok" && !default_median.count(DimsToText(r.dims)))
      default_median[DimsToText(r.dims)] = r.median_us;
  std::vector<std::pair<Candidate, Evaluation>> observations;
  for (const auto& r : records) {
    if (r.baseline) continue;
    auto config = space.Parse(r.config);
    if (!config.ok()) continue;  // a config of another space version: not replayable
    const std::string shape = DimsToText(r.dims);
    Evaluation e;
    e.status = EvalStatusFromName(r.status);
    e.message = r.message;
    if (e.ok()) {
      e.median_us = r.median_us;
      e.p99_us = r.p99_us;
      if (r.config == anchor) {
        e.speedup = 1.0;
      } else if (r.anchor == anchor && std::isfinite(r.ratio_to_anchor) && r.ratio_to_anchor > 0) {
        e.speedup = 1.0 / r.ratio_to_anchor;
      } else if (default_median.count(shape) && r.median_us > 0) {
        e.speedup = default_median[shape] / r.median_us;
      }
    }
    observations.push_back({{r.dims, *config}, e});
  }
  return observations;
}

ReplayEvaluator::ReplayEvaluator(const SearchSpace& space, const std::vector<TuningRecord>& records)
    : space_(space) {
  for (const auto& [candidate, e] : ObservationsFromRecords(space, records)) {
    const std::string shape = DimsToText(candidate.dims);
    const Config* config = &candidate.config;
    std::string key = CandidateKey(space, candidate);
    if (table_.count(key)) continue;  // the first measurement of a candidate is the one replayed
    table_[key] = e;
    ++configs_at_[shape];
    if (*config == space.Default() && e.ok()) shapes_[shape] = candidate.dims;
    if (e.ok() && e.speedup > 0) {
      auto [it, inserted] = oracle_.try_emplace(shape, e.speedup, *config);
      if (!inserted && e.speedup > it->second.first) it->second = {e.speedup, *config};
    }
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
