// TorchExecutor: the serving runtime's peer executor — the same queue, batcher and request stream executed by
// LibTorch eager (what users run today, TorchServe-style), for side-by-side comparisons with the oneDNN
// executor (`crmap serve --executor libtorch`). A batch runs the workload's LibTorch model
// (backend/torch_reference.h) at the batch's bucket dims (BucketDims, as the oneDNN executor), with all cores
// (one executor: LibTorch's thread pool is per process). Models are built on first use per bucket (the build
// is reported as compile wait) and kept, at most `max_models`, least recently used first out; each is checked
// against the memory budget before any tensor is made. The config a decider asks for is ignored: LibTorch has
// one way to run the graph. Not thread-safe (one dispatcher).
#pragma once

#include <list>
#include <memory>
#include <string>
#include <utility>

#include "backend/torch_reference.h"
#include "runtime/serve/server.h"
#include "search_space/search_space.h"

namespace crmap {

class TorchExecutor : public serve::Executor {
 public:
  TorchExecutor(const Workload& workload, const SearchSpace& space, int threads, size_t max_models = 16);
  std::string name() const override { return "libtorch"; }
  serve::Execution Run(const Dims& dims, const std::string& config) override;
  // LibTorch's intra-op pool is the same libgomp team: kept warm like ours (backend/team_warmer.h).
  double KeepWarm(double budget_us, const std::function<bool()>& stop_waiting) override;
  size_t models() const { return models_.size(); }

 private:
  const Workload& workload_;
  const SearchSpace& space_;
  const int threads_;
  const size_t max_models_;
  std::list<std::pair<Dims, std::unique_ptr<TorchReference>>> models_;  // most recently used first
};

}  // namespace crmap
