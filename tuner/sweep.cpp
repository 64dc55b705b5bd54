#include "tuner/sweep.h"

#include <algorithm>

#include "tuner/text_table.h"

namespace crmap {

namespace {

Status AnchorFailure(const CandidateResult& anchor) {
  std::string message = "the default config, which every ratio of a sweep refers to, failed (" +
                        std::string(CandidateStatusName(anchor.status)) + "): " + anchor.message;
  return anchor.status == CandidateStatus::kOverMemory ? Status::ResourceExhausted(message)
                                                       : Status::Unsupported(message);
}

}  // namespace

SessionOptions FinalSessionOptions(const SweepOptions& options) {
  SessionOptions final_run;
  final_run.compile = options.compile;
  final_run.measure.rounds = options.rounds;
  final_run.measure.warmup = options.warmup;
  final_run.measure.warm_calls = options.warm_calls;
  final_run.measure.cold_samples = options.cold_samples;
  final_run.measure.timeout_ms = options.timeout_ms;
  final_run.watchdog = options.watchdog;
  final_run.hang_ms = options.hang_ms;
  final_run.baselines = options.baselines;
  final_run.peer_executable = options.peer_executable;
  final_run.validate = options.validate;
  return final_run;
}

SweepResult SweepPlanSpace(MeasurementSession& session, const SearchSpace& space, const SweepOptions& options) {
  SweepResult sweep;
  if (options.rounds < MinimumRounds(options.objective)) {
    sweep.status = Status::InvalidArgument(Format("objective %s needs >= %d final rounds, got %d",
                                                  ObjectiveName(options.objective), MinimumRounds(options.objective),
                                                  options.rounds));
    return sweep;
  }
  if (space.Size(KnobScope::kPlan) > kMaxSweepConfigs) {
    sweep.status = Status::InvalidArgument("the plan space has " + std::to_string(space.Size(KnobScope::kPlan)) +
                                           " configs; a sweep measures at most " + std::to_string(kMaxSweepConfigs));
    return sweep;
  }
  const Config anchor = space.Default();
  std::vector<Config> others;
  for (const Config& config : space.Enumerate(KnobScope::kPlan))
    if (config != anchor) others.push_back(config);

  SessionOptions screen;
  screen.compile = options.compile;
  screen.measure.rounds = options.screen_rounds;
  screen.measure.warmup = options.warmup;
  screen.measure.warm_calls = options.warm_calls;
  screen.measure.cold_samples = 0;
  screen.measure.timeout_ms = options.timeout_ms;
  screen.watchdog = options.watchdog;
  screen.hang_ms = options.hang_ms;
  screen.validate = options.validate;
  const size_t per_chunk = static_cast<size_t>(std::max(1, options.chunk - 1));
  bool anchor_recorded = false;
  for (size_t start = 0; start < others.size() || !anchor_recorded; start += per_chunk) {
    std::vector<Config> batch = {anchor};
    for (size_t i = start; i < std::min(others.size(), start + per_chunk); ++i) batch.push_back(others[i]);
    if (options.on_progress)
      options.on_progress("screen", static_cast<int>(std::min(others.size(), start)), static_cast<int>(others.size()));
    std::vector<CandidateResult> results = session.Compare(batch, screen);
    if (results[0].status != CandidateStatus::kOk) {
      sweep.status = AnchorFailure(results[0]);
      return sweep;
    }
    for (size_t i = anchor_recorded ? 1 : 0; i < results.size(); ++i) sweep.screened.push_back(results[i]);
    anchor_recorded = true;
    if (start + per_chunk >= others.size()) break;
  }

  // Finalists: the `top` best by the median ratio, and for a tail objective also the `top` best by the tail of
  // the screening rounds — a screen of a few rounds reads a tail poorly, but a config whose median loses and
  // whose tail wins (one thread against a team that sleeps between calls) must reach the final comparison.
  std::vector<Config> finalists = {anchor};
  auto add_top = [&](Objective by) {
    std::vector<const CandidateResult*> ranked;
    for (const auto& r : sweep.screened)
      if (r.config != anchor && RatioToAnchor(r, by) > 0) ranked.push_back(&r);
    std::stable_sort(ranked.begin(), ranked.end(), [by](const CandidateResult* a, const CandidateResult* b) {
      return RatioToAnchor(*a, by) < RatioToAnchor(*b, by);
    });
    for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < options.top; ++i)
      if (std::find(finalists.begin(), finalists.end(), ranked[i]->config) == finalists.end())
        finalists.push_back(ranked[i]->config);
  };
  add_top(Objective::kMedian);
  if (options.objective != Objective::kMedian) add_top(options.objective);
  for (const Config& c : options.must_confirm)
    if (std::find(finalists.begin(), finalists.end(), c) == finalists.end()) finalists.push_back(c);

  SessionOptions confirm = FinalSessionOptions(options);
  if (options.on_progress) {
    auto progress = options.on_progress;
    confirm.on_progress = [progress](const std::string& stage, int done, int total) {
      progress("confirm " + stage, done, total);
    };
  }
  sweep.final = session.Compare(finalists, confirm);
  if (sweep.final[0].status != CandidateStatus::kOk) {
    sweep.status = AnchorFailure(sweep.final[0]);
    return sweep;
  }
  // Rank by the ratio to the default at the objective (the median of per-round ratios, or the ratio of the two
  // tails over the same rounds): ratios measured side by side survive the machine's drift, absolute times do not.
  for (size_t i = 0; i < sweep.final.size(); ++i) {
    const CandidateResult& r = sweep.final[i];
    const double ratio = RatioToAnchor(r, options.objective);
    if (r.is_baseline || ratio <= 0) continue;
    if (sweep.best_index < 0 || ratio < RatioToAnchor(sweep.final[sweep.best_index], options.objective))
      sweep.best_index = static_cast<int>(i);
  }
  return sweep;
}

}  // namespace crmap
