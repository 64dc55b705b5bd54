// crmap_hook.hpp: a thin C++ wrapper over the C API in crmap_hook.h (header-only; link libcrmap_hook).
//
// Hook owns a crmap_hook* (move-only) and closes it. Errors are returned as crmap_status values, with
// crmap::Hook::LastError() giving the message, so that nothing throws across the library boundary.
// Thread-safety is the C API's: Decide, Observe and Metrics may run concurrently; Reload swaps atomically.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runtime/hook/crmap_hook.h"

namespace crmap {

// "table", "policy" or "fallback": a decision's source (crmap_source) as docs and reports name it.
inline const char* HookSourceName(int32_t source) {
  switch (source) {
    case CRMAP_SOURCE_TABLE: return "table";
    case CRMAP_SOURCE_POLICY: return "policy";
    default: return "fallback";
  }
}

class Hook {
 public:
  Hook() = default;
  Hook(Hook&& other) noexcept : hook_(std::exchange(other.hook_, nullptr)) {}
  Hook& operator=(Hook&& other) noexcept {
    if (this != &other) {
      crmap_hook_close(hook_);
      hook_ = std::exchange(other.hook_, nullptr);
    }
    return *this;
  }
  Hook(const Hook&) = delete;
  Hook& operator=(const Hook&) = delete;
  ~Hook() { crmap_hook_close(hook_); }

  // Opens `path`; with a non-empty `fallback_config` a failed open still yields a fallback-only hook;
  // `allow_other_isa` accepts a policy tuned on a host of another CPU ISA (crmap_open_options).
  crmap_status Open(const std::string& path, const std::string& expected_workload = "",
                    const std::string& fallback_config = "", bool allow_other_isa = false) {
    crmap_open_options options{};
    options.allow_other_isa = allow_other_isa ? 1 : 0;
    options.expected_workload = expected_workload.empty() ? nullptr : expected_workload.c_str();
    options.fallback_config = fallback_config.empty() ? nullptr : fallback_config.c_str();
    crmap_hook_close(hook_);
    hook_ = nullptr;
    return crmap_hook_open(path.c_str(), &options, &hook_);
  }
  bool is_open() const { return hook_ != nullptr; }

  std::vector<std::string> DimNames() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < crmap_hook_dim_count(hook_); ++i) names.push_back(crmap_hook_dim_name(hook_, i));
    return names;
  }
  crmap_status Decide(const std::vector<int64_t>& dims, crmap_decision* decision,
                      const crmap_telemetry* telemetry = nullptr) {
    return crmap_hook_decide(hook_, dims.data(), dims.size(), telemetry, decision);
  }
  crmap_status Observe(uint64_t decision_id, double latency_us, double queue_wait_us) {
    return crmap_hook_observe(hook_, decision_id, latency_us, queue_wait_us);
  }
  crmap_status Metrics(crmap_metrics* metrics) const { return crmap_hook_metrics(hook_, metrics); }
  crmap_status Reload(const std::string& path) { return crmap_hook_reload(hook_, path.c_str()); }

  static std::string LastError() { return crmap_hook_last_error(); }
  crmap_hook* get() const { return hook_; }

 private:
  crmap_hook* hook_ = nullptr;
};

}  // namespace crmap
