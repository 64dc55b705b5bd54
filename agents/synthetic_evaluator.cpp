#include "agents/synthetic_evaluator.h"

#include <cmath>

#include "common/hash.h"

namespace crmap {

namespace {

// The latency of the default config grows with the problem size; speedups do not depend on it.
double BaseLatencyUs(const Dims& dims) {
  double size = 1;
  for (const auto& [name, value] : dims) size *= static_cast<double>(value > 0 ? value : 1);
  return 10.0 * size;
}

// A factor in [1 / spread, spread], log-uniform, fixed by (seed, knob, value, salt).
double DrawFactor(uint64_t seed, size_t knob, int value, uint64_t salt, double spread) {
  uint64_t h = MixSeed(seed ^ MixSeed((static_cast<uint64_t>(knob) << 32) + static_cast<uint64_t>(value)) ^ salt);
  double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
  return std::exp((2 * u - 1) * std::log(spread > 1 ? spread : 1.0));
}

// base(dims) * prod over the plan knobs of factor(knob, value).
template <typename FactorFn>
double ProductLatency(const SearchSpace& space, const Dims& dims, const Config& config, FactorFn factor) {
  double latency = BaseLatencyUs(dims);
  const auto& knobs = space.knobs();
  for (size_t k = 0; k < knobs.size(); ++k)
    if (knobs[k].scope == KnobScope::kPlan) latency *= factor(k, config.values[k]);
  return latency;
}

// The optimum of a separable landscape: per plan knob the allowed value with the smallest factor (ties: the
// lowest index); runtime knobs at their defaults.
template <typename FactorFn, typename AllowedFn>
Config ArgminPerKnob(const SearchSpace& space, FactorFn factor, AllowedFn allowed) {
  Config best = space.Default();
  const auto& knobs = space.knobs();
  for (size_t k = 0; k < knobs.size(); ++k) {
    if (knobs[k].scope != KnobScope::kPlan) continue;
    double best_factor = 0;
    for (int v = 0; v < static_cast<int>(knobs[k].values.size()); ++v) {
      if (!allowed(k, v)) continue;
      double f = factor(k, v);
      if (best_factor == 0 || f < best_factor) {
        best_factor = f;
        best.values[k] = v;
      }
    }
  }
  return best;
}

int ValueIndex(const Knob& knob, const std::string& name) {
  for (size_t v = 0; v < knob.values.size(); ++v)
    if (knob.values[v] == name) return static_cast<int>(v);
  return -1;
}

}  // namespace

std::vector<Evaluation> SyntheticEvaluator::Evaluate(const std::vector<Candidate>& candidates) {
  std::vector<Evaluation> out;
  out.reserve(candidates.size());
  for (const Candidate& candidate : candidates) {
    evaluated_.push_back(candidate);
    if (!keys_.insert(CandidateKey(*space_, candidate)).second) ++repeated_;
    Evaluation evaluation;
    evaluation.status = StatusOf(candidate.config, &evaluation.message);
    if (evaluation.ok()) {
      evaluation.median_us = LatencyUs(candidate.dims, candidate.config);
      evaluation.p99_us = 1.1 * evaluation.median_us;
      evaluation.speedup = Speedup(candidate.dims, candidate.config);
    }
    out.push_back(std::move(evaluation));
  }
  return out;
}

EvalStatus SyntheticEvaluator::StatusOf(const Config&, std::string*) const { return EvalStatus::kOk; }

double SyntheticEvaluator::Speedup(const Dims& dims, const Config& config) const {
  if (StatusOf(config) != EvalStatus::kOk) return 0;
  return LatencyUs(dims, space_->Default()) / LatencyUs(dims, config);
}

Config SyntheticEvaluator::Optimum(const Dims& dims) const {
  Config best = space_->Default();
  double best_speedup = -1;
  const uint64_t size = space_->Size(KnobScope::kPlan);
  for (uint64_t i = 0; i < size; ++i) {
    Config config = space_->NthConfig(i, KnobScope::kPlan);
    double speedup = Speedup(dims, config);
    if (speedup > 0 && speedup > best_speedup) {
      best = config;
      best_speedup = speedup;
    }
  }
  return best;
}

// --- SeparableLandscape ---------------------------------------------------------------------------------

SeparableLandscape::SeparableLandscape(const SearchSpace& space, SeparableOptions options)
    : SyntheticEvaluator(space), options_(std::move(options)) {
  for (const Knob& knob : space.knobs()) fails_.emplace_back(knob.values.size(), false);
  for (const KnobValue& failing : options_.failing) {
    int k = space.FindKnob(failing.first);
    int v = k < 0 ? -1 : ValueIndex(space.knobs()[static_cast<size_t>(k)], failing.second);
    if (v < 0 || space.knobs()[static_cast<size_t>(k)].scope != KnobScope::kPlan) {
      unknown_.push_back(failing);
      continue;
    }
    fails_[static_cast<size_t>(k)][static_cast<size_t>(v)] = true;
  }
}

double SeparableLandscape::Factor(const Dims& dims, size_t knob, int value) const {
  uint64_t salt = options_.per_shape ? Fnv1a64(DimsToText(dims)) : 0;
  return DrawFactor(options_.seed, knob, value, salt, options_.spread);
}

double SeparableLandscape::LatencyUs(const Dims& dims, const Config& config) const {
  return ProductLatency(*space_, dims, config, [&](size_t k, int v) { return Factor(dims, k, v); });
}

EvalStatus SeparableLandscape::StatusOf(const Config& config, std::string* why) const {
  const auto& knobs = space_->knobs();
  for (size_t k = 0; k < knobs.size(); ++k) {
    int v = config.values[k];
    if (v >= 0 && static_cast<size_t>(v) < fails_[k].size() && fails_[k][static_cast<size_t>(v)]) {
      if (why) *why = "synthetic: " + knobs[k].name + "=" + knobs[k].values[static_cast<size_t>(v)] + " always fails";
      return EvalStatus::kUnsupported;
    }
  }
  return EvalStatus::kOk;
}

Config SeparableLandscape::Optimum(const Dims& dims) const {
  return ArgminPerKnob(
      *space_, [&](size_t k, int v) { return Factor(dims, k, v); },
      [&](size_t k, int v) { return !fails_[k][static_cast<size_t>(v)]; });
}

// --- ShapeFlipLandscape ---------------------------------------------------------------------------------

ShapeFlipLandscape::ShapeFlipLandscape(const SearchSpace& space, ShapeFlipOptions options)
    : SyntheticEvaluator(space), options_(std::move(options)) {
  int k = space.FindKnob(options_.knob);
  if (k < 0 || space.knobs()[static_cast<size_t>(k)].scope != KnobScope::kPlan) return;
  const Knob& knob = space.knobs()[static_cast<size_t>(k)];
  if (knob.values.size() < 2) return;
  small_best_ = options_.small_best.empty() ? 0 : ValueIndex(knob, options_.small_best);
  large_best_ =
      options_.large_best.empty() ? static_cast<int>(knob.values.size()) - 1 : ValueIndex(knob, options_.large_best);
  if (small_best_ < 0 || large_best_ < 0) return;
  flip_knob_ = k;
}

bool ShapeFlipLandscape::IsSmall(const Dims& dims) const {
  double size = 1;
  for (const auto& [name, value] : dims) size *= static_cast<double>(value);
  return size < static_cast<double>(options_.threshold);
}

int ShapeFlipLandscape::BestFlipValue(const Dims& dims) const { return IsSmall(dims) ? small_best_ : large_best_; }

double ShapeFlipLandscape::Factor(const Dims& dims, size_t knob, int value) const {
  if (static_cast<int>(knob) == flip_knob_) return value == BestFlipValue(dims) ? options_.gain : 1.0;
  return DrawFactor(options_.seed, knob, value, 0, options_.spread);
}

double ShapeFlipLandscape::LatencyUs(const Dims& dims, const Config& config) const {
  return ProductLatency(*space_, dims, config, [&](size_t k, int v) { return Factor(dims, k, v); });
}

Config ShapeFlipLandscape::Optimum(const Dims& dims) const {
  return ArgminPerKnob(
      *space_, [&](size_t k, int v) { return Factor(dims, k, v); }, [](size_t, int) { return true; });
}

}  // namespace crmap
