#include "tuner/config_scores.h"

#include <cmath>

#include "common/numeric.h"

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
  if (std::isfinite(a.median_us) != std::isfinite(b.median_us)) return std::isfinite(a.median_us);
  return a.median_us < b.median_us;
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

double RecordSpeedup(const TuningRecord& r, const DefaultPredicate& is_default, double default_median_us,
                     bool* in_run) {
  *in_run = false;
  if (r.status != "ok") return std::numeric_limits<double>::quiet_NaN();
  if (is_default(r.config)) {
    *in_run = true;
    return 1.0;
  }
  if (std::isfinite(r.ratio_to_anchor) && r.ratio_to_anchor > 0 && is_default(r.anchor)) {
    *in_run = true;
    return 1.0 / r.ratio_to_anchor;
  }
  if (std::isfinite(default_median_us) && std::isfinite(r.median_us) && r.median_us > 0)
    return default_median_us / r.median_us;
  return std::numeric_limits<double>::quiet_NaN();
}

std::map<Dims, ShapeScores> ScoreConfigs(const std::vector<const TuningRecord*>& records,
                                        const DefaultPredicate& is_default) {
  std::map<Dims, std::vector<const TuningRecord*>> by_shape;
  for (const TuningRecord* r : records)
    if (!r->baseline) by_shape[r->dims].push_back(r);
  std::map<Dims, ShapeScores> out;
  for (const auto& [dims, at_shape] : by_shape) {
    ShapeScores& shape = out[dims];
    shape.dims = dims;
    std::vector<double> default_medians;
    for (const TuningRecord* r : at_shape)
      if (r->status == "ok" && is_default(r->config)) default_medians.push_back(r->median_us);
    shape.default_median_us = Median(default_medians);

    struct Samples {
      std::vector<double> speedups, medians, p99s;
      size_t in_run = 0;
    };
    std::map<std::string, Samples> samples;
    for (const TuningRecord* r : at_shape) {
      ++shape.records;
      ConfigScore& score = shape.configs[r->config];
      score.config = r->config;
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
      bool in_run = false;
      double speedup = RecordSpeedup(*r, is_default, shape.default_median_us, &in_run);
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
      if (std::isfinite(score.speedup))
        score.basis = s.in_run == s.speedups.size() ? SpeedupBasis::kInRun : SpeedupBasis::kAcrossRuns;
    }
  }
  return out;
}

std::map<Dims, ShapeScores> ScoreConfigs(const SearchSpace& space, const std::vector<TuningRecord>& records) {
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
  return ScoreConfigs(parsed, is_default);
}

}  // namespace crmap
