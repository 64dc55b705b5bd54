// One of the few files that include LibTorch.
#include "agents/policy_network.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>

namespace crmap {

KnobMask AllowAll(const SearchSpace& space) {
  KnobMask mask;
  for (const auto& knob : space.knobs()) mask.emplace_back(knob.values.size(), true);
  return mask;
}

struct PolicyNetwork::Impl {
  const SearchSpace* space;
  size_t dims_count;
  std::vector<size_t> plan_knobs;     // indices of plan knobs in the space
  std::vector<size_t> choice_offset;  // per plan knob: first slot of its one-hot in the choice input
  size_t choice_width = 0;
  torch::nn::Sequential trunk{nullptr};
  std::vector<torch::nn::Linear> heads;
  std::unique_ptr<torch::optim::Adam> optimizer;
  PolicyOptions options;

  // Inputs for knob position `position`: dims features, then the one-hot of choices for positions before it.
  torch::Tensor Inputs(const std::vector<const std::vector<float>*>& dims, const std::vector<const Config*>& configs,
                       size_t position) const {
    const int64_t rows = static_cast<int64_t>(dims.size());
    torch::Tensor x = torch::zeros({rows, static_cast<int64_t>(dims_count + choice_width)});
    float* data = x.data_ptr<float>();
    for (int64_t r = 0; r < rows; ++r) {
      float* row = data + r * static_cast<int64_t>(dims_count + choice_width);
      std::copy(dims[r]->begin(), dims[r]->end(), row);
      for (size_t p = 0; p < position; ++p)
        row[dims_count + choice_offset[p] + static_cast<size_t>(configs[r]->values[plan_knobs[p]])] = 1.f;
    }
    return x;
  }

  // Module handles are shared pointers: forward() is not const, but running it changes no parameter.
  torch::Tensor Logits(const torch::Tensor& inputs, size_t position) {
    return heads[position]->forward(trunk->forward(inputs));
  }
};

PolicyNetwork::PolicyNetwork(const SearchSpace& space, size_t dims_feature_count, uint64_t seed,
                             PolicyOptions options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.space = &space;
  m.dims_count = dims_feature_count;
  m.options = options;
  for (size_t k = 0; k < space.knobs().size(); ++k) {
    if (space.knobs()[k].scope != KnobScope::kPlan) continue;
    m.plan_knobs.push_back(k);
    m.choice_offset.push_back(m.choice_width);
    m.choice_width += space.knobs()[k].values.size();
  }
  torch::manual_seed(seed);
  const int64_t in = static_cast<int64_t>(m.dims_count + m.choice_width);
  m.trunk = torch::nn::Sequential(torch::nn::Linear(in, options.hidden), torch::nn::Tanh(),
                                  torch::nn::Linear(options.hidden, options.hidden), torch::nn::Tanh());
  std::vector<torch::Tensor> parameters = m.trunk->parameters();
  for (size_t k : m.plan_knobs) {
    m.heads.emplace_back(options.hidden, static_cast<int64_t>(space.knobs()[k].values.size()));
    for (auto& p : m.heads.back()->parameters()) parameters.push_back(p);
  }
  m.optimizer = std::make_unique<torch::optim::Adam>(parameters, torch::optim::AdamOptions(options.learning_rate));
}

PolicyNetwork::~PolicyNetwork() = default;

Config PolicyNetwork::Sample(const std::vector<float>& dims_features, const KnobMask& mask, std::mt19937_64& rng,
                             bool greedy) const {
  Impl& m = *impl_;
  torch::NoGradGuard no_grad;
  Config config = m.space->Default();
  for (size_t p = 0; p < m.plan_knobs.size(); ++p) {
    const size_t k = m.plan_knobs[p];
    torch::Tensor logits = m.Logits(m.Inputs({&dims_features}, {&config}, p), p)[0].contiguous();
    const float* l = logits.data_ptr<float>();
    const size_t n = m.space->knobs()[k].values.size();
    std::vector<double> weights(n, 0.0);
    double top = -std::numeric_limits<double>::infinity();
    for (size_t v = 0; v < n; ++v)
      if (mask[k][v]) top = std::max(top, static_cast<double>(l[v]));
    if (!std::isfinite(top)) continue;  // everything masked: keep the default value
    for (size_t v = 0; v < n; ++v)
      if (mask[k][v]) weights[v] = std::exp(static_cast<double>(l[v]) - top);
    size_t chosen = 0;
    if (greedy) {
      for (size_t v = 1; v < n; ++v)
        if (weights[v] > weights[chosen]) chosen = v;
    } else {
      // Inverse-CDF on the raw generator output: identical draws on every standard library.
      double total = 0;
      for (double w : weights) total += w;
      double u = static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0) * total;
      for (chosen = 0; chosen + 1 < n; ++chosen) {
        if (u < weights[chosen]) break;
        u -= weights[chosen];
      }
      while (weights[chosen] == 0 && chosen > 0) --chosen;
    }
    config.values[k] = static_cast<int>(chosen);
  }
  return config;
}

double PolicyNetwork::LogProbability(const std::vector<float>& dims_features, const Config& config) const {
  Impl& m = *impl_;
  torch::NoGradGuard no_grad;
  double total = 0;
  for (size_t p = 0; p < m.plan_knobs.size(); ++p) {
    torch::Tensor log_probs = torch::log_softmax(m.Logits(m.Inputs({&dims_features}, {&config}, p), p), 1);
    total += log_probs[0][config.values[m.plan_knobs[p]]].item<double>();
  }
  return total;
}

double PolicyNetwork::Update(const std::vector<PolicySample>& samples) {
  Impl& m = *impl_;
  if (samples.empty()) return 0;
  std::vector<const std::vector<float>*> dims;
  std::vector<const Config*> configs;
  std::vector<float> advantages;
  for (const auto& s : samples) {
    dims.push_back(&s.dims_features);
    configs.push_back(&s.config);
    advantages.push_back(static_cast<float>(s.advantage));
  }
  const int64_t rows = static_cast<int64_t>(samples.size());
  torch::Tensor advantage = torch::from_blob(advantages.data(), {rows}).clone();
  m.trunk->train();
  m.optimizer->zero_grad();
  torch::Tensor log_prob = torch::zeros({rows});
  torch::Tensor entropy = torch::zeros({rows});
  for (size_t p = 0; p < m.plan_knobs.size(); ++p) {
    torch::Tensor log_probs = torch::log_softmax(m.Logits(m.Inputs(dims, configs, p), p), 1);
    std::vector<int64_t> chosen;
    for (const Config* c : configs) chosen.push_back(c->values[m.plan_knobs[p]]);
    torch::Tensor index = torch::tensor(chosen, torch::kLong).unsqueeze(1);
    log_prob = log_prob + log_probs.gather(1, index).squeeze(1);
    entropy = entropy - (log_probs.exp() * log_probs).sum(1);
  }
  torch::Tensor loss = -(log_prob * advantage).mean() - m.options.entropy_bonus * entropy.mean();
  loss.backward();
  m.optimizer->step();
  return loss.item<double>();
}

int PolicyNetwork::hidden() const { return impl_->options.hidden; }

std::vector<std::vector<float>> PolicyNetwork::ExportParameters() const {
  std::vector<std::vector<float>> out;
  auto add = [&](const torch::Tensor& t) {
    torch::Tensor c = t.detach().contiguous();
    out.emplace_back(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  };
  for (const auto& p : impl_->trunk->parameters()) add(p);
  for (const auto& head : impl_->heads)
    for (const auto& p : head->parameters()) add(p);
  return out;
}

}  // namespace crmap
