#include "agents/model_agent.h"

#include <algorithm>

namespace crmap {

ModelAgent::ModelAgent(const AgentContext& context, ModelAgentOptions options)
    : context_(context),
      options_(options),
      features_(*context.workload, *context.space),
      model_(features_.size(), context.seed),
      history_(*context.space),
      rng_(context.seed),
      shapes_(context_.shapes),
      warmup_(static_cast<size_t>(std::max(0, options.warmup))) {}

double ModelAgent::PredictReward(const Dims& dims, const Config& config) const {
  return model_.Predict({features_.Encode(dims, config)})[0];
}

std::vector<Candidate> ModelAgent::Propose(size_t n) {
  std::vector<Candidate> out;
  std::bernoulli_distribution explore(options_.explore);
  for (size_t attempts = 0; out.size() < n && attempts < n * context_.shapes.size() + n; ++attempts) {
    const Dims& dims = shapes_.Next();
    shapes_.Count(dims);
    std::optional<Config> choice;
    bool warm = history_.measured() + out.size() >= static_cast<size_t>(options_.warmup);
    if (!warm) {
      choice = warmup_.Next(*context_.space, history_, dims, rng_);
    } else if (!explore(rng_)) {
      std::vector<Config> pool;
      for (int i = 0; i < options_.pool; ++i) {
        std::optional<Config> c = RandomUnseenConfig(*context_.space, history_, dims, rng_);
        if (c) pool.push_back(*c);
      }
      if (const Config* best = history_.BestConfig(dims))
        for (const Config& c : context_.space->Neighbours(*best))
          if (!history_.Seen({dims, c})) pool.push_back(c);
      if (!pool.empty()) {
        std::vector<std::vector<float>> rows;
        for (const auto& c : pool) rows.push_back(features_.Encode(dims, c));
        std::vector<double> predicted = model_.Predict(rows);
        choice = pool[static_cast<size_t>(std::max_element(predicted.begin(), predicted.end()) - predicted.begin())];
      }
    }
    if (!choice) choice = RandomUnseenConfig(*context_.space, history_, dims, rng_);
    if (!choice) continue;  // this shape is exhausted
    Candidate candidate{dims, *choice};
    history_.MarkSeen(candidate);
    out.push_back(candidate);
  }
  return out;
}

void ModelAgent::Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) {
  for (size_t i = 0; i < candidates.size() && i < evaluations.size(); ++i) {
    // Measurements the agent did not propose (history replayed on resume, other bandit arms) count towards
    // the shape order too.
    if (!history_.Seen(candidates[i])) shapes_.Count(candidates[i].dims);
    history_.Record(candidates[i], evaluations[i]);
    model_.Add(features_.Encode(candidates[i].dims, candidates[i].config), Reward(evaluations[i]));
  }
  model_.Train(options_.epochs);
}

std::unique_ptr<Agent> MakeModelAgent(const AgentContext& context) { return std::make_unique<ModelAgent>(context); }

}  // namespace crmap
