#include "runtime/serve/telemetry.h"

#include <unistd.h>

#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

namespace crmap::serve {
namespace {

std::string TempPath(const std::string& name) {
  const char* base = std::getenv("TMPDIR");
  return std::string(base && *base ? base : "/tmp") + "/crmap_telemetry_" + std::to_string(::getpid()) + "_" + name;
}

TEST(TelemetryTest, OneParsableLinePerRecordWithItsFate) {
  const std::string path = TempPath("a.jsonl");
  {
    auto writer = TelemetryWriter::Open(path);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    RequestRecord done;
    done.id = 3;
    done.dims = {{"tokens", 5}};
    done.arrival_us = 10;
    done.start_us = 15;
    done.end_us = 40;
    done.batch_id = 1;
    done.batch_size = 2;
    done.config = "threads=1";
    done.source = "policy";
    (*writer)->Write(done);
    RequestRecord refused;
    refused.id = 4;
    refused.outcome = Outcome::kRejected;
    refused.reason = RejectReason::kTimeout;
    (*writer)->Write(refused);
    EXPECT_EQ((*writer)->lines(), 2);
    EXPECT_TRUE((*writer)->status().ok());
  }
  std::ifstream in(path);
  std::string line;
  std::vector<Json> lines;
  while (std::getline(in, line)) lines.push_back(Json::parse(line));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["id"], 3);
  EXPECT_EQ(lines[0]["latency_us"], 30);
  EXPECT_EQ(lines[0]["outcome"], "completed");
  EXPECT_EQ(lines[0]["dims"]["tokens"], 5);
  EXPECT_FALSE(lines[0].contains("reason"));
  EXPECT_EQ(lines[1]["outcome"], "rejected");
  EXPECT_EQ(lines[1]["reason"], "timeout");
  ::unlink(path.c_str());
}

TEST(TelemetryTest, RecordsFromManyThreadsAllLandOncePerLine) {
  const std::string path = TempPath("many.jsonl");
  {
    auto writer = TelemetryWriter::Open(path);
    ASSERT_TRUE(writer.ok());
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < 1000; ++i) {
          RequestRecord r;
          r.id = t * 1000 + i;
          (*writer)->Write(r);
        }
      });
    for (auto& thread : threads) thread.join();
    EXPECT_EQ((*writer)->lines(), 3000);  // waits for the writer thread
  }
  std::ifstream in(path);
  std::string line;
  std::set<int64_t> ids;
  while (std::getline(in, line)) ids.insert(Json::parse(line)["id"].get<int64_t>());
  EXPECT_EQ(ids.size(), 3000u);
  ::unlink(path.c_str());
}

TEST(TelemetryTest, AnUnwritablePathIsNamed) {
  auto writer = TelemetryWriter::Open("/nonexistent/dir/t.jsonl");
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("/nonexistent/dir/t.jsonl"), std::string::npos);
}

TEST(TelemetryTest, AFullDiskStopsWritingAndSaysHowManyLinesWereLost) {
  auto writer = TelemetryWriter::Open("/dev/full");
  ASSERT_TRUE(writer.ok());
  RequestRecord r;
  (*writer)->Write(r);
  (*writer)->Write(r);
  EXPECT_FALSE((*writer)->status().ok());
  EXPECT_NE((*writer)->status().message().find("2 lines not written"), std::string::npos)
      << (*writer)->status().message();
  EXPECT_EQ((*writer)->lines(), 0);
}

}  // namespace
}  // namespace crmap::serve
