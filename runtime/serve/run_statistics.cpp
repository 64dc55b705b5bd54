#include "runtime/serve/run_statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/numeric.h"
#include "runtime/serve/server.h"

namespace crmap::serve {

Quantiles QuantilesOf(std::vector<double> values, QuantileRule rule) {
  Quantiles q;
  if (values.empty()) return q;
  std::sort(values.begin(), values.end());
  auto at = [&](double quantile) {
    return rule == QuantileRule::kNearestRank ? NearestRank(values, quantile) : Percentile(values, quantile);
  };
  q.count = static_cast<int64_t>(values.size());
  q.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  q.p50 = at(0.5);
  q.p95 = at(0.95);
  q.p99 = at(0.99);
  q.p999 = at(0.999);
  q.max = values.back();
  return q;
}

int LatencyDigest::BucketOf(double value_us) {
  if (!(value_us >= kSmallestUs)) return 0;  // NaN too
  const double k = std::floor(std::log(value_us / kSmallestUs) / std::log(kBucketGrowth)) + 1;
  return static_cast<int>(std::min(k, static_cast<double>(kBuckets - 1)));
}

double LatencyDigest::BucketMiddle(int bucket) {
  if (bucket <= 0) return 0;
  return kSmallestUs * std::pow(kBucketGrowth, static_cast<double>(bucket) - 0.5);
}

void LatencyDigest::Add(double value_us) {
  const double v = value_us > 0 ? value_us : 0;
  min_ = count_ == 0 ? v : std::min(min_, v);
  max_ = count_ == 0 ? v : std::max(max_, v);
  sum_ += v;
  ++count_;
  if (buckets_.empty()) {
    exact_.push_back(v);
    if (exact_.size() <= kExactSamples) return;
    buckets_.assign(kBuckets, 0);
    for (double e : exact_) ++buckets_[BucketOf(e)];
    std::vector<double>().swap(exact_);  // give the memory back
    return;
  }
  ++buckets_[BucketOf(v)];
}

double LatencyDigest::Quantile(double q) const {
  if (count_ == 0) return 0;
  if (exact()) {
    std::vector<double> sorted = exact_;
    std::sort(sorted.begin(), sorted.end());
    return Percentile(sorted, q);
  }
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(count_ - 1);
  const int64_t rank = static_cast<int64_t>(std::llround(position));
  int64_t below = 0;
  for (int b = 0; b < kBuckets; ++b) {
    below += buckets_[b];
    if (below > rank) return std::clamp(BucketMiddle(b), min_, max_);
  }
  return max_;
}

Quantiles LatencyDigest::Summary() const {
  if (exact()) return QuantilesOf(exact_);
  Quantiles s;
  s.count = count_;
  s.mean = sum_ / static_cast<double>(count_);
  s.p50 = Quantile(0.5);
  s.p95 = Quantile(0.95);
  s.p99 = Quantile(0.99);
  s.p999 = Quantile(0.999);
  s.max = max_;
  return s;
}

int64_t LatencyDigest::CountAtMost(double value_us) const {
  if (exact()) return std::count_if(exact_.begin(), exact_.end(), [&](double v) { return v <= value_us; });
  int64_t n = 0;
  for (int b = 0; b < kBuckets; ++b)
    if (std::clamp(BucketMiddle(b), min_, max_) <= value_us) n += buckets_[b];
  return n;
}

void RunStatistics::Add(const RequestRecord& r) {
  first_arrival_us = released == 0 ? r.arrival_us : std::min(first_arrival_us, r.arrival_us);
  last_end_us = released == 0 ? r.end_us : std::max(last_end_us, r.end_us);
  ++released;
  if (!RejectedBySource(r)) ++released_per_stream[r.stream];
  if (r.outcome == Outcome::kRejected) {
    ++rejected[static_cast<size_t>(r.reason)];
    return;
  }
  if (r.outcome == Outcome::kFailed) {
    ++failed;
    return;
  }
  ++completed;
  const double latency_us = r.latency_us();
  latency.Add(latency_us);
  queue_wait.Add(r.queue_wait_us);
  service.Add(r.service_us);
  compile_wait.Add(r.compile_wait_us);
  stream_latency[r.stream].Add(latency_us);
  ++by_source[r.source];
  const size_t executor = static_cast<size_t>(
      std::find(executors.begin(), executors.end(), r.executor) - executors.begin());
  if (executor == executors.size()) {
    executors.push_back(r.executor);
    completed_per_executor.push_back(0);
  }
  ++completed_per_executor[executor];
  TailBucket& bucket = tail_buckets[LatencyDigest::BucketOf(latency_us)];
  ++bucket.requests;
  bucket.latency_us += latency_us;
  bucket.queue_wait_us += r.queue_wait_us;
  bucket.compile_wait_us += r.compile_wait_us;
  bucket.fallback += r.source == "fallback";
  bucket.substituted += r.substituted;
  if (bucket.per_executor.size() <= executor) bucket.per_executor.resize(executor + 1, 0);
  ++bucket.per_executor[executor];
}

void RunStatistics::AddBatchOverhead(double overhead_us) { overhead.Add(overhead_us); }

}  // namespace crmap::serve
