// Scheduler: the serving runtime's queues and dynamic batcher, as plain logic over times passed in (no threads,
// no clock), so that tests drive it deterministically and the server (runtime/serve/server.h) wraps it in one
// mutex. Modelled on Triton's dynamic batcher and queue policy:
//
// - One FIFO queue per stream; a stream has a priority level (0 is served first). Within a level, the request
//   that arrived first is served first, whatever its stream.
// - Queue policy (per stream, as Triton's per-priority-level ModelQueuePolicy): `max_queue_size` (0: no limit)
//   — a request arriving at a full queue is rejected (reason queue_full); `timeout_us` (0: none) — a request
//   still queued that long after it arrived is rejected (kReject, reason timeout) or delayed (kDelay: it is
//   served only when no request that has not timed out waits, Triton's DELAY).
// - Batches: the head is the first request by (delayed last, priority, arrival). Requests join the head's batch
//   while they are compatible — every dim equal except the batch's summing dim (`BatchRule`), whose sum stays
//   within its maximum — up to `max_batch` requests. A batch is released when it is full (max_batch requests,
//   or no queued compatible request fits the summing dim any more), or its head has waited `max_delay_us`.
//   `limits` are asked per head (the decision's runtime knobs `batch` and `queue_delay_us`, or flags).
// - Chunks (`BatchRule::chunk` > 0): a request whose summing dim still has more than `chunk` to serve runs alone,
//   `chunk` of it per batch (released at once: it never waits for company), and between its chunks goes back to
//   the end of its queue (Requeue), so that the requests that arrived meanwhile are not stuck behind all of it —
//   round robin at chunk granularity instead of head-of-line blocking. Splitting along a summing dim is the
//   inverse of batching along it, so the work is the same; once the rest fits in a chunk the request batches
//   like any other. A requeued request is never rejected as queue_full itself, but takes a place in
//   its queue; its timeout counts from its requeue.
//
// Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/serve/request_source.h"

namespace crmap::serve {

enum class TimeoutAction { kReject, kDelay };
enum class RejectReason { kQueueFull, kTimeout, kOutOfRange, kShutdown };
const char* RejectReasonName(RejectReason reason);  // "queue_full", "timeout", "out_of_range", "shutdown"
constexpr int kRejectReasons = 4;

struct QueuePolicy {
  int64_t max_queue_size = 0;  // per stream; 0: no limit
  double timeout_us = 0;       // from arrival; 0: none
  TimeoutAction timeout_action = TimeoutAction::kReject;
};

struct StreamSettings {
  int priority = 0;  // 0 first
  QueuePolicy policy;
};

// How requests combine: `sum_dim` adds up across a batch (at most `sum_max`); every other dim must match.
// An empty sum_dim: requests combine only when all their dims match (the batch runs them one after another).
struct BatchRule {
  std::string sum_dim;
  int64_t sum_max = 0;
  int64_t chunk = 0;  // > 0: serve a larger request in pieces of this much of sum_dim (see above)
};

struct BatchLimits {
  int max_batch = 1;        // requests
  double max_delay_us = 0;  // how long the head may wait for company
  // After the batch, how long its executor keeps its thread team spinning for the next request
  // (`--thread-wait`, or a decision's `thread_wait`: 0 = passive, left to OpenMP; infinity = until the next
  // request). Not used by the scheduler.
  double keep_warm_us = 0;
};

struct QueuedRequest {
  ServeRequest request;
  double enqueued_us = 0;  // when it arrived at the queue (or was requeued after a chunk)
  bool delayed = false;    // timed out under kDelay
  int64_t served = 0;      // of its summing dim, in chunks already run
  double first_start_us = -1;      // when its first chunk started (-1: none ran); the server keeps it
  double compile_wait_us = 0;      // its chunks' compile waits so far; the server keeps it
};

struct Batch {
  std::vector<QueuedRequest> requests;  // the head first
  Dims dims;                            // the combined dims the executor runs
  BatchLimits limits;                   // the limits it was formed under
  bool full = false;                    // released because full, not because the head's delay ran out
  // > 0: the batch is this much of its only request, which has more left: after running it, give the request
  // back with Requeue.
  int64_t chunk = 0;
};

struct Rejection {
  ServeRequest request;
  RejectReason reason;
  double at_us = 0;
  // A chunked request rejected after some of its chunks ran (a timeout or shutdown while requeued): when its
  // first chunk started (-1: none ran) and its chunks' compile waits.
  double first_start_us = -1;
  double compile_wait_us = 0;
};

class Scheduler {
 public:
  // `streams`: settings per stream id (a request's stream beyond the list uses stream 0's).
  Scheduler(std::vector<StreamSettings> streams, BatchRule rule);

  // A request arriving at `now_us`: queued, or rejected (queue_full; out_of_range for a request the source
  // flagged).
  std::optional<Rejection> Arrive(const ServeRequest& request, double now_us);

  // Applies the timeouts due by `now_us`: kReject requests are removed and returned, kDelay ones marked.
  std::vector<Rejection> Expire(double now_us);

  // The batch to run now, removed from the queues, or none: then *wake_at_us (if given) is when to ask again
  // (the head's delay running out or the next timeout; +inf when nothing is queued). `limits_for` gives the
  // limits for a head request (called once per call, with the head).
  std::optional<Batch> NextBatch(double now_us, const std::function<BatchLimits(const ServeRequest&)>& limits_for,
                                 double* wake_at_us = nullptr);

  // A request one chunk of which has run (Batch::chunk), back at the end of its stream's queue at `now_us` with
  // that chunk counted as served.
  void Requeue(QueuedRequest request, int64_t chunk, double now_us);

  // Every queued request, removed (reason shutdown).
  std::vector<Rejection> Drain(double now_us);

  int64_t depth() const { return depth_; }
  int64_t depth(int stream) const;

 private:
  const StreamSettings& SettingsOf(int stream) const;
  // The head's queue index, or -1.
  int HeadQueue() const;
  bool Compatible(const Dims& head, const Dims& other) const;
  double NextTimeout() const;

  std::vector<StreamSettings> settings_;
  BatchRule rule_;
  std::vector<std::deque<QueuedRequest>> queues_;
  int64_t depth_ = 0;
};

}  // namespace crmap::serve
