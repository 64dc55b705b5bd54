#include "runtime/serve/metrics.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "http_client.h"

namespace crmap::serve {
namespace {

// The value of the first sample of `name` whose labels contain `label` ("" any); NaN when absent.
double Sample(const std::string& text, const std::string& name, const std::string& label = "") {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.compare(0, name.size(), name) != 0) continue;
    const char next = line.size() > name.size() ? line[name.size()] : '\0';
    if (next != '{' && next != ' ') continue;
    const size_t space = line.rfind(' ');
    if (!label.empty() && line.substr(0, space).find(label) == std::string::npos) continue;
    return std::stod(line.substr(space + 1));
  }
  return std::nan("");
}

RequestRecord Completed(int64_t id, int64_t batch, int batch_size, double latency_us) {
  RequestRecord r;
  r.id = id;
  r.batch_id = batch;
  r.batch_size = batch_size;
  r.arrival_us = 0;
  r.start_us = latency_us / 4;
  r.end_us = latency_us;
  r.queue_wait_us = latency_us / 4;
  r.service_us = latency_us * 3 / 4;
  r.source = "policy";
  return r;
}

TEST(ServeMetricsTest, CountsRequestsByOutcomeAndEveryBatch) {
  ServeMetrics metrics({{{"mode", "policy"}}, 60});
  metrics.Record(Completed(0, 7, 2, 100));
  RequestRecord timed_out;
  timed_out.outcome = Outcome::kRejected;
  timed_out.reason = RejectReason::kTimeout;
  metrics.Record(timed_out);
  RequestRecord fallback = Completed(1, 7, 2, 300);
  fallback.source = "fallback";
  fallback.substituted = true;
  metrics.Record(fallback);
  RequestRecord failed = Completed(2, 8, 1, 50);
  failed.outcome = Outcome::kFailed;
  metrics.Record(failed);
  metrics.SetQueueDepth(5);
  for (int i = 0; i < 3; ++i) metrics.RecordBatch(BatchRecord{});  // batch 7 (two requests), a chunk, batch 8

  const std::string text = metrics.Text();
  EXPECT_EQ(Sample(text, "crmap_request_success_total"), 2) << text;
  EXPECT_EQ(Sample(text, "crmap_request_failure_total", "reason=\"timeout\""), 1);
  EXPECT_EQ(Sample(text, "crmap_request_failure_total", "reason=\"executor_error\""), 1);
  EXPECT_EQ(Sample(text, "crmap_request_failure_total", "reason=\"queue_full\""), 0);
  EXPECT_EQ(Sample(text, "crmap_inference_count_total"), 3);
  EXPECT_EQ(Sample(text, "crmap_inference_exec_count_total"), 3);
  EXPECT_EQ(Sample(text, "crmap_request_substituted_total"), 1);
  EXPECT_EQ(Sample(text, "crmap_request_fallback_total"), 1);
  EXPECT_EQ(Sample(text, "crmap_request_duration_us_count"), 2);
  EXPECT_EQ(Sample(text, "crmap_request_duration_us_sum"), 400);
  EXPECT_EQ(Sample(text, "crmap_queue_duration_us_sum"), 100);
  EXPECT_EQ(Sample(text, "crmap_compute_duration_us_sum"), 300);
  EXPECT_EQ(Sample(text, "crmap_queue_depth"), 5);
  EXPECT_NE(text.find("mode=\"policy\""), std::string::npos);
}

TEST(ServeMetricsTest, SummariesCarryTheTailQuantiles) {
  ServeMetrics metrics({{}, 600});
  for (int i = 1; i <= 10000; ++i) metrics.Record(Completed(i, i, 1, i));
  const std::string text = metrics.Text();
  for (const auto& [quantile, expected] : std::vector<std::pair<std::string, double>>{
           {"0.5", 5000}, {"0.9", 9000}, {"0.95", 9500}, {"0.99", 9900}, {"0.999", 9990}}) {
    const double value = Sample(text, "crmap_request_duration_us", "quantile=\"" + quantile + "\"");
    EXPECT_NEAR(value, expected, 100) << quantile << "\n" << text;
  }
}

TEST(ServeMetricsTest, ServesTheSameTextOnLoopback) {
  ServeMetrics metrics({{}, 60});
  ASSERT_TRUE(metrics.Listen("127.0.0.1:0").ok());
  ASSERT_GT(metrics.port(), 0);
  metrics.Record(Completed(0, 0, 1, 42));
  const std::string response = testing::HttpGet(metrics.port(), "/metrics");
  EXPECT_NE(response.find("200"), std::string::npos) << response;
  EXPECT_NE(response.find("crmap_request_success_total 1"), std::string::npos) << response;
}

TEST(ServeMetricsTest, APortInUseIsNamed) {
  ServeMetrics first({{}, 60});
  ASSERT_TRUE(first.Listen("127.0.0.1:0").ok());
  ServeMetrics second({{}, 60});
  const std::string address = "127.0.0.1:" + std::to_string(first.port());
  Status status = second.Listen(address);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(address), std::string::npos) << status.message();
}

TEST(ServeMetricsTest, WritesTheTextFileAndNamesAnUnwritablePath) {
  ServeMetrics metrics({{}, 60});
  metrics.Record(Completed(0, 0, 1, 42));
  const char* base = std::getenv("TMPDIR");
  const std::string path =
      std::string(base && *base ? base : "/tmp") + "/crmap_metrics_" + std::to_string(::getpid()) + ".prom";
  ASSERT_TRUE(metrics.WriteFile(path).ok());
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), metrics.Text());
  ::unlink(path.c_str());
  Status status = metrics.WriteFile("/nonexistent/dir/m.prom");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("/nonexistent/dir/m.prom"), std::string::npos);
}

}  // namespace
}  // namespace crmap::serve
