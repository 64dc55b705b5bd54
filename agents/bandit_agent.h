// BanditAgent ("bandit"): an ensemble that shares the budget among other agents by their recent success —
// the AUC bandit OpenTuner's AUCBanditMetaTechnique uses.
//
// Arms are whole agents made with MakeAgent (by default random, evolution and model). For every proposal
// slot the arms are ranked by AucBandit::Score (area under the curve of the arm's recent successes plus an
// exploration term) and asked in that order for one candidate; the first unseen one is taken and the arm is
// credited with it. When no arm has anything new, a random unseen config of the least-seen shape is
// proposed (credited to no arm). A candidate is a success for its arm when its reward beats the best reward
// measured at its shape before it.
// Consistency: the bandit keeps the shared SearchHistory and filters duplicates (arm A may propose what arm B
// proposed earlier in the same batch); every arm observes every result, so each arm's seen-set and model
// catch up with what the others measured.
// Deterministic for AgentContext::seed (each arm gets a seed derived from it, its name and position). Not thread-safe.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "agents/agent.h"
#include "common/status.h"

namespace crmap {

// The selection rule, on its own. Keeps the last `window` (arm, success) outcomes.
//   Auc(arm)   = sum_i i * s_i / (n (n + 1) / 2) over the arm's n outcomes in the window, oldest first
//                (s_i in {0, 1}): 1 when every use succeeded, recent successes weigh more.
//   Score(arm) = Auc(arm) + exploration * sqrt(2 log2(H) / n), with n the arm's outcomes in the window
//                plus its pending proposals, H all outcomes in the window plus all pending; +inf when n = 0.
// Pending proposals (made, not yet observed) spread a batch over the arms: they shrink an arm's exploration
// bonus before its results arrive. Not thread-safe.
class AucBandit {
 public:
  AucBandit(size_t arms, size_t window, double exploration);

  void Record(size_t arm, bool success);
  double Auc(size_t arm) const;
  // `pending` holds one count per arm (empty: none pending).
  double Score(size_t arm, const std::vector<size_t>& pending = {}) const;
  // All arms, best score first; ties broken by `rng`.
  std::vector<size_t> Order(const std::vector<size_t>& pending, std::mt19937_64& rng) const;
  // Outcomes of `arm` in the window.
  size_t uses(size_t arm) const;
  size_t arms() const { return arms_; }

 private:
  const size_t arms_;
  const size_t window_;
  const double exploration_;
  std::deque<std::pair<size_t, bool>> outcomes_;  // oldest first
};

struct BanditOptions {
  std::vector<std::string> arms = {"random", "evolution", "model"};
  size_t window = 500;       // outcomes the bandit remembers (OpenTuner's default)
  double exploration = 0.2;  // OpenTuner uses 0.05 over thousands of evaluations; campaigns here run hundreds
  int retries = 3;           // duplicate proposals an arm may make for one slot before the next arm is asked
};

class BanditAgent : public Agent {
 public:
  // InvalidArgument for no arms, an unknown arm name or "bandit" as an arm (the message lists the names).
  static Result<std::unique_ptr<BanditAgent>> Create(const AgentContext& context, BanditOptions options = {});
  // With arms made by the caller (e.g. with their own options, or test doubles); options.arms is replaced by
  // their names. InvalidArgument for no arms or a null one.
  static Result<std::unique_ptr<BanditAgent>> Create(const AgentContext& context,
                                                     std::vector<std::unique_ptr<Agent>> arms,
                                                     BanditOptions options = {});

  std::string name() const override { return "bandit"; }
  std::vector<Candidate> Propose(size_t n) override;
  void Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) override;

  const std::vector<std::string>& arm_names() const { return options_.arms; }
  // Per arm, over the whole campaign: candidates credited to it, and how many improved their shape's best.
  const std::vector<size_t>& proposals() const { return proposals_; }
  const std::vector<size_t>& successes() const { return successes_; }
  // Proposals no arm could make (random fallbacks).
  size_t fallbacks() const { return fallbacks_; }
  const AucBandit& bandit() const { return bandit_; }

 private:
  BanditAgent(const AgentContext& context, BanditOptions options, std::vector<std::unique_ptr<Agent>> arms);
  std::vector<size_t> PendingPerArm() const;
  std::optional<Candidate> FallbackCandidate();
  void Accept(const Candidate& candidate, std::vector<Candidate>& out);

  AgentContext context_;
  BanditOptions options_;
  std::vector<std::unique_ptr<Agent>> arms_;
  AucBandit bandit_;
  SearchHistory history_;
  std::mt19937_64 rng_;
  std::map<std::string, size_t> pending_;         // CandidateKey -> the arm that proposed it
  std::map<std::string, size_t> seen_per_shape_;  // for the random fallback's shape order
  std::vector<size_t> proposals_, successes_;
  size_t fallbacks_ = 0;
};

std::unique_ptr<Agent> MakeBanditAgent(const AgentContext& context);

}  // namespace crmap
