// The only backend file that includes LibTorch.
#include "backend/torch_reference.h"

#include <cstring>

#include <omp.h>
#include <ATen/Version.h>
#include <torch/torch.h>

namespace crmap {

namespace {

torch::Tensor ToTorch(const HostTensor& tensor) {
  std::vector<int64_t> sizes(tensor.shape.begin(), tensor.shape.end());
  return torch::from_blob(const_cast<float*>(tensor.values.data()), sizes, torch::kFloat32).clone();
}

torch::Tensor ApplyEltwise(const OpSpec& op, const torch::Tensor& x) {
  switch (op.eltwise) {
    case EltwiseAlg::kRelu: return op.alpha == 0.f ? torch::relu(x) : torch::leaky_relu(x, op.alpha);
    case EltwiseAlg::kGeluTanh: return torch::gelu(x, "tanh");
    case EltwiseAlg::kGeluErf: return torch::gelu(x);
    case EltwiseAlg::kSigmoid: return torch::sigmoid(x);
    case EltwiseAlg::kSwish: return x * torch::sigmoid(op.alpha * x);
    case EltwiseAlg::kTanh: return torch::tanh(x);
    case EltwiseAlg::kLinear: return x * op.alpha + op.beta;
  }
  return x;
}

TorchInfo DetectTorchOnce() {
  TorchInfo info;
  info.version = TORCH_VERSION;
  const std::string config = at::show_config();
  const std::string key = "CPU capability usage: ";
  size_t at = config.find(key);
  if (at != std::string::npos) {
    size_t end = config.find('\n', at);
    info.cpu_capability = config.substr(at + key.size(), end == std::string::npos ? end : end - at - key.size());
  }
  info.mkldnn = at::hasMKLDNN();
  return info;
}

}  // namespace

const char* TorchPathName(TorchPath path) { return path == TorchPath::kMkldnn ? "mkldnn" : "eager"; }

const TorchInfo& DetectTorch() {
  static const TorchInfo info = DetectTorchOnce();
  return info;
}

struct TorchReference::Impl {
  const Workload* workload = nullptr;
  TorchPath path = TorchPath::kEager;
  int threads = 1;
  std::map<std::string, torch::Tensor> inputs;
  std::map<std::string, OpParameters> host_params;
  std::map<std::string, std::map<std::string, torch::Tensor>> params;
  std::map<std::string, torch::Tensor> outputs;
};

TorchReference::TorchReference(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TorchReference::~TorchReference() = default;

Result<std::unique_ptr<TorchReference>> TorchReference::Create(const Workload& workload, const Dims& dims,
                                                               int threads, uint64_t data_seed, TorchPath path) {
  CRMAP_ASSIGN_OR_RETURN(auto shapes, workload.InferShapes(dims));
  if (path == TorchPath::kMkldnn && !DetectTorch().mkldnn)
    return Status::Unsupported("this LibTorch was built without oneDNN (MKLDNN): no mkldnn path");
  auto impl = std::make_unique<Impl>();
  impl->workload = &workload;
  impl->path = path;
  impl->threads = threads;
  if (at::get_num_threads() != threads) at::set_num_threads(threads);
  try {
    for (const auto& input : workload.inputs())
      impl->inputs[input.name] = ToTorch(GenerateGraphInput(workload, input.name, shapes.at(input.name), data_seed));
    for (const auto& op : workload.ops()) {
      OpParameters p = GenerateOpParameters(workload, op, shapes.at(op.inputs[0]));
      auto& tensors = impl->params[op.name];
      if (!p.weight.empty()) tensors["weight"] = ToTorch(p.weight);
      // to_mkldnn's MkldnnLinear: the weight converted to oneDNN's layout once, at model load.
      if (path == TorchPath::kMkldnn && op.kind == OpKind::kLinear) tensors["weight"] = tensors["weight"].to_mkldnn();
      if (!p.bias.empty()) tensors["bias"] = ToTorch(p.bias);
      if (!p.gamma.empty()) tensors["gamma"] = ToTorch(p.gamma);
      if (!p.beta.empty()) tensors["beta"] = ToTorch(p.beta);
    }
  } catch (const c10::Error& e) {
    return Status::Internal(std::string("LibTorch failed to build the reference: ") + e.what_without_backtrace());
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory building the LibTorch reference at dims " + DimsToText(dims));
  }
  return std::unique_ptr<TorchReference>(new TorchReference(std::move(impl)));
}

void TorchReference::SetThreads() {
  // at::set_num_threads also rebuilds LibTorch's pthreadpool, after which the next forward pass ran 10x slower
  // here (measured: 20 ms instead of 1.4 ms for bert_ffn at tokens=1). It is called once, in Create; between
  // runs only the OpenMP count (what at::get_num_threads reads) is restored.
  if (omp_get_max_threads() == impl_->threads) return;
  omp_set_num_threads(impl_->threads);
#pragma omp parallel
  { (void)omp_get_thread_num(); }
}

Status TorchReference::Run() {
  const Workload& w = *impl_->workload;
  SetThreads();
  torch::NoGradGuard no_grad;
  std::map<std::string, torch::Tensor> values = impl_->inputs;
  try {
    for (const auto& op : w.ops()) {
      const torch::Tensor& x = values.at(op.inputs[0]);
      auto& p = impl_->params[op.name];
      torch::Tensor y;
      switch (op.kind) {
        case OpKind::kLinear:
          if (impl_->path == TorchPath::kMkldnn) {
            // MkldnnLinear.forward: a dense activation converted in, the result converted back.
            torch::Tensor rows = x.reshape({-1, x.size(-1)}).to_mkldnn();
            c10::optional<torch::Tensor> bias;
            if (op.bias) bias = p.at("bias");
            std::vector<int64_t> sizes = x.sizes().vec();
            sizes.back() = op.out_features;
            y = at::mkldnn_linear(rows, p.at("weight"), bias).to_dense().view(sizes);
          } else {
            y = torch::linear(x, p.at("weight"), op.bias ? p.at("bias") : torch::Tensor());
          }
          break;
        case OpKind::kMatmul: y = torch::matmul(x, values.at(op.inputs[1])); break;
        case OpKind::kConv2d:
          y = torch::conv2d(x, p.at("weight"), op.bias ? p.at("bias") : torch::Tensor(),
                            {op.stride[0], op.stride[1]}, {op.padding[0], op.padding[1]}, {1, 1}, op.groups);
          break;
        case OpKind::kEltwise: y = ApplyEltwise(op, x); break;
        case OpKind::kAdd: y = x + values.at(op.inputs[1]); break;
        case OpKind::kLayerNorm:
          y = torch::layer_norm(x, {x.size(-1)}, p.at("gamma"), p.at("beta"), op.epsilon);
          break;
        case OpKind::kSoftmax: y = torch::softmax(x, -1); break;
        case OpKind::kPool:
          y = op.pool == PoolAlg::kMax
                  ? torch::max_pool2d(x, {op.kernel[0], op.kernel[1]}, {op.stride[0], op.stride[1]},
                                      {op.padding[0], op.padding[1]})
                  : torch::avg_pool2d(x, {op.kernel[0], op.kernel[1]}, {op.stride[0], op.stride[1]},
                                      {op.padding[0], op.padding[1]}, false, true);
          break;
        case OpKind::kSplitHeads: {
          int64_t b = x.size(0), s = x.size(1), d = x.size(2) / (op.parts * op.heads);
          y = x.view({b, s, op.parts, op.heads, d}).select(2, op.part).permute({0, 2, 1, 3});
          break;
        }
        case OpKind::kTranspose: y = x.transpose(-1, -2); break;
        case OpKind::kMergeHeads:
          y = x.permute({0, 2, 1, 3}).reshape({x.size(0), x.size(2), x.size(1) * x.size(3)});
          break;
      }
      values[op.name] = y;
    }
    impl_->outputs.clear();
    for (const auto& name : w.outputs()) impl_->outputs[name] = values.at(name).contiguous();
  } catch (const c10::Error& e) {
    return Status::Internal(std::string("LibTorch reference failed: ") + e.what_without_backtrace());
  } catch (const std::bad_alloc&) {
    return Status::ResourceExhausted("out of memory running the LibTorch reference");
  }
  return Status::Ok();
}

Result<std::map<std::string, HostTensor>> TorchReference::Outputs() const {
  if (impl_->outputs.empty()) return Status::Internal("TorchReference::Outputs before Run");
  std::map<std::string, HostTensor> outputs;
  for (const auto& [name, tensor] : impl_->outputs) {
    HostTensor host;
    host.shape.assign(tensor.sizes().begin(), tensor.sizes().end());
    host.values.resize(static_cast<size_t>(tensor.numel()));
    std::memcpy(host.values.data(), tensor.data_ptr<float>(), host.values.size() * sizeof(float));
    outputs[name] = std::move(host);
  }
  return outputs;
}

}  // namespace crmap
