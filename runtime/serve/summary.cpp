#include "runtime/serve/summary.h"

#include <algorithm>
#include <cstdio>


namespace crmap::serve {

ServeSummary Summarize(const ServeResult& result, double slo_ms) {
  const RunStatistics& run = result.statistics;
  ServeSummary s;
  s.slo_ms = slo_ms;
  s.not_released = result.not_released;
  s.batches = result.batches;
  s.released = run.released;
  s.completed = run.completed;
  s.failed = run.failed;
  for (int reason = 0; reason < kRejectReasons; ++reason)
    s.rejected[RejectReasonName(static_cast<RejectReason>(reason))] = run.rejected[static_cast<size_t>(reason)];
  s.by_source = run.by_source;
  s.latency_us = run.latency.Summary();
  s.queue_wait_us = run.queue_wait.Summary();
  s.service_us = run.service.Summary();
  s.compile_wait_us = run.compile_wait.Summary();
  s.overhead_us = run.overhead.Summary();
  s.mean_batch_size =
      s.batches > 0 ? static_cast<double>(result.batched_requests) / static_cast<double>(s.batches) : 0;
  s.wall_s = result.wall_us / 1e6;
  if (s.wall_s > 0) {
    s.throughput_rps = static_cast<double>(s.completed) / s.wall_s;
    s.goodput_rps =
        slo_ms > 0 ? static_cast<double>(run.latency.CountAtMost(slo_ms * 1000)) / s.wall_s : s.throughput_rps;
  }
  double best = 0, worst = 0;
  for (const auto& [stream, latency] : run.stream_latency) {
    StreamSummary ss;
    ss.stream = stream;
    ss.completed = latency.count();
    ss.p99_latency_us = latency.Quantile(0.99);
    s.streams.push_back(ss);
    best = best == 0 ? ss.p99_latency_us : std::min(best, ss.p99_latency_us);
    worst = std::max(worst, ss.p99_latency_us);
  }
  s.fairness = best > 0 ? worst / best : 1;
  for (const auto& [stream, released] : run.released_per_stream)  // streams that completed nothing
    if (!run.stream_latency.count(stream)) {
      StreamSummary ss;
      ss.stream = stream;
      s.streams.push_back(ss);
      ++s.starved_streams;
    }
  std::sort(s.streams.begin(), s.streams.end(),
            [](const StreamSummary& a, const StreamSummary& b) { return a.stream < b.stream; });

  // Tail drivers: the completed requests in the latency buckets above the p95's.
  const int p95_bucket = LatencyDigest::BucketOf(s.latency_us.p95);
  double tail_latency = 0, tail_queue = 0, tail_compile = 0;
  int64_t tail = 0, fallback = 0, substituted = 0;
  std::vector<int64_t> executor_tail(run.executors.size(), 0);
  for (auto it = run.tail_buckets.upper_bound(p95_bucket); it != run.tail_buckets.end(); ++it) {
    const TailBucket& b = it->second;
    tail += b.requests;
    tail_latency += b.latency_us;
    tail_queue += b.queue_wait_us;
    tail_compile += b.compile_wait_us;
    fallback += b.fallback;
    substituted += b.substituted;
    for (size_t e = 0; e < b.per_executor.size(); ++e) executor_tail[e] += b.per_executor[e];
  }
  s.tail.requests = tail;
  if (tail > 0) {
    const double n = static_cast<double>(tail);
    s.tail.queue_share = tail_latency > 0 ? tail_queue / tail_latency : 0;
    s.tail.compile_share = tail_latency > 0 ? tail_compile / tail_latency : 0;
    s.tail.fallback_share = static_cast<double>(fallback) / n;
    s.tail.substituted_share = static_cast<double>(substituted) / n;
    int64_t on_imbalanced = 0;
    for (size_t e = 0; e < run.executors.size(); ++e) {
      const double tail_share = static_cast<double>(executor_tail[e]) / n;
      const double all_share =
          static_cast<double>(run.completed_per_executor[e]) / static_cast<double>(s.completed);
      if (run.executors.size() > 1 && tail_share > 1.5 * all_share) on_imbalanced += executor_tail[e];
    }
    s.tail.imbalance_share = static_cast<double>(on_imbalanced) / n;
  }
  return s;
}

namespace {

Json QuantilesJson(const Quantiles& q) {
  Json j = Json::object();
  j["count"] = q.count;
  j["mean"] = q.mean;
  j["p50"] = q.p50;
  j["p95"] = q.p95;
  j["p99"] = q.p99;
  j["p99.9"] = q.p999;
  j["max"] = q.max;
  return j;
}

}  // namespace

Json SummaryJson(const ServeSummary& s) {
  Json j = Json::object();
  j["released"] = s.released;
  j["completed"] = s.completed;
  j["failed"] = s.failed;
  j["not_released"] = s.not_released;
  j["rejected"] = s.rejected;
  j["batches"] = s.batches;
  j["mean_batch_size"] = s.mean_batch_size;
  j["latency_us"] = QuantilesJson(s.latency_us);
  j["queue_wait_us"] = QuantilesJson(s.queue_wait_us);
  j["service_us"] = QuantilesJson(s.service_us);
  j["compile_wait_us"] = QuantilesJson(s.compile_wait_us);
  j["overhead_us"] = QuantilesJson(s.overhead_us);
  j["wall_s"] = s.wall_s;
  j["throughput_rps"] = s.throughput_rps;
  j["slo_ms"] = s.slo_ms;
  j["goodput_rps"] = s.goodput_rps;
  Json streams = Json::array();
  for (const StreamSummary& ss : s.streams)
    streams.push_back({{"stream", ss.stream}, {"completed", ss.completed}, {"p99_latency_us", ss.p99_latency_us}});
  j["streams"] = streams;
  j["fairness"] = s.fairness;
  j["starved_streams"] = s.starved_streams;
  j["tail"] = {{"requests", s.tail.requests},          {"queue_share", s.tail.queue_share},
               {"compile_share", s.tail.compile_share}, {"imbalance_share", s.tail.imbalance_share},
               {"fallback_share", s.tail.fallback_share}, {"substituted_share", s.tail.substituted_share}};
  j["by_source"] = s.by_source;
  return j;
}

std::string SummaryText(const ServeSummary& s) {
  std::string text;
  char line[512];
  auto row = [&](const char* name, const Quantiles& q) {
    std::snprintf(line, sizeof line, "  %-13s p50 %10.1f  p95 %10.1f  p99 %10.1f  p99.9 %10.1f  max %10.1f us\n",
                  name, q.p50, q.p95, q.p99, q.p999, q.max);
    text += line;
  };
  int64_t rejected = 0;
  for (const auto& [reason, count] : s.rejected) rejected += count;
  std::snprintf(line, sizeof line,
                "requests: %lld released, %lld completed, %lld rejected, %lld failed; %lld batches (mean %.2f)\n",
                static_cast<long long>(s.released), static_cast<long long>(s.completed),
                static_cast<long long>(rejected), static_cast<long long>(s.failed), static_cast<long long>(s.batches),
                s.mean_batch_size);
  text += line;
  row("latency", s.latency_us);
  row("queue wait", s.queue_wait_us);
  row("service", s.service_us);
  row("compile wait", s.compile_wait_us);
  row("overhead", s.overhead_us);  // per batch
  if (s.slo_ms > 0)
    std::snprintf(line, sizeof line, "throughput %.1f req/s; goodput %.1f req/s within %.3g ms (%.1f%%)\n",
                  s.throughput_rps, s.goodput_rps, s.slo_ms,
                  s.throughput_rps > 0 ? 100 * s.goodput_rps / s.throughput_rps : 0.0);
  else
    std::snprintf(line, sizeof line, "throughput %.1f req/s (no --slo-ms: goodput = throughput)\n", s.throughput_rps);
  text += line;
  text += "rejected:";
  for (const auto& [reason, count] : s.rejected) text += " " + reason + " " + std::to_string(count);
  text += "\n";
  if (s.streams.size() > 1) {
    text += "per stream p99:";
    for (const StreamSummary& ss : s.streams) {
      if (ss.completed > 0)
        std::snprintf(line, sizeof line, " [%d] %.1f us", ss.stream, ss.p99_latency_us);
      else
        std::snprintf(line, sizeof line, " [%d] none completed", ss.stream);
      text += line;
    }
    std::snprintf(line, sizeof line, "; fairness (max/min p99 of streams that completed) %.2f\n", s.fairness);
    text += line;
  }
  if (s.starved_streams > 0)
    text += std::to_string(s.starved_streams) + " stream(s) completed nothing: every request rejected or failed\n";
  std::snprintf(line, sizeof line,
                "tail (%lld requests above p95): %.0f%% queueing, %.0f%% compile wait, %.0f%% on an imbalanced "
                "executor, %.0f%% fallback configs, %.0f%% substituted plans\n",
                static_cast<long long>(s.tail.requests), 100 * s.tail.queue_share, 100 * s.tail.compile_share,
                100 * s.tail.imbalance_share, 100 * s.tail.fallback_share, 100 * s.tail.substituted_share);
  text += line;
  return text;
}

}  // namespace crmap::serve
