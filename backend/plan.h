// Plan: a workload compiled for one (dims, config): oneDNN primitives with their post-ops, every memory they
// touch, weights already packed, reorders only where a layout changes. Built by CompilePlan
// (plan_compiler.h); primitive creation and weight packing happen there, outside any timed region.
//
// Execute() runs the steps in order on the plan's stream and waits: that is exactly what the measurer
// times. A Plan owns its memories; its graph inputs are filled with seeded data at compile time and can be
// overwritten. A Plan is movable, not copyable, and not thread-safe: one thread executes it at a time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "common/status.h"
#include "common/tensor_data.h"

namespace crmap {

// The oneDNN implementation chosen for one step, as impl_info_str() reports it.
struct KernelInfo {
  std::string step;    // "fc1", "fc1.bias", "reorder x", ...
  std::string kind;    // "matmul", "convolution", "reorder", ...
  std::string impl;    // "gemm:jit", "jit:avx2", "brg:avx512_core", ...
  std::string detail;  // source / destination descriptors
};

struct PlanInfo {
  int64_t peak_bytes = 0;     // all activations, packed weights and scratchpads the plan holds
  int64_t weight_bytes = 0;
  double compile_ms = 0;      // lowering: primitive-descriptor and primitive creation (weight generation excluded)
  double pack_ms = 0;         // weight reorders and copies done once at plan time
  int threads = 1;
  int reorders = 0;           // activation reorders executed per call
  std::vector<KernelInfo> kernels;
};

class Plan {
 public:
  struct Step {
    KernelInfo kernel;
    dnnl::primitive primitive;
    std::unordered_map<int, dnnl::memory> args;
  };

  Plan(dnnl::engine engine, int threads);
  Plan(Plan&&) = default;
  Plan& operator=(Plan&&) = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // Runs every step and waits for the stream. Sets the calling thread's OpenMP thread count to the plan's.
  // Returns Internal if oneDNN reports an error (it should not for a plan that compiled).
  Status Execute();
  // Sets the calling thread's OpenMP thread count to the plan's (Execute does too; this is the untimed way).
  void SetThreads() const;

  // Graph input memory (plain row-major f32) to read or overwrite; nullptr for an unknown name.
  dnnl::memory* Input(const std::string& name);
  // Copies a graph output (plain row-major f32) to host memory. Valid after Execute().
  Result<HostTensor> ReadOutput(const std::string& name) const;
  const std::vector<std::string>& output_names() const { return output_names_; }
  const PlanInfo& info() const { return info_; }
  const std::vector<Step>& steps() const { return steps_; }

 private:
  friend class PlanBuilder;
  dnnl::engine engine_;
  dnnl::stream stream_;
  std::vector<Step> steps_;
  std::map<std::string, dnnl::memory> inputs_;
  std::map<std::string, std::pair<dnnl::memory, Shape>> outputs_;
  std::vector<std::string> output_names_;
  std::vector<dnnl::memory> owned_;  // keeps weights and other constants alive
  PlanInfo info_;
};

}  // namespace crmap
