#include "agents/random_agent.h"

#include <cstdint>

namespace crmap {

RandomAgent::RandomAgent(const AgentContext& context)
    : context_(context), history_(*context.space), rng_(context.seed), rotation_(context_.shapes) {}

std::vector<Candidate> RandomAgent::Propose(size_t n) {
  std::vector<Candidate> out;
  while (out.size() < n && !rotation_.done()) {
    const Dims& dims = rotation_.Next();
    rotation_.Take(dims, RandomUnseenConfig(*context_.space, history_, dims, rng_), history_, &out);
  }
  return out;
}

void RandomAgent::Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) {
  for (size_t i = 0; i < candidates.size() && i < evaluations.size(); ++i)
    rotation_.Observe(candidates[i], evaluations[i], history_);
}

std::unique_ptr<Agent> MakeRandomAgent(const AgentContext& context) { return std::make_unique<RandomAgent>(context); }

}  // namespace crmap
