// RandomAgent ("random"): uniformly random plan configs that were neither proposed nor measured before.
//
// Shapes take turns in least-seen order (proposed or observed, ties: campaign order), so a budget is spread
// evenly over the campaign's shapes; a shape whose plan space is exhausted is skipped, and Propose returns
// fewer candidates (or none) once every shape is exhausted. Runtime knobs stay at their defaults. It learns
// nothing: Observe only records what was measured (a resumed campaign's history included). The baseline every
// other agent must beat, and the bandit's exploration arm.
// Deterministic for AgentContext::seed. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "agents/agent.h"

namespace crmap {

class RandomAgent : public Agent {
 public:
  explicit RandomAgent(const AgentContext& context);

  std::string name() const override { return "random"; }
  std::vector<Candidate> Propose(size_t n) override;
  void Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) override;

 private:
  AgentContext context_;
  SearchHistory history_;
  std::mt19937_64 rng_;
  ShapeRotation rotation_;
};

std::unique_ptr<Agent> MakeRandomAgent(const AgentContext& context);

}  // namespace crmap
