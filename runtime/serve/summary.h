// ServeSummary: what a serve run comes to, read at the tail — p50/p95/p99/p99.9 of latency, queue wait and
// service time; throughput and goodput (completed within the SLO per second); rejections by reason; per-stream
// p99 and the fairness ratio; and the tail drivers: for the requests above the run's p95 latency, the share of
// their latency spent queueing and waiting for a compile, the share that ran on an imbalanced executor, and the
// share whose config came from a fallback. Read from the run's RunStatistics (run_statistics.h): quantiles exact
// for runs of up to 65,536 requests and within 0.4% beyond; the tail drivers, at any length, count the requests
// in the 0.8%-wide latency buckets above the one holding the p95 (those in its own bucket are left out). Text
// and JSON (docs/serve.md documents the fields). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "runtime/serve/run_statistics.h"
#include "runtime/serve/server.h"

namespace crmap::serve {

struct StreamSummary {
  int stream = 0;
  int64_t completed = 0;
  double p99_latency_us = 0;  // 0 when none completed
};

// The requests above the p95 latency (those in the latency buckets above the p95's: up to 0.8% above it) and
// where their time went (shares in [0, 1]).
struct TailDrivers {
  int64_t requests = 0;
  double queue_share = 0;       // sum of queue wait / sum of latency
  double compile_share = 0;     // sum of compile wait / sum of latency
  double imbalance_share = 0;   // share of them on an executor whose share of tail requests is over 1.5x its
                                // share of all completed requests
  double fallback_share = 0;    // share of them whose config came from a fallback decision
  double substituted_share = 0; // share of them that ran another ready plan while theirs compiled
};

struct ServeSummary {
  int64_t released = 0, completed = 0, failed = 0, not_released = 0;
  std::map<std::string, int64_t> rejected;  // by reason name; every reason present, 0 included
  int64_t batches = 0;
  double mean_batch_size = 0;  // requests per batch (ServeResult::batched_requests / batches)
  Quantiles latency_us, queue_wait_us, service_us, compile_wait_us;
  Quantiles overhead_us;  // the runtime's own time per batch (RunStatistics::overhead), kernels excluded
  double wall_s = 0;
  double throughput_rps = 0;  // completed / wall
  double slo_ms = 0;          // 0: none
  double goodput_rps = 0;     // completed within the SLO / wall (throughput without an SLO)
  std::vector<StreamSummary> streams;
  double fairness = 1;        // max / min per-stream p99 over streams that completed requests
  int64_t starved_streams = 0;  // streams whose released requests all went unserved (in `streams`, completed 0;
                                // requests the source rejected as out of range do not count)
  TailDrivers tail;
  std::map<std::string, int64_t> by_source;  // completed requests per decision source
};

ServeSummary Summarize(const ServeResult& result, double slo_ms);
Json SummaryJson(const ServeSummary& summary);
std::string SummaryText(const ServeSummary& summary);

}  // namespace crmap::serve
