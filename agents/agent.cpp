#include "agents/agent.h"

#include "agents/bandit_agent.h"
#include "agents/evolution_agent.h"
#include "agents/grid_agent.h"
#include "agents/model_agent.h"
#include "agents/random_agent.h"
#include "agents/rl_agent.h"
#include "common/json_fields.h"

namespace crmap {

void SearchHistory::Record(const Candidate& candidate, const Evaluation& evaluation) {
  MarkSeen(candidate);
  ++measured_;
  if (!evaluation.ok()) return;
  double reward = Reward(evaluation);
  auto [it, inserted] = best_.try_emplace(DimsToText(candidate.dims), reward, candidate.config);
  if (!inserted && reward > it->second.first) it->second = {reward, candidate.config};
}

double SearchHistory::BestReward(const Dims& dims) const {
  auto it = best_.find(DimsToText(dims));
  return it == best_.end() ? kFailureReward : it->second.first;
}

const Config* SearchHistory::BestConfig(const Dims& dims) const {
  auto it = best_.find(DimsToText(dims));
  return it == best_.end() ? nullptr : &it->second.second;
}

std::optional<Config> RandomUnseenConfig(const SearchSpace& space, const SearchHistory& history, const Dims& dims,
                                         std::mt19937_64& rng) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    Config config = space.Sample(rng, KnobScope::kPlan);
    if (!history.Seen({dims, config})) return config;
  }
  const uint64_t size = space.Size(KnobScope::kPlan);
  const uint64_t start = rng() % size;
  for (uint64_t i = 0; i < size; ++i) {
    Config config = space.NthConfig((start + i) % size, KnobScope::kPlan);
    if (!history.Seen({dims, config})) return config;
  }
  return std::nullopt;
}

std::vector<Config> BalancedDesign(const SearchSpace& space, size_t n, std::mt19937_64& rng) {
  std::vector<Config> design(n, space.Default());
  for (size_t k = 0; k < space.knobs().size(); ++k) {
    if (space.knobs()[k].scope != KnobScope::kPlan) continue;
    const size_t values = space.knobs()[k].values.size();
    std::vector<int> column(n);
    for (size_t i = 0; i < n; ++i) column[i] = static_cast<int>(i % values);
    for (size_t i = n; i > 1; --i) std::swap(column[i - 1], column[rng() % i]);  // Fisher-Yates, portable
    for (size_t i = 0; i < n; ++i) design[i].values[k] = column[i];
  }
  return design;
}

size_t LeastMeasuredShape(const std::vector<Dims>& shapes, const std::map<std::string, size_t>& counts) {
  size_t best = 0;
  size_t best_count = SIZE_MAX;
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto it = counts.find(DimsToText(shapes[i]));
    size_t count = it == counts.end() ? 0 : it->second;
    if (count < best_count) {
      best = i;
      best_count = count;
    }
  }
  return best;
}

std::optional<Config> WarmupDesign::Next(const SearchSpace& space, const SearchHistory& history, const Dims& dims,
                                         std::mt19937_64& rng) {
  if (design_.empty()) design_ = BalancedDesign(space, size_, rng);
  while (index_ < design_.size()) {
    const Config& config = design_[index_++];
    if (!history.Seen({dims, config})) return config;
  }
  return std::nullopt;
}

const Dims& ShapeRotation::Next() const { return (*shapes_)[LeastMeasuredShape(*shapes_, counts_)]; }

void ShapeRotation::Count(const Dims& dims) {
  size_t& count = counts_[DimsToText(dims)];
  if (count != SIZE_MAX) ++count;
}

void ShapeRotation::Exhaust(const Dims& dims) {
  size_t& count = counts_[DimsToText(dims)];
  if (count == SIZE_MAX) return;
  count = SIZE_MAX;
  ++exhausted_;
}

void ShapeRotation::Take(const Dims& dims, const std::optional<Config>& config, SearchHistory& history,
                         std::vector<Candidate>* out) {
  if (!config) {
    Exhaust(dims);
    return;
  }
  Candidate candidate{dims, *config};
  history.MarkSeen(candidate);
  Count(dims);
  out->push_back(std::move(candidate));
}

void ShapeRotation::Observe(const Candidate& candidate, const Evaluation& evaluation, SearchHistory& history) {
  if (!history.Seen(candidate)) Count(candidate.dims);
  history.Record(candidate, evaluation);
}

size_t ShapeRotation::count(const Dims& dims) const {
  auto it = counts_.find(DimsToText(dims));
  return it == counts_.end() ? 0 : it->second;
}

std::vector<std::string> AgentNames() { return {"random", "grid", "evolution", "bandit", "model", "rl"}; }

Result<std::unique_ptr<Agent>> MakeAgent(const std::string& name, const AgentContext& context) {
  if (!context.space || !context.workload || context.shapes.empty())
    return Status::InvalidArgument("agent '" + name + "' needs a workload, its space and at least one shape");
  if (name == "random") return MakeRandomAgent(context);
  if (name == "grid") return MakeGridAgent(context);
  if (name == "evolution") return MakeEvolutionAgent(context);
  if (name == "bandit") return MakeBanditAgent(context);
  if (name == "model") return MakeModelAgent(context);
  if (name == "rl") return MakeRlAgent(context);
  return Status::InvalidArgument("unknown agent '" + name + "'; agents: " + JoinNames(AgentNames()));
}

}  // namespace crmap
