#include "tuner/config_scores.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "common/numeric.h"
#include "tuner/nearest_shape.h"

namespace crmap {

const char* SpeedupBasisName(SpeedupBasis basis) {
  switch (basis) {
    case SpeedupBasis::kInRun: return "in_batch_ratio";
    case SpeedupBasis::kAcrossRuns: return "ratio_of_medians";
    case SpeedupBasis::kNone: return "none";
  }
  return "none";
}

bool BetterScore(const ConfigScore& a, const ConfigScore& b) {
  const bool ka = std::isfinite(a.speedup), kb = std::isfinite(b.speedup);
  if (ka != kb) return ka;
  if (ka && a.speedup != b.speedup) return a.speedup > b.speedup;
  if (std::isfinite(a.objective_us) != std::isfinite(b.objective_us)) return std::isfinite(a.objective_us);
  return a.objective_us < b.objective_us;
}

const ConfigScore* ShapeScores::Best() const {
  const ConfigScore* best = nullptr;
  for (const auto& [name, score] : configs)
    if (score.ran() && (!best || BetterScore(score, *best))) best = &score;
  return best;
}

const ConfigScore* ShapeScores::Find(const std::string& config) const {
  auto it = configs.find(config);
  return it == configs.end() ? nullptr : &it->second;
}

const char* StandingName(Standing standing) {
  switch (standing) {
    case Standing::kBest: return "best";
    case Standing::kTied: return "tied";
    case Standing::kBehind: return "behind";
    case Standing::kUnknown: return "unknown";
  }
  return "unknown";
}

double EstimateRecordNoise(const std::map<Dims, ShapeScores>& scores) {
  constexpr double kMedianOfAbsNormal = 0.6745;
  if (scores.size() < 2) return 0;
  std::vector<Dims> shapes;
  for (const auto& [dims, shape] : scores) shapes.push_back(dims);
  auto log_speedup = [](const ConfigScore& score) {
    return score.ran() && std::isfinite(score.speedup) && score.speedup > 0 ? std::log(score.speedup)
                                                                             : std::numeric_limits<double>::quiet_NaN();
  };
  std::set<std::pair<Dims, Dims>> pairs;
  std::vector<double> differences;
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::vector<Dims> others = shapes;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
    const Dims& nearest = others[NearestShapes(others).Nearest(shapes[i])];
    if (!pairs.insert(std::minmax(shapes[i], nearest)).second) continue;
    const ShapeScores& there = scores.at(nearest);
    std::vector<double> changes;
    for (const auto& [config, score] : scores.at(shapes[i]).configs) {
      const ConfigScore* other = there.Find(config);
      // One record each side: a median of several (a campaign's rechecks) is less noisy than one record.
      if (!other || score.is_default || score.ok != 1 || other->ok != 1) continue;
      const double change = log_speedup(score) - log_speedup(*other);
      if (std::isfinite(change)) changes.push_back(change);
    }
    for (size_t a = 0; a < changes.size(); ++a)
      for (size_t b = a + 1; b < changes.size(); ++b) differences.push_back(std::fabs(changes[a] - changes[b]));
  }
  if (differences.size() < kMinNoiseDifferences) return 0;
  return std::min(kMaxRecordNoise, Median(differences) / (2 * kMedianOfAbsNormal));
}

double TieBand(double band, double record_noise, size_t ok_best, size_t ok_config) {
  if (!(record_noise > 0) || ok_best == 0 || ok_config == 0) return band;
  const double spread =
      record_noise * std::sqrt(1.0 / static_cast<double>(ok_best) + 1.0 / static_cast<double>(ok_config));
  return std::max(band, std::exp(kOneSidedZ95 * spread) - 1);
}

Standing StandingAt(const ShapeScores& shape, const std::string& config, double band, double record_noise) {
  const ConfigScore* best = shape.Best();
  const ConfigScore* score = shape.Find(config);
  if (!best || !score || !score->ran()) return Standing::kUnknown;
  if (score == best) return Standing::kBest;
  if (!(std::isfinite(score->speedup) && std::isfinite(best->speedup))) return Standing::kUnknown;
  const double tie_band = TieBand(band, record_noise, best->ok, score->ok);
  return best->speedup <= score->speedup * (1 + tie_band) ? Standing::kTied : Standing::kBehind;
}

int DeepestFusionOf(const SearchSpace& space, const std::string& chosen, const std::vector<std::string>& candidates) {
  const Result<Config> base = space.Parse(chosen);
  if (!base.ok()) return -1;
  int deepest = -1, deepest_depth = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Result<Config> config = space.Parse(candidates[i]);
    if (!config.ok() || !space.FusesFurther(*config, *base)) continue;
    const int depth = space.FusionDepth(*config);
    if (deepest < 0 || depth > deepest_depth) {
      deepest = static_cast<int>(i);
      deepest_depth = depth;
    }
  }
  return deepest;
}

const ConfigScore* NoiseAwareLabel(const std::map<Dims, ShapeScores>& scores, const Dims& dims, double band,
                                   double record_noise, const SearchSpace* space) {
  auto here = scores.find(dims);
  if (here == scores.end()) return nullptr;
  const ConfigScore* label = here->second.Best();
  if (!label) return nullptr;
  struct Generality {
    size_t best_or_tied = 0;
    double mean_log_speedup = 0;
  };
  auto generality = [&](const std::string& config) {
    Generality g;
    size_t known = 0;
    for (const auto& [shape_dims, shape] : scores) {
      const Standing standing = StandingAt(shape, config, band, record_noise);
      g.best_or_tied += standing == Standing::kBest || standing == Standing::kTied;
      const ConfigScore* score = shape.Find(config);
      if (score && score->ran() && std::isfinite(score->speedup) && score->speedup > 0) {
        g.mean_log_speedup += std::log(score->speedup);
        ++known;
      }
    }
    if (known) g.mean_log_speedup /= static_cast<double>(known);
    return g;
  };
  Generality label_generality = generality(label->config);
  for (const auto& [config, score] : here->second.configs) {
    if (&score == label || StandingAt(here->second, config, band, record_noise) != Standing::kTied) continue;
    const Generality g = generality(config);
    const bool better = g.best_or_tied != label_generality.best_or_tied
                            ? g.best_or_tied > label_generality.best_or_tied
                        : g.mean_log_speedup != label_generality.mean_log_speedup
                            ? g.mean_log_speedup > label_generality.mean_log_speedup
                            : BetterScore(score, *label);
    if (better) {
      label = &score;
      label_generality = g;
    }
  }
  if (!space) return label;
  // The tied configs that fuse further than the label, best score first (so the first of equal depth is it).
  std::vector<const ConfigScore*> tied;
  for (const auto& [config, score] : here->second.configs) {
    const Standing standing = StandingAt(here->second, config, band, record_noise);
    if (&score != label && (standing == Standing::kBest || standing == Standing::kTied)) tied.push_back(&score);
  }
  std::stable_sort(tied.begin(), tied.end(),
                   [](const ConfigScore* a, const ConfigScore* b) { return BetterScore(*a, *b); });
  std::vector<std::string> names;
  for (const ConfigScore* score : tied) names.push_back(score->config);
  const int deeper = DeepestFusionOf(*space, label->config, names);
  return deeper < 0 ? label : tied[static_cast<size_t>(deeper)];
}

bool HasFigureAt(const TuningRecord& record, Objective objective) {
  return objective == Objective::kMedian || record.rounds >= MinimumRounds(objective);
}

namespace {

// The one of three per-objective fields `objective` names; NaN when the record cannot support it.
double FieldAt(const TuningRecord& record, Objective objective, double median, double p95, double p99) {
  if (!HasFigureAt(record, objective)) return std::numeric_limits<double>::quiet_NaN();
  return objective == Objective::kP95 ? p95 : objective == Objective::kP99 ? p99 : median;
}

double RatioToAnchorAt(const TuningRecord& r, Objective objective) {
  return FieldAt(r, objective, r.ratio_to_anchor, r.p95_ratio_to_anchor, r.p99_ratio_to_anchor);
}

}  // namespace

double RecordLatencyAt(const TuningRecord& r, Objective objective) {
  return FieldAt(r, objective, r.median_us, r.p95_us, r.p99_us);
}

double RecordSpeedup(const TuningRecord& r, const DefaultPredicate& is_default, double default_latency_us,
                     bool* in_run, Objective objective) {
  *in_run = false;
  if (r.status != "ok") return std::numeric_limits<double>::quiet_NaN();
  if (is_default(r.config)) {
    *in_run = true;
    return 1.0;
  }
  const double ratio = RatioToAnchorAt(r, objective);
  if (std::isfinite(ratio) && ratio > 0 && is_default(r.anchor)) {
    *in_run = true;
    return 1.0 / ratio;
  }
  const double latency = RecordLatencyAt(r, objective);
  if (std::isfinite(default_latency_us) && std::isfinite(latency) && latency > 0) return default_latency_us / latency;
  return std::numeric_limits<double>::quiet_NaN();
}

std::map<Dims, ShapeScores> ScoreConfigs(const std::vector<const TuningRecord*>& records,
                                        const DefaultPredicate& is_default, Objective objective) {
  std::map<Dims, std::vector<const TuningRecord*>> by_shape;
  for (const TuningRecord* r : records)
    if (!r->baseline) by_shape[r->dims].push_back(r);
  std::map<Dims, ShapeScores> out;
  for (const auto& [dims, at_shape] : by_shape) {
    ShapeScores& shape = out[dims];
    shape.dims = dims;
    std::vector<double> default_medians, default_objectives;
    for (const TuningRecord* r : at_shape)
      if (r->status == "ok" && is_default(r->config)) {
        default_medians.push_back(r->median_us);
        default_objectives.push_back(RecordLatencyAt(*r, objective));
      }
    shape.default_median_us = Median(default_medians);
    shape.default_objective_us = Median(default_objectives);

    struct Samples {
      std::vector<double> speedups, medians, p99s, objectives;
      size_t in_run = 0;
    };
    std::map<std::string, Samples> samples;
    for (const TuningRecord* r : at_shape) {
      ++shape.records;
      ConfigScore& score = shape.configs[r->config];
      score.config = r->config;
      score.is_default = is_default(r->config);
      if (r->status != "ok") {
        if (score.failed++ == 0) {
          score.failure_status = r->status;
          score.failure_message = r->message;
        }
        continue;
      }
      ++shape.ok;
      ++score.ok;
      Samples& s = samples[r->config];
      s.medians.push_back(r->median_us);
      s.p99s.push_back(r->p99_us);
      s.objectives.push_back(RecordLatencyAt(*r, objective));
      bool in_run = false;
      double speedup = RecordSpeedup(*r, is_default, shape.default_objective_us, &in_run, objective);
      if (std::isfinite(speedup)) {
        s.speedups.push_back(speedup);
        s.in_run += in_run;
      }
    }
    for (auto& [config, s] : samples) {
      ConfigScore& score = shape.configs[config];
      score.speedup = Median(s.speedups);
      score.median_us = Median(s.medians);
      score.p99_us = Median(s.p99s);
      score.objective_us = Median(s.objectives);
      if (std::isfinite(score.speedup))
        score.basis = s.in_run == s.speedups.size() ? SpeedupBasis::kInRun : SpeedupBasis::kAcrossRuns;
    }
  }
  return out;
}

std::map<Dims, ShapeScores> ScoreConfigs(const SearchSpace& space, const std::vector<TuningRecord>& records,
                                        Objective objective) {
  std::vector<const TuningRecord*> parsed;
  std::map<std::string, bool> is_default_cache;
  const Config defaults = space.Default();
  for (const TuningRecord& r : records) {
    if (r.baseline) continue;
    auto it = is_default_cache.find(r.config);
    if (it == is_default_cache.end()) {
      auto config = space.Parse(r.config);
      if (!config.ok()) continue;  // a config of another space version
      it = is_default_cache.emplace(r.config, *config == defaults).first;
    }
    parsed.push_back(&r);
  }
  const std::string canonical_default = space.ToString(defaults);
  auto is_default = [&](const std::string& config) {
    auto it = is_default_cache.find(config);
    if (it != is_default_cache.end()) return it->second;
    return config == canonical_default;
  };
  return ScoreConfigs(parsed, is_default, objective);
}

}  // namespace crmap
