#include "runtime/serve/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>
#include <prometheus/text_serializer.h>

#include <chrono>
#include <exception>
#include <sstream>

#include "common/atomic_file.h"

namespace crmap::serve {

namespace {

const prometheus::Summary::Quantiles& ReportedQuantiles() {
  // Quantile and the rank error it is kept to: tighter at the tail, where the figures are read.
  static const prometheus::Summary::Quantiles quantiles = {
      {0.5, 0.01}, {0.9, 0.005}, {0.95, 0.002}, {0.99, 0.0005}, {0.999, 0.0001}};
  return quantiles;
}

}  // namespace

ServeMetrics::ServeMetrics(const MetricsOptions& options) : registry_(std::make_shared<prometheus::Registry>()) {
  const prometheus::Labels labels(options.labels.begin(), options.labels.end());
  auto counter = [&](const std::string& name, const std::string& help) -> prometheus::Family<prometheus::Counter>& {
    return prometheus::BuildCounter().Name(name).Help(help).Labels(labels).Register(*registry_);
  };
  success_ = &counter("crmap_request_success_total", "Requests completed").Add({});
  auto& failures = counter("crmap_request_failure_total", "Requests not completed, by reason");
  for (int r = 0; r < kRejectReasons; ++r) {
    const std::string reason = RejectReasonName(static_cast<RejectReason>(r));
    failures_[reason] = &failures.Add({{"reason", reason}});
  }
  failures_["executor_error"] = &failures.Add({{"reason", "executor_error"}});
  inferences_ = &counter("crmap_inference_count_total", "Requests run by an executor (batched requests each count)")
                     .Add({});
  executions_ = &counter("crmap_inference_exec_count_total", "Batches run by an executor").Add({});
  substituted_ = &counter("crmap_request_substituted_total",
                          "Requests run on a ready plan while the decided one compiled")
                      .Add({});
  fallback_ = &counter("crmap_request_fallback_total", "Requests whose config the hook chose by fallback").Add({});

  const auto window = std::chrono::milliseconds(static_cast<int64_t>(options.window_s * 1000));
  auto summary = [&](const std::string& name, const std::string& help) -> prometheus::Summary* {
    auto& family = prometheus::BuildSummary().Name(name).Help(help).Labels(labels).Register(*registry_);
    return &family.Add({}, ReportedQuantiles(), window, 5);
  };
  request_us_ = summary("crmap_request_duration_us", "Completed requests' latency, arrival to completion (us)");
  queue_us_ = summary("crmap_queue_duration_us", "Completed requests' wait in the queue (us)");
  compute_us_ = summary("crmap_compute_duration_us", "Completed requests' batch service time (us)");
  compile_wait_us_ =
      summary("crmap_compile_wait_duration_us", "Completed requests' wait for a plan to compile (us)");
  queue_depth_ = &prometheus::BuildGauge()
                      .Name("crmap_queue_depth")
                      .Help("Requests queued, at the last progress tick")
                      .Labels(labels)
                      .Register(*registry_)
                      .Add({});
}

ServeMetrics::~ServeMetrics() = default;

Status ServeMetrics::Listen(const std::string& address) {
  CRMAP_ASSIGN_OR_RETURN(endpoint_, MetricsEndpoint::Start(address, [this] { return Text(); }));
  return Status::Ok();
}

void ServeMetrics::Record(const RequestRecord& record) {
  if (record.outcome == Outcome::kRejected) {
    failures_.at(RejectReasonName(record.reason))->Increment();
    return;
  }
  inferences_->Increment();
  if (record.outcome == Outcome::kFailed) {
    failures_.at("executor_error")->Increment();
    return;
  }
  success_->Increment();
  if (record.substituted) substituted_->Increment();
  if (record.source == "fallback") fallback_->Increment();
  request_us_->Observe(record.latency_us());
  queue_us_->Observe(record.queue_wait_us);
  compute_us_->Observe(record.service_us);
  compile_wait_us_->Observe(record.compile_wait_us);
}

void ServeMetrics::RecordBatch(const BatchRecord&) { executions_->Increment(); }

void ServeMetrics::SetQueueDepth(int64_t depth) { queue_depth_->Set(static_cast<double>(depth)); }

std::string ServeMetrics::Text() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

Status ServeMetrics::WriteFile(const std::string& path) const { return WriteFileAtomically(path, Text()); }

}  // namespace crmap::serve
