#include "runtime/serve/chrome_trace.h"

#include <map>

#include <gtest/gtest.h>

namespace crmap::serve {
namespace {

RequestRecord Done(int64_t id, double arrival, double start, double end, int64_t batch, const std::string& executor) {
  RequestRecord r;
  r.id = id;
  r.arrival_us = arrival;
  r.start_us = start;
  r.end_us = end;
  r.batch_id = batch;
  r.batch_size = 2;
  r.executor = executor;
  r.config = "threads=1";
  return r;
}

BatchRecord Ran(int64_t id, double start, double end, int size, const std::string& executor, bool chunk = false) {
  BatchRecord b;
  b.id = id;
  b.start_us = start;
  b.end_us = end;
  b.size = size;
  b.executor = executor;
  b.config = "threads=1";
  b.chunk = chunk;
  return b;
}

TEST(ChromeTraceTest, ASpanPerRequestASlicePerBatchAndTheQueueDepth) {
  ServeResult result;
  result.records = {Done(0, 0, 10, 30, 0, "onednn[cpu 0]"), Done(1, 5, 10, 30, 0, "onednn[cpu 0]"),
                    Done(2, 20, 40, 50, 1, "onednn[cpu 1]")};
  RequestRecord rejected;
  rejected.id = 3;
  rejected.arrival_us = 25;
  rejected.end_us = 25;
  rejected.outcome = Outcome::kRejected;
  rejected.reason = RejectReason::kQueueFull;
  result.records.push_back(rejected);
  // Request 2 ran in two chunks: the first (batch 1) with more to run, the last as batch 2.
  result.batch_records = {Ran(0, 10, 30, 2, "onednn[cpu 0]"), Ran(1, 40, 45, 1, "onednn[cpu 1]", true),
                          Ran(2, 45, 50, 1, "onednn[cpu 1]")};
  Json trace = ChromeTrace(result);
  std::map<int64_t, int> begins, ends;
  int batches = 0, chunks = 0;
  std::vector<std::pair<double, int>> depth;
  std::map<int, std::string> thread_names;
  for (const Json& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "b") ++begins[e["id"].get<int64_t>()];
    if (ph == "e") ++ends[e["id"].get<int64_t>()];
    if (ph == "X") {
      ++batches;
      chunks += e["name"] == "chunk" && e["args"]["chunk"] == true;
      EXPECT_GE(e["dur"].get<double>(), 0);
    }
    if (ph == "C") depth.emplace_back(e["ts"].get<double>(), e["args"]["depth"].get<int>());
    if (ph == "M" && e["name"] == "thread_name") thread_names[e["tid"]] = e["args"]["name"];
  }
  for (int64_t id = 0; id < 4; ++id) {
    EXPECT_EQ(begins[id], 1) << id;
    EXPECT_EQ(ends[id], 1) << id;
  }
  EXPECT_EQ(batches, 3);  // two requests shared batch 0; request 2's two chunks are a slice each
  EXPECT_EQ(chunks, 1);
  EXPECT_EQ(thread_names.size(), 3u);
  // Depth: 1 at 0, 2 at 5, 0 at 10, 1 at 20, 1 at 25 (the rejection arrives and leaves), 0 at 40.
  const std::vector<std::pair<double, int>> expected = {{0, 1}, {5, 2}, {10, 0}, {20, 1}, {25, 1}, {40, 0}};
  EXPECT_EQ(depth, expected);
}

// A chunked request rejected between its chunks left the queue when its first chunk started, not at its rejection.
TEST(ChromeTraceTest, ARequestRejectedBetweenChunksLeavesTheQueueAtItsFirstChunk) {
  ServeResult result;
  RequestRecord rejected;
  rejected.id = 0;
  rejected.arrival_us = 5;
  rejected.start_us = 10;
  rejected.end_us = 80;
  rejected.outcome = Outcome::kRejected;
  rejected.reason = RejectReason::kShutdown;
  result.records = {rejected};
  result.batch_records = {Ran(0, 10, 30, 1, "onednn", true)};
  Json trace = ChromeTrace(result);
  std::vector<std::pair<double, int>> depth;
  for (const Json& e : trace["traceEvents"])
    if (e["ph"] == "C") depth.emplace_back(e["ts"].get<double>(), e["args"]["depth"].get<int>());
  const std::vector<std::pair<double, int>> expected = {{5, 1}, {10, 0}};
  EXPECT_EQ(depth, expected);
}

}  // namespace
}  // namespace crmap::serve
