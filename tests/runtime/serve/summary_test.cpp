#include "runtime/serve/summary.h"

#include <gtest/gtest.h>

namespace crmap::serve {
namespace {

RequestRecord Completed(int64_t id, double arrival, double start, double end, int stream = 0,
                        const std::string& executor = "e0", const std::string& source = "policy") {
  RequestRecord r;
  r.id = id;
  r.stream = stream;
  r.arrival_us = arrival;
  r.start_us = start;
  r.end_us = end;
  r.queue_wait_us = start - arrival;
  r.service_us = end - start;
  r.executor = executor;
  r.source = source;
  r.batch_id = id;
  r.batch_size = 1;
  return r;
}

// A run's result as the server leaves it: every record folded into the statistics.
ServeResult ResultOf(const std::vector<RequestRecord>& records) {
  ServeResult result;
  for (const RequestRecord& r : records) result.statistics.Add(r);
  return result;
}

TEST(SummaryTest, TheRuntimeOverheadPerBatchIsItsOwnDistribution) {
  ServeResult result = ResultOf({Completed(0, 0, 10, 5000)});
  for (int i = 1; i <= 100; ++i) result.statistics.AddBatchOverhead(i);
  ServeSummary s = Summarize(result, 0);
  EXPECT_EQ(s.overhead_us.count, 100);
  EXPECT_DOUBLE_EQ(s.overhead_us.p99, 99.01);
  EXPECT_DOUBLE_EQ(s.service_us.p99, 4990);  // kernel time stays apart
  Json j = SummaryJson(s);
  EXPECT_EQ(j["overhead_us"]["count"], 100);
  EXPECT_NE(SummaryText(s).find("overhead"), std::string::npos);
}

TEST(SummaryTest, CountsGoodputRejectionsAndFairness) {
  std::vector<RequestRecord> records;
  // 100 completed requests of 1 ms on stream 0 and 2 ms on stream 1, one second of wall time.
  for (int i = 0; i < 100; ++i) {
    const int stream = i % 2;
    records.push_back(Completed(i, i * 10000.0, i * 10000.0, i * 10000.0 + 1000.0 * (1 + stream), stream));
  }
  RequestRecord rejected;
  rejected.id = 100;
  rejected.outcome = Outcome::kRejected;
  rejected.reason = RejectReason::kTimeout;
  records.push_back(rejected);
  RequestRecord failed = Completed(101, 0, 0, 1);
  failed.outcome = Outcome::kFailed;
  records.push_back(failed);
  ServeResult result = ResultOf(records);
  result.batches = 101;
  result.wall_us = 1e6;
  ServeSummary s = Summarize(result, /*slo_ms=*/1.5);
  EXPECT_EQ(s.released, 102);
  EXPECT_EQ(s.completed, 100);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.rejected.at("timeout"), 1);
  EXPECT_EQ(s.rejected.at("queue_full"), 0);  // every reason is listed
  EXPECT_DOUBLE_EQ(s.throughput_rps, 100);
  EXPECT_DOUBLE_EQ(s.goodput_rps, 50);  // only stream 0's 1-ms requests are within 1.5 ms
  ASSERT_EQ(s.streams.size(), 2u);
  EXPECT_DOUBLE_EQ(s.streams[1].p99_latency_us, 2000);
  EXPECT_DOUBLE_EQ(s.fairness, 2);
  EXPECT_EQ(s.starved_streams, 0);
  Json json = SummaryJson(s);
  EXPECT_EQ(json["rejected"]["timeout"], 1);
  EXPECT_DOUBLE_EQ(json["latency_us"]["p99"].get<double>(), s.latency_us.p99);
  EXPECT_NE(SummaryText(s).find("goodput 50.0 req/s within 1.5 ms"), std::string::npos) << SummaryText(s);
}

// A stream whose every request was rejected is the least fair outcome: it is listed (completed 0) and counted
// as starved, not left out of the fairness report.
TEST(SummaryTest, AStreamThatCompletedNothingIsReportedStarved) {
  std::vector<RequestRecord> records;
  for (int i = 0; i < 10; ++i) records.push_back(Completed(i, i * 100.0, i * 100.0, i * 100.0 + 50, 0));
  for (int i = 10; i < 15; ++i) {
    RequestRecord rejected;
    rejected.id = i;
    rejected.stream = 2;
    rejected.outcome = Outcome::kRejected;
    rejected.reason = RejectReason::kQueueFull;
    records.push_back(rejected);
  }
  ServeResult result = ResultOf(records);
  result.wall_us = 1e6;
  ServeSummary s = Summarize(result, 0);
  ASSERT_EQ(s.streams.size(), 2u);
  EXPECT_EQ(s.streams[0].stream, 0);
  EXPECT_EQ(s.streams[1].stream, 2);
  EXPECT_EQ(s.streams[1].completed, 0);
  EXPECT_EQ(s.starved_streams, 1);
  EXPECT_EQ(SummaryJson(s)["starved_streams"], 1);
  EXPECT_NE(SummaryText(s).find("[2] none completed"), std::string::npos) << SummaryText(s);
  EXPECT_NE(SummaryText(s).find("1 stream(s) completed nothing"), std::string::npos);

  // Requests the source rejected as out of range are not the server's doing: a stream of only those is not starved.
  for (RequestRecord& r : records)
    if (r.stream == 2) r.reason = RejectReason::kOutOfRange;
  EXPECT_EQ(Summarize(ResultOf(records), 0).starved_streams, 0);
}

TEST(SummaryTest, TailDriversSayWhereTheSlowestRequestsSpentTheirTime) {
  std::vector<RequestRecord> records;
  // 95 fast requests on e0; 5 slow ones that queued 9 ms of their 10 ms, on e1, from the fallback.
  for (int i = 0; i < 95; ++i) records.push_back(Completed(i, 0, 0, 1000, 0, i < 50 ? "e0" : "e1"));
  for (int i = 95; i < 100; ++i) {
    RequestRecord r = Completed(i, 0, 9000, 10000, 0, "e1", "fallback");
    r.compile_wait_us = 500;
    records.push_back(r);
  }
  ServeResult result = ResultOf(records);
  result.batches = 100;
  result.wall_us = 1e6;
  ServeSummary s = Summarize(result, 0);
  EXPECT_EQ(s.tail.requests, 5);
  EXPECT_DOUBLE_EQ(s.tail.queue_share, 0.9);
  EXPECT_DOUBLE_EQ(s.tail.compile_share, 0.05);
  EXPECT_DOUBLE_EQ(s.tail.fallback_share, 1);
  EXPECT_DOUBLE_EQ(s.tail.imbalance_share, 1);  // e1 holds every tail request but half of all
  EXPECT_DOUBLE_EQ(s.goodput_rps, s.throughput_rps);  // no SLO
  EXPECT_EQ(s.by_source.at("fallback"), 5);
}

// Past the digest's exact capacity the summary's figures come from buckets: they stay within the digest's stated
// error of the exact ones, and the tail drivers still find the slow requests.
TEST(SummaryTest, ALongRunIsSummarisedInBoundedMemoryCloseToTheExactFigures) {
  std::vector<RequestRecord> records;
  std::vector<double> latencies;
  const int n = static_cast<int>(LatencyDigest::kExactSamples) * 2;
  for (int i = 0; i < n; ++i) {
    const bool slow = i % 10 == 0;  // 10%: queued 90% of 20-40 ms
    const double latency = slow ? 20000.0 + (i % 997) * 20 : 500.0 + (i % 1009);
    RequestRecord r = slow ? Completed(i, 0, latency * 0.9, latency, 0, "e1", "fallback")
                           : Completed(i, 0, 0, latency, 0, i % 2 ? "e0" : "e1");
    records.push_back(r);
    latencies.push_back(latency);
  }
  ServeResult result = ResultOf(records);
  result.wall_us = 1e6;
  EXPECT_FALSE(result.statistics.latency.exact());
  ServeSummary s = Summarize(result, /*slo_ms=*/10);
  Quantiles exact = QuantilesOf(latencies);
  EXPECT_EQ(s.latency_us.count, exact.count);
  EXPECT_DOUBLE_EQ(s.latency_us.max, exact.max);
  EXPECT_NEAR(s.latency_us.mean, exact.mean, exact.mean * 1e-9);
  for (auto [got, want] : {std::pair{s.latency_us.p50, exact.p50}, std::pair{s.latency_us.p99, exact.p99},
                           std::pair{s.latency_us.p999, exact.p999}})
    EXPECT_NEAR(got, want, want * 0.005);
  const int64_t slow = (n + 9) / 10;
  EXPECT_DOUBLE_EQ(s.goodput_rps, n - slow);  // the slow ones miss 10 ms
  EXPECT_NEAR(s.tail.requests, n / 20, n * 0.002);  // 5%, give or take the p95's bucket
  EXPECT_NEAR(s.tail.queue_share, 0.9, 1e-9);
  EXPECT_DOUBLE_EQ(s.tail.fallback_share, 1);
}

}  // namespace
}  // namespace crmap::serve
