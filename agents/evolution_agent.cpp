#include "agents/evolution_agent.h"

#include <algorithm>
#include <cstdint>

namespace crmap {

EvolutionAgent::EvolutionAgent(const AgentContext& context, EvolutionOptions options)
    : context_(context), options_(options), history_(*context.space), rng_(context.seed), rotation_(context_.shapes) {
  options_.population = std::max<size_t>(options_.population, 2);
  options_.tournament = std::max<size_t>(options_.tournament, 1);
}

bool EvolutionAgent::Chance(double probability) { return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < probability; }

const EvolutionAgent::Member& EvolutionAgent::Tournament(const Members& members) {
  size_t best = members.size();
  for (size_t i = 0; i < options_.tournament; ++i) best = std::min<size_t>(best, rng_() % members.size());
  return members[best];  // members are sorted best first: the lowest index wins
}

Config EvolutionAgent::Mutate(const Config& config) {
  std::vector<Config> neighbours = context_.space->Neighbours(config, KnobScope::kPlan);
  if (neighbours.empty()) return config;
  return neighbours[rng_() % neighbours.size()];
}

std::optional<Config> EvolutionAgent::Breed(const Members& members, const Dims& dims) {
  const auto& knobs = context_.space->knobs();
  for (int attempt = 0; attempt < options_.attempts; ++attempt) {
    Config child = Tournament(members).config;
    if (members.size() >= 2 && Chance(options_.crossover)) {
      const Config& other = Tournament(members).config;
      for (size_t k = 0; k < knobs.size(); ++k)
        if (knobs[k].scope == KnobScope::kPlan && (rng_() & 1)) child.values[k] = other.values[k];
    }
    if (Chance(options_.mutation) || history_.Seen({dims, child})) child = Mutate(child);
    if (!history_.Seen({dims, child})) return child;
  }
  // Stuck (a converged population): walk the best member's unseen neighbourhood.
  std::vector<Config> unseen;
  for (const Config& c : context_.space->Neighbours(members.front().config, KnobScope::kPlan))
    if (!history_.Seen({dims, c})) unseen.push_back(c);
  if (!unseen.empty()) return unseen[rng_() % unseen.size()];
  return std::nullopt;
}

std::vector<Candidate> EvolutionAgent::Propose(size_t n) {
  std::vector<Candidate> out;
  while (out.size() < n && !rotation_.done()) {
    const Dims& dims = rotation_.Next();
    std::optional<Config> config;
    auto population = populations_.find(DimsToText(dims));
    if (rotation_.count(dims) >= options_.population && population != populations_.end() &&
        !population->second.empty())
      config = Breed(population->second, dims);
    if (!config) config = RandomUnseenConfig(*context_.space, history_, dims, rng_);
    rotation_.Take(dims, config, history_, &out);
  }
  return out;
}

void EvolutionAgent::Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) {
  for (size_t i = 0; i < candidates.size() && i < evaluations.size(); ++i) {
    const Candidate& candidate = candidates[i];
    const std::string key = DimsToText(candidate.dims);
    rotation_.Observe(candidate, evaluations[i], history_);
    Members& members = populations_[key];
    Member member{Reward(evaluations[i]), context_.space->PlanPart(candidate.config)};
    auto at = std::upper_bound(members.begin(), members.end(), member.reward,
                               [](double reward, const Member& m) { return reward > m.reward; });
    members.insert(at, std::move(member));
    if (members.size() > options_.population) members.pop_back();
  }
}

std::vector<Config> EvolutionAgent::Population(const Dims& dims) const {
  std::vector<Config> out;
  auto it = populations_.find(DimsToText(dims));
  if (it != populations_.end())
    for (const Member& m : it->second) out.push_back(m.config);
  return out;
}

std::unique_ptr<Agent> MakeEvolutionAgent(const AgentContext& context) {
  return std::make_unique<EvolutionAgent>(context);
}

}  // namespace crmap
