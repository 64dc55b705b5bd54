// CostModel: a small MLP (LibTorch) from FeatureSpec features of (dims, config) to a scalar target, trained by
// full-batch Adam on every sample it was given.
//
// The model agent and the rl agent's critic use it to predict the reward of a candidate: log(latency of the
// default config / latency of the candidate) at the same dims (minus the log of the relative latency; failures
// are kFailureReward). That target is log latency normalised per shape, which is what makes one model
// serve shapes whose absolute latencies differ by 1000x.
//
// LibTorch stays inside cost_model.cpp (pimpl). Deterministic for a seed and the same sample sequence.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace crmap {

struct CostModelOptions {
  int hidden = 64;
  double learning_rate = 3e-3;
  double weight_decay = 1e-5;
};

class CostModel {
 public:
  CostModel(size_t feature_count, uint64_t seed, CostModelOptions options = {});
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  void Add(const std::vector<float>& features, double target);
  size_t samples() const;
  // `epochs` full-batch Adam steps on every sample so far (no-op without samples).
  void Train(int epochs);
  std::vector<double> Predict(const std::vector<std::vector<float>>& features) const;
  // Mean squared error on the training samples.
  double TrainingLoss() const;
  // The three linear layers as {weights [out][in] row-major, bias} pairs: w1, b1, w2, b2, w3, b3 (the
  // activations are ReLU), for export into a policy file.
  std::vector<std::vector<float>> ExportParameters() const;
  int hidden() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crmap
