#include "runtime/serve/run_statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/numeric.h"
#include "runtime/serve/server.h"

namespace crmap::serve {
namespace {

RequestRecord Record(double arrival, double end, Outcome outcome, const std::string& executor = "e0") {
  RequestRecord r;
  r.arrival_us = arrival;
  r.start_us = arrival;
  r.end_us = end;
  r.service_us = end - arrival;
  r.outcome = outcome;
  r.executor = executor;
  r.source = "policy";
  return r;
}

TEST(LatencyDigestTest, ExactWhileSmallThenBucketsWithinTheStatedError) {
  LatencyDigest digest;
  for (int i = 1; i <= 1000; ++i) digest.Add(i);
  Quantiles q = digest.Summary();
  EXPECT_TRUE(digest.exact());
  EXPECT_EQ(q.count, 1000);
  EXPECT_DOUBLE_EQ(q.p50, 500.5);
  EXPECT_DOUBLE_EQ(q.p99, 990.01);
  EXPECT_DOUBLE_EQ(q.max, 1000);
  EXPECT_EQ(digest.CountAtMost(10), 10);
  EXPECT_EQ(LatencyDigest().Summary().count, 0);
  EXPECT_EQ(LatencyDigest().Quantile(0.99), 0);

  // Spread over six decades, zeros included: every quantile within 0.4% of the exact one.
  LatencyDigest wide;
  std::vector<double> values;
  for (size_t i = 0; i < LatencyDigest::kExactSamples * 3; ++i) {
    const double v = i % 10 == 0 ? 0 : std::pow(10.0, static_cast<double>(i % 6007) / 1000.0);
    wide.Add(v);
    values.push_back(v);
  }
  EXPECT_FALSE(wide.exact());
  std::sort(values.begin(), values.end());
  for (double quantile : {0.05, 0.5, 0.9, 0.95, 0.99, 0.999}) {
    const double want = Percentile(values, quantile);
    EXPECT_NEAR(wide.Quantile(quantile), want, want * 0.004 + 1e-9) << quantile;
  }
  EXPECT_EQ(wide.Quantile(0.01), 0);  // the zeros stay zero
  EXPECT_EQ(wide.count(), static_cast<int64_t>(values.size()));
}

// The switch happens past kExactSamples values, not at it; after it, counting at a limit is off by at most the
// values of the limit's own bucket.
TEST(LatencyDigestTest, SwitchesToBucketsPastItsExactCapacityAndStillCounts) {
  LatencyDigest digest;
  for (size_t i = 0; i < LatencyDigest::kExactSamples; ++i) digest.Add(static_cast<double>(i % 1000) + 1);
  EXPECT_TRUE(digest.exact());
  EXPECT_EQ(digest.CountAtMost(500), static_cast<int64_t>(LatencyDigest::kExactSamples / 1000 * 500 + 500));
  digest.Add(2000);
  EXPECT_FALSE(digest.exact());
  EXPECT_EQ(digest.count(), static_cast<int64_t>(LatencyDigest::kExactSamples) + 1);
  EXPECT_DOUBLE_EQ(digest.Summary().max, 2000);
  // 65 full cycles of 1..1000 and 536 values of the next: at most 500 -> 65 x 500 + 500, give or take the
  // values sharing 500's 0.8%-wide bucket (495..503 hold 9 values per cycle).
  const int64_t exact_at_most_500 = 65 * 500 + 500;
  EXPECT_NEAR(static_cast<double>(digest.CountAtMost(500)), static_cast<double>(exact_at_most_500), 9 * 66);
  EXPECT_EQ(digest.CountAtMost(0.5), 0);
  EXPECT_EQ(digest.CountAtMost(1e9), digest.count());
}

TEST(LatencyDigestTest, BucketsAreOrderedAndTheirMiddlesFallInsideThem) {
  EXPECT_EQ(LatencyDigest::BucketOf(0), 0);
  EXPECT_EQ(LatencyDigest::BucketOf(-5), 0);
  EXPECT_EQ(LatencyDigest::BucketOf(1e30), LatencyDigest::kBuckets - 1);
  int last = 0;
  for (double v = 0.02; v < 1e9; v *= 1.37) {
    const int b = LatencyDigest::BucketOf(v);
    EXPECT_GE(b, last);
    last = b;
    const double middle = LatencyDigest::BucketMiddle(b);
    EXPECT_NEAR(middle, v, v * (LatencyDigest::kBucketGrowth - 1)) << v;
    EXPECT_EQ(LatencyDigest::BucketOf(middle), b) << "a bucket's middle is inside it: " << v;
  }
}

TEST(RunStatisticsTest, CountsEveryOutcomeAndSumsTheTailPerLatencyBucket) {
  RunStatistics run;
  run.Add(Record(100, 1100, Outcome::kCompleted, "a"));
  run.Add(Record(200, 1200, Outcome::kCompleted, "b"));
  RequestRecord slow = Record(300, 10300, Outcome::kCompleted, "b");
  slow.queue_wait_us = 4000;
  slow.compile_wait_us = 1000;
  slow.substituted = true;
  run.Add(slow);
  RequestRecord out_of_range = Record(50, 50, Outcome::kRejected);
  out_of_range.stream = 3;
  out_of_range.reason = RejectReason::kOutOfRange;
  run.Add(out_of_range);
  RequestRecord timeout = Record(400, 20000, Outcome::kRejected);
  timeout.reason = RejectReason::kTimeout;
  run.Add(timeout);
  run.Add(Record(500, 600, Outcome::kFailed));

  EXPECT_EQ(run.released, 6);
  EXPECT_EQ(run.completed, 3);
  EXPECT_EQ(run.failed, 1);
  EXPECT_EQ(run.rejected[static_cast<size_t>(RejectReason::kTimeout)], 1);
  EXPECT_EQ(run.rejected[static_cast<size_t>(RejectReason::kOutOfRange)], 1);
  EXPECT_EQ(run.released_per_stream.count(3), 0u);  // the source's rejection is not the stream's
  EXPECT_EQ(run.released_per_stream.at(0), 5);
  EXPECT_DOUBLE_EQ(run.first_arrival_us, 50);
  EXPECT_DOUBLE_EQ(run.last_end_us, 20000);
  EXPECT_EQ(run.executors, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(run.completed_per_executor, (std::vector<int64_t>{1, 2}));
  const TailBucket& tail = run.tail_buckets.at(LatencyDigest::BucketOf(10000));
  EXPECT_EQ(tail.requests, 1);
  EXPECT_DOUBLE_EQ(tail.queue_wait_us, 4000);
  EXPECT_DOUBLE_EQ(tail.compile_wait_us, 1000);
  EXPECT_EQ(tail.substituted, 1);
  EXPECT_EQ(tail.per_executor, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(run.tail_buckets.at(LatencyDigest::BucketOf(1000)).requests, 2);
  EXPECT_EQ(run.latency.count(), 3);
  EXPECT_EQ(run.stream_latency.at(0).count(), 3);
}

}  // namespace
}  // namespace crmap::serve
