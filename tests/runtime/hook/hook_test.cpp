// The runtime hook's C API (through crmap_hook.hpp where it suffices), against synthetic policy files whose
// answers the test computes up front with PolicyModel.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/runtime/hook/policy_test_support.h"
#include "runtime/hook/crmap_hook.hpp"
#include "runtime/hook/policy_model.h"

namespace crmap {
namespace {

using testing::MakeSyntheticPolicy;
using testing::SyntheticPolicyOptions;
using testing::TestWorkload;
using testing::WithValidChecksum;
using testing::WriteBytes;
using testing::WriteTestPolicy;

constexpr const char* kFallback =
    "fuse.fc1=bias;fuse.fc2=bias;fuse.head=bias;weights=packed;precision=f32;threads=2;"
    "batch=1;queue_delay_us=0;placement=shared";

// What a policy answers for some dims: config string, source and predicted latency.
struct Answer {
  std::string config;
  int32_t source = -1;
  double predicted_us = 0;
};

Answer Expected(const PolicyModel& model, const std::vector<int64_t>& dims) {
  Answer answer;
  std::vector<uint32_t> config(model.knob_count());
  long entry = model.FindTableEntry(dims.data());
  if (entry >= 0) {
    const TableEntry& e = model.file().table[static_cast<size_t>(entry)];
    config = e.config;
    answer.source = CRMAP_SOURCE_TABLE;
    answer.predicted_us = e.median_us;
  } else {
    model.Decide(dims.data(), config.data());
    answer.source = CRMAP_SOURCE_POLICY;
    answer.predicted_us = model.PredictLatencyUs(dims.data(), config.data());
  }
  model.SetRuntimeKnobs(config.data());
  answer.config = PolicyConfigString(model.file().knobs, config);
  return answer;
}

crmap_metrics Metrics(const Hook& hook) {
  crmap_metrics m;
  std::memset(&m, 0xAB, sizeof m);
  EXPECT_EQ(hook.Metrics(&m), CRMAP_OK);
  return m;
}

class HookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SyntheticPolicyOptions a;
    a.seed = 1;
    policy_a_ = MakeSyntheticPolicy(a);
    SyntheticPolicyOptions b = a;
    b.seed = 2;  // same table shapes, other configs and weights
    policy_b_ = MakeSyntheticPolicy(b);
    SyntheticPolicyOptions c;
    c.workload = TestWorkload::kBertFfn;
    path_a_ = WriteTestPolicy("hook_a.policy", policy_a_);
    path_b_ = WriteTestPolicy("hook_b.policy", policy_b_);
    path_other_workload_ = WriteTestPolicy("hook_bert_ffn.policy", MakeSyntheticPolicy(c));
    model_a_ = std::move(PolicyModel::Create(policy_a_)).value();
    model_b_ = std::move(PolicyModel::Create(policy_b_)).value();
    ASSERT_FALSE(path_a_.empty());

    std::string bytes = EncodePolicyFile(policy_a_);
    std::string unreadable = bytes, magic = bytes, flipped = bytes;
    const uint32_t next_version = kPolicyFormatVersion + 1;
    std::memcpy(&unreadable[8], &next_version, 4);
    magic[0] = 'X';
    flipped[bytes.size() / 2] ^= 0x10;
    PolicyFile nan = policy_a_;
    nan.policy.trunk2.weights[0] = std::nanf("");
    bad_files_ = {
        {"truncated", bytes.substr(0, bytes.size() / 3), CRMAP_ERR_CORRUPTION, "truncated", ""},
        {"empty", "", CRMAP_ERR_CORRUPTION, "truncated", ""},
        {"magic", magic, CRMAP_ERR_CORRUPTION, "wrong magic", ""},
        {"version", WithValidChecksum(unreadable), CRMAP_ERR_VERSION, "version " + std::to_string(next_version), ""},
        {"checksum", flipped, CRMAP_ERR_CORRUPTION, "checksum mismatch", ""},
        {"nan", EncodePolicyFile(nan), CRMAP_ERR_CORRUPTION, "NaN", ""},
    };
    for (BadFile& bad : bad_files_) {
      bad.path = testing::TestTempPath("hook_bad_" + bad.name + ".policy");
      ASSERT_TRUE(WriteBytes(bad.path, bad.bytes));
    }
  }

  struct BadFile {
    std::string name, bytes;
    crmap_status status;
    std::string needle;
    std::string path;
  };

  PolicyFile policy_a_, policy_b_;
  std::string path_a_, path_b_, path_other_workload_;
  std::unique_ptr<PolicyModel> model_a_, model_b_;
  std::vector<BadFile> bad_files_;
};

TEST_F(HookTest, StatusNamesAreDistinct) {
  std::set<std::string> names;
  for (int s = CRMAP_OK; s <= CRMAP_ERR_HOST; ++s) names.insert(crmap_status_name(static_cast<crmap_status>(s)));
  EXPECT_EQ(names.size(), 8u);
  EXPECT_STREQ(crmap_status_name(CRMAP_ERR_VERSION), "unsupported version");
}

TEST_F(HookTest, OpenDecideObserveMetricsClose) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK) << Hook::LastError();
  EXPECT_EQ(hook.DimNames(), std::vector<std::string>{"batch"});
  EXPECT_EQ(crmap_hook_dim_name(hook.get(), 1), nullptr);

  crmap_metrics m = Metrics(hook);
  EXPECT_EQ(m.decisions, 0u);
  EXPECT_EQ(m.policy_generation, 1u);
  EXPECT_EQ(m.reloads, 0u);

  // A tuned shape: the table's config and its measured median.
  const TableEntry& tuned = policy_a_.table[1];
  crmap_decision d;
  ASSERT_EQ(hook.Decide(tuned.dims, &d), CRMAP_OK) << Hook::LastError();
  EXPECT_EQ(d.source, CRMAP_SOURCE_TABLE);
  EXPECT_EQ(std::string(d.config), PolicyConfigString(policy_a_.knobs, tuned.config));
  EXPECT_EQ(d.knob_count, static_cast<int32_t>(policy_a_.knobs.size()));
  for (size_t k = 0; k < policy_a_.knobs.size(); ++k) EXPECT_EQ(d.values[k], static_cast<int32_t>(tuned.config[k]));
  EXPECT_DOUBLE_EQ(d.predicted_latency_us, tuned.median_us);
  EXPECT_EQ(d.propensity, 1.0);
  ASSERT_FALSE(policy_a_.critic_members.empty());
  EXPECT_EQ(d.confidence, static_cast<double>(tuned.confidence));  // as stored with the entry
  const uint64_t table_id = d.decision_id;

  // An unseen shape: the policy network, then the per-shape cache.
  const std::vector<int64_t> unseen = {100};
  Answer expected = Expected(*model_a_, unseen);
  ASSERT_EQ(expected.source, CRMAP_SOURCE_POLICY);
  ASSERT_EQ(hook.Decide(unseen, &d), CRMAP_OK);
  EXPECT_EQ(d.source, CRMAP_SOURCE_POLICY);
  EXPECT_EQ(std::string(d.config), expected.config);
  EXPECT_NEAR(d.predicted_latency_us, expected.predicted_us, expected.predicted_us * 1e-6);
  std::vector<uint32_t> values(d.values, d.values + d.knob_count);
  const double confidence = model_a_->ConfidenceOf(unseen.data(), values.data());
  EXPECT_GE(confidence, 0.0);
  EXPECT_EQ(d.confidence, confidence);
  EXPECT_NE(d.decision_id, table_id);
  m = Metrics(hook);
  EXPECT_EQ(m.decisions, 2u);
  EXPECT_EQ(m.by_source[CRMAP_SOURCE_TABLE], 1u);
  EXPECT_EQ(m.by_source[CRMAP_SOURCE_POLICY], 1u);
  EXPECT_EQ(m.network_evaluations, 1u);
  EXPECT_EQ(m.cache_hits, 0u);

  crmap_decision again;
  ASSERT_EQ(hook.Decide(unseen, &again), CRMAP_OK);
  EXPECT_EQ(std::string(again.config), expected.config);
  EXPECT_EQ(again.source, CRMAP_SOURCE_POLICY);
  EXPECT_EQ(again.predicted_latency_us, d.predicted_latency_us);
  EXPECT_EQ(again.confidence, d.confidence);  // the cache keeps it with the answer
  m = Metrics(hook);
  EXPECT_EQ(m.cache_hits, 1u);
  EXPECT_EQ(m.network_evaluations, 1u);
  EXPECT_EQ(m.out_of_range, 0u);

  // Observe: a latency twice the prediction is a log error of log 2.
  ASSERT_EQ(hook.Observe(d.decision_id, 2 * d.predicted_latency_us, 10), CRMAP_OK) << Hook::LastError();
  m = Metrics(hook);
  EXPECT_EQ(m.observations, 1u);
  EXPECT_NEAR(m.mean_abs_log_error, std::log(2.0), 1e-9);
  EXPECT_NEAR(m.mean_latency_us, 2 * d.predicted_latency_us, 1e-9);
  EXPECT_NEAR(m.mean_queue_wait_us, 10, 1e-12);
  ASSERT_EQ(hook.Observe(table_id, tuned.median_us / 2, 30), CRMAP_OK);
  m = Metrics(hook);
  EXPECT_EQ(m.observations, 2u);
  EXPECT_NEAR(m.mean_abs_log_error, std::log(2.0), 1e-6);
  EXPECT_NEAR(m.mean_queue_wait_us, 20, 1e-12);

  // Unknown ids and bad numbers are refused and counted, and change nothing else.
  EXPECT_EQ(hook.Observe(again.decision_id + 1000, 5, 0), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(Hook::LastError().find("unknown"), std::string::npos) << Hook::LastError();
  EXPECT_EQ(hook.Observe(0, 5, 0), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hook.Observe(d.decision_id, -1, 0), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hook.Observe(d.decision_id, std::nan(""), 0), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hook.Observe(d.decision_id, 5, std::numeric_limits<double>::infinity()), CRMAP_ERR_INVALID_ARGUMENT);
  m = Metrics(hook);
  EXPECT_EQ(m.observations, 2u);
  EXPECT_EQ(m.unknown_observations, 2u);
  EXPECT_EQ(m.decisions, 3u);
  EXPECT_EQ(m.policy_generation, 1u);
}

TEST_F(HookTest, CachedAnswersEqualTheNetworksAtEveryShape) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK);
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<int64_t> batch(1, 2048);
  std::set<int64_t> seen;
  uint64_t table_draws = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<int64_t> dims = {batch(rng)};
    Answer expected = Expected(*model_a_, dims);
    if (expected.source == CRMAP_SOURCE_TABLE)
      ++table_draws;
    else
      seen.insert(dims[0]);
    for (int repeat = 0; repeat < 2; ++repeat) {
      crmap_decision d;
      ASSERT_EQ(hook.Decide(dims, &d), CRMAP_OK);
      ASSERT_EQ(std::string(d.config), expected.config) << "batch=" << dims[0] << " repeat " << repeat;
      EXPECT_EQ(d.source, expected.source);
    }
  }
  crmap_metrics m = Metrics(hook);
  EXPECT_EQ(m.decisions, 600u);
  EXPECT_EQ(m.cache_hits + m.network_evaluations + m.by_source[CRMAP_SOURCE_TABLE], 600u);
  EXPECT_EQ(m.by_source[CRMAP_SOURCE_TABLE], 2 * table_draws);
  EXPECT_GE(m.cache_hits, 300 - table_draws) << "the repeat right after a network answer must hit the cache";
  EXPECT_LE(m.network_evaluations, seen.size());
  EXPECT_GE(m.network_evaluations, 1u);
}

TEST_F(HookTest, DecideRefusesBadArguments) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK);
  crmap_decision d;
  EXPECT_EQ(hook.Decide({}, &d), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hook.Decide({32, 4}, &d), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(Hook::LastError().find("2 dims given, the policy has 1"), std::string::npos) << Hook::LastError();
  EXPECT_EQ(hook.Decide({0}, &d), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(Hook::LastError().find("dim 'batch' = 0"), std::string::npos) << Hook::LastError();
  EXPECT_EQ(hook.Decide({-7}, &d), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hook.Decide({32}, nullptr), CRMAP_ERR_INVALID_ARGUMENT);
  int64_t one = 1;
  EXPECT_EQ(crmap_hook_decide(nullptr, &one, 1, nullptr, &d), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(crmap_hook_decide(hook.get(), nullptr, 1, nullptr, &d), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(crmap_hook_observe(nullptr, 1, 1, 1), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(crmap_hook_metrics(nullptr, nullptr), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(crmap_hook_metrics(hook.get(), nullptr), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(crmap_hook_reload(hook.get(), nullptr), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(crmap_hook_open(path_a_.c_str(), nullptr, nullptr), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(crmap_hook_dim_count(nullptr), 0u);
  crmap_hook_close(nullptr);
  crmap_metrics m = Metrics(hook);
  EXPECT_EQ(m.decisions, 0u);
  // Telemetry is accepted (and does not change the answer).
  crmap_telemetry telemetry{3, 1500};
  crmap_decision with, without;
  ASSERT_EQ(hook.Decide({77}, &with, &telemetry), CRMAP_OK);
  ASSERT_EQ(hook.Decide({77}, &without), CRMAP_OK);
  EXPECT_STREQ(with.config, without.config);
}

TEST_F(HookTest, OutOfRangeDimsAreAnsweredAndCounted) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK);
  crmap_decision d;
  for (int64_t batch : {int64_t{2049}, int64_t{100000}, int64_t{1} << 40}) {
    ASSERT_EQ(hook.Decide({batch}, &d), CRMAP_OK) << batch;
    EXPECT_EQ(d.source, CRMAP_SOURCE_POLICY);
    EXPECT_EQ(std::string(d.config), Expected(*model_a_, {batch}).config);
    EXPECT_TRUE(std::isfinite(d.predicted_latency_us) && d.predicted_latency_us > 0) << d.predicted_latency_us;
  }
  ASSERT_EQ(hook.Decide({2048}, &d), CRMAP_OK);
  ASSERT_EQ(hook.Decide({1}, &d), CRMAP_OK);
  crmap_metrics m = Metrics(hook);
  EXPECT_EQ(m.out_of_range, 3u);
  EXPECT_EQ(m.decisions, 5u);
}

// Beyond its range a dim is answered as the nearest dim inside it: the same config and the same predicted
// latency as at the range's end (a dim of 2^62 was predicted to take 10^14 us).
TEST_F(HookTest, OutOfRangeDimsAreAnsweredAsTheNearestInRangeDims) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK);
  crmap_decision at_max, beyond;
  ASSERT_EQ(hook.Decide({2048}, &at_max), CRMAP_OK);
  ASSERT_EQ(at_max.source, CRMAP_SOURCE_POLICY);
  for (int64_t batch : {int64_t{2049}, int64_t{1} << 40, INT64_MAX}) {
    ASSERT_EQ(hook.Decide({batch}, &beyond), CRMAP_OK) << batch;
    EXPECT_STREQ(beyond.config, at_max.config) << batch;
    EXPECT_DOUBLE_EQ(beyond.predicted_latency_us, at_max.predicted_latency_us) << batch;
  }
}

TEST_F(HookTest, AFallbackConfigThatIsNotKnobValueOrNotThePolicysIsRefused) {
  for (const char* garbage : {"fallback", "", ";", "threads=", "=2", "threads=2;;batch=1", "threads=2\n", "a b=c"}) {
    crmap_open_options options{};
    options.fallback_config = garbage;
    crmap_hook* hook = nullptr;
    EXPECT_EQ(crmap_hook_open(bad_files_[0].path.c_str(), &options, &hook), CRMAP_ERR_INVALID_ARGUMENT) << garbage;
    EXPECT_EQ(hook, nullptr) << garbage;
    EXPECT_NE(std::string(crmap_hook_last_error()).find("fallback config"), std::string::npos);
  }
  for (const char* foreign : {"warp_size=64", "threads=3000"}) {  // well-formed, but not this policy's
    Hook hook;
    EXPECT_EQ(hook.Open(path_a_, "", foreign), CRMAP_ERR_INVALID_ARGUMENT) << foreign;
    EXPECT_FALSE(hook.is_open());
    EXPECT_NE(std::string(Hook::LastError()).find("does not fit the policy"), std::string::npos) << Hook::LastError();
  }
  Hook fits;
  EXPECT_EQ(fits.Open(path_a_, "", kFallback), CRMAP_OK) << Hook::LastError();
}

TEST_F(HookTest, EveryBadFileAtOpenGivesItsStatus) {
  std::vector<BadFile> cases = bad_files_;
  cases.push_back({"missing", "", CRMAP_ERR_NOT_FOUND, "no such policy file", testing::TestTempPath("nope.policy")});
  for (const BadFile& bad : cases) {
    crmap_hook* hook = reinterpret_cast<crmap_hook*>(uintptr_t{0x1234});  // open must set it to NULL
    EXPECT_EQ(crmap_hook_open(bad.path.c_str(), nullptr, &hook), bad.status) << bad.name;
    EXPECT_EQ(hook, nullptr) << bad.name;
    std::string error = crmap_hook_last_error();
    EXPECT_NE(error.find(bad.needle), std::string::npos) << bad.name << ": '" << error << "'";
    EXPECT_NE(error.find(bad.path), std::string::npos) << bad.name << ": the message should name the file";
  }
}

TEST_F(HookTest, EveryBadFileWithAFallbackGivesAFallbackHook) {
  std::vector<BadFile> cases = bad_files_;
  cases.push_back({"missing", "", CRMAP_ERR_NOT_FOUND, "no such policy file", testing::TestTempPath("nope.policy")});
  for (const BadFile& bad : cases) {
    Hook hook;
    EXPECT_EQ(hook.Open(bad.path, "", kFallback), bad.status) << bad.name;
    ASSERT_TRUE(hook.is_open()) << bad.name;
    EXPECT_EQ(crmap_hook_dim_count(hook.get()), 0u);
    for (std::vector<int64_t> dims : {std::vector<int64_t>{32}, std::vector<int64_t>{}, std::vector<int64_t>{4, 8}}) {
      crmap_decision d;
      ASSERT_EQ(hook.Decide(dims, &d), CRMAP_OK) << bad.name;
      EXPECT_STREQ(d.config, kFallback);
      EXPECT_EQ(d.source, CRMAP_SOURCE_FALLBACK);
      EXPECT_EQ(d.knob_count, 0);
      EXPECT_EQ(d.confidence, -1.0);  // unknown
      EXPECT_EQ(d.predicted_latency_us, 0);
      EXPECT_NE(d.decision_id, 0u);
    }
    crmap_metrics m = Metrics(hook);
    EXPECT_EQ(m.decisions, 3u);
    EXPECT_EQ(m.by_source[CRMAP_SOURCE_FALLBACK], 3u);
    EXPECT_EQ(m.policy_generation, 0u);
  }
}

TEST_F(HookTest, WorkloadAndSpaceMismatchAtOpen) {
  crmap_open_options options{};
  crmap_hook* hook = nullptr;
  options.expected_workload = "bert_ffn";
  EXPECT_EQ(crmap_hook_open(path_a_.c_str(), &options, &hook), CRMAP_ERR_MISMATCH);
  EXPECT_EQ(hook, nullptr);
  EXPECT_NE(std::string(crmap_hook_last_error()).find("policy for workload 'dlrm_mlp', expected 'bert_ffn'"),
            std::string::npos)
      << crmap_hook_last_error();

  options.expected_workload = "dlrm_mlp";
  options.expected_space_fingerprint = "0123456789abcdef";
  EXPECT_EQ(crmap_hook_open(path_a_.c_str(), &options, &hook), CRMAP_ERR_MISMATCH);
  EXPECT_EQ(hook, nullptr);
  EXPECT_NE(std::string(crmap_hook_last_error()).find("0123456789abcdef"), std::string::npos);

  options.fallback_config = kFallback;
  EXPECT_EQ(crmap_hook_open(path_a_.c_str(), &options, &hook), CRMAP_ERR_MISMATCH);
  ASSERT_NE(hook, nullptr);
  crmap_decision d;
  int64_t batch = 32;
  ASSERT_EQ(crmap_hook_decide(hook, &batch, 1, nullptr, &d), CRMAP_OK);
  EXPECT_EQ(d.source, CRMAP_SOURCE_FALLBACK);
  EXPECT_STREQ(d.config, kFallback);
  crmap_hook_close(hook);

  options.expected_space_fingerprint = policy_a_.space_fingerprint.c_str();
  hook = nullptr;
  ASSERT_EQ(crmap_hook_open(path_a_.c_str(), &options, &hook), CRMAP_OK) << crmap_hook_last_error();
  ASSERT_EQ(crmap_hook_decide(hook, &batch, 1, nullptr, &d), CRMAP_OK);
  EXPECT_EQ(d.source, CRMAP_SOURCE_TABLE);
  crmap_hook_close(hook);

  Hook wrapped;
  EXPECT_EQ(wrapped.Open(path_a_, "resnet_stem"), CRMAP_ERR_MISMATCH);
  EXPECT_FALSE(wrapped.is_open());
}

// A policy records the CPU ISA it was tuned on; another host's policy is refused unless the caller says so.
TEST_F(HookTest, APolicyTunedOnAnotherIsaIsRefusedUnlessAllowed) {
  PolicyFile foreign = policy_a_;
  foreign.host.isa = HostIsa() == "avx2" ? "avx512_core_bf16" : "avx2";
  foreign.host.cpu = "Another CPU";
  const std::string path = WriteTestPolicy("hook_foreign_isa.policy", foreign);
  Hook hook;
  EXPECT_EQ(hook.Open(path), CRMAP_ERR_HOST);
  EXPECT_FALSE(hook.is_open());
  const std::string message = Hook::LastError();
  EXPECT_NE(message.find("CPU ISA '" + foreign.host.isa + "' (Another CPU); this host is '" + HostIsa() + "'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("allow_other_isa"), std::string::npos) << message;

  ASSERT_EQ(hook.Open(path, "", "", /*allow_other_isa=*/true), CRMAP_OK) << Hook::LastError();
  crmap_decision d;
  ASSERT_EQ(hook.Decide({32}, &d), CRMAP_OK);

  // Reloads keep the rule the hook was opened with.
  Hook strict;
  ASSERT_EQ(strict.Open(path_a_), CRMAP_OK);
  EXPECT_EQ(strict.Reload(path), CRMAP_ERR_HOST);
  crmap_metrics metrics;
  strict.Metrics(&metrics);
  EXPECT_EQ(metrics.reloads, 0u);

  PolicyFile unrecorded = policy_a_;
  unrecorded.host.isa.clear();
  EXPECT_EQ(hook.Open(WriteTestPolicy("hook_unrecorded_isa.policy", unrecorded)), CRMAP_ERR_HOST);
  EXPECT_NE(Hook::LastError().find("'unrecorded'"), std::string::npos) << Hook::LastError();
}

TEST_F(HookTest, ReloadSwapsPolicyAndFailuresKeepTheOldOne) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK);
  std::vector<std::vector<int64_t>> probes = {{1}, {5}, {32}, {100}, {700}, {2048}};
  auto expect_answers = [&](const PolicyModel& model, const std::string& when) {
    for (const auto& dims : probes) {
      crmap_decision d;
      ASSERT_EQ(hook.Decide(dims, &d), CRMAP_OK);
      Answer expected = Expected(model, dims);
      EXPECT_EQ(std::string(d.config), expected.config) << when << ", batch=" << dims[0];
      EXPECT_EQ(d.source, expected.source) << when;
    }
  };
  expect_answers(*model_a_, "before reload");
  size_t differ = 0;
  for (const auto& dims : probes) differ += Expected(*model_a_, dims).config != Expected(*model_b_, dims).config;
  ASSERT_GE(differ, 3u) << "policies A and B must disagree for the reload checks to mean something";

  ASSERT_EQ(hook.Reload(path_b_), CRMAP_OK) << Hook::LastError();
  crmap_metrics m = Metrics(hook);
  EXPECT_EQ(m.policy_generation, 2u);
  EXPECT_EQ(m.reloads, 1u);
  expect_answers(*model_b_, "after reload to B");

  for (const BadFile& bad : bad_files_) {
    EXPECT_EQ(hook.Reload(bad.path), bad.status) << bad.name;
    EXPECT_NE(Hook::LastError().find(bad.needle), std::string::npos) << bad.name << ": " << Hook::LastError();
  }
  EXPECT_EQ(hook.Reload(testing::TestTempPath("nope.policy")), CRMAP_ERR_NOT_FOUND);
  EXPECT_EQ(hook.Reload(path_other_workload_), CRMAP_ERR_MISMATCH);
  EXPECT_NE(Hook::LastError().find("bert_ffn"), std::string::npos) << Hook::LastError();
  m = Metrics(hook);
  EXPECT_EQ(m.policy_generation, 2u);
  EXPECT_EQ(m.reloads, 1u);
  expect_answers(*model_b_, "after failed reloads");

  ASSERT_EQ(hook.Reload(path_a_), CRMAP_OK);
  EXPECT_EQ(Metrics(hook).policy_generation, 3u);
  expect_answers(*model_a_, "after reload back to A");
}

// A reload never changes workloads, even when the open options named none.
TEST_F(HookTest, ReloadNeverChangesWorkloads) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_other_workload_), CRMAP_OK);
  EXPECT_EQ(hook.Reload(path_a_), CRMAP_ERR_MISMATCH);
  EXPECT_EQ(hook.DimNames(), std::vector<std::string>{"tokens"});
}

TEST_F(HookTest, FallbackHookCanReloadARealPolicy) {
  Hook hook;
  ASSERT_EQ(hook.Open(bad_files_[0].path, "dlrm_mlp", kFallback), CRMAP_ERR_CORRUPTION);
  ASSERT_TRUE(hook.is_open());
  EXPECT_EQ(hook.Reload(path_other_workload_), CRMAP_ERR_MISMATCH);  // expected_workload still applies
  ASSERT_EQ(hook.Reload(path_a_), CRMAP_OK) << Hook::LastError();
  EXPECT_EQ(hook.DimNames(), std::vector<std::string>{"batch"});
  crmap_decision d;
  ASSERT_EQ(hook.Decide({100}, &d), CRMAP_OK);
  EXPECT_EQ(d.source, CRMAP_SOURCE_POLICY);
  EXPECT_EQ(std::string(d.config), Expected(*model_a_, {100}).config);
  EXPECT_EQ(Metrics(hook).policy_generation, 1u);
}

// The observe window holds the last 65,536 decisions: an observation that comes later is lost, said so in the
// message and counted apart from caller errors (it used to be 8,192 and mixed into unknown_observations).
TEST_F(HookTest, ObservationsOlderThanTheWindowExpireAndAreCountedApart) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK);
  crmap_decision first, second, d;
  ASSERT_EQ(hook.Decide({32}, &first), CRMAP_OK);
  ASSERT_EQ(hook.Decide({32}, &second), CRMAP_OK);
  for (int i = 0; i < 65535; ++i) ASSERT_EQ(hook.Decide({1 + i % 2048}, &d), CRMAP_OK);
  EXPECT_EQ(hook.Observe(second.decision_id, 10, 0), CRMAP_OK);  // still inside the window
  EXPECT_EQ(hook.Observe(first.decision_id, 10, 0), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(Hook::LastError()).find("expired"), std::string::npos) << Hook::LastError();
  EXPECT_EQ(hook.Observe(d.decision_id, 10, 0), CRMAP_OK);
  EXPECT_EQ(hook.Observe(d.decision_id + 1000, 10, 0), CRMAP_ERR_INVALID_ARGUMENT);  // never issued
  crmap_metrics m = Metrics(hook);
  EXPECT_EQ(m.observations, 2u);
  EXPECT_EQ(m.expired_observations, 1u);
  EXPECT_EQ(m.unknown_observations, 1u);
}

// Defined by the allocation-counting operator new in policy_file_test.cpp (same executable).
}  // namespace
}  // namespace crmap
extern std::atomic<size_t> g_allocation_count;
namespace crmap {
namespace {

// decide allocates nothing, whichever way it answers (table, cache, network); the library's calls to operator
// new bind to this executable's counting one.
TEST_F(HookTest, DecideAllocatesNothing) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK) << Hook::LastError();
  crmap_decision d;
  std::vector<int64_t> table_dims = policy_a_.table[0].dims;
  std::vector<int64_t> fresh = {777};
  ASSERT_EQ(hook.Decide(fresh, &d), CRMAP_OK);  // warm: the first answer fills the cache slot
  size_t before = g_allocation_count.load();
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(crmap_hook_decide(hook.get(), table_dims.data(), table_dims.size(), nullptr, &d), CRMAP_OK);
    ASSERT_EQ(crmap_hook_decide(hook.get(), fresh.data(), fresh.size(), nullptr, &d), CRMAP_OK);  // cache
    int64_t other = 1000 + i;  // a new shape each time: the network runs
    ASSERT_EQ(crmap_hook_decide(hook.get(), &other, 1, nullptr, &d), CRMAP_OK);
    ASSERT_EQ(crmap_hook_observe(hook.get(), d.decision_id, 100, 1), CRMAP_OK);
  }
  EXPECT_EQ(g_allocation_count.load(), before);
}

// Runtime knobs (batching, placement) are answered with the policy's values for them — each knob's
// default_index, which runtime tuning writes — whichever way the answer comes: table, network or cache.
TEST_F(HookTest, RuntimeKnobsAreAnsweredWithThePolicysRuntimeValues) {
  PolicyFile tuned = policy_a_;
  size_t batch_knob = tuned.knobs.size();
  for (size_t k = 0; k < tuned.knobs.size(); ++k)
    if (tuned.knobs[k].name == "batch") batch_knob = k;
  ASSERT_LT(batch_knob, tuned.knobs.size());
  ASSERT_FALSE(tuned.knobs[batch_knob].plan);
  const uint32_t last = static_cast<uint32_t>(tuned.knobs[batch_knob].values.size() - 1);
  ASSERT_NE(tuned.knobs[batch_knob].default_index, last);
  tuned.knobs[batch_knob].default_index = last;
  const std::string wanted = "batch=" + tuned.knobs[batch_knob].values[last] + ";";
  const std::string path = WriteTestPolicy("hook_runtime.policy", tuned);
  Hook hook;
  ASSERT_EQ(hook.Open(path), CRMAP_OK) << Hook::LastError();
  std::vector<std::vector<int64_t>> shapes = {tuned.table[0].dims, {777}, {777}, {1500}};
  std::set<int32_t> sources;
  for (const auto& dims : shapes) {
    crmap_decision d;
    ASSERT_EQ(hook.Decide(dims, &d), CRMAP_OK);
    EXPECT_NE(std::string(d.config).find(wanted), std::string::npos) << d.config;
    EXPECT_EQ(d.values[batch_knob], static_cast<int32_t>(last));
    sources.insert(d.source);
  }
  EXPECT_TRUE(sources.count(CRMAP_SOURCE_TABLE) && sources.count(CRMAP_SOURCE_POLICY));
  crmap_metrics m = Metrics(hook);
  EXPECT_GE(m.cache_hits, 1u);
}

// Regression tests for bugs these tests found.

// The per-shape cache stores a config as its mixed-radix id (a uint64); spaces of up to 64 knobs x 64 values
// overflow it, so for them the cache is off: the second decide of a shape answers what the network did.
TEST_F(HookTest, CachedAnswersAreRightForSpacesBeyond64BitIds) {
  PolicyFile huge = testing::FillSyntheticPolicy(testing::CustomSkeleton(1, 12, 64), {});  // 64^12 = 2^72
  ASSERT_TRUE(ValidatePolicyFile(huge).ok());
  std::string path = WriteTestPolicy("hook_huge_space.policy", huge);
  auto model = std::move(PolicyModel::Create(huge)).value();
  Hook hook;
  ASSERT_EQ(hook.Open(path), CRMAP_OK) << Hook::LastError();
  for (int64_t dim : {100, 300, 3000}) {
    std::string expected = Expected(*model, {dim}).config;
    for (int repeat = 0; repeat < 2; ++repeat) {
      crmap_decision d;
      ASSERT_EQ(hook.Decide({dim}, &d), CRMAP_OK);
      EXPECT_EQ(std::string(d.config), expected) << "d0=" << dim << (repeat ? " (cache hit)" : " (network)");
    }
  }
}

// A fallback decision can be observed: a fallback-only hook still records latencies.
TEST_F(HookTest, FallbackDecisionsCanBeObserved) {
  Hook hook;
  ASSERT_EQ(hook.Open(bad_files_[0].path, "", kFallback), CRMAP_ERR_CORRUPTION);
  crmap_decision d;
  ASSERT_EQ(hook.Decide({32}, &d), CRMAP_OK);
  EXPECT_EQ(hook.Observe(d.decision_id, 250, 3), CRMAP_OK) << Hook::LastError();
  crmap_metrics m = Metrics(hook);
  EXPECT_EQ(m.observations, 1u);
  EXPECT_EQ(m.unknown_observations, 0u);
  EXPECT_NEAR(m.mean_latency_us, 250, 1e-9);
}

// A policy whose canonical config strings could exceed CRMAP_HOOK_CONFIG_CAPACITY - 1 bytes (value names may be
// 4 KiB) is refused at open, naming the length; one whose longest config string is exactly the capacity - 1
// opens and answers from the table, the network and the cache.
TEST_F(HookTest, ConfigStringsUpToTheCapacityOpenAndLongerOnesAreRefused) {
  auto longest_config = [](size_t name_length) {
    PolicyFile f = testing::FillSyntheticPolicy(testing::CustomSkeleton(1, 2, 2, std::string(name_length, 'x')), {});
    auto model = PolicyModel::Create(f);
    EXPECT_TRUE(model.ok()) << model.status().message();
    return std::make_pair(f, model.ok() ? (*model)->max_config_length() : size_t{0});
  };
  const size_t limit = CRMAP_HOOK_CONFIG_CAPACITY - 1;
  size_t fits = 0;  // the longest value-name length whose config strings still fit
  for (size_t length = 400; length < 600 && longest_config(length).second <= limit; ++length) fits = length;
  ASSERT_GT(fits, 0u);

  auto [at_limit, at_limit_length] = longest_config(fits);
  ASSERT_LE(at_limit_length, limit);
  ASSERT_GE(at_limit_length, limit - 2);  // 2 knobs: each name character adds 2 bytes
  std::string path = WriteTestPolicy("hook_names_at_limit.policy", at_limit);
  Hook hook;
  ASSERT_EQ(hook.Open(path), CRMAP_OK) << Hook::LastError();
  crmap_decision d;
  ASSERT_EQ(hook.Decide(at_limit.table[0].dims, &d), CRMAP_OK) << Hook::LastError();
  EXPECT_EQ(d.source, CRMAP_SOURCE_TABLE);
  std::set<std::string> seen;
  for (int64_t dim : {100, 100, 2500}) {
    ASSERT_EQ(hook.Decide({dim}, &d), CRMAP_OK) << Hook::LastError();
    EXPECT_EQ(d.source, CRMAP_SOURCE_POLICY);
    EXPECT_LE(std::strlen(d.config), limit);
    EXPECT_NE(std::string(d.config).find(std::string(fits, 'x')), std::string::npos);
  }
  EXPECT_EQ(Metrics(hook).cache_hits, 1u);

  auto [beyond, beyond_length] = longest_config(fits + 1);
  ASSERT_GT(beyond_length, limit);
  std::string beyond_path = WriteTestPolicy("hook_names_beyond_limit.policy", beyond);
  Hook refused;
  EXPECT_EQ(refused.Open(beyond_path), CRMAP_ERR_CORRUPTION);
  EXPECT_NE(std::string(Hook::LastError()).find("config strings can reach " + std::to_string(beyond_length) + " bytes"),
            std::string::npos)
      << Hook::LastError();
  EXPECT_FALSE(refused.is_open());
}

// Each decision is observed once: a second observe of the same id is refused and counted as unknown, and the
// first observation's latency stays the only one recorded.
TEST_F(HookTest, ADecisionIsObservedOnce) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK);
  crmap_decision d;
  ASSERT_EQ(hook.Decide({32}, &d), CRMAP_OK);
  EXPECT_EQ(hook.Observe(d.decision_id, 100, 1), CRMAP_OK) << Hook::LastError();
  EXPECT_EQ(hook.Observe(d.decision_id, 900, 1), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(Hook::LastError()).find("already observed"), std::string::npos) << Hook::LastError();
  crmap_metrics m = Metrics(hook);
  EXPECT_EQ(m.observations, 1u);
  EXPECT_EQ(m.unknown_observations, 1u);
  EXPECT_NEAR(m.mean_latency_us, 100, 1e-9);
}

// A hook that opened on its fallback has no dims and answers any; once a reload brings a policy, decide wants
// that policy's dims.
TEST_F(HookTest, FallbackHookTakesThePolicysDimsAfterAReload) {
  Hook hook;
  ASSERT_EQ(hook.Open(bad_files_[0].path, "", kFallback), CRMAP_ERR_CORRUPTION);
  EXPECT_TRUE(hook.DimNames().empty());
  crmap_decision d;
  ASSERT_EQ(hook.Decide({}, &d), CRMAP_OK);
  EXPECT_EQ(d.source, CRMAP_SOURCE_FALLBACK);
  ASSERT_EQ(hook.Reload(path_a_), CRMAP_OK) << Hook::LastError();
  EXPECT_EQ(hook.DimNames(), std::vector<std::string>{"batch"});
  EXPECT_EQ(hook.Decide({}, &d), CRMAP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(hook.Decide({64}, &d), CRMAP_OK) << Hook::LastError();
}

// 4 threads decide (and observe, and read metrics) at random dims while a 5th reloads between two policies in
// a loop: every decision is OK and is one of the two policies' answers for its dims.
TEST_F(HookTest, ConcurrentDecideDuringReloadsAnswersFromOnePolicyOrTheOther) {
  Hook hook;
  ASSERT_EQ(hook.Open(path_a_), CRMAP_OK);

  std::vector<std::vector<int64_t>> dims;
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> log_batch(0, std::log(2048.0 * 2));  // some beyond the range
  for (int i = 0; i < 512; ++i) dims.push_back({std::max<int64_t>(1, static_cast<int64_t>(std::exp(log_batch(rng))))});
  for (const auto& e : policy_a_.table) dims.push_back(e.dims);
  std::vector<std::string> answer_a, answer_b;
  size_t differ = 0;
  for (const auto& d : dims) {
    answer_a.push_back(Expected(*model_a_, d).config);
    answer_b.push_back(Expected(*model_b_, d).config);
    differ += answer_a.back() != answer_b.back();
  }
  ASSERT_GE(differ, dims.size() / 4) << "the two policies must disagree often for the check to mean something";

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> reloads{0}, decisions{0}, failures{0}, foreign{0}, observe_failures{0};
  std::mutex first_error_mutex;
  std::string first_error;
  auto note = [&](const std::string& what) {
    std::lock_guard<std::mutex> lock(first_error_mutex);
    if (first_error.empty()) first_error = what;
  };
  auto decider = [&](uint64_t seed) {
    std::mt19937_64 local(seed);
    std::uniform_int_distribution<size_t> pick(0, dims.size() - 1);
    uint64_t mine = 0;
    while (!stop.load() || mine < 1000) {
      size_t i = pick(local);
      crmap_decision d;
      crmap_status status = crmap_hook_decide(hook.get(), dims[i].data(), 1, nullptr, &d);
      ++mine;
      if (status != CRMAP_OK) {
        ++failures;
        note(std::string("decide: ") + crmap_status_name(status) + ": " + crmap_hook_last_error());
        continue;
      }
      if (d.config != answer_a[i] && d.config != answer_b[i]) {
        ++foreign;
        note("batch=" + std::to_string(dims[i][0]) + " answered " + d.config);
      }
      // Observed right away: known unless 65536 other decisions slipped in between (a thread descheduled on a
      // loaded machine): then it is refused and counted as expired, never lost silently.
      if (crmap_hook_observe(hook.get(), d.decision_id, 1 + static_cast<double>(i), 1) != CRMAP_OK) ++observe_failures;
      if (mine % 64 == 0) {
        crmap_metrics m;
        if (crmap_hook_metrics(hook.get(), &m) != CRMAP_OK || m.policy_generation == 0) ++failures;
      }
    }
    decisions += mine;
  };
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 4; ++t) threads.emplace_back(decider, 100 + t);
  threads.emplace_back([&] {
    const auto start = std::chrono::steady_clock::now();
    // Runs ~0.5 s and at least 20 reloads; the test never asserts on the time itself.
    for (uint64_t n = 0; n < 20 || std::chrono::steady_clock::now() - start < std::chrono::milliseconds(500); ++n) {
      crmap_status status = crmap_hook_reload(hook.get(), (n % 2 ? path_a_ : path_b_).c_str());
      if (status != CRMAP_OK) {
        ++failures;
        note(std::string("reload: ") + crmap_hook_last_error());
      }
      ++reloads;
    }
    stop = true;
  });
  for (auto& t : threads) t.join();

  EXPECT_EQ(failures.load(), 0u) << first_error;
  EXPECT_EQ(foreign.load(), 0u) << first_error;
  crmap_metrics m = Metrics(hook);
  EXPECT_EQ(m.decisions, decisions.load());
  EXPECT_EQ(m.reloads, reloads.load());
  EXPECT_EQ(m.policy_generation, reloads.load() + 1);
  EXPECT_EQ(m.observations + m.unknown_observations + m.expired_observations, decisions.load());
  EXPECT_EQ(m.unknown_observations, 0u);  // every id observed was issued, once
  EXPECT_EQ(m.expired_observations, observe_failures.load());
  EXPECT_EQ(m.by_source[CRMAP_SOURCE_TABLE] + m.by_source[CRMAP_SOURCE_POLICY], decisions.load());
}

}  // namespace
}  // namespace crmap
