// Agent: a search technique. It proposes batches of (dims, config) candidates over a campaign's shapes and
// learns from what the evaluator reports; it never measures anything itself (TVM's SearchPolicy, minus the
// measurer).
//
// Data flow of a campaign (tuner/campaign.h): agent.Propose(n) -> drop anything measured before ->
// evaluator.Evaluate -> tuning database -> agent.Observe(candidates, evaluations). Observe also receives the
// history replayed from the database when a campaign resumes. Agents are deterministic for a seed given the
// same observations. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "agents/evaluator.h"
#include "common/status.h"
#include "common/workload.h"
#include "search_space/features.h"
#include "search_space/search_space.h"

namespace crmap {

struct AgentContext {
  const Workload* workload = nullptr;
  const SearchSpace* space = nullptr;
  std::vector<Dims> shapes;  // the shapes this campaign tunes
  uint64_t seed = 1;
  bool leader_climbs = false;  // the rl agent's RlOptions::leader_climbs (`crmap tune --leader-climbs`)
};

class Agent {
 public:
  virtual ~Agent() = default;
  virtual std::string name() const = 0;
  // Up to `n` candidates not measured before (the agent tracks what it has proposed and observed). Fewer
  // (or none) when it has nothing left to propose.
  virtual std::vector<Candidate> Propose(size_t n) = 0;
  virtual void Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) = 0;
};

// The agents by name: random, grid, evolution, bandit, model, rl. InvalidArgument lists the names.
Result<std::unique_ptr<Agent>> MakeAgent(const std::string& name, const AgentContext& context);
std::vector<std::string> AgentNames();

// Bookkeeping most agents share: what was proposed or measured, and the best result per shape.
class SearchHistory {
 public:
  explicit SearchHistory(const SearchSpace& space) : space_(&space) {}
  bool Seen(const Candidate& candidate) const { return seen_.count(CandidateKey(*space_, candidate)) > 0; }
  void MarkSeen(const Candidate& candidate) { seen_.insert(CandidateKey(*space_, candidate)); }
  void Record(const Candidate& candidate, const Evaluation& evaluation);
  // Best reward per shape so far (kFailureReward if nothing succeeded), by DimsToText.
  double BestReward(const Dims& dims) const;
  const Config* BestConfig(const Dims& dims) const;
  size_t measured() const { return measured_; }

 private:
  const SearchSpace* space_;
  std::set<std::string> seen_;
  std::map<std::string, std::pair<double, Config>> best_;
  size_t measured_ = 0;
};

// A uniformly random plan config for `dims` that `history` has not seen; nullopt when every plan config of
// that shape was seen. Tries random draws first, then scans the plan space (small spaces run dry).
std::optional<Config> RandomUnseenConfig(const SearchSpace& space, const SearchHistory& history, const Dims& dims,
                                         std::mt19937_64& rng);

// A balanced warm-up design of `n` plan configs (Latin-hypercube style): every plan knob's values appear
// equally often across the n configs, in a random arrangement. It covers the space like random draws do, but
// gives a learned model every knob value to learn from after one batch.
std::vector<Config> BalancedDesign(const SearchSpace& space, size_t n, std::mt19937_64& rng);

// The order in which an agent visits a campaign's shapes: the one seen least so far (proposed by the agent or
// measured elsewhere; ties: campaign order), skipping shapes marked exhausted (nothing left to propose there).
class ShapeRotation {
 public:
  explicit ShapeRotation(const std::vector<Dims>& shapes) : shapes_(&shapes) {}
  bool done() const { return exhausted_ >= shapes_->size(); }  // every shape exhausted
  const Dims& Next() const;                                      // only when !done()
  void Count(const Dims& dims);    // one more proposal or outside measurement (none once exhausted)
  void Exhaust(const Dims& dims);  // never Next() again
  size_t count(const Dims& dims) const;

  // A proposal at `dims`: marked seen in `history`, counted and appended to `out`; without a config (nothing
  // unseen is left there) the shape is exhausted instead.
  void Take(const Dims& dims, const std::optional<Config>& config, SearchHistory& history,
            std::vector<Candidate>* out);
  // A measurement the agent sees: one it did not propose (a resumed campaign, another bandit arm) counts towards
  // the shape order too; then it is recorded in `history`.
  void Observe(const Candidate& candidate, const Evaluation& evaluation, SearchHistory& history);

 private:
  const std::vector<Dims>* shapes_;
  std::map<std::string, size_t> counts_;  // by DimsToText; SIZE_MAX once exhausted
  size_t exhausted_ = 0;
};

// The first proposals of the learning agents (model, rl): a BalancedDesign of `size` configs, drawn on first
// use, handed out in order; a config already seen at the shape asked for is skipped (and not offered again).
class WarmupDesign {
 public:
  explicit WarmupDesign(size_t size) : size_(size) {}
  // nullopt once the design is used up.
  std::optional<Config> Next(const SearchSpace& space, const SearchHistory& history, const Dims& dims,
                             std::mt19937_64& rng);

 private:
  size_t size_;
  std::vector<Config> design_;
  size_t index_ = 0;
};

// The shape with the fewest measurements recorded via `counts` (ties: the earliest in `shapes`).
size_t LeastMeasuredShape(const std::vector<Dims>& shapes, const std::map<std::string, size_t>& counts);

}  // namespace crmap
