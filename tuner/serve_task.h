// `crmap serve` as a library call: builds the request stream, the decider of the chosen mode, the oneDNN
// executors and the plan cache, runs the runtime's Server (runtime/serve/server.h) and summarises.
//
// Modes, all on the same request stream: `default` (the default config, batch 1), `triton` (the default plan
// with a fixed dynamic batcher: max batch 16, 100 us delay), `static` (one config for everything: --config, or
// the static plan of a tuning database as `crmap train` chooses it: policy_trainer.h, ChooseStaticPlan), `policy`
// (per-batch decisions of a policy file through libcrmap_hook), `oracle` (per batch, the best measured config
// of the database's tuned shape nearest the batch's dims). --max-batch / --queue-delay-us override any mode's
// batch limits. Sources: a .csv trace (Azure schema, --map), a .jsonl request trace, or a scenario (built-in
// name or file; its requests drawn with --seed). Documented in docs/serve.md.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backend/plan_executor.h"
#include "common/json_fields.h"
#include "common/status.h"
#include "datasets/scenario.h"
#include "runtime/serve/request_source.h"
#include "runtime/serve/summary.h"
#include "tuner/runtime_tuning.h"

namespace crmap {

struct ServeTaskOptions {
  std::string workload;           // built-in name or path
  std::string requests;           // scenario (name or path), *.jsonl trace or *.csv trace
  std::string map;                // CSV: "tokens=ContextTokens"
  Dims fixed_dims;                // CSV: dims no column maps
  std::string out_of_range = "reject";
  double time_scale = 1;
  uint64_t seed = 1;              // a scenario's requests
  std::string mode = "default";   // default, triton, static, policy, oracle
  std::string policy;             // policy mode
  std::string fallback;           // policy mode: the hook's fallback config when the policy cannot be used
  std::string db;                 // oracle mode; static mode without --config
  std::string config;             // static mode
  std::string executor = "onednn";   // onednn (the workload's plans) or libtorch (LibTorch eager, the peer)
  // shared (one executor, all cores) or per_core (onednn only); "": the mode's — the placement knob of a static
  // config or of the policy (its runtime knob), shared otherwise and for libtorch.
  std::string placement;
  std::optional<int> max_batch;
  std::optional<double> queue_delay_us;
  int64_t chunk = 0;              // > 0: a request longer than this along the summing dim runs in chunks of it
  std::string thread_wait;        // over the decisions' thread_wait knob ("": the decisions'; passive, spin, ...)
  std::vector<int> priorities;    // per stream (0 first); streams beyond the list get 0
  int64_t max_queue_size = 0;     // per stream; 0: none
  double timeout_ms = 0;          // per request in the queue; 0: none
  std::string timeout_action = "reject";  // reject or delay
  double duration_s = 0;          // 0: the whole stream
  double slo_ms = 0;
  std::string on_stop = "finish";  // finish or reject (queued requests after a stop)
  bool background_compile = true;
  bool warmup = true;             // compile the first request's plan on every executor before arrivals start
  // More shapes to warm up before arrivals start, on every executor, at the config decided there: a list like
  // "tokens=1;tokens=64", "buckets" (DecidedPlanWarmups: every plan bucket of the summing dim,
  // backend/plan_executor.h's BucketDims, once per plan the decider answers within it), or "support" (a
  // scenario source only: every plan bucket its phases' distributions draw, ScenarioSupportShapes). "" none.
  std::string warmup_shapes;
  PlanCacheOptions plans;
  std::string telemetry_path;     // per-request JSON Lines ("" none)
  std::string trace_path;         // Chrome trace-event JSON, written at the end ("" none)
  std::string metrics_address;    // serve Prometheus metrics on HOST:PORT while running ("" none; port 0: any)
  std::string metrics_path;       // the metrics in the text exposition format, written at the end ("" none)
  const std::atomic<bool>* stop = nullptr;
  // Policy mode: reload the policy file while serving when this flag is raised (SIGHUP in the CLI; lowered
  // again here) or, with reload_on_change, when the file's modification time or size changes (polled every
  // 200 ms). A reload that fails keeps the current policy answering (the hook's guarantee) and is counted.
  std::atomic<bool>* reload_requested = nullptr;
  bool reload_on_change = false;
  std::function<void(const serve::ServeProgress&)> on_progress;
  bool quiet = false;  // the "serving ..." line at debug level, not info (runtime tuning serves many runs)
  bool collect_served_latencies = false;  // fill ServeTaskReport::served_latency_us (8 bytes a request)
};

// The dims `warmup_shapes` names for `workload` (the first request's dims, `first`, fill in "buckets"'s other
// dims). InvalidArgument naming the option for anything else than "buckets" or a list of shapes in range, or
// "buckets" on a workload without a summing dim.
Result<std::vector<Dims>> WarmupShapes(const Workload& workload, const std::string& warmup_shapes, const Dims& first);

// "support": the distinct plan buckets (BucketDims) of kSupportDraws draws from each phase's distribution of
// `scenario` (a fixed seed, apart from the stream's), in order — the shapes the scenario says to expect, as a
// TensorRT optimisation profile or Triton's warm-up samples name them, not the requests it will send; a shape
// rarer than ~1 in 4,000 draws of its phase may be left out. With headroom for batching: per combination of
// the other dims, the summing dim's buckets above the largest drawn up to twice it (a batch adding up to less
// runs on the next larger warm plan while its own compiles: PlanCache::Acquire). InvalidArgument, with the
// count, past kMaxSupportShapes buckets.
inline constexpr size_t kSupportDraws = 20000;
inline constexpr size_t kMaxSupportShapes = 1024;
Result<std::vector<Dims>> ScenarioSupportShapes(const Workload& workload, const Scenario& scenario);

// "buckets" as serve runs it: asks `decider` at every value of the summing dim (the other dims at `first`'s) and
// returns one warm-up per distinct (plan, plan bucket) with the config decided there, at the smallest value of
// each — every plan a run of that decider can ask for, so a policy that answers differently within a bucket has
// each of its answers compiled; configs that differ only in runtime knobs share a plan and are warmed once. The
// server runs them as given (it does not ask again). Empty for a workload without a summing dim.
std::vector<serve::Warmup> DecidedPlanWarmups(const Workload& workload, const SearchSpace& space,
                                              serve::Decider& decider, const Dims& first);

// The plan cache's count bound for a run with `warmups` warm-ups (the first request's included) on each of
// `executors` executors (plans are per executor): `configured`, raised when needed to hold every executor's
// warm-ups and one plan more each, so that warming one executor does not evict another's warm plans.
size_t PlanCacheSizeFor(size_t configured, size_t warmups, size_t executors);

struct ServeTaskReport {
  serve::ServeSummary summary;
  serve::SourceReport source;
  PlanCacheStats plans;
  // With collect_served_latencies, per request released, in the order they were recorded
  // (ServerOptions::on_record's): a completed one's latency; +inf for one rejected (queue full, timeout, shutdown) or failed; one the source rejected as
  // out of range is not listed. Runtime tuning pools these.
  std::vector<double> served_latency_us;
  Json json;         // everything above, with the mode, workload and host
  std::string text;  // the summary for people
};

// InvalidArgument for an unknown mode, placement, source or option value, or a mode missing its input (policy
// without --policy, oracle without --db, static without --config or --db); NotFound for a missing file; the
// loaders' errors otherwise.
Result<ServeTaskReport> RunServeTask(const ServeTaskOptions& options);

// The option checks RunServeTask starts with (mode, placement, executor, queue policy, the mode's inputs named,
// the workload loads, --chunk fits its summing dim), without reading the requests: InvalidArgument / NotFound as
// RunServeTask would return them.
Status CheckServeTaskOptions(const ServeTaskOptions& options);

// `options` with a runtime setting's max batch, queue delay, placement, chunk and (when given) thread wait.
ServeTaskOptions WithRuntimeSetting(ServeTaskOptions options, const RuntimeSetting& setting);

// Runtime tuning's runner (tuner/runtime_tuning.h): serves `base` with a setting's max batch, queue delay,
// placement and thread wait over whatever `base` says; each run's start is logged at debug level.
RuntimeRunner ServeRuntimeRunner(ServeTaskOptions base);

}  // namespace crmap
