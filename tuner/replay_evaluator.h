// ReplayEvaluator: answers from a tuning database instead of measuring: deterministic, instant, and
// identical for every agent, which is what comparing agents needs (experiments/agent_efficiency).
//
// Built from the records of one workload and space, typically an exhaustive `grid` campaign. A candidate
// evaluates to its score by the one rule of config_scores.h (its speedup over the default, median latency and
// p99 over its records; a config that never ran answers with its first failure); the oracle of a shape is that
// rule's best config. A candidate the database does not hold evaluates to EvalStatus::kError ("not in the
// database") and is counted in misses(). Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "agents/evaluator.h"
#include "backend/objective.h"
#include "tuner/tuning_db.h"

namespace crmap {

class ReplayEvaluator : public Evaluator {
 public:
  // Speedups (and the oracle) at `objective`.
  ReplayEvaluator(const SearchSpace& space, const std::vector<TuningRecord>& records,
                  Objective objective = Objective::kMedian);
  std::vector<Evaluation> Evaluate(const std::vector<Candidate>& candidates) override;

  size_t size() const { return table_.size(); }
  size_t misses() const { return misses_; }
  // Shapes that have a measured default config (so speedups are defined), in DimsToText order.
  std::vector<Dims> Shapes() const;
  // The best speedup any recorded config reaches at `dims` (the oracle), and that config; 0 / default when
  // nothing succeeded there.
  double OracleSpeedup(const Dims& dims) const;
  Config OracleConfig(const Dims& dims) const;
  // How many distinct configs were recorded at `dims`, those the host refused (unsupported) left out: a refusal is
  // not charged to a campaign's budget, so it is no measurement to count a replay's budget in.
  size_t ConfigsAt(const Dims& dims) const;

 private:
  const SearchSpace& space_;
  std::map<std::string, Evaluation> table_;  // CandidateKey -> result
  std::map<std::string, Dims> shapes_;       // DimsToText -> dims, for shapes with a default record
  std::map<std::string, std::pair<double, Config>> oracle_;
  std::map<std::string, size_t> configs_at_;
  size_t misses_ = 0;
};

}  // namespace crmap

namespace crmap {

// The records as (candidate, evaluation) observations in file order, each with its own speedup by the rule of
// config_scores.h (RecordSpeedup) at `objective`: what a resumed campaign replays into its agent. Baseline rows,
// configs the space cannot parse and ok records of fewer rounds than the objective needs (MinimumRounds: no
// evidence of its tail; a campaign measures them again) are left out.
std::vector<std::pair<Candidate, Evaluation>> ObservationsFromRecords(const SearchSpace& space,
                                                                      const std::vector<TuningRecord>& records,
                                                                      Objective objective = Objective::kMedian);

// One observation per shape and config, in shape then config order, with its score by the rule of
// config_scores.h (the median of its records' speedups; a config that never ran ok answers with its first
// failure): what `crmap train` learns from, so a config measured five times counts once, at its median, and
// no single record decides. Baseline rows, configs the space cannot parse and configs that ran without a known
// speedup (too few rounds for the objective's tail, or no default measured at that shape) are left out.
std::vector<std::pair<Candidate, Evaluation>> ScoredObservations(const SearchSpace& space,
                                                                 const std::vector<TuningRecord>& records,
                                                                 Objective objective = Objective::kMedian);

}  // namespace crmap
