// One of the few files that include LibTorch.
#include "agents/cost_model.h"

#include <torch/torch.h>

namespace crmap {

struct CostModel::Impl {
  Impl(size_t features, uint64_t seed, CostModelOptions options)
      : feature_count(features),
        hidden(options.hidden),
        net([&] {
          torch::manual_seed(seed);
          return torch::nn::Sequential(torch::nn::Linear(static_cast<int64_t>(features), options.hidden),
                                       torch::nn::ReLU(), torch::nn::Linear(options.hidden, options.hidden),
                                       torch::nn::ReLU(), torch::nn::Linear(options.hidden, 1));
        }()),
        optimizer(net->parameters(),
                  torch::optim::AdamOptions(options.learning_rate).weight_decay(options.weight_decay)) {}

  torch::Tensor Inputs(const std::vector<std::vector<float>>& rows) const {
    torch::Tensor t = torch::empty({static_cast<int64_t>(rows.size()), static_cast<int64_t>(feature_count)});
    float* data = t.data_ptr<float>();
    for (size_t i = 0; i < rows.size(); ++i) std::copy(rows[i].begin(), rows[i].end(), data + i * feature_count);
    return t;
  }

  size_t feature_count;
  int hidden;
  torch::nn::Sequential net;
  torch::optim::Adam optimizer;
  std::vector<std::vector<float>> x;
  std::vector<float> y;
};

CostModel::CostModel(size_t feature_count, uint64_t seed, CostModelOptions options)
    : impl_(std::make_unique<Impl>(feature_count, seed, options)) {}
CostModel::~CostModel() = default;

void CostModel::Add(const std::vector<float>& features, double target) {
  impl_->x.push_back(features);
  impl_->y.push_back(static_cast<float>(target));
}

size_t CostModel::samples() const { return impl_->y.size(); }

void CostModel::Train(int epochs) {
  if (impl_->y.empty()) return;
  torch::Tensor x = impl_->Inputs(impl_->x);
  torch::Tensor y = torch::from_blob(impl_->y.data(), {static_cast<int64_t>(impl_->y.size()), 1}).clone();
  impl_->net->train();
  for (int epoch = 0; epoch < epochs; ++epoch) {
    impl_->optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(impl_->net->forward(x), y);
    loss.backward();
    impl_->optimizer.step();
  }
}

std::vector<double> CostModel::Predict(const std::vector<std::vector<float>>& features) const {
  if (features.empty()) return {};
  torch::NoGradGuard no_grad;
  impl_->net->eval();
  torch::Tensor out = impl_->net->forward(impl_->Inputs(features)).contiguous();
  const float* data = out.data_ptr<float>();
  return std::vector<double>(data, data + features.size());
}

std::vector<std::vector<float>> CostModel::ExportParameters() const {
  std::vector<std::vector<float>> out;
  for (const auto& p : impl_->net->parameters()) {
    torch::Tensor c = p.detach().contiguous();
    out.emplace_back(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return out;
}

int CostModel::hidden() const { return impl_->hidden; }

double CostModel::TrainingLoss() const {
  if (impl_->y.empty()) return 0;
  torch::NoGradGuard no_grad;
  torch::Tensor x = impl_->Inputs(impl_->x);
  torch::Tensor y = torch::from_blob(impl_->y.data(), {static_cast<int64_t>(impl_->y.size()), 1}).clone();
  return torch::mse_loss(impl_->net->forward(x), y).item<double>();
}

}  // namespace crmap
