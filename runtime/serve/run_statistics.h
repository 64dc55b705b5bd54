// What a serve run accumulates as it goes, in memory that does not grow with the run's length, so that a server
// can run for hours: a LatencyDigest per figure (latency, queue wait, service, compile wait, runtime overhead,
// latency per stream) and RunStatistics, which folds every request's record into counts, digests and the
// per-latency-bucket sums the tail drivers are read from. The summary (summary.h) is computed from it; records
// themselves are streamed (telemetry) and kept only when asked (ServerOptions::keep_records). Not thread-safe:
// the server adds under its record lock.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/serve/scheduler.h"

namespace crmap::serve {

struct RequestRecord;

struct Quantiles {
  int64_t count = 0;
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, p999 = 0, max = 0;
};
// How a quantile is read from sorted values (common/numeric.h): interpolating between the closest ranks (the
// summary's), or the nearest rank (runtime tuning's: its unserved requests are infinite latencies).
enum class QuantileRule { kInterpolate, kNearestRank };
// Exact quantiles of `values`.
Quantiles QuantilesOf(std::vector<double> values, QuantileRule rule = QuantileRule::kInterpolate);

// The distribution of a stream of values (microseconds; negative ones count as 0). Exact while it holds at most
// kExactSamples values; beyond that the values move into log-spaced buckets, each kBucketGrowth times wider than
// the one below (0.8% apart), from kSmallestUs up; quantiles are then the geometric middle of the bucket holding
// the nearest rank, clamped to the observed minimum and maximum: within 0.4% of that rank's value between
// kSmallestUs and ~4 hours (values below kSmallestUs read as 0, above the last bucket as the maximum). Count,
// mean, min and max stay exact. At most kBuckets counts: memory is bounded whatever the count.
class LatencyDigest {
 public:
  static constexpr size_t kExactSamples = 65536;
  static constexpr double kSmallestUs = 0.01;      // bucket 0 holds everything below it (0 included)
  static constexpr double kBucketGrowth = 1.0 + 1.0 / 128;
  static constexpr int kBuckets = 3600;           // the last also holds everything above ~4 hours

  void Add(double value_us);
  int64_t count() const { return count_; }
  bool exact() const { return buckets_.empty(); }
  Quantiles Summary() const;
  double Quantile(double q) const;  // q in [0, 1]; 0 when empty
  // Values <= `value_us`: exact while exact; after, the buckets whose middle is <= it.
  int64_t CountAtMost(double value_us) const;

  // The bucket a value falls in, and a bucket's middle (0 for bucket 0).
  static int BucketOf(double value_us);
  static double BucketMiddle(int bucket);

 private:
  std::vector<double> exact_;    // while exact
  std::vector<int64_t> buckets_; // after (kBuckets counts)
  int64_t count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

// The sums over the completed requests of one latency bucket, for the tail drivers.
struct TailBucket {
  int64_t requests = 0;
  double latency_us = 0, queue_wait_us = 0, compile_wait_us = 0;
  int64_t fallback = 0, substituted = 0;
  std::vector<int64_t> per_executor;  // requests per executor (RunStatistics::executors order)
};

// Every request's record folded in as its fate is known. Memory: the digests, one count per stream, source and
// executor, one TailBucket per latency bucket seen — bounded by the number of buckets, not of requests.
class RunStatistics {
 public:
  void Add(const RequestRecord& record);
  void AddBatchOverhead(double overhead_us);

  int64_t released = 0, completed = 0, failed = 0;
  std::array<int64_t, kRejectReasons> rejected{};  // by RejectReason
  LatencyDigest latency, queue_wait, service, compile_wait, overhead;
  std::map<int, LatencyDigest> stream_latency;     // completed requests' latency per stream
  std::map<int, int64_t> released_per_stream;      // out-of-range rejections (the source's) excluded
  std::map<std::string, int64_t> by_source;        // completed requests per decision source
  std::vector<std::string> executors;              // in order of first completion
  std::vector<int64_t> completed_per_executor;
  std::map<int, TailBucket> tail_buckets;          // by LatencyDigest::BucketOf(latency)
  double first_arrival_us = 0, last_end_us = 0;    // over every released request (0, 0 before any)
};

}  // namespace crmap::serve
