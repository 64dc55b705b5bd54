#include "runtime/serve/summary.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "common/numeric.h"

namespace crmap::serve {

Quantiles QuantilesOf(std::vector<double> values) {
  Quantiles q;
  if (values.empty()) return q;
  std::sort(values.begin(), values.end());
  q.count = static_cast<int64_t>(values.size());
  q.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  q.p50 = Percentile(values, 0.5);
  q.p95 = Percentile(values, 0.95);
  q.p99 = Percentile(values, 0.99);
  q.p999 = Percentile(values, 0.999);
  q.max = values.back();
  return q;
}

ServeSummary Summarize(const ServeResult& result, double slo_ms) {
  ServeSummary s;
  s.slo_ms = slo_ms;
  s.not_released = result.not_released;
  s.batches = result.batches;
  for (int reason = 0; reason < kRejectReasons; ++reason)
    s.rejected[RejectReasonName(static_cast<RejectReason>(reason))] = 0;
  std::vector<double> latency, queue, service, compile;
  std::map<int, std::vector<double>> per_stream;
  std::map<std::string, int64_t> executor_all;
  int64_t within_slo = 0;
  std::map<int, int64_t> released_per_stream;
  for (const RequestRecord& r : result.records) {
    ++s.released;
    if (!(r.outcome == Outcome::kRejected && r.reason == RejectReason::kOutOfRange))  // the source's, not ours
      ++released_per_stream[r.stream];
    if (r.outcome == Outcome::kRejected) {
      ++s.rejected[RejectReasonName(r.reason)];
      continue;
    }
    if (r.outcome == Outcome::kFailed) {
      ++s.failed;
      continue;
    }
    ++s.completed;
    latency.push_back(r.latency_us());
    queue.push_back(r.queue_wait_us);
    service.push_back(r.service_us);
    compile.push_back(r.compile_wait_us);
    per_stream[r.stream].push_back(r.latency_us());
    ++executor_all[r.executor];
    ++s.by_source[r.source];
    if (slo_ms > 0 && r.latency_us() <= slo_ms * 1000) ++within_slo;
  }
  s.latency_us = QuantilesOf(latency);
  s.queue_wait_us = QuantilesOf(queue);
  s.service_us = QuantilesOf(service);
  s.compile_wait_us = QuantilesOf(compile);
  s.overhead_us = QuantilesOf(result.batch_overhead_us);
  s.mean_batch_size = s.batches > 0 ? static_cast<double>(s.completed + s.failed) / static_cast<double>(s.batches) : 0;
  s.wall_s = result.wall_us / 1e6;
  if (s.wall_s > 0) {
    s.throughput_rps = static_cast<double>(s.completed) / s.wall_s;
    s.goodput_rps = slo_ms > 0 ? static_cast<double>(within_slo) / s.wall_s : s.throughput_rps;
  }
  double best = 0, worst = 0;
  for (auto& [stream, values] : per_stream) {
    StreamSummary ss;
    ss.stream = stream;
    ss.completed = static_cast<int64_t>(values.size());
    std::sort(values.begin(), values.end());
    ss.p99_latency_us = Percentile(values, 0.99);
    s.streams.push_back(ss);
    best = best == 0 ? ss.p99_latency_us : std::min(best, ss.p99_latency_us);
    worst = std::max(worst, ss.p99_latency_us);
  }
  s.fairness = best > 0 ? worst / best : 1;
  for (const auto& [stream, released] : released_per_stream)  // streams that completed nothing
    if (!per_stream.count(stream)) {
      StreamSummary ss;
      ss.stream = stream;
      s.streams.push_back(ss);
      ++s.starved_streams;
    }
  std::sort(s.streams.begin(), s.streams.end(),
            [](const StreamSummary& a, const StreamSummary& b) { return a.stream < b.stream; });

  // Tail drivers: the completed requests strictly above the p95 latency.
  const double p95 = s.latency_us.p95;
  double tail_latency = 0, tail_queue = 0, tail_compile = 0;
  int64_t fallback = 0, substituted = 0;
  std::map<std::string, int64_t> executor_tail;
  std::vector<const RequestRecord*> tail;
  for (const RequestRecord& r : result.records) {
    if (r.outcome != Outcome::kCompleted || !(r.latency_us() > p95)) continue;
    tail.push_back(&r);
    tail_latency += r.latency_us();
    tail_queue += r.queue_wait_us;
    tail_compile += r.compile_wait_us;
    fallback += r.source == "fallback";
    substituted += r.substituted;
    ++executor_tail[r.executor];
  }
  s.tail.requests = static_cast<int64_t>(tail.size());
  if (!tail.empty()) {
    const double n = static_cast<double>(tail.size());
    s.tail.queue_share = tail_latency > 0 ? tail_queue / tail_latency : 0;
    s.tail.compile_share = tail_latency > 0 ? tail_compile / tail_latency : 0;
    s.tail.fallback_share = static_cast<double>(fallback) / n;
    s.tail.substituted_share = static_cast<double>(substituted) / n;
    int64_t on_imbalanced = 0;
    for (const auto& [executor, count] : executor_tail) {
      const double tail_share = static_cast<double>(count) / n;
      const double all_share = static_cast<double>(executor_all[executor]) / static_cast<double>(s.completed);
      if (executor_all.size() > 1 && tail_share > 1.5 * all_share) on_imbalanced += count;
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
