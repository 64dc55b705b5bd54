// EvolutionAgent ("evolution"): a steady-state genetic algorithm per shape over the plan knobs.
//
// Every shape has its own population: the `population` best (dims, config) measured at that shape so far, by
// Reward (elitism: a member leaves only when enough better ones arrive; failures count as kFailureReward and
// drop out first). Until a shape has `population` candidates it is seeded with random unseen configs. Then a
// child is made from parents chosen by tournament: uniform crossover of two parents (probability
// `crossover`, else a copy of one), then mutation through SearchSpace::Neighbours (one knob changed;
// probability `mutation`, always when the child was seen). A child that is still seen after `attempts`
// tries is replaced by an unseen neighbour of the shape's best member, else by a random unseen config: the
// agent never proposes a candidate twice. Shapes take turns in least-seen order; exhausted shapes are
// skipped. Every observation (other agents' too, e.g. as a bandit arm) feeds the populations.
// Deterministic for AgentContext::seed. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "agents/agent.h"

namespace crmap {

struct EvolutionOptions {
  size_t population = 12;  // members kept per shape
  size_t tournament = 3;   // a parent is the best of this many random members
  double crossover = 0.5;  // probability that a child crosses two parents
  double mutation = 0.7;   // probability that a child changes one knob (always, if it was seen)
  int attempts = 16;       // children tried per proposal before the fallbacks
};

class EvolutionAgent : public Agent {
 public:
  explicit EvolutionAgent(const AgentContext& context, EvolutionOptions options = {});

  std::string name() const override { return "evolution"; }
  std::vector<Candidate> Propose(size_t n) override;
  void Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) override;

  // The population of `dims`, best first (empty before anything was observed there).
  std::vector<Config> Population(const Dims& dims) const;

 private:
  struct Member {
    double reward;
    Config config;
  };
  using Members = std::vector<Member>;  // best first, at most options_.population

  std::optional<Config> Breed(const Members& members, const Dims& dims);
  const Member& Tournament(const Members& members);
  Config Mutate(const Config& config);
  bool Chance(double probability);

  AgentContext context_;
  EvolutionOptions options_;
  SearchHistory history_;
  std::mt19937_64 rng_;
  std::map<std::string, Members> populations_;    // by DimsToText
  ShapeRotation rotation_;
};

std::unique_ptr<Agent> MakeEvolutionAgent(const AgentContext& context);

}  // namespace crmap
