// Server: replays a request stream open-loop against executors, through the scheduler (queues + dynamic
// batcher) and a decider (the hook, or a fixed config), and records every request's fate.
//
// Threads: one generator releases each request at its timestamp whatever the server's state (closed-loop load
// would hide queueing) and stamps it on arrival; one dispatcher per executor takes the next batch from the
// shared scheduler, asks the decider for a config, runs the batch on its executor, then reports the batch's
// latency to the decider. Latency = completion - arrival. All scheduling happens under one mutex; executors run
// outside it.
//
// Decisions: per batch, the decider is asked at the head request's dims for the batch limits (the decision's
// runtime knobs `batch`, `queue_delay_us`, or the mode's flags); once the batch is formed, at the batch's
// combined dims for the config it runs (the same decision when the dims did not change). The run decision is
// observed after the batch, unless the batch failed, waited for a compile or ran a substituted plan (its
// latency would teach the policy about another config). A batch whose requests do not add up along a summing
// dim (equal dims only) calls the executor once per request. Once arrivals have ended, partial batches no
// longer wait for company. With chunks (BatchRule::chunk), a chunk of a long request is one batch; after it the
// request goes back to the scheduler (Requeue) and its record is written once its last chunk ran: start = its
// first chunk's start, service = from there to its last chunk's end (other batches in between included),
// compile wait = its chunks' sum, batch id and size = its last batch's.
//
// Between batches: when the batch's decision says spin (BatchLimits::keep_warm_us > 0) and nothing is queued,
// the dispatcher has its executor keep its thread team spinning until the next arrival, the budget or the end of
// the run (Executor::KeepWarm), so the next batch does not pay for waking sleeping OpenMP threads.
//
// Runtime overhead (RunStatistics::overhead), per batch after a dispatcher's first: the runtime's own time between
// the executor returning from the previous batch and starting this one, minus the time the dispatcher slept
// waiting for work or a batch delay (and minus any keep-warm spin) — observe, records and telemetry, expiry,
// batching, both decisions, locks.
//
// Memory: a record per request in flight only (the stream itself is the caller's); finished requests are folded
// into RunStatistics and handed to `on_record`, unless ServerOptions::keep_records keeps them all.
//
// Stopping: at the end of the stream, after `duration_us`, or when `stop` is raised (SIGINT/SIGTERM in the
// CLI): arrivals stop (requests not yet released are not part of the run); queued requests are finished —
// or, once `stop` is raised (also while the queues drain after the end of the stream), rejected with reason
// shutdown under kRejectQueued. Every request released is in the result exactly once:
// completed, rejected (by reason) or failed (the executor's error).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "runtime/serve/request_source.h"
#include "runtime/serve/run_statistics.h"
#include "runtime/serve/scheduler.h"

namespace crmap::serve {

// What the decider answers for some dims.
struct Decision {
  std::string config;       // the canonical config string the executor runs
  BatchLimits limits;       // for the batch this decision heads
  std::string source;       // "policy", "fallback", "default", "static", "oracle", ...
  uint64_t generation = 0;  // the policy's generation (0: none)
  uint64_t decision_id = 0; // for Observe (0: nothing to observe)
  double predicted_us = 0;  // 0: unknown
};

// Thread-safe: dispatchers call it concurrently.
class Decider {
 public:
  virtual ~Decider() = default;
  // `queue_depth`: requests queued when asked.
  virtual Decision Decide(const Dims& dims, int64_t queue_depth) = 0;
  virtual void Observe(const Decision& decision, double latency_us, double queue_wait_us) {
    (void)decision, (void)latency_us, (void)queue_wait_us;
  }
};

// What an executor did with one batch.
struct Execution {
  Status status;             // not ok: every request of the batch failed
  std::string config_run;    // the config that ran (another ready plan while the wanted one compiles)
  bool substituted = false;  // config_run is not the config asked for
  double compile_wait_us = 0;  // time this batch waited for a plan to compile
};

// Runs batches; each executor is driven by one dispatcher thread only.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;  // "onednn", "onednn[core 1]", "libtorch", ...
  virtual Execution Run(const Dims& dims, const std::string& config) = 0;
  // Before the first arrival (the server's warm-up): like Run, but the config asked for is what runs — an
  // executor that would run a stand-in while a plan compiles waits for the plan instead. Default: Run.
  virtual Execution Warm(const Dims& dims, const std::string& config) { return Run(dims, config); }
  // Between batches (`--thread-wait`, or a decision's `thread_wait`): keeps the thread team of the last batch's
  // plan spinning for up to `budget_us` (infinity: no limit) or until `stop_waiting()` says a request arrived or
  // the run ends; polls it cheaply, lock-free. Returns the CPU it burnt, in thread-microseconds. Default: no team
  // to keep warm.
  virtual double KeepWarm(double budget_us, const std::function<bool()>& stop_waiting) {
    (void)budget_us, (void)stop_waiting;
    return 0;
  }
};

enum class Outcome { kCompleted, kRejected, kFailed };
const char* OutcomeName(Outcome outcome);  // "completed", "rejected", "failed"

struct RequestRecord {
  int64_t id = 0;
  int stream = 0;
  Dims dims;
  double scheduled_us = 0;   // the stream's timestamp
  double arrival_us = 0;     // when the generator released it (the latency clock starts here)
  double start_us = 0;       // its batch started (0 for a rejection, unless chunks of it had run: the first's)
  double end_us = 0;         // completed, failed or rejected
  double queue_wait_us = 0;  // start - arrival
  double compile_wait_us = 0;
  double service_us = 0;     // end - start
  int64_t batch_id = -1;
  int batch_size = 0;
  std::string executor;
  std::string config;        // the decided config (plan and runtime knobs)
  std::string plan;          // the plan that ran (its plan knobs; runtime knobs at their defaults)
  bool substituted = false;  // a ready plan ran instead of the decided one
  std::string source;        // the decision's source
  uint64_t generation = 0;
  Outcome outcome = Outcome::kCompleted;
  RejectReason reason = RejectReason::kQueueFull;  // when rejected
  std::string error;         // when failed
  double latency_us() const { return end_us - arrival_us; }
};

// True for a request the source itself rejected (out of its dims' ranges), not the server: it never queued.
inline bool RejectedBySource(const RequestRecord& r) {
  return r.outcome == Outcome::kRejected && r.reason == RejectReason::kOutOfRange;
}

// One batch an executor ran; a chunk of a long request is a batch of its own (of size 1).
struct BatchRecord {
  int64_t id = 0;
  std::string executor;
  Dims dims;                 // the combined dims it ran at
  int size = 0;              // requests in it
  double start_us = 0, end_us = 0;  // around the executor's calls
  std::string config;        // the decided config
  std::string plan;          // the plan that ran
  std::string source;        // the decision's source
  double compile_wait_us = 0;
  bool substituted = false;
  bool chunk = false;        // one chunk of a request with more to run (ServeRequest longer than BatchRule::chunk)
  bool ok = true;            // false: the executor failed it
};

struct ServeProgress {
  double elapsed_us = 0;
  double total_us = 0;
  int64_t released = 0;
  int64_t done = 0;
  int64_t queue_depth = 0;
  double recent_p99_us = 0;  // p99 latency of the last (up to) 1000 completed requests; 0 before any
};

enum class OnStop { kFinishQueued, kRejectQueued };

// One warm-up run: `config` at `dims`; an empty config is the one the decider answers at `dims` (asked once, before
// the first arrival).
struct Warmup {
  Dims dims;
  std::string config;
};

struct ServerOptions {
  std::vector<StreamSettings> streams;  // per stream id (request.stream); empty: one default stream
  BatchRule rule;
  double duration_us = 0;               // stop arrivals after this (0: the whole stream)
  OnStop on_stop = OnStop::kFinishQueued;
  // Before the first arrival, every executor runs (untimed, unrecorded, unobserved) the config decided at the
  // first request's dims (its first chunk's, when `rule.chunk` cuts it): its plan is compiled and its thread
  // team created before the clock starts, as a server loads its models before it takes traffic. The warm-up's
  // decisions are the decider's like any (a hook counts them).
  bool warmup = false;
  // Before the first arrival too (with or without `warmup`): every executor runs each of these, untimed and
  // unrecorded — the buckets a run will use compiled before it takes traffic, as a Triton model's warm-up samples
  // are run at load.
  std::vector<Warmup> warmups;
  const std::atomic<bool>* stop = nullptr;  // raised: stop arrivals now
  double progress_interval_us = 1e6;
  std::function<void(const ServeProgress&)> on_progress;  // from the generator thread
  // Called for every request as its fate is known (from dispatcher and generator threads, serialised); a
  // rejection at arrival while a dispatcher holds the records follows within the generator's next pass (at most
  // a sleep slice, 20 ms, after the lock is free), so records do not always come in the order of their end_us.
  std::function<void(const RequestRecord&)> on_record;
  // Called for every batch once it ran, before its requests' records (serialised with on_record).
  std::function<void(const BatchRecord&)> on_batch;
  // Keep every request's and batch's record in ServeResult::records and ::batch_records (memory grows with the
  // run: ~300 bytes a request).
  // Without it only the requests in flight are held and the result has RunStatistics alone.
  bool keep_records = false;
};

struct ServeResult {
  RunStatistics statistics;            // every released request folded in, and the runtime overhead per batch
  std::vector<RequestRecord> records;  // by request id; only with ServerOptions::keep_records
  std::vector<BatchRecord> batch_records;  // in the order they ended; only with ServerOptions::keep_records
  int64_t batches = 0;                 // every batch, chunks included
  int64_t batched_requests = 0;        // the batches' sizes summed (a chunk's batch counts its request again)
  double wall_us = 0;                  // from the first release to the last request's end
  int64_t not_released = 0;            // stopped before their time (duration or stop)
  double keep_warm_cpu_us = 0;         // thread-microseconds executors spent keeping teams warm (thread_wait)
  double warmup_us = 0;                // the warm-up before the first arrival (0 without)
  double process_cpu_us = 0;           // the process's CPU time (all threads) from the first arrival's clock to
                                       // the end, the warm-up excluded
};

// Serves `stream` on `executors` (at least one). InvalidArgument without executors.
Result<ServeResult> Serve(const RequestStream& stream, Decider& decider, const std::vector<Executor*>& executors,
                          const ServerOptions& options);

}  // namespace crmap::serve
