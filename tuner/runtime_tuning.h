// Runtime tuning: choose the serving runtime's knobs — max batch, queue delay, placement, thread wait — by
// serving a request stream with each setting and reading the tail, not the kernels' median.
//
// Data flow: settings (the first is the anchor, the set-up a user starts from) -> R interleaved rounds, each
// running every setting once on the same stream, in an order rotated by the round and reversed in odd rounds
// (RoundOrder), so that a setting's predecessor alternates between its two neighbours in the list and the first
// slot moves (a run heats the caches and threads of the next) -> per setting, the latencies of all
// its rounds pooled -> its objective figure (p50/p95/p99 of the pooled latencies, or goodput: requests within the
// SLO per second of serving) and its ratio to the anchor's -> the best setting. A request that was not served
// (rejected, timed out, failed) counts as an infinite latency, so a setting cannot win the tail by dropping its
// slowest requests; requests the source itself rejects (out of range) are the same in every run and not counted.
// The noise band of a setting is its per-round spread; a win is `clear` when the best setting's worst round beats
// the anchor's best round.
//
// The serving itself sits behind RuntimeRunner (the real one runs `crmap serve`'s task, tuner/serve_task.h; tests
// script latencies), so this file decides nothing about threads or kernels. Not thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "common/status.h"
#include "runtime/hook/policy_file.h"
#include "runtime/serve/summary.h"

namespace crmap {

// One set-up of the runtime's knobs. thread_wait "" leaves the decisions' own; chunk 0 runs requests whole.
struct RuntimeSetting {
  int max_batch = 1;
  double queue_delay_us = 0;
  std::string placement = "shared";
  std::string thread_wait;
  int64_t chunk = 0;  // > 0: long requests run in chunks of this much of the summing dim (serve --chunk)
  // "batch=16;queue_delay_us=200;placement=shared[;thread_wait=spin][;chunk=256]".
  std::string Label() const;
};

// What one serve run of a setting gave.
struct RuntimeRun {
  std::vector<double> latency_us;  // per request the source released: completed -> its latency; not served -> +inf
  int64_t within_slo = 0;          // completed within the SLO
  double wall_s = 0;               // serving time
};

// Runs `setting` once on the stream (round from 0). An error stops the tuning and is returned.
using RuntimeRunner = std::function<Result<RuntimeRun>(const RuntimeSetting& setting, int round)>;

// What the tuning reads: a latency quantile of the pooled requests, or goodput at the SLO.
enum class RuntimeObjective { kP50, kP95, kP99, kGoodput };
// "p50", "p95", "p99", "goodput"; InvalidArgument listing them for anything else.
Result<RuntimeObjective> ParseRuntimeObjective(const std::string& text);
const char* RuntimeObjectiveName(RuntimeObjective objective);

struct RuntimeTuningOptions {
  int rounds = 3;
  RuntimeObjective objective = RuntimeObjective::kP99;
  // Raised: no further run starts and a run cut short by it is dropped; the full rounds so far are summarised.
  const std::atomic<bool>* stop = nullptr;
  std::function<void(int done, int total, const std::string& running)> on_progress;
};

struct RuntimeSettingResult {
  RuntimeSetting setting;
  serve::Quantiles latency_us;     // pooled over its rounds, the unserved at +inf (so p99 may be infinite)
  int64_t requests = 0;            // pooled
  int64_t unserved = 0;            // pooled
  double goodput_rps = 0;          // pooled within-SLO / pooled wall
  std::vector<double> round_figures;  // the objective per round
  double figure = 0;               // the objective over the pooled rounds
  double ratio_to_anchor = 0;      // how much better than the anchor (>1: better): anchor/this for latency,
                                   // this/anchor for goodput; 0 when undefined
};

struct RuntimeTuningResult {
  std::vector<RuntimeSettingResult> settings;  // in the order given; [0] is the anchor
  size_t best = 0;
  bool clear = false;          // the best's worst round beats the anchor's best round (false when best is 0)
  int rounds_done = 0;         // fewer than asked after a stop
  int64_t min_requests = 0;    // the fewest pooled requests of a setting
  bool too_few_requests = false;  // fewer than 5 / (1 - q) pooled requests for the quantile asked
  RuntimeObjective objective = RuntimeObjective::kP99;
};

// InvalidArgument without settings, with rounds < 1, or for a duplicate setting; the runner's error otherwise.
// Stopped before a full round: InvalidArgument ("stopped before every setting ran once").
Result<RuntimeTuningResult> TuneRuntime(const std::vector<RuntimeSetting>& settings,
                                        const RuntimeTuningOptions& options, const RuntimeRunner& runner);

// The setting run k-th (from 0) in round `round` of n settings: rotated by the round, reversed when it is odd.
size_t RoundOrder(size_t k, int round, size_t n);

// Every combination of the lists, in list order (the first of each list first: that is the anchor), except that
// max batch 1 takes only the first queue delay (a batch of one is full at once and never waits for company).
std::vector<RuntimeSetting> RuntimeGrid(const std::vector<int>& max_batch, const std::vector<double>& queue_delay_us,
                                        const std::vector<std::string>& placement,
                                        const std::vector<std::string>& thread_wait,
                                        const std::vector<int64_t>& chunk = {0});

// Writes `setting` into a policy's runtime knobs — batch, queue_delay_us, placement: each knob's default_index
// and the fallback's and incumbent's values, which the hook answers with every decision (runtime/hook/policy_model.h). The policy
// has no thread_wait or chunk knob: a setting's thread_wait and chunk are named in *not_stored (serve with
// --thread-wait, --chunk).
// InvalidArgument naming the knob and the values it has when the setting's value is not one of them (`policy`
// unchanged then); a knob the policy lacks is named in *not_stored too.
Status SetPolicyRuntimeKnobs(const RuntimeSetting& setting, PolicyFile* policy, std::vector<std::string>* not_stored);

// The table for people (best marked, ratios, per-round spread) and the JSON of docs/serve.md.
std::string RuntimeTuningText(const RuntimeTuningResult& result);
Json RuntimeTuningJson(const RuntimeTuningResult& result);

}  // namespace crmap
