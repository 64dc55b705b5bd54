#include "runtime/serve/decider.h"

#include <charconv>
#include <cstdlib>
#include <limits>

namespace crmap::serve {

std::string KnobValueOf(const std::string& config, const std::string& knob) {
  size_t start = 0;
  while (start < config.size()) {
    size_t end = config.find(';', start);
    if (end == std::string::npos) end = config.size();
    const std::string item = config.substr(start, end - start);
    if (item.size() > knob.size() && item.compare(0, knob.size(), knob) == 0 && item[knob.size()] == '=')
      return item.substr(knob.size() + 1);
    start = end + 1;
  }
  return "";
}

std::optional<double> KeepWarmUs(const std::string& thread_wait) {
  if (thread_wait == "passive") return 0.0;
  if (thread_wait == "spin") return std::numeric_limits<double>::infinity();
  for (const auto& [suffix, scale] : {std::pair<const char*, double>{"us", 1}, {"ms", 1000}}) {
    const std::string tail = suffix;
    if (thread_wait.size() <= 5 + tail.size() || thread_wait.compare(0, 5, "spin_") != 0 ||
        thread_wait.compare(thread_wait.size() - tail.size(), tail.size(), tail) != 0)
      continue;
    const std::string number = thread_wait.substr(5, thread_wait.size() - 5 - tail.size());
    int64_t value = 0;
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size() || value < 0 ||
        static_cast<double>(value) * scale > 1e7)
      return std::nullopt;
    return static_cast<double>(value) * scale;
  }
  return std::nullopt;
}

BatchLimits LimitsFromConfig(const std::string& config, BatchLimits fallback) {
  BatchLimits limits = fallback;
  const std::string batch = KnobValueOf(config, "batch"), delay = KnobValueOf(config, "queue_delay_us");
  int value = 0;
  if (!batch.empty() && std::from_chars(batch.data(), batch.data() + batch.size(), value).ec == std::errc() &&
      value >= 1)
    limits.max_batch = value;
  double delay_us = 0;
  if (!delay.empty()) {
    char* end = nullptr;
    delay_us = std::strtod(delay.c_str(), &end);
    if (end && *end == '\0' && delay_us >= 0) limits.max_delay_us = delay_us;
  }
  if (auto keep_warm = KeepWarmUs(KnobValueOf(config, "thread_wait"))) limits.keep_warm_us = *keep_warm;
  return limits;
}

BatchLimits LimitOverrides::Apply(BatchLimits limits) const {
  if (max_batch) limits.max_batch = *max_batch;
  if (max_delay_us) limits.max_delay_us = *max_delay_us;
  if (keep_warm_us) limits.keep_warm_us = *keep_warm_us;
  return limits;
}

Decision FixedDecider::Decide(const Dims&, int64_t) {
  Decision d;
  d.config = config_;
  d.limits = limits_;
  d.source = source_;
  return d;
}

HookDecider::HookDecider(crmap_hook* hook, LimitOverrides overrides) : hook_(hook), overrides_(overrides) {}

Decision HookDecider::Decide(const Dims& dims, int64_t queue_depth) {
  // The hook's dims in its order; a hook on its fallback has none and answers any dims.
  const size_t count = crmap_hook_dim_count(hook_);
  int64_t values[16];
  size_t n = 0;
  for (size_t i = 0; i < count && i < 16; ++i) {
    auto it = dims.find(crmap_hook_dim_name(hook_, i));
    values[n++] = it == dims.end() ? 1 : it->second;
  }
  crmap_telemetry telemetry{static_cast<double>(queue_depth), 0};
  crmap_decision decision;
  Decision d;
  if (crmap_hook_decide(hook_, values, n, &telemetry, &decision) != CRMAP_OK) {
    errors_.fetch_add(1, std::memory_order_relaxed);
    d.source = "error";
    d.limits = overrides_.Apply(BatchLimits{});
    return d;
  }
  d.config = decision.config;
  d.source = decision.source == CRMAP_SOURCE_POLICY ? "policy"
             : decision.source == CRMAP_SOURCE_FALLBACK ? "fallback"
                                                        : "table";
  d.decision_id = decision.decision_id;
  d.predicted_us = decision.predicted_latency_us;
  d.limits = overrides_.Apply(LimitsFromConfig(d.config, BatchLimits{}));
  crmap_metrics metrics;
  if (crmap_hook_metrics(hook_, &metrics) == CRMAP_OK) d.generation = metrics.policy_generation;
  return d;
}

void HookDecider::Observe(const Decision& decision, double latency_us, double queue_wait_us) {
  if (decision.decision_id != 0) crmap_hook_observe(hook_, decision.decision_id, latency_us, queue_wait_us);
}

}  // namespace crmap::serve
