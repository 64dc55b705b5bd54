#include "datasets/trace.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "datasets/catalog.h"

namespace crmap {
namespace {

namespace fs = std::filesystem;

const Workload& BertFfn() {
  static const Workload workload = LoadWorkload("bert_ffn").value();
  return workload;
}

Scenario MakeScenario(const std::string& phases, int streams = 3) {
  std::string text = R"({"format": "crmap.scenario/1", "name": "s", "workload": "bert_ffn", "streams": )" +
                     std::to_string(streams) + R"(, "phases": )" + phases + "}";
  return ParseScenario(Json::parse(text), "s.json", BertFfn()).value();
}

// Short prompts (lognormal) for 2 s at 500 rps, then long documents (categorical) for 3 s at 100 rps.
Scenario TwoPhases() {
  return MakeScenario(R"([
      {"name": "chat", "duration_s": 2, "rate_rps": 500,
       "distribution": {"dims": {"tokens": {"type": "lognormal", "median": 32, "sigma": 0.8, "max": 256}}}},
      {"name": "docs", "duration_s": 3, "rate_rps": 100,
       "distribution": {"dims": {"tokens": {"type": "categorical", "values": [384, 512]}}}}])");
}

class TraceFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("crmap_trace_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  // No writer's temporary file (NAME.tmp.PID) is left anywhere in the test's folder.
  bool NoTemporaryFiles() const {
    for (const auto& entry : fs::recursive_directory_iterator(dir_))
      if (entry.path().filename().string().find(".tmp") != std::string::npos) return false;
    return true;
  }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  }
  // The error of reading `text` as a trace; fails the test if it reads.
  std::string ReadError(const std::string& text) const {
    auto result = ReadTraceJsonl(Write("bad.jsonl", text), BertFfn());
    EXPECT_FALSE(result.ok()) << text;
    if (result.ok()) return "";
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
    return result.status().message();
  }

  fs::path dir_;
};

TEST(TraceTest, DeterministicForASeed) {
  Scenario scenario = TwoPhases();
  auto a = GenerateTrace(scenario, 1);
  auto b = GenerateTrace(scenario, 1);
  auto c = GenerateTrace(scenario, 2);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(TraceTest, ArrivalsAreOrderedAndInsideTheirPhase) {
  Scenario scenario = TwoPhases();
  auto trace = GenerateTrace(scenario, 3);
  ASSERT_FALSE(trace.empty());
  std::set<int> streams;
  for (size_t i = 0; i < trace.size(); ++i) {
    const TraceRequest& request = trace[i];
    if (i > 0) {
      ASSERT_GE(request.arrival_us, trace[i - 1].arrival_us) << i;
      ASSERT_GE(request.phase, trace[i - 1].phase) << i;
    }
    ASSERT_GE(request.phase, 0);
    ASSERT_LT(request.phase, 2);
    double start_us = scenario.phase_start_s(request.phase) * 1e6;
    double end_us = start_us + scenario.phases()[request.phase].duration_s * 1e6;
    ASSERT_GE(request.arrival_us, start_us);
    ASSERT_LT(request.arrival_us, end_us);
    ASSERT_TRUE(BertFfn().CheckDims(request.dims).ok()) << DimsToText(request.dims);
    int64_t tokens = request.dims.at("tokens");
    if (request.phase == 0) {
      ASSERT_LE(tokens, 256);
    } else {
      ASSERT_TRUE(tokens == 384 || tokens == 512) << tokens;
    }
    ASSERT_GE(request.stream, 0);
    ASSERT_LT(request.stream, 3);
    streams.insert(request.stream);
  }
  EXPECT_EQ(streams.size(), 3u) << "every stream gets requests";
  EXPECT_EQ(trace.front().phase, 0);
  EXPECT_EQ(trace.back().phase, 1);
}

TEST(TraceTest, RateMatchesOverALongPhase) {
  // 200 rps for 60 s: 12000 requests expected, Poisson standard deviation ~110.
  Scenario scenario = MakeScenario(R"([{"name": "steady", "duration_s": 60, "rate_rps": 200,
      "distribution": {"dims": {"tokens": {"type": "fixed", "value": 8}}}}])", 2);
  auto trace = GenerateTrace(scenario, 4);
  EXPECT_NEAR(static_cast<double>(trace.size()), 12000.0, 500.0);
  // Exponential gaps: mean 5000 us, and about e^-1 of them longer than the mean.
  double sum = 0;
  int longer = 0;
  for (size_t i = 1; i < trace.size(); ++i) {
    double gap = trace[i].arrival_us - trace[i - 1].arrival_us;
    sum += gap;
    if (gap > 5000) ++longer;
  }
  EXPECT_NEAR(sum / (trace.size() - 1), 5000.0, 250.0);
  EXPECT_NEAR(longer / double(trace.size() - 1), 0.3679, 0.02);
  int stream0 = 0;
  for (const auto& request : trace) stream0 += request.stream == 0;
  EXPECT_NEAR(stream0 / double(trace.size()), 0.5, 0.03) << "streams are chosen uniformly";
}

TEST(TraceTest, PhasesDrawIndependently) {
  // Changing the second phase's distribution changes neither the first phase nor the second's arrivals.
  Scenario a = TwoPhases();
  Scenario b = MakeScenario(R"([
      {"name": "chat", "duration_s": 2, "rate_rps": 500,
       "distribution": {"dims": {"tokens": {"type": "lognormal", "median": 32, "sigma": 0.8, "max": 256}}}},
      {"name": "docs", "duration_s": 3, "rate_rps": 100,
       "distribution": {"dims": {"tokens": {"type": "fixed", "value": 1000}}}}])");
  auto trace_a = GenerateTrace(a, 5);
  auto trace_b = GenerateTrace(b, 5);
  ASSERT_EQ(trace_a.size(), trace_b.size());
  for (size_t i = 0; i < trace_a.size(); ++i) {
    EXPECT_EQ(trace_a[i].arrival_us, trace_b[i].arrival_us);
    EXPECT_EQ(trace_a[i].stream, trace_b[i].stream);
    if (trace_a[i].phase == 0) {
      EXPECT_EQ(trace_a[i].dims, trace_b[i].dims);
    } else {
      EXPECT_EQ(trace_b[i].dims.at("tokens"), 1000);
    }
  }
}

TEST_F(TraceFileTest, JsonlRoundTripIsExact) {
  auto trace = GenerateTrace(TwoPhases(), 6);
  ASSERT_FALSE(trace.empty());
  std::string path = Path("trace.jsonl");
  ASSERT_TRUE(WriteTraceJsonl(path, trace).ok());
  EXPECT_TRUE(NoTemporaryFiles());
  auto read = ReadTraceJsonl(path, BertFfn());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, trace);

  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first.rfind("{\"t_us\":", 0), 0u) << first;  // keys in the documented order
  Json line = Json::parse(first);
  EXPECT_EQ(line.size(), 4u);
  EXPECT_EQ(line["t_us"].get<double>(), trace[0].arrival_us);
  EXPECT_EQ(line["dims"]["tokens"].get<int64_t>(), trace[0].dims.at("tokens"));
  EXPECT_EQ(line["stream"].get<int>(), trace[0].stream);
  EXPECT_EQ(line["phase"].get<int>(), 0);
}

TEST_F(TraceFileTest, EmptyTraceRoundTrips) {
  std::string path = Path("empty.jsonl");
  ASSERT_TRUE(WriteTraceJsonl(path, {}).ok());
  EXPECT_EQ(fs::file_size(path), 0u);
  auto read = ReadTraceJsonl(path, BertFfn());
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->empty());
}

TEST_F(TraceFileTest, WriteReplacesAnExistingFile) {
  std::string path = Write("trace.jsonl", "old content that is not a trace\n");
  std::vector<TraceRequest> trace = {{10.5, {{"tokens", 3}}, 0, 0}, {20, {{"tokens", 4}}, 1, 0}};
  ASSERT_TRUE(WriteTraceJsonl(path, trace).ok());
  auto read = ReadTraceJsonl(path, BertFfn());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, trace);
}

TEST_F(TraceFileTest, FailedWriteLeavesNoFile) {
  std::string path = Path("no_such_dir/trace.jsonl");
  Status status = WriteTraceJsonl(path, {{1, {{"tokens", 3}}, 0, 0}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no_such_dir"), std::string::npos) << status.message();
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(NoTemporaryFiles());

  // A directory where the file should go: the rename fails and the temporary file is removed.
  fs::create_directories(Path("taken/sub"));
  status = WriteTraceJsonl(Path("taken"), {{1, {{"tokens", 3}}, 0, 0}});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(NoTemporaryFiles());
  EXPECT_TRUE(fs::is_directory(Path("taken")));
}

TEST_F(TraceFileTest, ReadsHandWrittenTraces) {
  // Blank lines and CRLF endings are fine, stream and phase default to 0, a complete last line needs no '\n'.
  auto read = ReadTraceJsonl(Write("t.jsonl", "{\"t_us\": 0, \"dims\": {\"tokens\": 1}}\r\n\n"
                                              "{\"t_us\": 0, \"dims\": {\"tokens\": 2}, \"stream\": 4}\n"
                                              "{\"t_us\": 7.5, \"dims\": {\"tokens\": 4096}, \"phase\": 1}"),
                             BertFfn());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0].stream, 0);
  EXPECT_EQ((*read)[0].phase, 0);
  EXPECT_EQ((*read)[1].stream, 4);
  EXPECT_EQ((*read)[2].arrival_us, 7.5);
  EXPECT_EQ((*read)[2].dims.at("tokens"), 4096);
  EXPECT_EQ((*read)[2].phase, 1);
}

TEST_F(TraceFileTest, MissingFileIsNotFound) {
  auto read = ReadTraceJsonl(Path("missing.jsonl"), BertFfn());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kNotFound);
}

const char* kGood1 = "{\"t_us\": 1, \"dims\": {\"tokens\": 5}, \"stream\": 0, \"phase\": 0}\n";
const char* kGood2 = "{\"t_us\": 2, \"dims\": {\"tokens\": 6}, \"stream\": 1, \"phase\": 0}\n";

TEST_F(TraceFileTest, MalformedLineNamesTheLine) {
  std::string message = ReadError(std::string(kGood1) + "{not json}\n" + kGood2);
  EXPECT_NE(message.find("line 2"), std::string::npos) << message;
  EXPECT_NE(message.find("malformed"), std::string::npos) << message;
  EXPECT_EQ(message.find("torn"), std::string::npos) << "a terminated line is not torn: " << message;
}

TEST_F(TraceFileTest, TornLastLineIsAnError) {
  std::string message = ReadError(std::string(kGood1) + kGood2 + "{\"t_us\": 3, \"dims\": {\"tok");
  EXPECT_NE(message.find("line 3"), std::string::npos) << message;
  EXPECT_NE(message.find("torn"), std::string::npos) << message;
}

TEST_F(TraceFileTest, OutOfRangeDimsAreRejected) {
  std::string message = ReadError(std::string(kGood1) + kGood2 + kGood2 +
                                  "{\"t_us\": 9, \"dims\": {\"tokens\": 5000}}\n");
  EXPECT_NE(message.find("line 4"), std::string::npos) << message;
  EXPECT_NE(message.find("'tokens'"), std::string::npos) << message;
  EXPECT_NE(message.find("[1, 4096]"), std::string::npos) << message;

  message = ReadError("{\"t_us\": 1, \"dims\": {\"tokens\": 5, \"batch\": 2}}\n");
  EXPECT_NE(message.find("line 1"), std::string::npos) << message;
  EXPECT_NE(message.find("'batch'"), std::string::npos) << message;

  message = ReadError("{\"t_us\": 1, \"dims\": {}}\n");
  EXPECT_NE(message.find("'tokens'"), std::string::npos) << message;
}

TEST_F(TraceFileTest, DecreasingArrivalIsRejected) {
  std::string message = ReadError(std::string(kGood2) + kGood1);
  EXPECT_NE(message.find("line 2"), std::string::npos) << message;
  EXPECT_NE(message.find("'t_us'"), std::string::npos) << message;
  EXPECT_NE(message.find("non-decreasing"), std::string::npos) << message;
}

TEST_F(TraceFileTest, BadFieldsNameTheField) {
  struct BadCase {
    std::string line;
    std::vector<std::string> expected;
  };
  const std::vector<BadCase> cases = {
      {"[1, 2]", {"line 1", "object"}},
      {"{\"dims\": {\"tokens\": 5}}", {"line 1", "'t_us'"}},
      {"{\"t_us\": -1, \"dims\": {\"tokens\": 5}}", {"line 1", "'t_us'", ">= 0"}},
      {"{\"t_us\": \"soon\", \"dims\": {\"tokens\": 5}}", {"line 1", "'t_us'"}},
      {"{\"t_us\": 1}", {"line 1", "'dims'"}},
      {"{\"t_us\": 1, \"dims\": [5]}", {"line 1", "'dims'"}},
      {"{\"t_us\": 1, \"dims\": {\"tokens\": 5.5}}", {"line 1", "'tokens'", "integer"}},
      {"{\"t_us\": 1, \"dims\": {\"tokens\": 5}, \"stream\": -1}", {"line 1", "'stream'"}},
      {"{\"t_us\": 1, \"dims\": {\"tokens\": 5}, \"phase\": 1.5}", {"line 1", "'phase'"}},
      {"{\"t_us\": 1, \"dims\": {\"tokens\": 5}, \"priority\": 1}", {"line 1", "'priority'"}},
  };
  for (const auto& c : cases) {
    std::string message = ReadError(c.line + "\n");
    for (const auto& expected : c.expected)
      EXPECT_NE(message.find(expected), std::string::npos) << c.line << ": '" << expected << "' not in " << message;
  }
}

}  // namespace
}  // namespace crmap
