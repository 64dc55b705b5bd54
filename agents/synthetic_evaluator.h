// Synthetic evaluators: latency landscapes with known optima over a real SearchSpace, for unit tests of the
// agents (the third Evaluator next to the backend and replay; see agents/evaluator.h).
//
// A landscape gives every (dims, plan config) a latency and a status; Evaluate turns them into Evaluations
// with speedup = latency of the space's default config at the same dims / latency of the candidate, exactly
// (no noise). Runtime knobs are ignored. Two landscapes:
//   SeparableLandscape  every plan knob value has a fixed cost factor drawn from a seed; latency is the
//                       product. Values declared "always fails" make every config holding them unsupported
//                       (what an agent's masking must learn).
//   ShapeFlipLandscape  separable, plus one knob whose best value flips with the shape: below a size
//                       threshold (product of the dims) one value is best, from the threshold on another —
//                       what a shape-conditioned policy must transfer.
// Both know their optimum per shape (Optimum, OptimumSpeedup) and keep a log of every candidate evaluated, so
// tests can check "found the optimum" and "no candidate evaluated twice".
//
// Not thread-safe (like every Evaluator). Const methods are pure functions of the options and the dims.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agents/evaluator.h"
#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap {

// The common part: Evaluate, the evaluation log, and a brute-force optimum over the plan space.
class SyntheticEvaluator : public Evaluator {
 public:
  explicit SyntheticEvaluator(const SearchSpace& space) : space_(&space) {}

  std::vector<Evaluation> Evaluate(const std::vector<Candidate>& candidates) override;

  // The landscape itself. LatencyUs is defined for every config, failing ones included (the default's
  // latency is the reference even if the default fails).
  virtual double LatencyUs(const Dims& dims, const Config& config) const = 0;
  // kOk, or the failing status; `why` (optional) says which knob value failed.
  virtual EvalStatus StatusOf(const Config& config, std::string* why = nullptr) const;

  // Speedup over the default config (0 for failing configs): what Evaluate reports.
  double Speedup(const Dims& dims, const Config& config) const;
  // The plan config with the highest speedup for `dims` (ties: the lowest NthConfig index). This version
  // enumerates the plan space; landscapes with a closed form override it.
  virtual Config Optimum(const Dims& dims) const;
  double OptimumSpeedup(const Dims& dims) const { return Speedup(dims, Optimum(dims)); }

  const SearchSpace& space() const { return *space_; }
  size_t evaluations() const { return evaluated_.size(); }
  // Every candidate passed to Evaluate, in order.
  const std::vector<Candidate>& evaluated() const { return evaluated_; }
  // How many evaluations repeated a (dims, config) evaluated before (0 for a well-behaved agent).
  size_t repeated() const { return repeated_; }

 protected:
  const SearchSpace* space_;

 private:
  std::vector<Candidate> evaluated_;
  std::set<std::string> keys_;
  size_t repeated_ = 0;
};

// Plan knob and value names, e.g. {"precision", "bf16"}.
using KnobValue = std::pair<std::string, std::string>;

struct SeparableOptions {
  uint64_t seed = 1;
  // Cost factors are drawn log-uniformly from [1 / spread, spread].
  double spread = 3.0;
  // Knob values that make a config fail with kUnsupported. Names must exist in the space (checked by
  // the constructor: unknown names are ignored and reported by unknown()).
  std::vector<KnobValue> failing;
  // False: one factor table for all shapes (every shape has the same optimum). True: the factors are drawn
  // per shape (from the seed and the dims), so every shape has its own optimum.
  bool per_shape = false;
};

// latency(dims, config) = base(dims) * prod_k factor(k, config[k]).
class SeparableLandscape : public SyntheticEvaluator {
 public:
  SeparableLandscape(const SearchSpace& space, SeparableOptions options);

  double LatencyUs(const Dims& dims, const Config& config) const override;
  EvalStatus StatusOf(const Config& config, std::string* why = nullptr) const override;
  // Closed form: per plan knob, the cheapest value that does not fail.
  Config Optimum(const Dims& dims) const override;

  // The cost factor of value `value` of knob `knob` at `dims`.
  double Factor(const Dims& dims, size_t knob, int value) const;
  // Names in options.failing that the space does not have.
  const std::vector<KnobValue>& unknown() const { return unknown_; }

 private:
  SeparableOptions options_;
  std::vector<std::vector<bool>> fails_;  // [knob][value]
  std::vector<KnobValue> unknown_;
};

struct ShapeFlipOptions {
  uint64_t seed = 1;
  double spread = 3.0;           // the other knobs' factors, as in SeparableOptions
  std::string knob = "threads";  // the knob whose best value flips
  std::string small_best;        // its best value below the threshold ("" = the knob's first value)
  std::string large_best;        // its best value at or above the threshold ("" = the knob's last value)
  int64_t threshold = 64;        // on the product of the dims' values
  double gain = 0.4;             // the best value's factor; the knob's other values have factor 1
};

// latency = base(dims) * flip factor(dims, config[knob]) * prod over the other plan knobs of a seeded factor
// (the same for every shape). The optimum differs between small and large shapes in exactly that knob.
class ShapeFlipLandscape : public SyntheticEvaluator {
 public:
  // If the space has no plan knob options.knob (or the value names are unknown), the flip is off and
  // flip_knob() is -1.
  ShapeFlipLandscape(const SearchSpace& space, ShapeFlipOptions options);

  double LatencyUs(const Dims& dims, const Config& config) const override;
  Config Optimum(const Dims& dims) const override;

  bool IsSmall(const Dims& dims) const;
  int flip_knob() const { return flip_knob_; }
  // The flip knob's best value index at `dims`.
  int BestFlipValue(const Dims& dims) const;

 private:
  double Factor(const Dims& dims, size_t knob, int value) const;
  ShapeFlipOptions options_;
  int flip_knob_ = -1;
  int small_best_ = 0, large_best_ = 0;
};

}  // namespace crmap
