#include "tuner/campaign.h"

#include <chrono>
#include <map>
#include <set>

namespace crmap {

const char* CampaignEndName(CampaignEnd end) {
  switch (end) {
    case CampaignEnd::kBudget: return "budget spent";
    case CampaignEnd::kExhausted: return "nothing left to propose";
    case CampaignEnd::kTimeLimit: return "time limit";
    case CampaignEnd::kStopped: return "stopped";
    case CampaignEnd::kFailureCap: return "too many consecutive failures";
  }
  return "unknown";
}

Result<CampaignOutcome> RunCampaign(const SearchSpace& space, const std::vector<Dims>& shapes, Agent& agent,
                                    Evaluator& evaluator, const ResultSink& sink,
                                    const std::vector<std::pair<Candidate, Evaluation>>& history,
                                    const CampaignOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  if (options.batch == 0) return Status::InvalidArgument("campaign batch size must be at least 1");
  CampaignOutcome outcome;
  outcome.measured_total = options.already_measured;

  std::map<std::string, ShapeOutcome> by_shape;
  std::map<std::string, std::vector<std::pair<double, Config>>> leaders;  // per shape, best first
  for (const auto& dims : shapes) by_shape[DimsToText(dims)].dims = dims;
  std::set<std::string> measured;
  auto account = [&](const Candidate& c, const Evaluation& e) {
    measured.insert(CandidateKey(space, c));
    auto it = by_shape.find(DimsToText(c.dims));
    if (it == by_shape.end()) return;
    ShapeOutcome& s = it->second;
    ++s.measurements;
    if (!e.ok()) return;
    ++s.ok;
    auto& top = leaders[it->first];
    top.emplace_back(Reward(e), c.config);
    std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (top.size() > kCampaignLeaders) top.pop_back();
    if (!s.found || Reward(e) > Reward(s.best_evaluation)) {
      s.found = true;
      s.best = c.config;
      s.best_evaluation = e;
    }
  };
  auto progress = [&] {
    if (!options.on_progress) return;
    CampaignProgress p;
    p.measured = outcome.measured_total;
    p.budget = options.budget;
    p.elapsed_s = elapsed();
    if (outcome.charged_now() > 0 && p.measured < p.budget)
      p.eta_s =
          p.elapsed_s / static_cast<double>(outcome.charged_now()) * static_cast<double>(p.budget - p.measured);
    for (const auto& [key, s] : by_shape) {
      if (s.found && s.best_evaluation.speedup > p.best_speedup) {
        p.best_speedup = s.best_evaluation.speedup;
        p.best_shape = key;
      }
    }
    options.on_progress(p);
  };

  // Replay what the database knows, in batches, so the agent starts from it.
  for (size_t i = 0; i < history.size(); i += options.batch) {
    std::vector<Candidate> candidates;
    std::vector<Evaluation> evaluations;
    for (size_t j = i; j < std::min(history.size(), i + options.batch); ++j) {
      if (measured.count(CandidateKey(space, history[j].first))) continue;
      candidates.push_back(history[j].first);
      evaluations.push_back(history[j].second);
      account(history[j].first, history[j].second);
    }
    if (!candidates.empty()) agent.Observe(candidates, evaluations);
  }
  progress();

  size_t consecutive_failures = 0;
  int empty_proposals = 0;
  outcome.end = CampaignEnd::kBudget;
  while (outcome.measured_total < options.budget) {
    if (options.stop && options.stop->load()) {
      outcome.end = CampaignEnd::kStopped;
      break;
    }
    if (options.time_limit_s > 0 && elapsed() >= options.time_limit_s) {
      outcome.end = CampaignEnd::kTimeLimit;
      break;
    }
    size_t want = std::min(options.batch, options.budget - outcome.measured_total);
    std::vector<Candidate> proposed = agent.Propose(want);
    std::vector<Candidate> batch;
    std::set<std::string> in_batch;
    for (auto& c : proposed) {
      std::string key = CandidateKey(space, c);
      if (measured.count(key) || !in_batch.insert(key).second) {
        ++outcome.duplicates_dropped;
        continue;
      }
      batch.push_back(std::move(c));
    }
    if (batch.empty()) {
      if (++empty_proposals >= 3) {
        outcome.end = CampaignEnd::kExhausted;
        break;
      }
      continue;
    }
    empty_proposals = 0;
    std::vector<Evaluation> evaluations = evaluator.Evaluate(batch);
    CRMAP_RETURN_IF_ERROR(sink(batch, evaluations));
    for (size_t i = 0; i < batch.size(); ++i) {
      account(batch[i], evaluations[i]);
      consecutive_failures = evaluations[i].ok() ? 0 : consecutive_failures + 1;
      ++outcome.measured_now;
      if (evaluations[i].status == EvalStatus::kUnsupported) {  // stored and observed, not charged
        ++outcome.refused_now;
        continue;
      }
      ++outcome.measured_total;
      outcome.probes_now += batch[i].probe;
      outcome.climbs_now += batch[i].climb;
    }
    // What the evaluator measured unasked (the default config as anchor) is known from now on: the agent
    // sees it and never spends budget on it.
    for (auto& [candidate, evaluation] : evaluator.SideMeasurements()) {
      if (measured.count(CandidateKey(space, candidate))) continue;
      account(candidate, evaluation);  // the default can be a shape's best, as it is when resumed from history
      batch.push_back(std::move(candidate));
      evaluations.push_back(std::move(evaluation));
    }
    agent.Observe(batch, evaluations);
    progress();
    if (options.max_consecutive_failures > 0 && consecutive_failures >= options.max_consecutive_failures) {
      outcome.end = CampaignEnd::kFailureCap;
      break;
    }
  }
  for (const auto& dims : shapes) {
    ShapeOutcome s = by_shape[DimsToText(dims)];
    for (const auto& [reward, config] : leaders[DimsToText(dims)]) s.leaders.push_back(config);
    outcome.shapes.push_back(s);
  }
  return outcome;
}

}  // namespace crmap
