// PolicyNetwork: a shape-conditioned, autoregressive, factorised policy over a space's plan knobs (LibTorch).
//
// The config is chosen knob by knob in the space's order. For knob k the network sees the dims features
// (FeatureSpec::EncodeDims) and a one-hot of the values already chosen for knobs < k; a shared trunk feeds one
// softmax head per knob. Values a KnobMask forbids get probability zero. One network serves every shape of a
// distribution, so it proposes configs for shapes it never measured: that transfer is the point.
//
// Training is REINFORCE: Update() raises the log-probability of each sample in proportion to its advantage,
// with an entropy bonus against premature collapse. LibTorch stays inside policy_network.cpp (pimpl).
// Deterministic for a seed. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "search_space/search_space.h"

namespace crmap {

// allowed[k][v]: may knob k (index into the space's knobs) take value v. Runtime knobs are ignored.
using KnobMask = std::vector<std::vector<bool>>;
KnobMask AllowAll(const SearchSpace& space);

struct PolicySample {
  std::vector<float> dims_features;
  Config config;
  double advantage = 0;
};

struct PolicyOptions {
  int hidden = 64;
  double learning_rate = 1e-2;
  double entropy_bonus = 0.01;
};

class PolicyNetwork {
 public:
  PolicyNetwork(const SearchSpace& space, size_t dims_feature_count, uint64_t seed, PolicyOptions options = {});
  ~PolicyNetwork();
  PolicyNetwork(const PolicyNetwork&) = delete;
  PolicyNetwork& operator=(const PolicyNetwork&) = delete;

  // Samples plan knobs (runtime knobs stay at their defaults). `greedy` takes the most probable value of each
  // knob instead of sampling.
  Config Sample(const std::vector<float>& dims_features, const KnobMask& mask, std::mt19937_64& rng,
                bool greedy = false) const;
  // Log-probability of `config` under the policy (ignores masks).
  double LogProbability(const std::vector<float>& dims_features, const Config& config) const;
  // One gradient step of REINFORCE on the samples; returns the mean policy loss.
  double Update(const std::vector<PolicySample>& samples);

  // Parameters as flat float arrays in a fixed order, for export into a policy file: trunk layer 1 weights
  // [hidden][dims + choices] and bias, trunk layer 2 weights and bias, then per plan knob the head's weights
  // [values][hidden] and bias (activations tanh).
  std::vector<std::vector<float>> ExportParameters() const;
  int hidden() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crmap
