#include "agents/random_agent.h"

#include <cstdint>

namespace crmap {

RandomAgent::RandomAgent(const AgentContext& context)
    : context_(context), history_(*context.space), rng_(context.seed) {}

std::vector<Candidate> RandomAgent::Propose(size_t n) {
  std::vector<Candidate> out;
  while (out.size() < n && exhausted_ < context_.shapes.size()) {
    const Dims& dims = context_.shapes[LeastMeasuredShape(context_.shapes, seen_per_shape_)];
    size_t& count = seen_per_shape_[DimsToText(dims)];
    std::optional<Config> config = RandomUnseenConfig(*context_.space, history_, dims, rng_);
    if (!config) {
      count = SIZE_MAX;  // never the least seen again
      ++exhausted_;
      continue;
    }
    Candidate candidate{dims, *config};
    history_.MarkSeen(candidate);
    ++count;
    out.push_back(std::move(candidate));
  }
  return out;
}

void RandomAgent::Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) {
  for (size_t i = 0; i < candidates.size() && i < evaluations.size(); ++i) {
    if (!history_.Seen(candidates[i])) {  // measured elsewhere (a resumed campaign, another bandit arm)
      auto it = seen_per_shape_.find(DimsToText(candidates[i].dims));
      if (it == seen_per_shape_.end() || it->second != SIZE_MAX) ++seen_per_shape_[DimsToText(candidates[i].dims)];
    }
    history_.Record(candidates[i], evaluations[i]);
  }
}

std::unique_ptr<Agent> MakeRandomAgent(const AgentContext& context) { return std::make_unique<RandomAgent>(context); }

}  // namespace crmap
