// GridAgent ("grid"): exhaustive search over the plan knobs of every shape — the oracle on small spaces.
//
// Shape by shape in campaign order, and within a shape in SearchSpace::NthConfig order (id order over the
// plan knobs, runtime knobs at their defaults). Candidates already measured (Observe, e.g. a resumed
// campaign's history) are skipped. Once every (shape, plan config) was proposed it proposes nothing. Nothing
// is random; the seed is unused. Runs for shapes x Size(kPlan) candidates: meant for spaces of hundreds to a
// few thousand plan configs.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agents/agent.h"

namespace crmap {

class GridAgent : public Agent {
 public:
  explicit GridAgent(const AgentContext& context);

  std::string name() const override { return "grid"; }
  std::vector<Candidate> Propose(size_t n) override;
  void Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) override;

  // True once every (shape, plan config) was proposed or observed.
  bool done() const { return shape_ >= context_.shapes.size(); }

 private:
  AgentContext context_;
  SearchHistory history_;
  const uint64_t plan_size_;
  size_t shape_ = 0;   // the shape being swept
  uint64_t next_ = 0;  // its next NthConfig index
};

std::unique_ptr<Agent> MakeGridAgent(const AgentContext& context);

}  // namespace crmap
