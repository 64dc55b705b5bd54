#include "backend/torch_executor.h"

#include <chrono>

#include "backend/plan_executor.h"
#include "backend/session.h"
#include "backend/team_warmer.h"

namespace crmap {

TorchExecutor::TorchExecutor(const Workload& workload, const SearchSpace& space, int threads, size_t max_models)
    : workload_(workload), space_(space), threads_(std::max(1, threads)), max_models_(std::max<size_t>(1, max_models)) {}

serve::Execution TorchExecutor::Run(const Dims& dims, const std::string&) {
  serve::Execution execution;
  execution.config_run = "libtorch";
  const Dims bucket = BucketDims(workload_, dims);
  auto it = models_.begin();
  while (it != models_.end() && it->first != bucket) ++it;
  if (it == models_.end()) {
    const auto begin = std::chrono::steady_clock::now();
    Status fits = CheckTorchModelFits(workload_, space_, bucket, 0);
    if (!fits.ok()) {
      execution.status = fits;
      return execution;
    }
    auto model = TorchReference::Create(workload_, bucket, threads_);
    execution.compile_wait_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count();
    if (!model.ok()) {
      execution.status = model.status();
      return execution;
    }
    models_.emplace_front(bucket, std::move(model).value());
    if (models_.size() > max_models_) models_.pop_back();
  } else if (it != models_.begin()) {
    models_.splice(models_.begin(), models_, it);
  }
  execution.status = models_.front().second->Run();
  return execution;
}

double TorchExecutor::KeepWarm(double budget_us, const std::function<bool()>& stop_waiting) {
  return KeepTeamWarm(threads_, budget_us, stop_waiting);
}

}  // namespace crmap
