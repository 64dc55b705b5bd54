// Deciders for the serving runtime (runtime/serve/server.h): where each batch's config and batch limits come
// from.
//
// - FixedDecider: one config for every batch — the modes `default` (the default config, batch 1), `triton` (the
//   default plan with Triton's usual dynamic batcher: max batch 16, 100 us delay) and `static` (the single best
//   config over the tuning distribution).
// - HookDecider: per-batch decisions of a policy through libcrmap_hook's public C API (crmap_hook.h): decide at
//   the batch's dims (the hook's dim order), observe the batch's latency and its head's queue wait after it.
//
// Batch limits come from the decision's runtime knobs `batch` and `queue_delay_us` (LimitsFromConfig) unless
// the caller fixes them (flags `--max-batch`, `--queue-delay-us`). Both deciders are thread-safe.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "runtime/hook/crmap_hook.h"
#include "runtime/serve/server.h"

namespace crmap::serve {

// The value of `knob` in a canonical "k=v;k=v" config string, or "" when it has none.
std::string KnobValueOf(const std::string& config, const std::string& knob);

// The limits a config string's runtime knobs ask for ("...;batch=16;queue_delay_us=200;..."); a knob the string
// lacks keeps its value from `fallback`.
BatchLimits LimitsFromConfig(const std::string& config, BatchLimits fallback);

// The keep-warm time of a `thread_wait` value: passive 0, spin_200us 200, spin_2ms 2000, spin infinity, or a
// number of microseconds written as `spin_<N>us` / `spin_<N>ms`. Nullopt for anything else.
std::optional<double> KeepWarmUs(const std::string& thread_wait);

// Limits fixed by flags (each optional) over those of the decisions.
struct LimitOverrides {
  std::optional<int> max_batch;
  std::optional<double> max_delay_us;
  std::optional<double> keep_warm_us;
  BatchLimits Apply(BatchLimits limits) const;
};

class FixedDecider : public Decider {
 public:
  FixedDecider(std::string config, BatchLimits limits, std::string source)
      : config_(std::move(config)), limits_(limits), source_(std::move(source)) {}
  Decision Decide(const Dims& dims, int64_t queue_depth) override;

 private:
  const std::string config_;
  const BatchLimits limits_;
  const std::string source_;
};

class HookDecider : public Decider {
 public:
  // `hook` stays owned by the caller and open while this decider is used.
  HookDecider(crmap_hook* hook, LimitOverrides overrides);
  Decision Decide(const Dims& dims, int64_t queue_depth) override;
  void Observe(const Decision& decision, double latency_us, double queue_wait_us) override;
  // Decisions the hook refused (a dim it does not know): answered with the hook's fallback, counted here.
  int64_t errors() const { return errors_.load(); }

 private:
  crmap_hook* hook_;
  const LimitOverrides overrides_;
  std::atomic<int64_t> errors_{0};
};

}  // namespace crmap::serve
