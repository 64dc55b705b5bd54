// TorchReference: the workload graph run by LibTorch eager in f32, with the same seeded weights and inputs
// as the oneDNN plans.
//
// Two roles: the independent reference that validation compares every plan's output against, and the peer a
// user would otherwise deploy (`--baseline libtorch` times it side by side with the plans). The peer has two
// paths: eager (linear through BLAS, convolution through LibTorch's own oneDNN), and the oneDNN path a PyTorch
// user gets from torch.utils.mkldnn.to_mkldnn (linear weights converted to oneDNN's layout once, activations
// converted per call). The reference is always eager. This header
// hides LibTorch (pimpl) so that only torch_reference.cpp pays its compile cost. Not thread-safe; Run()
// sets the OpenMP thread count LibTorch shares with oneDNN (the caller's plans set theirs again).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "common/status.h"
#include "common/tensor_data.h"
#include "common/workload.h"

namespace crmap {

enum class TorchPath {
  kEager,   // torch::linear (BLAS), torch::conv2d, ...
  kMkldnn,  // linear ops through at::mkldnn_linear with oneDNN-layout weights; the rest as eager
};
const char* TorchPathName(TorchPath path);

// What LibTorch runs on here: its version, the CPU capability its own kernels dispatch to (AVX2, AVX512;
// ATEN_CPU_CAPABILITY lowers it) and whether it was built with oneDNN (MKLDNN). Computed once; thread-safe.
struct TorchInfo {
  std::string version;
  std::string cpu_capability;
  bool mkldnn = false;
};
const TorchInfo& DetectTorch();

class TorchReference {
 public:
  // Builds the graph's tensors for `dims` (weights and inputs from the workload's seeds and `data_seed`).
  static Result<std::unique_ptr<TorchReference>> Create(const Workload& workload, const Dims& dims, int threads,
                                                        uint64_t data_seed = 0, TorchPath path = TorchPath::kEager);
  ~TorchReference();
  TorchReference(const TorchReference&) = delete;
  TorchReference& operator=(const TorchReference&) = delete;

  // One forward pass under torch::NoGradGuard; keeps the outputs of the last pass. Sets the thread count
  // first if it differs (see SetThreads).
  Status Run();
  // Restores the OpenMP thread count LibTorch runs with (plans may have changed it); the measurer calls it
  // outside the timed region.
  void SetThreads();
  // The graph outputs of the last Run(), row-major f32.
  Result<std::map<std::string, HostTensor>> Outputs() const;

 private:
  struct Impl;
  explicit TorchReference(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace crmap
