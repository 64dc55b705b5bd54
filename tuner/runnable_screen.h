// Runnable screen: which plan configs of a workload's space this host can run at one shape (`crmap space
// --runnable`). Each plan config (runtime knobs at their defaults) is compiled — oneDNN primitives created, weights
// packed — and none is timed. A config oneDNN has no kernel for on this CPU (bf16 without AVX-512, some layouts) is
// refused; one over the memory budget fails. Why it exists: a search space is the host's as much as the
// workload's — on an AVX2 host half of a space with a precision knob cannot run — so a budget stated as a share of
// "the exhaustive space" must say which configs that is, and a campaign (tuner/campaign.h) does not charge refusals.
// Refusals are a property of the config on this host, rarely of the shape (a screen at one shape stands for the
// support; the campaign records say where it did not). Not thread-safe (it compiles with the host's threads).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap {

// The largest plan space a screen compiles config by config (as a sweep, tuner/sweep.h).
inline constexpr uint64_t kMaxScreenConfigs = 100000;

// A plan config the screen could not compile, and why.
struct ScreenedConfig {
  Config config;
  StatusCode code = StatusCode::kOk;  // kUnsupported: refused; anything else: failed
  std::string message;
};

// What a screen found at one shape: how many plan configs compiled, how many were refused or failed, and which.
struct RunnableScreen {
  Dims dims;
  size_t plan_configs = 0;
  size_t runnable = 0;  // compiled
  size_t refused = 0;   // no oneDNN kernel on this CPU (Unsupported)
  size_t failed = 0;    // any other failure: over the memory budget, ...
  std::vector<ScreenedConfig> not_runnable;  // the refused and failed, in id order
};

// How one knob value fares: of the plan configs holding it, how many were refused or failed (not runnable).
struct NotRunnableValue {
  std::string knob;
  std::string value;
  size_t configs = 0;
  size_t not_runnable = 0;
};

// InvalidArgument for dims outside the workload's limits or a plan space over kMaxScreenConfigs (nothing compiled).
// `on_progress(done, total)` after each config.
Result<RunnableScreen> ScreenRunnable(const Workload& workload, const SearchSpace& space, const Dims& dims,
                                      const std::function<void(size_t, size_t)>& on_progress = {});

// The plan knob values that explain a screen's failures ("precision=bf16: 16 of 16"): those whose configs fail at a
// higher share than the plan space's as a whole, in knob then value order. Empty when everything ran.
std::vector<NotRunnableValue> NotRunnableByValue(const SearchSpace& space, const RunnableScreen& screen);

}  // namespace crmap
