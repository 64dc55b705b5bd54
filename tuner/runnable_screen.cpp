#include "tuner/runnable_screen.h"

#include <map>
#include <utility>

#include "backend/plan_compiler.h"

namespace crmap {

Result<RunnableScreen> ScreenRunnable(const Workload& workload, const SearchSpace& space, const Dims& dims,
                                      const std::function<void(size_t, size_t)>& on_progress) {
  CRMAP_RETURN_IF_ERROR(workload.CheckDims(dims));
  const uint64_t size = space.Size(KnobScope::kPlan);
  if (size > kMaxScreenConfigs)
    return Status::InvalidArgument("the plan space of " + workload.name() + " has " + std::to_string(size) +
                                   " configs; a screen compiles at most " + std::to_string(kMaxScreenConfigs));
  RunnableScreen screen;
  screen.dims = dims;
  screen.plan_configs = static_cast<size_t>(size);
  for (uint64_t i = 0; i < size; ++i) {
    const Config config = space.NthConfig(i);
    Result<Plan> plan = CompilePlan(workload, space, dims, config);
    if (plan.ok()) {
      ++screen.runnable;
    } else {
      const StatusCode code = plan.status().code();
      ++(code == StatusCode::kUnsupported ? screen.refused : screen.failed);
      screen.not_runnable.push_back({config, code, plan.status().message()});
    }
    if (on_progress) on_progress(static_cast<size_t>(i + 1), screen.plan_configs);
  }
  return screen;
}

std::vector<NotRunnableValue> NotRunnableByValue(const SearchSpace& space, const RunnableScreen& screen) {
  const std::vector<Knob>& knobs = space.knobs();
  std::map<std::pair<size_t, int>, size_t> failing;
  for (const ScreenedConfig& s : screen.not_runnable)
    for (size_t k = 0; k < knobs.size(); ++k)
      if (knobs[k].scope == KnobScope::kPlan) ++failing[{k, s.config.values[k]}];
  std::vector<NotRunnableValue> out;
  for (const auto& [key, count] : failing) {
    const Knob& knob = knobs[key.first];
    // Plan configs holding this value: the plan space's size over the knob's domain.
    const size_t holding = screen.plan_configs / knob.values.size();
    // Over-represented among the failures: its share failing above the space's (cross-multiplied, exact).
    if (count * screen.plan_configs > screen.not_runnable.size() * holding)
      out.push_back({knob.name, knob.values[static_cast<size_t>(key.second)], holding, count});
  }
  return out;
}

}  // namespace crmap
