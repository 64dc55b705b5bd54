#include "tuner/measurement_record.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "backend/host.h"
#include "datasets/catalog.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

using testing::MustLoad;
using testing::MustConfig;
using testing::MustSpace;

// A measured candidate with recognisable numbers in every field.
CandidateResult MeasuredResult(const SearchSpace& space, const Config& config) {
  CandidateResult r;
  r.label = space.ToString(config);
  r.config = config;
  r.status = CandidateStatus::kOk;
  r.latency = {10.0, 12.0, 14.0, 15.0, 19.0, 12.5, 0.1, 30};
  r.ratio_to_anchor = {0.8, 0.7, 0.9, 30, 0.75, 0.85};
  r.anchor_label = "default";
  r.validated = true;
  r.error = {3e-5, 2e-3, 1e-5, "norm"};
  r.accuracy_budget = 1e-4;
  r.cold_latency = {40.0, 55.0, 70.0, 75.0, 79.0, 57.0, 0.2, 5};
  r.plan.peak_bytes = 123456;
  r.plan.weight_bytes = 100000;
  r.plan.compile_ms = 1.5;
  r.plan.pack_ms = 0.25;
  r.plan.reorders = 2;
  r.plan.kernels = {{"fc1", "matmul", "brg:avx512_core", "src:f32 ab"}, {"act", "eltwise", "jit:avx2", ""}};
  return r;
}

class MeasurementRecordTest : public ::testing::Test {
 protected:
  MeasurementRecordTest() : workload_(MustLoad("bert_ffn")), space_(MustSpace(workload_)) {}
  Workload workload_;
  SearchSpace space_;
  const Dims dims_ = {{"tokens", 128}};
};

TEST_F(MeasurementRecordTest, HasEveryDesignedField) {
  Config config = MustConfig(space_, "weights=packed;threads=1");
  RecordContext context{"random", "campaign-7", 99};
  Json record = MeasurementRecordJson(workload_, space_, dims_, MeasuredResult(space_, config), context);

  EXPECT_EQ(record["version"], kMeasurementRecordVersion);
  EXPECT_EQ(record["workload"], "bert_ffn");
  EXPECT_EQ(record["workload_fingerprint"], workload_.fingerprint());
  EXPECT_EQ(record["space_fingerprint"], space_.fingerprint());
  EXPECT_EQ(record["dims"], Json({{"tokens", 128}}));
  EXPECT_EQ(record["config"], space_.ToString(config));
  EXPECT_EQ(record["config_id"], space_.ToId(config));
  EXPECT_FALSE(record.contains("baseline"));
  EXPECT_EQ(record["status"], "ok");
  EXPECT_FALSE(record.contains("message")) << "no message on success";

  const Json& latency = record["latency_us"];
  EXPECT_DOUBLE_EQ(latency["min"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(latency["median"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(latency["p90"].get<double>(), 14.0);
  EXPECT_DOUBLE_EQ(latency["p95"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(latency["p99"].get<double>(), 19.0);
  EXPECT_DOUBLE_EQ(latency["mean"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(latency["cv"].get<double>(), 0.1);
  EXPECT_EQ(latency["rounds"], 30);

  const Json& ratio = record["ratio_to_anchor"];
  EXPECT_DOUBLE_EQ(ratio["median"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(ratio["p10"].get<double>(), 0.7);
  EXPECT_DOUBLE_EQ(ratio["p90"].get<double>(), 0.9);
  EXPECT_EQ(ratio["anchor"], "default");
  EXPECT_DOUBLE_EQ(ratio["median_low"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(ratio["median_high"].get<double>(), 0.85);
  EXPECT_FALSE(ratio.contains("latency_p95")) << "30 rounds are no evidence of a p95";

  EXPECT_EQ(record["peak_bytes"], 123456);
  EXPECT_EQ(record["weight_bytes"], 100000);
  EXPECT_DOUBLE_EQ(record["compile_ms"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(record["pack_ms"].get<double>(), 0.25);
  EXPECT_EQ(record["reorders"], 2);
  EXPECT_DOUBLE_EQ(record["max_error"].get<double>(), 3e-5);
  EXPECT_DOUBLE_EQ(record["max_rel_error"].get<double>(), 2e-3);
  EXPECT_DOUBLE_EQ(record["scaled_error"].get<double>(), 1e-5);
  EXPECT_DOUBLE_EQ(record["accuracy_budget"].get<double>(), 1e-4);
  EXPECT_DOUBLE_EQ(record["cold_latency_us"]["median"].get<double>(), 55.0);
  EXPECT_DOUBLE_EQ(record["cold_latency_us"]["p95"].get<double>(), 75.0);
  EXPECT_EQ(record["cold_latency_us"]["samples"], 5);
  ASSERT_EQ(record["kernels"].size(), 2u);
  EXPECT_EQ(record["kernels"][0],
            Json({{"step", "fc1"}, {"kind", "matmul"}, {"impl", "brg:avx512_core"}, {"detail", "src:f32 ab"}}));
  EXPECT_EQ(record["kernels"][1]["impl"], "jit:avx2");

  const HostInfo& host = DetectHost();
  EXPECT_EQ(record["host"]["cpu"], host.cpu);
  EXPECT_EQ(record["host"]["isa"], host.isa);
  EXPECT_EQ(record["host"]["cores"], host.cores);
  EXPECT_EQ(record["host"]["onednn"], host.onednn_version);
  EXPECT_GE(host.cores, 1);

  EXPECT_EQ(record["agent"], "random");
  EXPECT_EQ(record["campaign"], "campaign-7");
  EXPECT_EQ(record["seed"], 99u);
  ASSERT_TRUE(record["time"].is_string());
  EXPECT_TRUE(
      std::regex_match(record["time"].get<std::string>(), std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)")))
      << record["time"];
}

TEST_F(MeasurementRecordTest, ConfigIdRoundTripsThroughTheSpace) {
  Config config = MustConfig(space_, "fuse.fc1=bias+gelu_erf;precision=bf16;batch=16");
  Json record = MeasurementRecordJson(workload_, space_, dims_, MeasuredResult(space_, config), RecordContext{});
  auto back = space_.FromId(record["config_id"].get<uint64_t>());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, config);
  auto parsed = space_.Parse(record["config"].get<std::string>());
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, config);
}

TEST_F(MeasurementRecordTest, DefaultContext) {
  Json record =
      MeasurementRecordJson(workload_, space_, dims_, MeasuredResult(space_, space_.Default()), RecordContext{});
  EXPECT_EQ(record["agent"], "manual");
  EXPECT_EQ(record["campaign"], "");
  EXPECT_EQ(record["seed"], 0u);
}

TEST_F(MeasurementRecordTest, FailedCandidateCarriesStatusAndMessageButNoLatency) {
  CandidateResult r;
  r.label = space_.ToString(space_.Default());
  r.config = space_.Default();
  r.status = CandidateStatus::kUnsupported;
  r.message = "no bf16 kernel on avx2";
  Json record = MeasurementRecordJson(workload_, space_, dims_, r, RecordContext{});
  EXPECT_EQ(record["status"], "unsupported");
  EXPECT_EQ(record["message"], "no bf16 kernel on avx2");
  EXPECT_FALSE(record.contains("latency_us"));
  EXPECT_FALSE(record.contains("ratio_to_anchor"));
  EXPECT_EQ(record["config_id"], space_.ToId(space_.Default()));
  EXPECT_TRUE(record["kernels"].is_array());
  EXPECT_TRUE(record["kernels"].empty());
}

TEST_F(MeasurementRecordTest, StatusNames) {
  const std::pair<CandidateStatus, const char*> cases[] = {
      {CandidateStatus::kOk, "ok"},
      {CandidateStatus::kUnsupported, "unsupported"},
      {CandidateStatus::kWrongAnswer, "wrong_answer"},
      {CandidateStatus::kOverMemory, "over_memory"},
      {CandidateStatus::kTimeout, "timeout"},
      {CandidateStatus::kError, "error"},
  };
  for (const auto& [status, name] : cases) {
    CandidateResult r = MeasuredResult(space_, space_.Default());
    r.status = status;
    EXPECT_EQ(MeasurementRecordJson(workload_, space_, dims_, r, RecordContext{})["status"], name);
  }
}

TEST_F(MeasurementRecordTest, BaselineRowsAreMarkedAndHaveNoConfigId) {
  CandidateResult r;
  r.label = "libtorch[mkldnn,openblas=Haswell]";
  r.is_baseline = true;
  r.peer = PeerBaseline{TorchPath::kMkldnn, "Haswell"};
  r.latency = {20, 21, 22, 23, 24, 21.5, 0.05, 30};
  r.ratio_to_anchor = {1.7, 1.6, 1.8, 30};
  r.validated = true;
  Json record = MeasurementRecordJson(workload_, space_, dims_, r, RecordContext{});
  EXPECT_EQ(record["peer"], Json({{"path", "mkldnn"}, {"openblas_core", "Haswell"}, {"process", "child"}}));
  r.validated = false;  // --no-validate: a peer other than the reference is not validated either
  EXPECT_FALSE(MeasurementRecordJson(workload_, space_, dims_, r, RecordContext{}).contains("scaled_error"));
  EXPECT_EQ(record["baseline"], true);
  EXPECT_EQ(record["config"], "libtorch[mkldnn,openblas=Haswell]");
  EXPECT_FALSE(record.contains("config_id"));
  EXPECT_FALSE(record.contains("peak_bytes"));
  EXPECT_FALSE(record.contains("kernels"));
  EXPECT_EQ(record["status"], "ok");
  EXPECT_DOUBLE_EQ(record["latency_us"]["median"].get<double>(), 21.0);
  EXPECT_TRUE(record.contains("host"));
  EXPECT_TRUE(record.contains("max_error"));
  EXPECT_EQ(record["workload_fingerprint"], workload_.fingerprint());
}

TEST_F(MeasurementRecordTest, UnvalidatedResultsCarryNoErrorAndSayWhy) {
  CandidateResult r = MeasuredResult(space_, space_.Default());
  r.validated = false;
  RecordContext context;
  context.data_seed = 42;
  Json record = MeasurementRecordJson(workload_, space_, dims_, r, context);
  EXPECT_EQ(record["validated"], false);
  EXPECT_FALSE(record.contains("max_error"));  // 0 would read as "exact"
  EXPECT_FALSE(record.contains("scaled_error"));
  EXPECT_EQ(record["data_seed"], 42);
  r.validated = true;
  EXPECT_EQ(MeasurementRecordJson(workload_, space_, dims_, r, context)["validated"], true);
}

TEST_F(MeasurementRecordTest, ShortConfigLabel) {
  EXPECT_EQ(ShortConfigLabel(space_, space_.Default()), "default");
  // Listed in knob order, whatever the order they were given in.
  EXPECT_EQ(ShortConfigLabel(space_, MustConfig(space_, "threads=1;weights=packed")), "weights=packed;threads=1");
  EXPECT_EQ(ShortConfigLabel(space_, MustConfig(space_, "batch=16;fuse.fc2=bias+add")),
            "fuse.fc2=bias+add;batch=16");
  // Naming a knob at its default value does not make it appear.
  EXPECT_EQ(ShortConfigLabel(space_, MustConfig(space_, "precision=f32;threads=2")), "default");
}

TEST(UtcTimestampTest, Format) {
  EXPECT_TRUE(std::regex_match(UtcTimestamp(), std::regex(R"(20\d{2}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-6]\dZ)")))
      << UtcTimestamp();
}

// A tail ratio is written only when the rounds can support it: p95 from 100 rounds, p99 from 500.
TEST_F(MeasurementRecordTest, TailRatiosAreStoredWithTheRoundsTheyNeed) {
  CandidateResult r = MeasuredResult(space_, space_.Default());
  r.p95_ratio_to_anchor = 0.5;
  r.p99_ratio_to_anchor = 0.25;
  for (int rounds : {99, 100, 499, 500}) {
    r.latency.rounds = rounds;
    const Json ratio = MeasurementRecordJson(workload_, space_, dims_, r, {})["ratio_to_anchor"];
    EXPECT_EQ(ratio.contains("latency_p95"), rounds >= 100) << rounds;
    EXPECT_EQ(ratio.contains("latency_p99"), rounds >= 500) << rounds;
    if (rounds == 500) {
      EXPECT_DOUBLE_EQ(ratio["latency_p95"].get<double>(), 0.5);
      EXPECT_DOUBLE_EQ(ratio["latency_p99"].get<double>(), 0.25);
    }
  }
}

// The median's interval is written only when the rounds gave one (below 6 rounds both ends are 0: unknown).
TEST_F(MeasurementRecordTest, TheMediansIntervalIsStoredOnlyWhenKnown) {
  CandidateResult r = MeasuredResult(space_, space_.Default());
  r.ratio_to_anchor = {0.8, 0.7, 0.9, 5};
  const Json ratio = MeasurementRecordJson(workload_, space_, dims_, r, {})["ratio_to_anchor"];
  EXPECT_DOUBLE_EQ(ratio["median"].get<double>(), 0.8);
  EXPECT_FALSE(ratio.contains("median_low"));
  EXPECT_FALSE(ratio.contains("median_high"));
}

}  // namespace
}  // namespace crmap
