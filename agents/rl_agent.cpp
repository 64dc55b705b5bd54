#include "agents/rl_agent.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace crmap {

RlAgent::RlAgent(const AgentContext& context, RlOptions options)
    : context_(context),
      options_(options),
      features_(*context.workload, *context.space),
      critic_(std::make_unique<CostModel>(features_.size(), context.seed, CostModelOptions{options.critic_hidden})),
      policy_(std::make_unique<PolicyNetwork>(*context.space, features_.dim_feature_count(), context.seed + 1,
                                              PolicyOptions{options.policy_hidden})),
      history_(*context.space),
      rng_(context.seed),
      shapes_(context_.shapes),
      warmup_(static_cast<size_t>(std::max(0, options.warmup))) {
  for (const auto& knob : context.space->knobs()) {
    ok_count_.emplace_back(knob.values.size(), 0);
    fail_count_.emplace_back(knob.values.size(), 0);
  }
}

KnobMask RlAgent::Mask() const {
  KnobMask mask = AllowAll(*context_.space);
  for (size_t k = 0; k < mask.size(); ++k) {
    size_t allowed = 0;
    for (size_t v = 0; v < mask[k].size(); ++v) {
      mask[k][v] = !(fail_count_[k][v] >= options_.mask_after && ok_count_[k][v] == 0);
      allowed += mask[k][v];
    }
    if (allowed == 0) mask[k].assign(mask[k].size(), true);  // never mask a knob away entirely
  }
  return mask;
}

double RlAgent::PredictReward(const Dims& dims, const Config& config) const {
  return critic_->Predict({features_.Encode(dims, config)})[0];
}

Config RlAgent::ScreenedPolicyChoice(const Dims& dims, std::mt19937_64& rng, bool skip_seen) const {
  std::vector<float> dims_features(features_.dim_feature_count());
  features_.EncodeDims(dims, dims_features.data());
  KnobMask mask = Mask();
  // The pool the critic screens: the policy's mode and samples, the neighbours of the best config measured
  // at this shape (local search once the policy has converged), and a few allowed random configs.
  std::vector<Config> pool = {policy_->Sample(dims_features, mask, rng, /*greedy=*/true)};
  for (int i = 0; i < options_.policy_samples; ++i) pool.push_back(policy_->Sample(dims_features, mask, rng));
  std::vector<Config> around = {pool[0]};
  if (const Config* best = history_.BestConfig(dims)) around.push_back(*best);
  for (const Config& center : around)
    for (const Config& c : context_.space->Neighbours(center))
      if (Allowed(c, mask)) pool.push_back(c);
  for (int i = 0; i < options_.random_samples; ++i) pool.push_back(SampleAllowed(mask, rng));
  std::sort(pool.begin(), pool.end());
  pool.erase(std::unique(pool.begin(), pool.end()), pool.end());
  if (skip_seen)
    pool.erase(std::remove_if(pool.begin(), pool.end(), [&](const Config& c) { return history_.Seen({dims, c}); }),
               pool.end());
  if (pool.empty()) return {};
  return CriticsPick(dims, pool);
}

const Config& RlAgent::CriticsPick(const Dims& dims, const std::vector<Config>& pool) const {
  std::vector<std::vector<float>> rows;
  for (const auto& c : pool) rows.push_back(features_.Encode(dims, c));
  std::vector<double> predicted = critic_->Predict(rows);
  return pool[static_cast<size_t>(std::max_element(predicted.begin(), predicted.end()) - predicted.begin())];
}

bool RlAgent::Allowed(const Config& config, const KnobMask& mask) const {
  for (size_t k = 0; k < config.values.size(); ++k)
    if (!mask[k][static_cast<size_t>(config.values[k])]) return false;
  return true;
}

Config RlAgent::SampleAllowed(const KnobMask& mask, std::mt19937_64& rng) const {
  Config config = context_.space->Default();
  for (size_t k = 0; k < config.values.size(); ++k) {
    if (context_.space->knobs()[k].scope != KnobScope::kPlan) continue;
    std::vector<int> allowed;
    for (size_t v = 0; v < mask[k].size(); ++v)
      if (mask[k][v]) allowed.push_back(static_cast<int>(v));
    config.values[k] = allowed[rng() % allowed.size()];
  }
  return config;
}

std::optional<Config> RlAgent::TransferProbe(const Dims& dims) const {
  KnobMask mask = Mask();
  std::vector<Config> pool;
  for (const Dims& other : context_.shapes) {
    if (other == dims) continue;
    const Config* best = history_.BestConfig(other);
    if (best && Allowed(*best, mask) && !history_.Seen({dims, *best}) &&
        std::find(pool.begin(), pool.end(), *best) == pool.end())
      pool.push_back(*best);
  }
  if (pool.empty()) return std::nullopt;
  return CriticsPick(dims, pool);
}

std::optional<Config> RlAgent::CampaignLeader() const {
  std::map<Config, size_t> best_at;
  for (const Dims& dims : context_.shapes)
    if (const Config* best = history_.BestConfig(dims)) ++best_at[*best];
  std::optional<Config> leader;
  size_t most = 1;  // a leader is the best at two shapes or more
  for (const auto& [config, count] : best_at)  // Config order: the first of equals stays
    if (count > most) {
      most = count;
      leader = config;
    }
  return leader;
}

bool RlAgent::ClimbDue(const Dims& dims) const {
  const Config* best = history_.BestConfig(dims);
  // shapes_.count(dims) already counts the proposal being chosen.
  return best && shapes_.count(dims) > context_.space->Neighbours(*best).size();
}

std::optional<Config> RlAgent::LeaderClimb(const Dims& dims) const {
  const Config* best = history_.BestConfig(dims);
  if (!best) return std::nullopt;
  std::optional<Config> leader = CampaignLeader();
  if (!leader || *leader != *best) return std::nullopt;
  KnobMask mask = Mask();
  std::vector<Config> pool;
  for (const Config& c : context_.space->Neighbours(*best)) {
    if (!Allowed(c, mask)) continue;
    bool measured_somewhere = std::any_of(context_.shapes.begin(), context_.shapes.end(),
                                          [&](const Dims& other) { return history_.Seen({other, c}); });
    if (!measured_somewhere) pool.push_back(c);
  }
  if (pool.empty()) return std::nullopt;
  return LeastEvidenced(*best, pool, dims);
}

Config RlAgent::LeastEvidenced(const Config& center, const std::vector<Config>& neighbours,
                               const Dims& dims) const {
  // The neighbours whose changed value has the fewest successful measurements anywhere (what the critic knows
  // least about), then the critic's pick among them.
  std::vector<Config> pool;
  int least = std::numeric_limits<int>::max();
  for (const Config& c : neighbours) {
    int evidence = 0;
    for (size_t k = 0; k < c.values.size(); ++k)
      if (c.values[k] != center.values[k]) evidence = ok_count_[k][static_cast<size_t>(c.values[k])];
    if (evidence < least) pool.clear();
    if (evidence <= least) {
      least = evidence;
      pool.push_back(c);
    }
  }
  return CriticsPick(dims, pool);
}

std::optional<Config> RlAgent::ClimbFromBest(const Dims& dims) const {
  const Config* best = history_.BestConfig(dims);
  if (!best) return std::nullopt;
  KnobMask mask = Mask();
  std::vector<Config> pool;
  for (const Config& c : context_.space->Neighbours(*best))
    if (Allowed(c, mask) && !history_.Seen({dims, c})) pool.push_back(c);
  if (pool.empty()) return std::nullopt;
  return LeastEvidenced(*best, pool, dims);
}

Config RlAgent::Recommend(const Dims& dims) const {
  std::mt19937_64 rng(context_.seed ^ 0x5eedULL);
  Config config = ScreenedPolicyChoice(dims, rng, /*skip_seen=*/false);
  return config.values.empty() ? context_.space->Default() : config;
}

std::vector<Candidate> RlAgent::Propose(size_t n) {
  std::vector<Candidate> out;
  std::bernoulli_distribution explore(options_.explore), probe(options_.probe), climb(options_.climb);
  for (size_t attempts = 0; out.size() < n && attempts < n * context_.shapes.size() + n; ++attempts) {
    const Dims& dims = shapes_.Next();
    shapes_.Count(dims);
    Config config;
    bool probing = false, climbing = false;
    bool warm = history_.measured() + out.size() >= static_cast<size_t>(options_.warmup);
    if (!warm) {
      if (std::optional<Config> design = warmup_.Next(*context_.space, history_, dims, rng_)) config = *design;
    } else if (options_.probe > 0 && probe(rng_)) {
      std::optional<Config> transfer = TransferProbe(dims);
      probing = transfer.has_value();
      config = probing ? *transfer : ScreenedPolicyChoice(dims, rng_, /*skip_seen=*/true);
    } else if (std::optional<Config> step = options_.leader_climbs ? LeaderClimb(dims) : std::nullopt) {
      climbing = true;
      config = *step;
    } else if (options_.climb > 0 && ClimbDue(dims) && climb(rng_)) {
      std::optional<Config> step = ClimbFromBest(dims);
      climbing = step.has_value();
      config = step ? *step : ScreenedPolicyChoice(dims, rng_, /*skip_seen=*/true);
    } else if (!explore(rng_)) {
      config = ScreenedPolicyChoice(dims, rng_, /*skip_seen=*/true);
    } else {
      // Exploration: an allowed random config; every second one ignores the mask, so that a value masked
      // after unlucky failures (they may have come from another knob) can still prove itself.
      KnobMask mask = (rng_() % 2 == 0) ? AllowAll(*context_.space) : Mask();
      for (int tries = 0; tries < 16 && config.values.empty(); ++tries) {
        Config c = SampleAllowed(mask, rng_);
        if (!history_.Seen({dims, c})) config = c;
      }
    }
    if (config.values.empty()) {
      std::optional<Config> random = RandomUnseenConfig(*context_.space, history_, dims, rng_);
      if (!random) continue;  // this shape is exhausted
      config = *random;
    }
    Candidate candidate{dims, config, probing, climbing};
    history_.MarkSeen(candidate);
    out.push_back(candidate);
  }
  return out;
}

void RlAgent::Observe(const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) {
  recent_.clear();
  recent_shapes_.clear();
  for (size_t i = 0; i < candidates.size() && i < evaluations.size(); ++i) {
    const Candidate& c = candidates[i];
    const Evaluation& e = evaluations[i];
    // Measurements the agent did not propose (history replayed on resume, other bandit arms) count towards
    // the shape order too.
    if (!history_.Seen(c)) shapes_.Count(c.dims);
    history_.Record(c, e);
    double reward = Reward(e);
    critic_->Add(features_.Encode(c.dims, c.config), reward);
    for (size_t k = 0; k < c.config.values.size(); ++k)
      (e.ok() ? ok_count_ : fail_count_)[k][static_cast<size_t>(c.config.values[k])]++;
    rewards_by_shape_[DimsToText(c.dims)].push_back(reward);
    PolicySample sample;
    sample.dims_features.resize(features_.dim_feature_count());
    features_.EncodeDims(c.dims, sample.dims_features.data());
    sample.config = c.config;
    sample.advantage = reward;  // the shape's mean is subtracted in TrainPolicy
    recent_.push_back(sample);
    recent_shapes_.push_back(DimsToText(c.dims));
  }
  Train(1);
}

void RlAgent::Train(int rounds) {
  for (int round = 0; round < rounds; ++round) {
    critic_->Train(options_.critic_epochs);
    TrainPolicy();
  }
}

void RlAgent::AddImaginedSamples(const Dims& dims, const KnobMask& mask, std::vector<PolicySample>* batch) {
  std::vector<float> dims_features(features_.dim_feature_count());
  features_.EncodeDims(dims, dims_features.data());
  std::vector<Config> configs;
  std::vector<std::vector<float>> rows;
  for (int i = 0; i < options_.imagined_per_shape; ++i) {
    configs.push_back(policy_->Sample(dims_features, mask, rng_));
    rows.push_back(features_.Encode(dims, configs.back()));
  }
  std::vector<double> q = critic_->Predict(rows);
  double mean = std::accumulate(q.begin(), q.end(), 0.0) / static_cast<double>(q.size());
  for (size_t i = 0; i < configs.size(); ++i) batch->push_back({dims_features, configs[i], q[i] - mean});
}

void RlAgent::TrainPolicy() {
  if (critic_->samples() < static_cast<size_t>(std::max(1, options_.warmup / 2))) return;
  KnobMask mask = Mask();
  // Observed samples: advantage = reward - the mean reward observed at that shape.
  std::vector<PolicySample> observed = recent_;
  for (size_t i = 0; i < observed.size(); ++i) {
    const std::vector<double>& rewards = rewards_by_shape_[recent_shapes_[i]];
    double mean = std::accumulate(rewards.begin(), rewards.end(), 0.0) / static_cast<double>(rewards.size());
    observed[i].advantage = recent_[i].advantage - mean;
  }
  for (int step = 0; step < options_.policy_steps; ++step) {
    std::vector<PolicySample> batch = observed;
    // Critic-scored policy samples for every campaign shape: what spreads learning across shapes, including
    // shapes with few measurements.
    for (const Dims& dims : context_.shapes) AddImaginedSamples(dims, mask, &batch);
    policy_->Update(batch);
  }
}

void RlAgent::LearnOffline(const std::vector<std::pair<Candidate, Evaluation>>& observations,
                           const OfflineOptions& options) {
  for (const auto& [c, e] : observations) {
    if (history_.Seen(c)) continue;
    history_.Record(c, e);
    critic_->Add(features_.Encode(c.dims, c.config), Reward(e));
    for (size_t k = 0; k < c.config.values.size(); ++k)
      (e.ok() ? ok_count_ : fail_count_)[k][static_cast<size_t>(c.config.values[k])]++;
  }
  critic_->Train(options.critic_epochs);
  KnobMask mask = Mask();
  for (int step = 0; step < options.policy_steps; ++step) {
    std::vector<PolicySample> batch;
    for (const Dims& dims : context_.shapes) {
      auto label = options.labels.find(dims);
      if (const Config* best = label != options.labels.end() ? &label->second : history_.BestConfig(dims)) {
        std::vector<float> dims_features(features_.dim_feature_count());
        features_.EncodeDims(dims, dims_features.data());
        batch.push_back({dims_features, *best, options.imitation});
      }
      AddImaginedSamples(dims, mask, &batch);
    }
    policy_->Update(batch);
  }
}

std::unique_ptr<Agent> MakeRlAgent(const AgentContext& context) {
  RlOptions options;
  options.leader_climbs = context.leader_climbs;
  return std::make_unique<RlAgent>(context, options);
}

}  // namespace crmap
