// ConfigScores: the one rule that says how fast each measured config is at each shape, from a tuning database's
// records. `db best`, the replay evaluator, the policy trainer (its table, static plan and fallback) and
// `evaluate` all rank by it, so two commands never disagree about which config is best.
//
// The rule, per shape, at an objective (median latency unless asked for p95 or p99; backend/objective.h):
//   - a record's speedup over the default config: 1 for the default itself; 1 / its ratio to the anchor at the
//     objective when it was measured in the same rounds as the default (its anchor: the median of the per-round
//     ratios, or the ratio of the two tails); otherwise the default's latency at the objective (the median over
//     the default's ok records at that shape) / the record's (a ratio across runs: weaker evidence);
//   - a config's speedup: the median of its ok records' speedups; its basis is "in run" when every one of them
//     was, else "across runs"; its median, p99 and objective latency: the medians over its ok records;
//   - at a tail objective, a record of fewer rounds than it needs (MinimumRounds) has no tail figure: it counts
//     as ran, with an unknown speedup;
//   - a config with no ok record at the shape failed there (its first failure's status and message are kept);
//   - the best config: a known speedup over none, then the larger speedup, then the smaller objective latency.
// Baseline (peer) rows are not configs and are left out. Pure functions; thread-safe.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "backend/objective.h"
#include "search_space/search_space.h"
#include "tuner/tuning_db.h"

namespace crmap {

enum class SpeedupBasis { kNone, kInRun, kAcrossRuns };
// "in_batch_ratio", "ratio_of_medians", "none" (the names `crmap db best --json` prints).
const char* SpeedupBasisName(SpeedupBasis basis);

struct ConfigScore {
  std::string config;  // the canonical string, as recorded
  double speedup = std::numeric_limits<double>::quiet_NaN();
  double median_us = std::numeric_limits<double>::quiet_NaN();
  double p99_us = std::numeric_limits<double>::quiet_NaN();
  double objective_us = std::numeric_limits<double>::quiet_NaN();  // latency at the objective scored by
  SpeedupBasis basis = SpeedupBasis::kNone;
  size_t ok = 0;      // ok records
  size_t failed = 0;  // records of any other status
  bool is_default = false;  // the workload's default config (its speedup is 1 by definition)
  std::string failure_status, failure_message;  // of its first failed record

  bool ran() const { return ok > 0; }
};

// a ranks before b (see the rule above).
bool BetterScore(const ConfigScore& a, const ConfigScore& b);

struct ShapeScores {
  Dims dims;
  size_t records = 0;  // of configs (baselines excluded)
  size_t ok = 0;
  double default_median_us = std::numeric_limits<double>::quiet_NaN();  // NaN: the default never ran here
  double default_objective_us = std::numeric_limits<double>::quiet_NaN();  // ... at the objective
  std::map<std::string, ConfigScore> configs;  // by config string

  // The best config that ran, or nullptr.
  const ConfigScore* Best() const;
  const ConfigScore* Find(const std::string& config) const;
};

// DESIGN.md's tie rule: speedups that differ by less than this share are ties unless more rounds separate them.
inline constexpr double kNoiseBand = 0.05;

// How much one record's speedup varies between runs, as a database shows it: the standard deviation of a
// record's log speedup. For each shape and the other shape nearest it (tuner/nearest_shape.h), every config but
// the default with a known speedup at both gives the change of its log speedup between them; any two such
// changes differ by the two configs' noise at both shapes (variance 4 noise^2, one record each) plus how much the
// gap between them really changed — so the median absolute difference over all such pairs of configs, over
// 2 x 0.6745 (the median of |N(0, 1)|), estimates the noise, robust to a few configs whose gap really moved and
// high where many did. Measured on this project's 2-core hosts (experiments/RESULTS.md): 0.026-0.057 on the
// campaigns of most workloads, 0.10 on mobilenet_v2_block's; a direct measurement of one dlrm_bottom_mlp shape
// gave 0.05-0.07. Only configs of one ok record at both shapes count (a config measured again, e.g. by a
// campaign's rechecks of its leaders, has a less noisy median and would make the estimate low). 0 when fewer than kMinNoiseDifferences differences are known
// or they show no spread (the fixed band alone then); at most kMaxRecordNoise (a tie band of 20% between single
// records).
inline constexpr size_t kMinNoiseDifferences = 8;
inline constexpr double kMaxRecordNoise = 0.08;
double EstimateRecordNoise(const std::map<Dims, ShapeScores>& scores);

// The band within which a config of `ok_config` records counts as tied with the best of `ok_best` records, given
// a record's noise (EstimateRecordNoise): the larger of `band` and the one-sided 95% test of the difference of
// their log speedups (exp(kOneSidedZ95 x noise x sqrt(1/ok_best + 1/ok_config)) - 1) — a config is behind only
// where the records can tell; `band` alone with no noise or no records.
inline constexpr double kOneSidedZ95 = 1.645;
double TieBand(double band, double record_noise, size_t ok_best, size_t ok_config);

// How `config` stands against the best config at `shape` (ShapeScores::Best): the best itself; tied with it
// (its speedup within the tie band of the best's: best <= speedup x (1 + TieBand(band, record_noise, ...)));
// behind it; or unknown (never ran ok there, or ran without a known speedup, or no config has one).
enum class Standing { kBest, kTied, kBehind, kUnknown };
const char* StandingName(Standing standing);  // "best", "tied", "behind", "unknown"
Standing StandingAt(const ShapeScores& shape, const std::string& config, double band = kNoiseBand,
                    double record_noise = 0);

// The label a learner is taught for the shape `dims` of `scores` — noise-aware: every config best or tied there
// (StandingAt, with `record_noise`) is equally right, so a lucky sample cannot decide between them; among those,
// the one that is best or tied at the most shapes of `scores`, then the one with the largest geometric-mean
// speedup over the shapes where it has one, then the better score at `dims` (BetterScore). Given the `space`,
// a config best or tied there that fuses further than that one (SearchSpace::FusesFurther: the same config with
// more of the ops' consumers fused) takes its place — the deepest such (SearchSpace::FusionDepth), then the
// better score: where the records cannot tell them apart, the fused config saves a pass over the op's output
// that single records of 10 rounds do not resolve (experiments/RESULTS.md, "A fused post-op where the records
// tie"). nullptr when no config ran at `dims`.
const ConfigScore* NoiseAwareLabel(const std::map<Dims, ShapeScores>& scores, const Dims& dims,
                                   double band = kNoiseBand, double record_noise = 0,
                                   const SearchSpace* space = nullptr);

// Among `candidates` (config strings of `space`; unparsable ones are skipped), the index of the one that fuses
// furthest beyond `chosen` (SearchSpace::FusesFurther, the largest FusionDepth; the first on a tie), or -1 when
// none fuses further than it or `chosen` itself does not parse.
int DeepestFusionOf(const SearchSpace& space, const std::string& chosen, const std::vector<std::string>& candidates);

// Whether a recorded config string is the workload's default config.
using DefaultPredicate = std::function<bool(const std::string& config)>;

// Scores by shape (ordered by dims) over `records`, which should all be of one workload and space.
std::map<Dims, ShapeScores> ScoreConfigs(const std::vector<const TuningRecord*>& records,
                                        const DefaultPredicate& is_default,
                                        Objective objective = Objective::kMedian);
// The same with `space`'s default config; records whose config the space cannot parse are left out.
std::map<Dims, ShapeScores> ScoreConfigs(const SearchSpace& space, const std::vector<TuningRecord>& records,
                                        Objective objective = Objective::kMedian);

// Whether a record can speak for `objective`: always at the median; at a tail, when it has the rounds the tail
// needs (MinimumRounds: a p95 of 10 samples is no evidence of the tail).
bool HasFigureAt(const TuningRecord& record, Objective objective);
// A record's latency at the objective (its median, p95 or p99); NaN when not recorded or !HasFigureAt.
double RecordLatencyAt(const TuningRecord& record, Objective objective);

// A record's speedup over the default by the rule above, given the default's latency at the objective at its
// shape (NaN when unknown); NaN when it cannot be known. `in_run` says which kind it is.
double RecordSpeedup(const TuningRecord& record, const DefaultPredicate& is_default, double default_latency_us,
                     bool* in_run, Objective objective = Objective::kMedian);

}  // namespace crmap
