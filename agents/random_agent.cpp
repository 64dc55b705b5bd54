#include "agents/random_agent.h"

#include <cstdint>

namespace crmap {

RandomAgent::RandomAgent(const AgentContext& context)
    : context_(context), history_(*context.space), rng_(context.seed), rotation_(context_.shapes) {}

std::vector<Candidate> RandomAgent::Propose(size_t n) {
  std::vector<Candidate> out;
  while (out.size() < n && !rotation_.done()) {
    const Dims& dims = rotation_.Next();
    std::optional<Config> config = RandomUnseenConfig(*context_.space, history_, dims, rng_);
    if (!config) {
      rotation_.Exhaust(dims);
      continue;
    }
    Candidate candidate{dims, *config};
    history_.MarkSeen(candidate);
    rotation_.Count(dims);
    out.push_back(std::move(candidate));
  }
  return out;
}

void RandomAgent::Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) {
  for (size_t i = 0; i < candidates.size() && i < evaluations.size(); ++i) {
    // Measured elsewhere (a resumed campaign, another bandit arm): counts towards the shape order too.
    if (!history_.Seen(candidates[i])) rotation_.Count(candidates[i].dims);
    history_.Record(candidates[i], evaluations[i]);
  }
}

std::unique_ptr<Agent> MakeRandomAgent(const AgentContext& context) { return std::make_unique<RandomAgent>(context); }

}  // namespace crmap
