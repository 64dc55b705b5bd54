// MeasurementSession: compile -> validate -> measure (interleaved) for candidates of one workload at one shape.
//
// Data flow: configs -> CompilePlan each (failures become typed results: unsupported, over_memory, error)
// -> execute once and compare with the LibTorch f32 reference (wrong_answer beyond the accuracy budget)
// -> MeasureInterleaved over the survivors, optionally with LibTorch peers (backend/peer.h) as more
// candidates, each validated like a plan -> one CandidateResult per config (+1 per peer), in input order. The
// first config is the anchor: every result also carries its per-round ratio to it (no ratios at all if the
// anchor failed).
//
// The reference runs once per session (per data seed) and is kept; it doubles as the eager peer when the
// thread counts match. A peer with another OpenBLAS core runs in a child process for one Compare() call. All plans of one Compare() call are alive at once, so
// callers chunk large candidate lists (see the sweep in tuner/). Not thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/hang_watchdog.h"
#include "backend/measurer.h"
#include "backend/objective.h"
#include "backend/plan.h"
#include "backend/peer.h"
#include "backend/plan_compiler.h"
#include "backend/statistics.h"
#include "backend/torch_reference.h"
#include "backend/validator.h"
#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap {

enum class CandidateStatus { kOk, kUnsupported, kWrongAnswer, kOverMemory, kTimeout, kError };
const char* CandidateStatusName(CandidateStatus status);

struct CandidateResult {
  std::string label;          // canonical config string, or the peer's label ("libtorch", "libtorch[mkldnn]", ...)
  bool is_baseline = false;
  PeerBaseline peer;          // which peer, for a baseline
  Config config;              // empty for the baseline
  CandidateStatus status = CandidateStatus::kOk;
  std::string message;        // why it failed
  LatencyStats latency;       // hot samples: each right after an untimed call of the same config
  LatencyStats cold_latency;  // samples after the process idled (its thread team asleep); rounds 0 if none
  int cold_not_idle = 0;      // cold samples dropped: the process never went idle
  RatioStats ratio_to_anchor;  // per-round ratios to the anchor (its median: the median objective's ratio)
  // This candidate's p95 (p99) latency / the anchor's, over the same interleaved rounds; 0 without an anchor.
  double p95_ratio_to_anchor = 0, p99_ratio_to_anchor = 0;
  std::string anchor_label;   // empty when there is no anchor to refer to
  bool validated = false;     // compared with the LibTorch f32 reference (false with validate off)
  ErrorStats error;           // vs the f32 reference (all 0 for the baseline that is the reference)
  double accuracy_budget = 0; // the bound on error.scaled this config's precision had
  PlanInfo plan;              // empty for the baseline
};

// The candidate's latency at `objective` / the anchor's, measured side by side: the median of the per-round ratios
// for the median, the ratio of the two tails for p95 / p99 (a tail is a property of many rounds, not of one).
// 0 when unknown (no anchor, or the candidate failed).
double RatioToAnchor(const CandidateResult& result, Objective objective);

// A LibTorch model of the graph holds its f32 weights, inputs and outputs at least; they are checked against the
// larger of `memory_budget_bytes` and the space's budget before any is generated (ResourceExhausted naming the
// bytes), as the plan compiler checks a plan's. Catching std::bad_alloc is no refusal: with memory overcommit a
// huge allocation succeeds and filling it wakes the OOM killer (and under AddressSanitizer a failed operator
// new aborts the process).
Status CheckTorchModelFits(const Workload& workload, const SearchSpace& space, const Dims& dims,
                           int64_t memory_budget_bytes);

// A run this many times longer than the per-run timeout is taken for one that will never return.
constexpr double kDefaultHangFactor = 3;

struct SessionOptions {
  MeasureOptions measure;
  CompileOptions compile;
  bool validate = true;
  std::vector<PeerBaseline> baselines;  // peers measured after the configs (DefaultPeers(): --baseline libtorch)
  bool stop_on_over_memory = false;  // return at the first config over the memory budget, measuring nothing
  int baseline_threads = 0;  // 0: all cores
  std::string peer_executable;  // the crmap binary, for peers in a child process (the CLI: /proc/self/exe)
  // When set, every run of a candidate (validation, warm-up, timed) is watched: one still going after hang_ms
  // (0: kDefaultHangFactor x measure.timeout_ms) is a kernel that never returns, and the watchdog's handler
  // decides what happens (backend/hang_watchdog.h; the CLI records it and ends or restarts the process).
  std::shared_ptr<HangWatchdog> watchdog;
  double hang_ms = 0;
  // Called as each stage progresses ("compile", i, n), ("measure", round, rounds).
  std::function<void(const std::string& stage, int done, int total)> on_progress;
};

class MeasurementSession {
 public:
  MeasurementSession(const Workload& workload, const SearchSpace& space, Dims dims);

  const Dims& dims() const { return dims_; }
  std::vector<CandidateResult> Compare(const std::vector<Config>& configs, const SessionOptions& options);
  // The LibTorch f32 outputs for this shape (computed on first use). ResourceExhausted, with no tensor generated,
  // when the graph's f32 weights, inputs and outputs alone exceed the larger of `memory_budget_bytes` and the
  // space's budget (a plan budget set low on purpose does not refuse the reference; an absurd shape does).
  Result<const std::map<std::string, HostTensor>*> Reference(uint64_t data_seed = 0, int64_t memory_budget_bytes = 0);

 private:
  const Workload& workload_;
  const SearchSpace& space_;
  const Dims dims_;
  // (Re)builds the LibTorch model unless one with these threads and seed exists; refused as Reference() says.
  Status EnsureTorchModel(int threads, uint64_t data_seed, int64_t memory_budget_bytes);
  // Compiles, then (with a reference) validates; on success *plan_out holds the plan.
  CandidateResult CompileAndValidate(const Config& config, const SessionOptions& options,
                                     const std::map<std::string, HostTensor>* reference,
                                     std::unique_ptr<Plan>* plan_out);

  std::unique_ptr<TorchReference> torch_model_;  // the reference, reused as the baseline when threads match
  int torch_threads_ = 0;
  uint64_t torch_seed_ = 0;
  std::map<std::string, HostTensor> reference_;
  uint64_t reference_seed_ = 0;
  bool have_reference_ = false;
};

}  // namespace crmap
