#include "agents/bandit_agent.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "common/hash.h"
#include "common/json_fields.h"

namespace crmap {

// --- AucBandit -------------------------------------------------------------------------------------------

AucBandit::AucBandit(size_t arms, size_t window, double exploration)
    : arms_(arms), window_(std::max<size_t>(window, 1)), exploration_(exploration) {}

void AucBandit::Record(size_t arm, bool success) {
  outcomes_.emplace_back(arm, success);
  if (outcomes_.size() > window_) outcomes_.pop_front();
}

size_t AucBandit::uses(size_t arm) const {
  return static_cast<size_t>(
      std::count_if(outcomes_.begin(), outcomes_.end(), [arm](const auto& o) { return o.first == arm; }));
}

double AucBandit::Auc(size_t arm) const {
  double area = 0;
  double n = 0;
  for (const auto& [which, success] : outcomes_) {
    if (which != arm) continue;
    n += 1;
    if (success) area += n;
  }
  return n == 0 ? 0.0 : area / (n * (n + 1) / 2);
}

double AucBandit::Score(size_t arm, const std::vector<size_t>& pending) const {
  auto pending_of = [&](size_t a) { return a < pending.size() ? pending[a] : size_t{0}; };
  double n = static_cast<double>(uses(arm) + pending_of(arm));
  if (n == 0) return std::numeric_limits<double>::infinity();
  double total = static_cast<double>(outcomes_.size());
  for (size_t a = 0; a < arms_; ++a) total += static_cast<double>(pending_of(a));
  return Auc(arm) + exploration_ * std::sqrt(2.0 * std::log2(total) / n);
}

std::vector<size_t> AucBandit::Order(const std::vector<size_t>& pending, std::mt19937_64& rng) const {
  std::vector<size_t> order(arms_);
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);  // random tie order
  std::vector<double> score(arms_);
  for (size_t a = 0; a < arms_; ++a) score[a] = Score(a, pending);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
  return order;
}

// --- BanditAgent -----------------------------------------------------------------------------------------

Result<std::unique_ptr<BanditAgent>> BanditAgent::Create(const AgentContext& context, BanditOptions options) {
  if (options.arms.empty()) return Status::InvalidArgument("bandit agent needs at least one arm");
  std::vector<std::string> allowed;
  for (const std::string& name : AgentNames())
    if (name != "bandit") allowed.push_back(name);
  std::vector<std::unique_ptr<Agent>> arms;
  for (size_t i = 0; i < options.arms.size(); ++i) {
    const std::string& name = options.arms[i];
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
      return Status::InvalidArgument("bandit arm '" + name + "' is not allowed; arms: " + JoinNames(allowed));
    AgentContext arm_context = context;
    arm_context.seed = MixSeed(context.seed ^ Fnv1a64(name)) + i;  // distinct even for twin arms
    auto arm = MakeAgent(name, arm_context);
    if (!arm.ok()) return arm.status().WithContext("bandit arm '" + name + "'");
    arms.push_back(std::move(arm).value());
  }
  return Create(context, std::move(arms), std::move(options));
}

Result<std::unique_ptr<BanditAgent>> BanditAgent::Create(const AgentContext& context,
                                                         std::vector<std::unique_ptr<Agent>> arms,
                                                         BanditOptions options) {
  if (arms.empty()) return Status::InvalidArgument("bandit agent needs at least one arm");
  if (!context.space || context.shapes.empty())
    return Status::InvalidArgument("bandit agent needs a space and at least one shape");
  options.arms.clear();
  for (const auto& arm : arms) {
    if (!arm) return Status::InvalidArgument("bandit arm " + std::to_string(options.arms.size()) + " is null");
    options.arms.push_back(arm->name());
  }
  return std::unique_ptr<BanditAgent>(new BanditAgent(context, std::move(options), std::move(arms)));
}

BanditAgent::BanditAgent(const AgentContext& context, BanditOptions options, std::vector<std::unique_ptr<Agent>> arms)
    : context_(context),
      options_(std::move(options)),
      arms_(std::move(arms)),
      bandit_(arms_.size(), options_.window, options_.exploration),
      history_(*context.space),
      rng_(context.seed),
      proposals_(arms_.size(), 0),
      successes_(arms_.size(), 0) {}

std::vector<size_t> BanditAgent::PendingPerArm() const {
  std::vector<size_t> pending(arms_.size(), 0);
  for (const auto& [key, arm] : pending_) ++pending[arm];
  return pending;
}

void BanditAgent::Accept(const Candidate& candidate, std::vector<Candidate>& out) {
  history_.MarkSeen(candidate);
  ++seen_per_shape_[DimsToText(candidate.dims)];
  out.push_back(candidate);
}

std::optional<Candidate> BanditAgent::FallbackCandidate() {
  std::vector<size_t> order(context_.shapes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto count = [&](size_t i) {
    auto it = seen_per_shape_.find(DimsToText(context_.shapes[i]));
    return it == seen_per_shape_.end() ? size_t{0} : it->second;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return count(a) < count(b); });
  for (size_t i : order) {
    const Dims& dims = context_.shapes[i];
    if (std::optional<Config> config = RandomUnseenConfig(*context_.space, history_, dims, rng_))
      return Candidate{dims, *config};
  }
  return std::nullopt;
}

std::vector<Candidate> BanditAgent::Propose(size_t n) {
  std::vector<Candidate> out;
  std::vector<size_t> pending = PendingPerArm();
  while (out.size() < n) {
    bool found = false;
    for (size_t arm : bandit_.Order(pending, rng_)) {
      for (int attempt = 0; attempt <= options_.retries && !found; ++attempt) {
        std::vector<Candidate> proposed = arms_[arm]->Propose(1);
        if (proposed.empty()) break;                    // this arm has nothing left
        if (history_.Seen(proposed.front())) continue;  // another arm got there first
        pending_[CandidateKey(*context_.space, proposed.front())] = arm;
        ++pending[arm];
        ++proposals_[arm];
        Accept(proposed.front(), out);
        found = true;
      }
      if (found) break;
    }
    if (found) continue;
    std::optional<Candidate> fallback = FallbackCandidate();
    if (!fallback) break;  // every shape is exhausted
    ++fallbacks_;
    Accept(*fallback, out);
  }
  return out;
}

void BanditAgent::Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) {
  for (size_t i = 0; i < candidates.size() && i < evaluations.size(); ++i) {
    const Candidate& candidate = candidates[i];
    if (!history_.Seen(candidate)) ++seen_per_shape_[DimsToText(candidate.dims)];
    const double best_before = history_.BestReward(candidate.dims);
    history_.Record(candidate, evaluations[i]);
    auto it = pending_.find(CandidateKey(*context_.space, candidate));
    if (it == pending_.end()) continue;  // not proposed by an arm (history, fallback)
    const bool success = evaluations[i].ok() && Reward(evaluations[i]) > best_before;
    bandit_.Record(it->second, success);
    successes_[it->second] += success;
    pending_.erase(it);
  }
  for (auto& arm : arms_) arm->Observe(candidates, evaluations);
}

std::unique_ptr<Agent> MakeBanditAgent(const AgentContext& context) {
  auto agent = BanditAgent::Create(context);
  if (!agent.ok()) return nullptr;  // only for a context MakeAgent already rejects
  return std::move(agent).value();
}

}  // namespace crmap
