#include "agents/grid_agent.h"

namespace crmap {

GridAgent::GridAgent(const AgentContext& context)
    : context_(context), history_(*context.space), plan_size_(context.space->Size(KnobScope::kPlan)) {}

std::vector<Candidate> GridAgent::Propose(size_t n) {
  std::vector<Candidate> out;
  while (out.size() < n && !done()) {
    Candidate candidate{context_.shapes[shape_], context_.space->NthConfig(next_++, KnobScope::kPlan)};
    if (next_ >= plan_size_) {  // this shape's sweep is complete
      ++shape_;
      next_ = 0;
    }
    if (history_.Seen(candidate)) continue;
    history_.MarkSeen(candidate);
    out.push_back(std::move(candidate));
  }
  return out;
}

void GridAgent::Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) {
  for (size_t i = 0; i < candidates.size() && i < evaluations.size(); ++i)
    history_.Record(candidates[i], evaluations[i]);
}

std::unique_ptr<Agent> MakeGridAgent(const AgentContext& context) { return std::make_unique<GridAgent>(context); }

}  // namespace crmap
