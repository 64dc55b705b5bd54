#include "tuner/tuning_db.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "backend/host.h"
#include "common/file_read.h"
#include "tests/test_support.h"
#include "tuner/measurement_record.h"

namespace crmap {
namespace {

using testing::MustConfig;
using testing::MustLoad;
using testing::MustSpace;

// A hand-built record with every field of the format and recognisable values.
Json HandRecord(const std::string& config, double median_us, const std::string& workload_fp = "wfp",
                const std::string& space_fp = "sfp") {
  return {{"version", 1},
          {"workload", "toy"},
          {"workload_fingerprint", workload_fp},
          {"space_fingerprint", space_fp},
          {"dims", {{"batch", 4}, {"tokens", 128}}},
          {"config", config},
          {"config_id", 17},
          {"status", "ok"},
          {"latency_us",
           {{"min", median_us * 0.9},
            {"median", median_us},
            {"p90", median_us * 1.1},
            {"p95", median_us * 1.2},
            {"p99", median_us * 1.5},
            {"mean", median_us * 1.05},
            {"cv", 0.04},
            {"rounds", 30}}},
          {"ratio_to_anchor", {{"median", 0.75}, {"p10", 0.7}, {"p90", 0.8}, {"anchor", "threads=2"}}},
          {"peak_bytes", 5000000000LL},
          {"max_error", 2.5e-5},
          {"validated", true},
          {"data_seed", 3},
          {"kernels", Json::array({{{"step", "fc1"}, {"kind", "matmul"}, {"impl", "brg:avx512_core"}}})},
          {"host", {{"cpu", "Test CPU"}, {"isa", "avx512_core_bf16"}, {"cores", 2}, {"onednn", "2.6.3"}}},
          {"agent", "evolution"},
          {"campaign", "c1"},
          {"seed", 18446744073709551615ULL},
          {"time", "2026-01-02T03:04:05Z"}};
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void AppendRaw(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
  ASSERT_TRUE(out.good());
}

class TuningDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "tuning_db_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/db.jsonl";
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  void Write(const std::vector<Json>& records) {
    auto writer = TuningDbWriter::Open(path_);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    for (const Json& r : records) ASSERT_TRUE(writer->Append(r).ok());
  }

  std::string dir_;
  std::string path_;
};

TEST_F(TuningDbTest, RoundTripOfHandBuiltRecordKeepsEveryField) {
  Json original = HandRecord("threads=1", 12.5);
  original["message"] = "line one\nline two, \"quoted\"";  // a newline inside a string must not split the line
  Write({original});
  const std::string text = ReadAll(path_);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << "one record, one line";

  auto db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_EQ(db->records.size(), 1u);
  EXPECT_EQ(db->skipped_torn, 0u);
  EXPECT_TRUE(db->warnings.empty());
  const TuningRecord& r = db->records[0];
  EXPECT_EQ(r.version, 1);
  EXPECT_EQ(r.workload, "toy");
  EXPECT_EQ(r.workload_fingerprint, "wfp");
  EXPECT_EQ(r.space_fingerprint, "sfp");
  EXPECT_EQ(r.dims, (Dims{{"batch", 4}, {"tokens", 128}}));
  EXPECT_EQ(r.config, "threads=1");
  EXPECT_FALSE(r.baseline);
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.message, "line one\nline two, \"quoted\"");
  EXPECT_DOUBLE_EQ(r.median_us, 12.5);
  EXPECT_DOUBLE_EQ(r.p95_us, 12.5 * 1.2);
  EXPECT_DOUBLE_EQ(r.p99_us, 12.5 * 1.5);
  EXPECT_EQ(r.rounds, 30);
  EXPECT_DOUBLE_EQ(r.ratio_to_anchor, 0.75);
  EXPECT_EQ(r.anchor, "threads=2");
  EXPECT_DOUBLE_EQ(r.max_error, 2.5e-5);
  EXPECT_EQ(r.peak_bytes, 5000000000LL);
  EXPECT_EQ(r.agent, "evolution");
  EXPECT_EQ(r.campaign, "c1");
  EXPECT_EQ(r.seed, 18446744073709551615ULL);
  EXPECT_EQ(r.time, "2026-01-02T03:04:05Z");
  EXPECT_EQ(r.host_cpu, "Test CPU");
  EXPECT_EQ(r.host_isa, "avx512_core_bf16");
  EXPECT_EQ(r.host_cores, 2);
  EXPECT_EQ(r.host_onednn, "2.6.3");
  EXPECT_EQ(r.line, 1u);
  EXPECT_EQ(r.raw, original);
}

TEST_F(TuningDbTest, RoundTripOfMeasurementRecordJson) {
  Workload workload = MustLoad("bert_ffn");
  SearchSpace space = MustSpace(workload);
  Config config = MustConfig(space, "weights=packed;threads=1");
  CandidateResult result;
  result.label = space.ToString(config);
  result.config = config;
  result.latency = {10.0, 12.0, 14.0, 15.0, 19.0, 12.5, 0.1, 500};
  result.ratio_to_anchor = {0.8, 0.7, 0.9, 500};
  result.p95_ratio_to_anchor = 0.6;
  result.p99_ratio_to_anchor = 0.4;
  result.anchor_label = space.ToString(space.Default());
  result.validated = true;
  result.error.max_abs = 3e-5;
  result.plan.peak_bytes = 123456;
  CandidateResult baseline;
  baseline.label = "libtorch";
  baseline.is_baseline = true;
  baseline.latency = {20, 21, 22, 23, 24, 21.5, 0.05, 30};
  const Dims dims = {{"tokens", 128}};
  RecordContext context{"random", "campaign-7", 99, 5};
  const Json measured = MeasurementRecordJson(workload, space, dims, result, context);
  const Json libtorch = MeasurementRecordJson(workload, space, dims, baseline, context);
  Write({measured, libtorch});

  auto db = ReadTuningDb(path_, workload.fingerprint(), space.fingerprint());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_EQ(db->records.size(), 2u);
  EXPECT_EQ(db->other_fingerprints, 0u);
  const TuningRecord& r = db->records[0];
  EXPECT_EQ(r.raw, measured);
  EXPECT_EQ(r.version, kMeasurementRecordVersion);
  EXPECT_EQ(r.workload, "bert_ffn");
  EXPECT_EQ(r.workload_fingerprint, workload.fingerprint());
  EXPECT_EQ(r.space_fingerprint, space.fingerprint());
  EXPECT_EQ(r.dims, dims);
  EXPECT_EQ(r.config, space.ToString(config));
  EXPECT_EQ(r.status, "ok");
  EXPECT_DOUBLE_EQ(r.median_us, 12.0);
  EXPECT_DOUBLE_EQ(r.p95_us, 15.0);
  EXPECT_DOUBLE_EQ(r.p99_us, 19.0);
  EXPECT_EQ(r.rounds, 500);
  EXPECT_DOUBLE_EQ(r.ratio_to_anchor, 0.8);
  EXPECT_DOUBLE_EQ(r.p95_ratio_to_anchor, 0.6);
  EXPECT_DOUBLE_EQ(r.p99_ratio_to_anchor, 0.4);
  EXPECT_EQ(r.anchor, space.ToString(space.Default()));
  EXPECT_DOUBLE_EQ(r.max_error, 3e-5);
  EXPECT_EQ(r.peak_bytes, 123456);
  EXPECT_EQ(r.agent, "random");
  EXPECT_EQ(r.campaign, "campaign-7");
  EXPECT_EQ(r.seed, 99u);
  EXPECT_EQ(r.time, measured["time"]);
  EXPECT_EQ(r.host_cpu, DetectHost().cpu);
  EXPECT_EQ(r.host_isa, DetectHost().isa);
  EXPECT_EQ(r.host_cores, DetectHost().cores);
  EXPECT_EQ(r.host_onednn, DetectHost().onednn_version);

  const TuningRecord& b = db->records[1];
  EXPECT_EQ(b.raw, libtorch);
  EXPECT_TRUE(b.baseline);
  EXPECT_EQ(b.config, "libtorch");
  EXPECT_DOUBLE_EQ(b.median_us, 21.0);
  EXPECT_TRUE(std::isnan(b.ratio_to_anchor)) << "the baseline was measured without an anchor";
  EXPECT_TRUE(std::isnan(b.p95_ratio_to_anchor));
  EXPECT_EQ(b.line, 2u);
}

TEST_F(TuningDbTest, AbsentAndNullOptionalFieldsAreNaNOrEmpty) {
  Json minimal = {
      {"version", 1},           {"workload", "toy"},   {"workload_fingerprint", "w"}, {"space_fingerprint", "s"},
      {"dims", Json::object()}, {"config", "default"}, {"status", "timeout"}};
  auto r = ParseTuningRecord(minimal.dump());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(std::isnan(r->median_us));
  EXPECT_TRUE(std::isnan(r->p99_us));
  EXPECT_TRUE(std::isnan(r->ratio_to_anchor));
  EXPECT_TRUE(std::isnan(r->max_error));
  EXPECT_TRUE(r->anchor.empty());
  EXPECT_TRUE(r->agent.empty());
  EXPECT_EQ(r->rounds, 0);
  EXPECT_EQ(r->host_cores, 0);

  // nlohmann writes a NaN statistic as null: that reads as "not recorded", not as an error.
  Json with_null = HandRecord("default", 10);
  with_null["max_error"] = std::nan("");
  with_null["latency_us"]["p99"] = nullptr;
  auto n = ParseTuningRecord(with_null.dump());
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_TRUE(std::isnan(n->max_error));
  EXPECT_TRUE(std::isnan(n->p99_us));
  EXPECT_DOUBLE_EQ(n->median_us, 10);
}

TEST_F(TuningDbTest, OptionalFieldOfTheWrongTypeIsAnErrorNamingIt) {
  Json record = HandRecord("default", 10);
  record["latency_us"]["median"] = "fast";
  auto r = ParseTuningRecord(record.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("median"), std::string::npos) << r.status().message();
}

TEST_F(TuningDbTest, ParseRejectsTextThatIsNotAJsonObjectAsCorruption) {
  for (const std::string text : {"{\"version\": 1, \"work", "not json", "[1, 2]", "42"}) {
    auto r = ParseTuningRecord(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << text;
  }
}

TEST_F(TuningDbTest, TornLastLineIsSkippedAndTheNextWriterStartsANewLine) {
  Write({HandRecord("a", 10), HandRecord("b", 11)});
  const std::string third = HandRecord("c", 12).dump();
  AppendRaw(path_, third.substr(0, third.size() / 2));  // a crash mid-write: half a line, no newline

  auto db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(db->records.size(), 2u);
  EXPECT_EQ(db->skipped_torn, 1u);
  ASSERT_EQ(db->warnings.size(), 1u);
  EXPECT_EQ(db->warnings[0], path_ + ":3: unparsable line skipped (torn write?)");

  // A new writer ends the torn line before appending.
  Write({HandRecord("d", 13)});
  const std::string text = ReadAll(path_);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_EQ(db->records.size(), 3u);
  EXPECT_EQ(db->records[2].config, "d");
  EXPECT_EQ(db->records[2].line, 4u);
  EXPECT_EQ(db->skipped_torn, 1u);
  ASSERT_EQ(db->warnings.size(), 1u);
  EXPECT_NE(db->warnings[0].find(":3:"), std::string::npos) << db->warnings[0];
}

TEST_F(TuningDbTest, CompleteLastRecordWithoutNewlineIsKept) {
  AppendRaw(path_, HandRecord("a", 10).dump());  // e.g. a short write that lost only the '\n'
  auto db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(db->records.size(), 1u);
  EXPECT_EQ(db->skipped_torn, 0u);
  Write({HandRecord("b", 11)});
  db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_EQ(db->records.size(), 2u);
  EXPECT_EQ(db->records[1].config, "b");
}

TEST_F(TuningDbTest, GarbageLineInTheMiddleIsSkippedWithAWarningAndBlankLinesAreIgnored) {
  Write({HandRecord("a", 10)});
  AppendRaw(path_, "\xff\xfe garbage {{{\n\n   \n");
  Write({HandRecord("b", 11)});
  auto db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_EQ(db->records.size(), 2u);
  EXPECT_EQ(db->records[0].config, "a");
  EXPECT_EQ(db->records[1].config, "b");
  EXPECT_EQ(db->records[1].line, 5u);
  EXPECT_EQ(db->skipped_torn, 1u);
  ASSERT_EQ(db->warnings.size(), 1u);
  EXPECT_EQ(db->warnings[0], path_ + ":2: unparsable line skipped (torn write?)");
}

TEST_F(TuningDbTest, RecordFromANewerVersionIsAnErrorNamingTheLineAndTheVersion) {
  Json newer = HandRecord("b", 11);
  newer["version"] = 99;
  Write({HandRecord("a", 10), newer});
  auto db = ReadTuningDb(path_);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = db.status().message();
  EXPECT_NE(m.find(path_), std::string::npos) << m;
  EXPECT_NE(m.find("line 2: record format version 99 is newer than this crmap reads (1)"), std::string::npos) << m;

  auto parsed = ParseTuningRecord(newer.dump());
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("99"), std::string::npos);
}

TEST_F(TuningDbTest, VersionBelowOneOrNotAnIntegerIsAnError) {
  for (const Json& version : {Json(0), Json(-3), Json("1"), Json(1.5)}) {
    Json record = HandRecord("a", 10);
    record["version"] = version;
    auto r = ParseTuningRecord(record.dump());
    ASSERT_FALSE(r.ok()) << version;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << version;
    EXPECT_NE(r.status().message().find("version"), std::string::npos) << r.status().message();
  }
}

TEST_F(TuningDbTest, MissingRequiredFieldIsAnErrorNamingTheFieldAndLine) {
  for (const char* field :
       {"version", "workload", "workload_fingerprint", "space_fingerprint", "dims", "config", "status"}) {
    Json broken = HandRecord("b", 11);
    broken.erase(field);
    std::remove(path_.c_str());
    Write({HandRecord("a", 10), broken});
    auto db = ReadTuningDb(path_);
    ASSERT_FALSE(db.ok()) << field;
    EXPECT_EQ(db.status().code(), StatusCode::kInvalidArgument) << field;
    const std::string& m = db.status().message();
    EXPECT_NE(m.find(std::string("'") + field + "'"), std::string::npos) << m;
    EXPECT_NE(m.find("line 2"), std::string::npos) << m;
  }
}

TEST_F(TuningDbTest, DimsMustBeAnObjectOfIntegers) {
  Json record = HandRecord("a", 10);
  record["dims"] = {{"tokens", "many"}};
  auto r = ParseTuningRecord(record.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("tokens"), std::string::npos) << r.status().message();
  record["dims"] = Json::array({1, 2});
  EXPECT_FALSE(ParseTuningRecord(record.dump()).ok());
}

TEST_F(TuningDbTest, ValidJsonThatIsNotARecordIsAnErrorNotATornLine) {
  Write({HandRecord("a", 10)});
  AppendRaw(path_, "[1, 2, 3]\n");
  auto db = ReadTuningDb(path_);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(db.status().message().find("line 2"), std::string::npos) << db.status().message();
}

TEST_F(TuningDbTest, FingerprintFilterReturnsMatchingRecordsAndCountsTheOthers) {
  Write({HandRecord("a", 10, "w1", "s1"), HandRecord("b", 11, "w2", "s2"), HandRecord("c", 12, "w1", "s1"),
         HandRecord("d", 13, "w1", "s-other"), HandRecord("e", 14, "w2", "s2")});
  auto all = ReadTuningDb(path_);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->records.size(), 5u);
  EXPECT_EQ(all->other_fingerprints, 0u);

  auto w1 = ReadTuningDb(path_, "w1");
  ASSERT_TRUE(w1.ok());
  ASSERT_EQ(w1->records.size(), 3u);
  EXPECT_EQ(w1->other_fingerprints, 2u);

  auto both = ReadTuningDb(path_, "w1", "s1");
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->records.size(), 2u);
  EXPECT_EQ(both->records[0].config, "a");
  EXPECT_EQ(both->records[1].config, "c");
  EXPECT_EQ(both->other_fingerprints, 3u);

  auto space_only = ReadTuningDb(path_, "", "s2");
  ASSERT_TRUE(space_only.ok());
  EXPECT_EQ(space_only->records.size(), 2u);
  EXPECT_EQ(space_only->other_fingerprints, 3u);
}

TEST_F(TuningDbTest, RecordsTheWorkloadOrSpaceCannotUseAreLeftOutCountedAndNamed) {
  Workload workload = MustLoad("dlrm_mlp");
  SearchSpace space = MustSpace(workload, 2);
  const std::string good = space.ToString(space.Default());
  auto record = [&](const Json& dims, const std::string& config) {
    Json r = HandRecord(config, 10, workload.fingerprint(), space.fingerprint());
    r["workload"] = "dlrm_mlp";
    r["dims"] = dims;
    return r;
  };
  Write({record({{"batch", 8}}, good),                                   // line 1: usable
         record({{"batch", 8}}, "warp_size=64"),                         // 2: unknown knob
         record({{"batch", 8}}, "%%garbage%%"),                          // 3: garbage config
         record({{"batch", -5}}, good),                                  // 4: dims out of range
         record({{"batch", 0}}, good),                                   // 5
         record({{"batch", 9223372036854775807LL}}, good),               // 6
         record(Json::object(), good),                                   // 7: no dims
         record({{"batch", 8}, {"tokens", 3}}, good)});                  // 8: a dim the workload lacks
  auto read = ReadTuningDbFor(path_, workload, space);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->records.size(), 1u);
  EXPECT_EQ(read->records[0].line, 1u);
  EXPECT_EQ(read->unusable, 7u);
  ASSERT_EQ(read->warnings.size(), 7u);
  EXPECT_NE(read->warnings[0].find(":2: record ignored"), std::string::npos) << read->warnings[0];
  EXPECT_NE(read->warnings[0].find("warp_size"), std::string::npos) << read->warnings[0];
  EXPECT_NE(read->warnings[3].find(":5: record ignored"), std::string::npos) << read->warnings[3];
}

TEST_F(TuningDbTest, ALineLongerThanTheLimitIsSkippedNotHeldAndItsNeighboursSurvive) {
  Write({HandRecord("a", 10)});
  AppendRaw(path_, std::string(kMaxTuningDbLineBytes + 10, ' ') + "\n");
  AppendRaw(path_, std::string(1000, '\0') + "\n");  // NUL bytes: one unparsable line, not a merge of two
  Write({HandRecord("b", 11)});
  auto read = ReadTuningDb(path_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->records.size(), 2u);
  EXPECT_EQ(read->records[1].config, "b");
  EXPECT_EQ(read->records[1].line, 4u);
  EXPECT_EQ(read->skipped_torn, 2u);
  EXPECT_NE(read->warnings[0].find("longer than 1 MiB"), std::string::npos) << read->warnings[0];
}

TEST_F(TuningDbTest, AFileBeyondTheSizeLimitIsRefusedWithoutReadingIt) {
  std::ofstream(path_).close();
  ASSERT_EQ(::truncate(path_.c_str(), static_cast<off_t>(kMaxTuningDbBytes + 1)), 0);  // sparse: no disk used
  auto read = ReadTuningDb(path_);
  ASSERT_FALSE(read.ok());  // was: read whole, every line "torn", exit 0
  EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(read.status().message().find("1 GiB, the limit for a tuning database"), std::string::npos)
      << read.status().message();
}

TEST_F(TuningDbTest, MissingFileIsNotFound) {
  auto db = ReadTuningDb(dir_ + "/no_such.jsonl");
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kNotFound);
  EXPECT_NE(db.status().message().find("no_such.jsonl"), std::string::npos);
}

TEST_F(TuningDbTest, ReadingADirectoryIsAnError) {
  auto db = ReadTuningDb(dir_);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find(dir_), std::string::npos);
}

TEST_F(TuningDbTest, EmptyFileHasNoRecords) {
  AppendRaw(path_, "");
  auto db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_TRUE(db->records.empty());
  EXPECT_EQ(db->skipped_torn, 0u);
}

TEST_F(TuningDbTest, UnknownFieldsAreIgnoredAndKeptInRaw) {
  Json record = HandRecord("a", 10);
  record["added_by_a_later_crmap"] = {{"nested", {1, 2, 3}}};
  record["host"]["numa_nodes"] = 2;
  Write({record});
  auto db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_EQ(db->records.size(), 1u);
  EXPECT_EQ(db->records[0].config, "a");
  EXPECT_EQ(db->records[0].host_cores, 2);
  EXPECT_EQ(db->records[0].raw["added_by_a_later_crmap"]["nested"][2], 3);
}

TEST_F(TuningDbTest, OpenOnADirectoryFailsWithAStatusNamingThePath) {
  auto writer = TuningDbWriter::Open(dir_);
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find(dir_), std::string::npos) << writer.status().message();
}

TEST_F(TuningDbTest, OpenOnAReadOnlyFileFailsWithAStatus) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write to read-only files";
  Write({HandRecord("a", 10)});
  ASSERT_EQ(::chmod(path_.c_str(), 0444), 0);
  auto writer = TuningDbWriter::Open(path_);
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find(path_), std::string::npos) << writer.status().message();
}

TEST_F(TuningDbTest, OpenInAMissingDirectoryIsNotFound) {
  auto writer = TuningDbWriter::Open(dir_ + "/missing/db.jsonl");
  ASSERT_FALSE(writer.ok());
  EXPECT_EQ(writer.status().code(), StatusCode::kNotFound);
  EXPECT_NE(writer.status().message().find("missing/db.jsonl"), std::string::npos);
}

TEST_F(TuningDbTest, AppendRejectsNonObjects) {
  auto writer = TuningDbWriter::Open(path_);
  ASSERT_TRUE(writer.ok());
  EXPECT_FALSE(writer->Append(Json::array({1, 2})).ok());
  EXPECT_EQ(ReadAll(path_), "");
}

TEST_F(TuningDbTest, MovedWriterKeepsAppendingAndTheMovedFromOneFails) {
  auto opened = TuningDbWriter::Open(path_);
  ASSERT_TRUE(opened.ok());
  TuningDbWriter writer = std::move(opened).value();
  EXPECT_EQ(writer.path(), path_);
  ASSERT_TRUE(writer.Append(HandRecord("a", 10)).ok());
  TuningDbWriter other = std::move(writer);
  ASSERT_TRUE(other.Append(HandRecord("b", 11)).ok());
  EXPECT_FALSE(writer.Append(HandRecord("c", 12)).ok());  // NOLINT(bugprone-use-after-move): that is the test
  auto db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db->records.size(), 2u);
}

TEST_F(TuningDbTest, NewFileIsCreatedWithMode0644AndRecordsAreAppendedNotOverwritten) {
  const mode_t old_mask = ::umask(022);
  Write({HandRecord("a", 10)});
  ::umask(old_mask);
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  Write({HandRecord("b", 11)});
  auto db = ReadTuningDb(path_);
  ASSERT_TRUE(db.ok());
  ASSERT_EQ(db->records.size(), 2u);
  EXPECT_EQ(db->records[0].config, "a");
}

}  // namespace
}  // namespace crmap
