// Confidence calibration: what the critic ensemble's agreement on a decision is worth, measured at training by
// leaving each tuned shape out (`crmap train`; docs/policy-format.md, "Calibration").
//
// The hook's raw confidence is the share of its critics that predict the chosen config within 5% of their own
// best (policy_model.h). Members trained on resamples of the same data share its blind spots, so on shapes
// unlike the tuned ones they can agree and all be wrong (issue 12 measured 80-100% agreement with 0-14% of the
// decisions right). Calibration asks the data instead: for each tuned shape s, critics trained without any
// observation of s choose among the configs a policy trained without s would screen there (the other tuned
// shapes' labels, the fallback and the incumbent, each chosen without s: FoldCandidates), by the hook's rule
// (mean - pessimism x spread, the incumbent kept unless beaten by the switch margin); the choice is right when it
// was measured at s and stands best or tied there (config_scores.h: StandingAt, with the record noise the whole
// database shows, as the labels tie: a single lucky record of another config does not make the choice wrong —
// judged at 5% alone the folds stated far less than the held-out shapes showed: experiments/RESULTS.md). Those
// fold outcomes, binned by agreement, give the rate the hook states for each band.
//
// LeaveOneShapeOut trains LibTorch critics (agents/cost_model.h); CalibrationFromFolds is a pure function.
// Deterministic for a seed when LibTorch runs on one thread. Not thread-safe.
#pragma once

#include <map>
#include <vector>

#include "agents/evaluator.h"
#include "runtime/hook/policy_file.h"
#include "search_space/features.h"
#include "search_space/search_space.h"
#include "tuner/config_scores.h"
#include "tuner/tuning_db.h"

namespace crmap {

// One held-out tuned shape: the fold critics' agreement on their choice there, and whether the choice was
// measured at the shape and stood within the noise band of its best.
struct FoldOutcome {
  double agreement = 0;  // in [0, 1]
  bool measured = false;
  bool within_noise = false;
};

// The agreement bands calibrated: [0, 0.5), [0.5, 0.8), [0.8, 1] (the bands `crmap evaluate` checks).
inline constexpr float kCalibrationBandStarts[] = {0.0f, 0.5f, 0.8f};

// One bin per band. Unmeasured folds are left out. A bin's rate is its share of right choices shrunk towards
// the overall share: (within + 2 x overall) / (folds + 2), with overall = (all within + 1) / (all folds + 2),
// so a bin of few folds states little more than the overall rate and no rate is ever exactly 0 or 1. Empty
// when no fold was measured (the hook then states the raw agreement).
std::vector<CalibrationBin> CalibrationFromFolds(const std::vector<FoldOutcome>& folds);

// How LeaveOneShapeOut trains and decides: as `crmap train` and the hook do for the policy it calibrates.
struct LeaveOneShapeOutOptions {
  uint64_t seed = 1;
  int critics = 5;  // per fold: the first on every observation left, the rest on bootstrap resamples of them
  int epochs = 800;
  int hidden = 32;
  double pessimism = 1;
  double switch_margin = 0.05;  // the incumbent stays unless beaten by log(1 + this) (policy_model.h: Decide)
  bool neighbour_incumbent = false;  // as the policy file's flag: FoldCandidates
};

// What a fold screens: the configs, and which of them is the incumbent (an index into `configs`).
struct FoldCandidateSet {
  std::vector<Config> configs;
  size_t incumbent = 0;
};

// The configs a policy trained without `held_out` would screen there: the noise-aware labels of the other
// `shapes` (config_scores.h: NoiseAwareLabel over the scores without `held_out`, whose tie-break counts shapes,
// tying within the record noise those scores show: EstimateRecordNoise, as the trainer's labels do), the
// fallback and the incumbent chosen without it (policy_trainer.h: ChooseFallback, ChooseStaticPlan), distinct, in
// shape order, then the fallback, then the incumbent unless it is one of those. With `neighbour_incumbent` the
// incumbent is the label the two shapes nearest `held_out` share, where they share one (policy_model.h:
// IncumbentAt). The hook also screens the policy network's greedy config; a fold has no network of its own
// (training one per fold would cost the policy's training again), so its choice is among these only.
FoldCandidateSet FoldCandidates(const SearchSpace& space, const std::map<Dims, ShapeScores>& scores,
                                const std::vector<Dims>& shapes, const Dims& held_out,
                                bool neighbour_incumbent = false);

// One outcome per shape of `shapes` (in order) when there are at least two: critics trained on the
// `observations` of every other shape choose among FoldCandidates by the hook's rule (policy_model.h: Decide).
// `scores` are ScoreConfigs of the records the observations came from.
std::vector<FoldOutcome> LeaveOneShapeOut(const SearchSpace& space, const FeatureSpec& features,
                                          const std::vector<std::pair<Candidate, Evaluation>>& observations,
                                          const std::map<Dims, ShapeScores>& scores, const std::vector<Dims>& shapes,
                                          const LeaveOneShapeOutOptions& options);

}  // namespace crmap
