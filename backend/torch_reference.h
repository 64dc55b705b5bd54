// TorchReference: the workload graph run by LibTorch eager in f32, with the same seeded weights and inputs
// as the oneDNN plans.
//
// Two roles: the independent reference that validation compares every plan's output against, and the peer a
// user would otherwise deploy (`--baseline libtorch` times it side by side with the plans). This header
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

class TorchReference {
 public:
  // Builds the graph's tensors for `dims` (weights and inputs from the workload's seeds and `data_seed`).
  static Result<std::unique_ptr<TorchReference>> Create(const Workload& workload, const Dims& dims, int threads,
                                                        uint64_t data_seed = 0);
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
