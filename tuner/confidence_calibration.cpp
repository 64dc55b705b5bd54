#include "tuner/confidence_calibration.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>

#include "agents/cost_model.h"
#include "tuner/nearest_shape.h"
#include "tuner/policy_trainer.h"

namespace crmap {

std::vector<CalibrationBin> CalibrationFromFolds(const std::vector<FoldOutcome>& folds) {
  constexpr size_t kBands = std::size(kCalibrationBandStarts);
  std::vector<CalibrationBin> bins(kBands);
  uint32_t all_folds = 0, all_within = 0;
  for (size_t b = 0; b < kBands; ++b) bins[b].from = kCalibrationBandStarts[b];
  for (const FoldOutcome& fold : folds) {
    if (!fold.measured) continue;
    size_t b = 0;
    // Compared as floats, as the hook compares (policy_model.h: Calibrated): 4 of 5 critics is in [0.8, 1].
    while (b + 1 < kBands && static_cast<float>(fold.agreement) >= kCalibrationBandStarts[b + 1]) ++b;
    ++bins[b].folds;
    bins[b].within += fold.within_noise;
    ++all_folds;
    all_within += fold.within_noise;
  }
  if (all_folds == 0) return {};
  const double overall = (all_within + 1.0) / (all_folds + 2.0);
  for (CalibrationBin& bin : bins) bin.rate = static_cast<float>((bin.within + 2.0 * overall) / (bin.folds + 2.0));
  return bins;
}

FoldCandidateSet FoldCandidates(const SearchSpace& space, const std::map<Dims, ShapeScores>& scores,
                                const std::vector<Dims>& shapes, const Dims& held_out, bool neighbour_incumbent) {
  // A shape's scores come from its own records alone, so these are the scores of the records left.
  std::map<Dims, ShapeScores> scores_left = scores;
  scores_left.erase(held_out);
  std::vector<Dims> shapes_left;
  for (const Dims& dims : shapes)
    if (dims != held_out) shapes_left.push_back(dims);
  const double record_noise = EstimateRecordNoise(scores_left);
  std::vector<Config> candidates;
  std::vector<std::string> labels;  // per shape left ("" without one)
  std::set<std::string> seen;
  for (const Dims& dims : shapes_left) {
    const ConfigScore* label = NoiseAwareLabel(scores_left, dims, kNoiseBand, record_noise, &space);
    labels.push_back(label ? label->config : "");
    if (!label || !seen.insert(label->config).second) continue;
    if (auto config = space.Parse(label->config); config.ok()) candidates.push_back(*config);
  }
  const Config fallback = ChooseFallback(space, scores_left, shapes_left);
  if (seen.insert(space.ToString(fallback)).second) candidates.push_back(fallback);
  FoldCandidateSet set;
  Config incumbent = ChooseStaticPlan(space, scores_left, shapes_left);
  if (neighbour_incumbent && shapes_left.size() >= 2) {
    const auto [nearest, next] = NearestShapes(shapes_left).NearestTwo(held_out);
    if (!labels[nearest].empty() && labels[nearest] == labels[next])
      if (auto shared = space.Parse(labels[nearest]); shared.ok()) incumbent = *shared;
  }
  auto found = std::find(candidates.begin(), candidates.end(), incumbent);
  set.incumbent = static_cast<size_t>(found - candidates.begin());
  if (found == candidates.end()) candidates.push_back(incumbent);
  set.configs = std::move(candidates);
  return set;
}

std::vector<FoldOutcome> LeaveOneShapeOut(const SearchSpace& space, const FeatureSpec& features,
                                          const std::vector<std::pair<Candidate, Evaluation>>& observations,
                                          const std::map<Dims, ShapeScores>& scores, const std::vector<Dims>& shapes,
                                          const LeaveOneShapeOutOptions& options) {
  std::vector<FoldOutcome> outcomes;
  if (shapes.size() < 2 || options.critics < 1) return outcomes;
  // A fold's choice is judged as the labels are chosen: tied with the best measured at the shape left out where
  // the records cannot tell them apart (the noise every shape's records show), not only within 5% of a best that
  // is itself the luckiest of the shape's single records.
  const double record_noise = EstimateRecordNoise(scores);
  size_t fold_index = 0;
  for (const Dims& held_out : shapes) {
    ++fold_index;
    const FoldCandidateSet fold_candidates =
        FoldCandidates(space, scores, shapes, held_out, options.neighbour_incumbent);
    const std::vector<Config>& candidates = fold_candidates.configs;
    if (candidates.empty()) continue;

    std::vector<const std::pair<Candidate, Evaluation>*> kept;
    for (const auto& observation : observations)
      if (observation.first.dims != held_out) kept.push_back(&observation);
    if (kept.empty()) continue;
    std::vector<std::vector<float>> inputs;
    for (const Config& config : candidates) inputs.push_back(features.Encode(held_out, config));

    // predictions[critic][candidate]
    std::vector<std::vector<double>> predictions;
    for (int c = 0; c < options.critics; ++c) {
      const uint64_t seed = options.seed * 2654435761u + fold_index * 1009 + static_cast<uint64_t>(c);
      CostModel critic(features.size(), seed, CostModelOptions{options.hidden});
      std::mt19937_64 rng(seed);
      std::uniform_int_distribution<size_t> pick(0, kept.size() - 1);
      for (size_t i = 0; i < kept.size(); ++i) {
        const auto& [candidate, evaluation] = *kept[c == 0 ? i : pick(rng)];
        critic.Add(features.Encode(candidate.dims, candidate.config), Reward(evaluation));
      }
      critic.Train(options.epochs);
      predictions.push_back(critic.Predict(inputs));
    }

    // The hook's rule (policy_model.h: Decide): the largest mean - pessimism x spread, unless it beats the
    // incumbent's by less than the switch margin; agreement: the share of critics that predict the choice within
    // log(1.05) of their own best.
    const double pessimism = predictions.size() > 1 ? options.pessimism : 0.0;
    size_t choice = 0;
    double best_score = -1e300, incumbent_score = 0;
    for (size_t k = 0; k < candidates.size(); ++k) {
      double sum = 0, sum_squares = 0;
      for (const auto& critic : predictions) {
        sum += critic[k];
        sum_squares += critic[k] * critic[k];
      }
      const double mean = sum / static_cast<double>(predictions.size());
      const double variance = std::max(0.0, sum_squares / static_cast<double>(predictions.size()) - mean * mean);
      const double score = mean - pessimism * std::sqrt(variance);
      if (k == fold_candidates.incumbent) incumbent_score = score;
      if (k == 0 || score > best_score) {
        best_score = score;
        choice = k;
      }
    }
    if (choice != fold_candidates.incumbent && best_score <= incumbent_score + std::log1p(options.switch_margin))
      choice = fold_candidates.incumbent;
    size_t agree = 0;
    for (const auto& critic : predictions) {
      double best = -1e300;  // as the hook folds it: a NaN prediction is never a critic's best
      for (double p : critic) best = std::max(best, p);
      agree += critic[choice] >= best - std::log(1.05);
    }

    FoldOutcome outcome;
    outcome.agreement = static_cast<double>(agree) / static_cast<double>(predictions.size());
    auto shape = scores.find(held_out);
    const Standing standing =
        shape == scores.end() ? Standing::kUnknown
                               : StandingAt(shape->second, space.ToString(candidates[choice]), kNoiseBand, record_noise);
    outcome.measured = standing != Standing::kUnknown;
    outcome.within_noise = standing == Standing::kBest || standing == Standing::kTied;
    outcomes.push_back(outcome);
  }
  return outcomes;
}

}  // namespace crmap
