// The campaign loop the agent tests share: propose a batch -> evaluate on a synthetic landscape -> observe,
// until a budget of evaluations is spent or the agent has nothing left to propose. It checks what every
// agent promises (batches no larger than asked, no candidate proposed twice) and reports the best speedup
// found per shape, so tests compare agents with the landscape's known optimum.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/synthetic_evaluator.h"
#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap::testing {

struct LoopResult {
  size_t proposed = 0;  // candidates proposed (and evaluated)
  size_t batches = 0;
  size_t duplicates = 0;                       // proposals of a candidate proposed before
  size_t oversized = 0;                        // batches larger than asked for
  size_t non_plan = 0;                         // proposals with a runtime knob off its default
  bool ran_dry = false;                        // the agent returned an empty batch before the budget was spent
  std::map<std::string, double> best_speedup;  // by DimsToText; absent: nothing ok at that shape
  std::map<std::string, size_t> per_shape;     // proposals per shape
};

inline LoopResult RunLoop(Agent& agent, SyntheticEvaluator& evaluator, size_t budget, size_t batch = 8) {
  LoopResult result;
  std::set<std::string> keys;
  const SearchSpace& space = evaluator.space();
  while (result.proposed < budget) {
    size_t ask = std::min(batch, budget - result.proposed);
    std::vector<Candidate> candidates = agent.Propose(ask);
    if (candidates.empty()) {
      result.ran_dry = true;
      break;
    }
    ++result.batches;
    if (candidates.size() > ask) ++result.oversized;
    for (const Candidate& candidate : candidates) {
      if (!keys.insert(CandidateKey(space, candidate)).second) ++result.duplicates;
      if (space.PlanPart(candidate.config) != candidate.config) ++result.non_plan;
      ++result.per_shape[DimsToText(candidate.dims)];
    }
    std::vector<Evaluation> evaluations = evaluator.Evaluate(candidates);
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!evaluations[i].ok()) continue;
      double& best = result.best_speedup[DimsToText(candidates[i].dims)];
      best = std::max(best, evaluations[i].speedup);
    }
    agent.Observe(candidates, evaluations);
    result.proposed += candidates.size();
  }
  return result;
}

// Best speedup found / the optimum's speedup at `dims` (1 = found the optimum; 0 = nothing ok there).
inline double OracleRatio(const LoopResult& result, const SyntheticEvaluator& evaluator, const Dims& dims) {
  auto it = result.best_speedup.find(DimsToText(dims));
  return it == result.best_speedup.end() ? 0.0 : it->second / evaluator.OptimumSpeedup(dims);
}

inline double MeanOracleRatio(const LoopResult& result, const SyntheticEvaluator& evaluator,
                              const std::vector<Dims>& shapes) {
  double sum = 0;
  for (const Dims& dims : shapes) sum += OracleRatio(result, evaluator, dims);
  return shapes.empty() ? 0.0 : sum / static_cast<double>(shapes.size());
}

// Shapes of a one-dim workload, e.g. BatchShapes("batch", {1, 32, 512}).
inline std::vector<Dims> OneDimShapes(const std::string& dim, const std::vector<int64_t>& values) {
  std::vector<Dims> shapes;
  for (int64_t value : values) shapes.push_back(Dims{{dim, value}});
  return shapes;
}

inline AgentContext MakeContext(const Workload& workload, const SearchSpace& space, std::vector<Dims> shapes,
                                uint64_t seed) {
  AgentContext context;
  context.workload = &workload;
  context.space = &space;
  context.shapes = std::move(shapes);
  context.seed = seed;
  return context;
}

}  // namespace crmap::testing
