#include "backend/plan.h"

#include <cstring>

#include <omp.h>

namespace crmap {

Plan::Plan(dnnl::engine engine, int threads) : engine_(engine), stream_(engine) { info_.threads = threads; }

void Plan::SetThreads() const {
  if (omp_get_max_threads() == info_.threads) return;
  omp_set_num_threads(info_.threads);
  // Wake the resized OpenMP team now, so that the next timed run does not pay for it.
#pragma omp parallel
  { (void)omp_get_thread_num(); }
}

Status Plan::Execute() {
  SetThreads();
  try {
    for (auto& step : steps_) step.primitive.execute(stream_, step.args);
    stream_.wait();
  } catch (const dnnl::error& e) {
    return Status::Internal(std::string("oneDNN failed while executing a compiled plan: ") + e.what());
  }
  return Status::Ok();
}

dnnl::memory* Plan::Input(const std::string& name) {
  auto it = inputs_.find(name);
  return it == inputs_.end() ? nullptr : &it->second;
}

Result<HostTensor> Plan::ReadOutput(const std::string& name) const {
  auto it = outputs_.find(name);
  if (it == outputs_.end()) return Status::NotFound("plan has no output '" + name + "'");
  const auto& [memory, shape] = it->second;
  HostTensor tensor;
  tensor.shape = shape;
  tensor.values.resize(static_cast<size_t>(ElementCount(shape)));
  std::memcpy(tensor.values.data(), memory.get_data_handle(), tensor.values.size() * sizeof(float));
  return tensor;
}

}  // namespace crmap
