// ServeMetrics: a serve run's Prometheus metrics (prometheus-cpp), names modelled on Triton's (crmap_* for
// nv_inference_*; durations as summaries): counters of requests by outcome and of batch executions, summaries
// of request, queue, compute and compile-wait durations in microseconds with quantiles 0.5/0.9/0.95/0.99/0.999
// over a sliding window, and the queue depth. Served over HTTP while running (`Listen`: MetricsEndpoint, bound
// where the caller says — the CLI defaults to loopback) and written in the text exposition format at exit
// (`WriteFile`). Names and labels: docs/serve.md ("Prometheus metrics"). Thread-safe: records arrive from
// dispatcher threads while the endpoint's thread scrapes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "common/status.h"
#include "runtime/serve/metrics_endpoint.h"
#include "runtime/serve/server.h"

namespace prometheus {
class Counter;
class Gauge;
class Registry;
class Summary;
}  // namespace prometheus

namespace crmap::serve {

struct MetricsOptions {
  std::map<std::string, std::string> labels;  // on every metric (workload, mode, executor)
  double window_s = 60;                        // the summaries' quantiles cover the last window_s seconds
};

class ServeMetrics {
 public:
  explicit ServeMetrics(const MetricsOptions& options);
  ~ServeMetrics();
  ServeMetrics(const ServeMetrics&) = delete;
  ServeMetrics& operator=(const ServeMetrics&) = delete;

  // Serves /metrics on `address` ("HOST:PORT"; port 0 picks a free one). Unavailable when it cannot bind.
  Status Listen(const std::string& address);
  int port() const { return endpoint_ ? endpoint_->port() : 0; }  // the port listened on (0: not listening)

  void Record(const RequestRecord& record);  // every request once, as its fate is known
  void RecordBatch(const BatchRecord& batch);  // every batch once (a chunk's too)
  void SetQueueDepth(int64_t depth);

  std::string Text() const;  // the text exposition format (what /metrics returns)
  // Atomically (a reader never sees half a file).
  Status WriteFile(const std::string& path) const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Counter* success_ = nullptr;
  std::map<std::string, prometheus::Counter*> failures_;  // by reason
  prometheus::Counter* inferences_ = nullptr;  // requests that ran (completed or failed)
  prometheus::Counter* executions_ = nullptr;  // batches that ran (chunks included)
  prometheus::Counter* substituted_ = nullptr;
  prometheus::Counter* fallback_ = nullptr;
  prometheus::Summary* request_us_ = nullptr;
  prometheus::Summary* queue_us_ = nullptr;
  prometheus::Summary* compute_us_ = nullptr;
  prometheus::Summary* compile_wait_us_ = nullptr;
  prometheus::Gauge* queue_depth_ = nullptr;
  std::unique_ptr<MetricsEndpoint> endpoint_;  // last: stops serving before the metrics it reads go
};

}  // namespace crmap::serve
