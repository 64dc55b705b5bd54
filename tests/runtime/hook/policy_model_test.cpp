#include "runtime/hook/policy_model.h"

#include <ATen/Parallel.h>  // the test sets LibTorch's thread count (the hook itself never includes LibTorch)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "agents/rl_agent.h"
#include "agents/synthetic_evaluator.h"
#include "search_space/feature_math.h"
#include "search_space/features.h"
#include "tests/test_support.h"
#include "tests/runtime/hook/policy_test_support.h"
#include "tuner/config_scores.h"
#include "tuner/policy_trainer.h"
#include "tuner/replay_evaluator.h"

namespace crmap {
namespace {

using testing::MakeSyntheticPolicy;
using testing::RandomConfig;
using testing::SyntheticPolicyOptions;
using testing::TestWorkload;

std::unique_ptr<PolicyModel> MustModel(PolicyFile file) {
  auto model = PolicyModel::Create(std::move(file));
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? std::move(model).value() : nullptr;
}

// Dims drawn log-uniformly over each dim's declared range.
std::vector<int64_t> RandomDims(const PolicyFile& f, std::mt19937_64& rng) {
  std::vector<int64_t> dims;
  for (const auto& d : f.dims) {
    std::uniform_real_distribution<double> u(std::log(static_cast<double>(d.min)),
                                             std::log(static_cast<double>(d.max) + 1));
    dims.push_back(std::clamp(static_cast<int64_t>(std::exp(u(rng))), d.min, d.max));
  }
  return dims;
}

// The policy's greedy decode, written the obvious way (full forward per knob, in double) as a reference for
// the incremental float version. `gap` receives the smallest margin between the winner and the runner-up.
std::vector<uint32_t> ReferenceDecide(const PolicyFile& f, const std::vector<int64_t>& dims, double* gap) {
  auto dense = [](const DenseLayer& l, const std::vector<double>& x) {
    std::vector<double> y(l.out);
    for (uint32_t o = 0; o < l.out; ++o) {
      double acc = l.bias[o];
      for (uint32_t i = 0; i < l.in; ++i) acc += static_cast<double>(l.weights[o * l.in + i]) * x[i];
      y[o] = acc;
    }
    return y;
  };
  std::vector<uint32_t> config;
  for (const auto& k : f.knobs) config.push_back(k.default_index);
  std::vector<double> x(f.policy.trunk1.in, 0.0);
  for (size_t i = 0; i < f.dims.size(); ++i) x[i] = ScaledLogDim(dims[i], f.features[i].lo, f.features[i].hi);
  *gap = 1e300;
  size_t head = 0, offset = f.dims.size();
  for (size_t k = 0; k < f.knobs.size(); ++k) {
    if (!f.knobs[k].plan) continue;
    std::vector<double> h = dense(f.policy.trunk1, x);
    for (double& v : h) v = std::tanh(v);
    h = dense(f.policy.trunk2, h);
    for (double& v : h) v = std::tanh(v);
    std::vector<double> logits = dense(f.policy.heads[head++], h);
    long best = -1;
    for (size_t v = 0; v < logits.size(); ++v)
      if (f.mask[k][v] && (best < 0 || logits[v] > logits[best])) best = static_cast<long>(v);
    for (size_t v = 0; v < logits.size(); ++v)
      if (best >= 0 && f.mask[k][v] && static_cast<long>(v) != best) *gap = std::min(*gap, logits[best] - logits[v]);
    if (best >= 0) config[k] = static_cast<uint32_t>(best);
    x[offset + config[k]] = 1.0;
    offset += f.knobs[k].values.size();
  }
  return config;
}

TEST(PolicyModelTest, TableLookupFindsExactShapesOnly) {
  SyntheticPolicyOptions options;
  options.workload = TestWorkload::kBertAttention;  // two dims: lexicographic order matters
  options.table_dims = {{4, 128}, {1, 8}, {16, 512}, {1, 128}, {4, 8}, {2, 64}};
  PolicyFile file = MakeSyntheticPolicy(options);
  auto model = MustModel(file);
  ASSERT_TRUE(model);
  for (size_t i = 0; i < options.table_dims.size(); ++i)
    EXPECT_EQ(model->FindTableEntry(options.table_dims[i].data()), static_cast<long>(i));
  for (std::vector<int64_t> miss : std::vector<std::vector<int64_t>>{
           {1, 9}, {2, 8}, {4, 127}, {4, 129}, {16, 511}, {17, 512}, {1, 1}, {128, 4}, {3, 64}, {2, 65}, {100, 1000}})
    EXPECT_EQ(model->FindTableEntry(miss.data()), -1) << miss[0] << "," << miss[1];
}

TEST(PolicyModelTest, EmptyTableNeverHits) {
  SyntheticPolicyOptions options;
  options.table_dims = {{1}};
  PolicyFile file = MakeSyntheticPolicy(options);
  file.table.clear();
  auto model = MustModel(file);
  ASSERT_TRUE(model);
  for (int64_t d : {1, 2, 32, 2048}) EXPECT_EQ(model->FindTableEntry(&d), -1);
}

TEST(PolicyModelTest, ATableListingAShapeTwiceIsRefused) {
  SyntheticPolicyOptions options;
  options.table_dims = {{8}, {16}, {8}};
  auto model = PolicyModel::Create(MakeSyntheticPolicy(options));
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kCorruption);
  EXPECT_NE(model.status().message().find("lists a shape twice"), std::string::npos) << model.status().message();
}

TEST(PolicyModelTest, CreateValidates) {
  PolicyFile file = MakeSyntheticPolicy();
  file.policy.heads.pop_back();
  auto model = PolicyModel::Create(file);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kCorruption);
}

// Every config of dlrm_mlp's space (216 plan x 32 runtime) maps to a distinct id in [0, size) and back.
TEST(PolicyModelTest, ConfigIdRoundTripsOverTheWholeSpace) {
  auto model = MustModel(MakeSyntheticPolicy());
  ASSERT_TRUE(model);
  const PolicyFile& f = model->file();
  uint64_t size = 1;
  for (const auto& k : f.knobs) size *= k.values.size();
  ASSERT_EQ(size, 6912u);
  std::vector<uint32_t> config(f.knobs.size()), back(f.knobs.size());
  for (uint64_t id = 0; id < size; ++id) {
    model->ConfigFromId(id, config.data());
    for (size_t k = 0; k < f.knobs.size(); ++k) ASSERT_LT(config[k], f.knobs[k].values.size());
    ASSERT_EQ(model->ConfigId(config.data()), id);
    model->ConfigFromId(model->ConfigId(config.data()), back.data());
    ASSERT_EQ(back, config);
  }
  // Mixed radix, first knob least significant (the same order as SearchSpace::ToId).
  std::vector<uint32_t> first(f.knobs.size(), 0), second(f.knobs.size(), 0);
  first[0] = 1;
  second[1] = 1;
  EXPECT_EQ(model->ConfigId(first.data()), 1u);
  EXPECT_EQ(model->ConfigId(second.data()), 3u);
}

TEST(PolicyModelTest, FormatConfigWritesTheCanonicalStringOrNothing) {
  auto model = MustModel(MakeSyntheticPolicy());
  ASSERT_TRUE(model);
  std::mt19937 rng(3);
  for (int i = 0; i < 50; ++i) {
    std::vector<uint32_t> config = testing::RandomConfig(model->file(), rng);
    config[6] = static_cast<uint32_t>(i % 4);  // a runtime knob off its default too
    std::string expected = PolicyConfigString(model->file().knobs, config);
    char buffer[1024];
    ASSERT_EQ(model->FormatConfig(config.data(), buffer, sizeof buffer), expected.size());
    EXPECT_EQ(std::string(buffer), expected);
    // Exactly enough room (the string and its NUL) works; one byte less writes "" and returns 0.
    std::vector<char> exact(expected.size() + 1, 'x');
    EXPECT_EQ(model->FormatConfig(config.data(), exact.data(), exact.size()), expected.size());
    EXPECT_EQ(std::string(exact.data()), expected);
    std::vector<char> small(expected.size(), 'x');
    EXPECT_EQ(model->FormatConfig(config.data(), small.data(), small.size()), 0u);
    EXPECT_EQ(small[0], '\0');
    for (size_t c = 1; c < small.size(); c += 7) {
      std::vector<char> tiny(c, 'x');
      EXPECT_EQ(model->FormatConfig(config.data(), tiny.data(), tiny.size()), 0u);
      EXPECT_EQ(tiny[0], '\0');
    }
  }
  std::vector<uint32_t> config(model->knob_count(), 0);
  EXPECT_EQ(model->FormatConfig(config.data(), nullptr, 0), 0u);
}

// DecodeGreedy agrees with a plain full-forward reference; masked values are never chosen; a knob whose every
// value is masked keeps its default; runtime knobs stay at their defaults.
TEST(PolicyModelTest, DecodeGreedyHonoursTheMaskAndMatchesAReferenceForward) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    SyntheticPolicyOptions options;
    options.workload = seed % 2 ? TestWorkload::kDlrmMlp : TestWorkload::kBertAttention;
    options.seed = seed;
    options.hidden = 16;
    options.masked = {{"precision", "bf16"}, {"weights", "stored"}, {"weights", "packed"}, {"threads", "2"}};
    PolicyFile file = MakeSyntheticPolicy(options);
    auto model = MustModel(file);
    ASSERT_TRUE(model);
    const PolicyFile& f = model->file();
    std::mt19937_64 rng(seed);
    std::set<std::vector<uint32_t>> distinct;
    size_t ties = 0;
    for (int i = 0; i < 2000; ++i) {
      std::vector<int64_t> dims = RandomDims(f, rng);
      std::vector<uint32_t> config(f.knobs.size());
      model->DecodeGreedy(dims.data(), config.data());
      for (size_t k = 0; k < f.knobs.size(); ++k) {
        bool any = std::count(f.mask[k].begin(), f.mask[k].end(), 1) > 0;
        if (!f.knobs[k].plan || !any)
          EXPECT_EQ(config[k], f.knobs[k].default_index) << f.knobs[k].name;
        else
          EXPECT_TRUE(f.mask[k][config[k]]) << f.knobs[k].name << " took masked value " << config[k];
      }
      double gap = 0;
      std::vector<uint32_t> reference = ReferenceDecide(f, dims, &gap);
      if (reference != config) {
        ++ties;
        EXPECT_LT(gap, 1e-4) << "DecodeGreedy differs from the reference forward at dims[0]=" << dims[0];
      }
      distinct.insert(config);
    }
    EXPECT_LE(ties, 2u);
    EXPECT_GE(distinct.size(), 2u) << "the synthetic policy should answer differently for different shapes";
  }
}

// The critic re-ranks the table's configs against the policy's choice; a table config holding a value the
// mask forbids (a crafted file) must never come out of Decide.
TEST(PolicyModelTest, DecideNeverReturnsAMaskedValueEvenFromTheTable) {
  SyntheticPolicyOptions options;
  options.seed = 3;
  options.masked = {{"precision", "bf16"}};
  PolicyFile file = MakeSyntheticPolicy(options);
  size_t precision = 0, bf16 = 0;
  for (size_t k = 0; k < file.knobs.size(); ++k)
    if (file.knobs[k].name == "precision") precision = k;
  for (size_t v = 0; v < file.knobs[precision].values.size(); ++v)
    if (file.knobs[precision].values[v] == "bf16") bf16 = v;
  ASSERT_EQ(file.mask[precision][bf16], 0);
  for (auto& entry : file.table) entry.config[precision] = static_cast<uint32_t>(bf16);
  file.fallback[precision] = static_cast<uint32_t>(bf16);
  auto model = MustModel(file);
  ASSERT_TRUE(model);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 3000; ++i) {
    std::vector<int64_t> dims = RandomDims(model->file(), rng);
    if (model->FindTableEntry(dims.data()) >= 0) continue;
    std::vector<uint32_t> config(file.knobs.size());
    model->Decide(dims.data(), config.data());
    ASSERT_NE(config[precision], bf16) << "masked value chosen at dims[0]=" << dims[0];
  }
}

TEST(PolicyModelTest, PredictLatencyCombinesTheLatencyModelAndTheCritic) {
  auto model = MustModel(MakeSyntheticPolicy());
  ASSERT_TRUE(model);
  const PolicyFile& f = model->file();
  std::mt19937 rng(5);
  for (int64_t d : {1, 7, 100, 2048, 5000}) {
    std::vector<uint32_t> config = testing::RandomConfig(f, rng);
    const int64_t inside = std::clamp(d, f.dims[0].min, f.dims[0].max);  // beyond the range: its end
    double log_default =
        f.latency_model[1] + f.latency_model[0] * ScaledLogDim(inside, f.features[0].lo, f.features[0].hi);
    double expected = std::exp(log_default - model->PredictLogSpeedup(&d, config.data()));
    EXPECT_NEAR(model->PredictLatencyUs(&d, config.data()), expected, expected * 1e-5) << d;
    EXPECT_GT(model->PredictLatencyUs(&d, config.data()), 0);
  }
}

// ValidatePolicyFile — which PolicyModel::Create relies on — enforces the format's limits that Decide's
// fixed-size buffers assume, also for a PolicyFile built in memory (the decoder enforces them on files).
TEST(PolicyModelTest, CreateRefusesPoliciesBeyondTheFormatLimits) {
  struct Case {
    const char* what;
    size_t dims, knobs, values;
  };
  for (const Case& c : {Case{"9 dims", 9, 2, 2}, Case{"65 values", 1, 1, 65}, Case{"65 knobs", 1, 65, 2}}) {
    PolicyFile file = testing::FillSyntheticPolicy(testing::CustomSkeleton(c.dims, c.knobs, c.values), {});
    EXPECT_FALSE(PolicyModel::Create(file).ok()) << c.what;
    EXPECT_FALSE(ValidatePolicyFile(file).ok()) << c.what;
  }
}

// Grid records of a synthetic landscape, as `crmap tune --agent grid` would write them: every plan config at
// every shape; configs holding precision=bf16 fail (so the trained mask forbids bf16).
std::vector<TuningRecord> GridRecords(const Workload& workload, const SearchSpace& space,
                                      const SyntheticEvaluator& landscape, const std::vector<Dims>& shapes) {
  std::vector<TuningRecord> records;
  for (const Dims& dims : shapes) {
    for (const Config& config : space.Enumerate(KnobScope::kPlan)) {
      TuningRecord r;
      r.version = 1;
      r.workload = workload.name();
      r.workload_fingerprint = workload.fingerprint();
      r.space_fingerprint = space.fingerprint();
      r.dims = dims;
      r.config = space.ToString(config);
      bool bf16 = space.ValueOf(config, KnobKind::kPrecision) == "bf16";
      r.status = bf16 ? "unsupported" : "ok";
      if (!bf16) {
        r.median_us = landscape.LatencyUs(dims, config);
        r.p99_us = r.median_us * 1.2;
        r.rounds = 10;
      }
      r.agent = "grid";
      r.host_cpu = "Synthetic CPU";
      r.host_isa = "avx2";
      r.host_onednn = "3.0.0";
      r.host_cores = 2;
      records.push_back(r);
    }
  }
  return records;
}

// THE KEY TEST: a policy trained with LibTorch (TrainPolicy, as `crmap train` runs it) and evaluated by the
// plain-C++ PolicyModel gives the same greedy config as PolicyNetwork::Sample(greedy) at every one of 1,000
// random shapes, and the same critic prediction as CostModel::Predict within 1e-4.
//
// TrainPolicy keeps its agent to itself, so the test trains a twin RlAgent exactly as TrainPolicy does (same
// observations, shapes, seed, widths and steps), checks that the twin's exported weights are bit-identical to
// the policy file's, and compares against the twin's networks. LibTorch's multi-threaded reductions are not
// bit-reproducible from run to run (weights differ by ~1e-7 with 2 threads), so training runs on one thread.
TEST(PolicyModelTest, AgreesWithTheLibTorchNetworksItWasExportedFrom) {
  struct OneThread {
    int saved = at::get_num_threads();
    OneThread() { at::set_num_threads(1); }
    ~OneThread() { at::set_num_threads(saved); }
  } one_thread;
  Workload workload = testing::MustLoad("dlrm_mlp");
  SearchSpace space = testing::MustSpace(workload, 2);
  std::vector<Dims> shapes;
  for (int64_t batch : {1, 4, 16, 64, 256, 1024}) shapes.push_back({{"batch", batch}});
  SeparableOptions landscape_options;
  landscape_options.seed = 11;
  landscape_options.per_shape = true;  // every shape has its own optimum: the policy has to vary with the shape
  SeparableLandscape landscape(space, landscape_options);
  std::vector<TuningRecord> records = GridRecords(workload, space, landscape, shapes);

  TrainOptions options;
  options.seed = 5;
  options.critic_epochs = 200;
  options.policy_steps = 120;
  options.hidden = 16;
  options.critic_members = 0;  // the main critic alone: Decide must match LibTorch's screening bit for bit
  TrainReport report;
  auto trained = TrainPolicy(workload, space, records, options, &report);
  ASSERT_TRUE(trained.ok()) << trained.status().ToString();
  const PolicyFile& file = *trained;
  EXPECT_EQ(report.shapes, shapes.size());
  {
    // The report's standing of the policy's own choice at each tuned shape, recounted from the grid's speedups:
    // every config was measured at every shape, so none is unmeasured, and a choice within 5% of the best counts.
    auto model = PolicyModel::Create(file);
    ASSERT_TRUE(model.ok());
    const auto scores = ScoreConfigs(space, records);
    size_t agrees = 0, within = 0;
    for (const TableEntry& entry : file.table) {
      std::vector<uint32_t> decided(file.knobs.size());
      (*model)->Decide(entry.dims.data(), decided.data());
      const Config config = ConfigFromValueIndices(space, decided);
      const ShapeScores& shape = scores.at({{"batch", entry.dims[0]}});
      const ConfigScore* score = shape.Find(space.ToString(config));
      ASSERT_NE(score, nullptr) << space.ToString(config);
      const double speedup = score->speedup;
      agrees += decided == entry.config;
      within += shape.Best()->speedup <= speedup * 1.05;
      // The label itself stands within the labels' tie band of the best (which the record noise may widen).
      const ConfigScore* label = shape.Find(space.ToString(ConfigFromValueIndices(space, entry.config)));
      ASSERT_NE(label, nullptr);
      EXPECT_LE(shape.Best()->speedup, label->speedup * (1 + report.label_tie_band)) << entry.dims[0];
    }
    EXPECT_EQ(report.policy_agrees, agrees);
    EXPECT_EQ(report.policy_within_noise, within);
    EXPECT_EQ(report.policy_choice_unmeasured, 0u);
  }

  ReplayEvaluator replay(space, records);
  RlOptions rl_options;
  rl_options.policy_hidden = options.hidden;
  rl_options.critic_hidden = options.hidden;
  RlAgent twin({&workload, &space, replay.Shapes(), options.seed}, rl_options);
  OfflineOptions offline;
  offline.critic_epochs = options.critic_epochs;
  offline.policy_steps = options.policy_steps;
  const auto scores = ScoreConfigs(space, records);
  const double record_noise = EstimateRecordNoise(scores);
  for (const Dims& dims : replay.Shapes())  // the trainer's noise-aware labels and observations
    offline.labels.emplace(
        dims, testing::MustConfig(space, NoiseAwareLabel(scores, dims, kNoiseBand, record_noise, &space)->config));
  twin.LearnOffline(ScoredObservations(space, records), offline);

  // The twin is the trained agent: same weights, bit for bit, and the same mask (bf16 forbidden).
  std::vector<std::vector<float>> policy = twin.policy().ExportParameters();
  ASSERT_EQ(policy.size(), 4 + 2 * file.policy.heads.size());
  EXPECT_EQ(policy[0], file.policy.trunk1.weights);
  EXPECT_EQ(policy[1], file.policy.trunk1.bias);
  EXPECT_EQ(policy[2], file.policy.trunk2.weights);
  EXPECT_EQ(policy[3], file.policy.trunk2.bias);
  for (size_t h = 0; h < file.policy.heads.size(); ++h) {
    EXPECT_EQ(policy[4 + 2 * h], file.policy.heads[h].weights) << h;
    EXPECT_EQ(policy[5 + 2 * h], file.policy.heads[h].bias) << h;
  }
  std::vector<std::vector<float>> critic = twin.critic().ExportParameters();
  ASSERT_EQ(critic.size(), 6u);
  EXPECT_EQ(critic[0], file.critic.layer1.weights);
  EXPECT_EQ(critic[4], file.critic.layer3.weights);
  EXPECT_EQ(critic[5], file.critic.layer3.bias);
  KnobMask mask = twin.Mask();
  const int precision = space.FindKnobOfKind(KnobKind::kPrecision);
  ASSERT_FALSE(mask[precision][1]) << "bf16 always failed: the mask must forbid it (or the test checks no masking)";
  for (size_t k = 0; k < mask.size(); ++k)
    for (size_t v = 0; v < mask[k].size(); ++v) EXPECT_EQ(file.mask[k][v] != 0, static_cast<bool>(mask[k][v]));

  // Reload the file through the codec, as the hook does.
  auto decoded = DecodePolicyFile(EncodePolicyFile(file));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  auto model = MustModel(std::move(decoded).value());
  ASSERT_TRUE(model);

  const FeatureSpec& features = twin.features();
  std::mt19937_64 rng(2024), sample_rng(1);
  std::set<std::vector<int>> distinct;
  size_t disagreements = 0, kept_over_a_better_prediction = 0;
  // The incumbent is the static plan with the default margin.
  EXPECT_EQ(ConfigFromValueIndices(space, file.incumbent), ChooseStaticPlan(space, records, shapes));
  EXPECT_EQ(file.switch_margin, TrainOptions().switch_margin);
  for (int i = 0; i < 1000; ++i) {
    std::vector<int64_t> dims = RandomDims(file, rng);
    Dims named = {{"batch", dims[0]}};
    std::vector<float> dims_features(features.dim_feature_count());
    features.EncodeDims(named, dims_features.data());
    Config expected = twin.policy().Sample(dims_features, mask, sample_rng, /*greedy=*/true);
    std::vector<uint32_t> decided(model->knob_count());
    model->DecodeGreedy(dims.data(), decided.data());
    std::vector<int> got(decided.begin(), decided.end());
    if (got != expected.values) {
      ++disagreements;
      ADD_FAILURE() << "batch=" << dims[0] << ": PolicyModel " << PolicyConfigString(file.knobs, decided)
                    << ", PolicyNetwork " << space.ToString(expected);
    }
    distinct.insert(got);

    // The hook's answer (Decide): LibTorch's critic screening the greedy config, the table's configs, the
    // fallback and the incumbent (the static plan, kept unless beaten by the switch margin) must pick the same
    // config.
    std::vector<Config> candidates = {expected};
    size_t incumbent = 0;
    for (const auto& c : model->screened_candidates()) {
      Config config = space.Default();
      for (size_t k = 0; k < c.size(); ++k) config.values[k] = static_cast<int>(c[k]);
      if (c == file.incumbent) incumbent = candidates.size();
      candidates.push_back(config);
    }
    ASSERT_GT(incumbent, 0u) << "the incumbent is screened";
    std::vector<std::vector<float>> candidate_rows;
    for (const Config& c : candidates) candidate_rows.push_back(features.Encode(named, c));
    std::vector<double> predicted = twin.critic().Predict(candidate_rows);
    size_t best = 0;
    for (size_t c = 1; c < candidates.size(); ++c)
      if (predicted[c] > predicted[best]) best = c;
    if (best != incumbent &&
        predicted[best] <= predicted[incumbent] + std::log1p(static_cast<double>(file.switch_margin))) {
      best = incumbent;
      ++kept_over_a_better_prediction;
    }
    std::vector<uint32_t> answered(model->knob_count());
    model->Decide(dims.data(), answered.data());
    if (std::vector<int>(answered.begin(), answered.end()) != candidates[best].values) {
      ++disagreements;
      ADD_FAILURE() << "batch=" << dims[0] << ": Decide " << PolicyConfigString(file.knobs, answered)
                    << ", LibTorch screening " << space.ToString(candidates[best]);
    }
  }
  EXPECT_EQ(disagreements, 0u);
  EXPECT_GE(distinct.size(), 2u) << "a policy that ignores the shape would make the agreement check weak";
  EXPECT_GT(kept_over_a_better_prediction, 0u) << "the margin never kept the incumbent: the check says little of it";

  std::vector<std::vector<float>> rows;
  std::vector<std::vector<int64_t>> all_dims;
  std::vector<std::vector<uint32_t>> configs;
  for (int i = 0; i < 1000; ++i) {
    all_dims.push_back(RandomDims(file, rng));
    Config config = space.Sample(rng, KnobScope::kPlan);
    rows.push_back(features.Encode({{"batch", all_dims.back()[0]}}, config));
    configs.emplace_back(config.values.begin(), config.values.end());
  }
  std::vector<double> predicted = twin.critic().Predict(rows);
  for (size_t i = 0; i < rows.size(); ++i)
    ASSERT_NEAR(model->PredictLogSpeedup(all_dims[i].data(), configs[i].data()), predicted[i], 1e-4)
        << "batch=" << all_dims[i][0] << " config " << PolicyConfigString(file.knobs, configs[i]);

  // With critic members: they are written, and each table entry's confidence is the model's ConfidenceOf its
  // config at its shape (what the hook answers for a table hit).
  options.critic_members = 2;
  options.critic_epochs = 50;
  auto with_members = TrainPolicy(workload, space, records, options, &report);
  ASSERT_TRUE(with_members.ok()) << with_members.status().ToString();
  ASSERT_EQ(with_members->critic_members.size(), 2u);
  EXPECT_EQ(with_members->pessimism, options.pessimism);
  auto ensemble = MustModel(*with_members);
  ASSERT_TRUE(ensemble);
  double sum = 0;
  for (const TableEntry& entry : with_members->table) {
    EXPECT_GE(entry.confidence, 0.0f);
    EXPECT_LE(entry.confidence, 1.0f);
    EXPECT_FLOAT_EQ(entry.confidence, static_cast<float>(ensemble->ConfidenceOf(entry.dims.data(), entry.config.data())));
    sum += entry.confidence;
  }
  EXPECT_NEAR(report.mean_table_confidence, sum / static_cast<double>(with_members->table.size()), 1e-6);
  // Each tuned shape left out in turn: every config was measured at every shape, so every fold's choice was
  // measured; the calibration written is the one its folds give (confidence_calibration.h), and the table's
  // confidences are stated through it (each one a bin's rate).
  EXPECT_EQ(report.calibration_folds, shapes.size());
  EXPECT_EQ(report.calibration_measured, shapes.size());
  EXPECT_LE(report.calibration_within, report.calibration_measured);
  ASSERT_EQ(with_members->calibration.size(), 3u);
  uint32_t folds = 0, within = 0;
  for (const CalibrationBin& bin : with_members->calibration) {
    folds += bin.folds;
    within += bin.within;
  }
  EXPECT_EQ(folds, report.calibration_measured);
  EXPECT_EQ(within, report.calibration_within);
  for (const TableEntry& entry : with_members->table) {
    bool a_rate = false;
    for (const CalibrationBin& bin : with_members->calibration) a_rate |= entry.confidence == bin.rate;
    EXPECT_TRUE(a_rate) << "table confidence " << entry.confidence << " is no bin's rate";
  }
}

// Every screened candidate at `dims` scored the obvious way (every critic's full forward in double): the
// greedy config first, then the model's screened candidates; per candidate each critic's prediction and the
// score, mean - pessimism x standard deviation over the critics; per critic its best prediction.
struct ReferenceScreen {
  std::vector<std::vector<uint32_t>> candidates;
  std::vector<std::vector<double>> predictions;  // [candidate][critic]
  std::vector<double> scores;
  std::vector<double> best_of_critic;
};

ReferenceScreen ScreenByReference(const PolicyFile& f, const PolicyModel& model, const std::vector<int64_t>& dims) {
  auto dense = [](const DenseLayer& l, const std::vector<double>& in, bool relu) {
    std::vector<double> y(l.out);
    for (uint32_t o = 0; o < l.out; ++o) {
      double acc = l.bias[o];
      for (uint32_t i = 0; i < l.in; ++i) acc += static_cast<double>(l.weights[o * l.in + i]) * in[i];
      y[o] = relu ? std::max(0.0, acc) : acc;
    }
    return y;
  };
  auto forward = [&](const CriticWeights& c, const std::vector<double>& x) {
    return dense(c.layer3, dense(c.layer2, dense(c.layer1, x, true), true), false)[0];
  };
  ReferenceScreen screen;
  std::vector<uint32_t> greedy(f.knobs.size());
  model.DecodeGreedy(dims.data(), greedy.data());
  screen.candidates = {greedy};
  for (const auto& c : model.screened_candidates()) screen.candidates.push_back(c);
  std::vector<const CriticWeights*> critics = {&f.critic};
  for (const auto& m : f.critic_members) critics.push_back(&m);
  screen.predictions.resize(screen.candidates.size());
  screen.best_of_critic.assign(critics.size(), -1e300);
  for (size_t c = 0; c < screen.candidates.size(); ++c) {
    std::vector<double> x(f.features.size(), 0.0);
    for (size_t d = 0; d < f.dims.size(); ++d) x[d] = ScaledLogDim(dims[d], f.features[d].lo, f.features[d].hi);
    size_t offset = f.dims.size();
    for (size_t k = 0; k < f.knobs.size(); ++k) {
      if (!f.knobs[k].plan) continue;
      x[offset + screen.candidates[c][k]] = 1.0;
      offset += f.knobs[k].values.size();
    }
    double sum = 0, squares = 0;
    for (size_t j = 0; j < critics.size(); ++j) {
      const double p = forward(*critics[j], x);
      screen.predictions[c].push_back(p);
      screen.best_of_critic[j] = std::max(screen.best_of_critic[j], p);
      sum += p;
      squares += p * p;
    }
    const double mean = sum / static_cast<double>(critics.size());
    screen.scores.push_back(mean - f.pessimism * std::sqrt(std::max(0.0, squares / critics.size() - mean * mean)));
  }
  return screen;
}

// The reference's agreement for candidate `chosen`: the share of critics within log(1.05) of their best;
// `near_edge` is set when a critic is within 1e-4 of that line (float may put it on either side).
double ReferenceAgreement(const ReferenceScreen& screen, size_t chosen, bool* near_edge) {
  size_t agree = 0;
  for (size_t j = 0; j < screen.best_of_critic.size(); ++j) {
    const double margin = screen.predictions[chosen][j] - (screen.best_of_critic[j] - std::log(1.05));
    agree += margin >= 0;
    *near_edge |= std::fabs(margin) < 1e-4;
  }
  return static_cast<double>(agree) / static_cast<double>(screen.best_of_critic.size());
}

// Decide with critic members, against the reference: the choice maximises mean - pessimism x standard deviation
// over the critics, and the confidence is the share of critics whose prediction for the choice is within
// log(1.05) of their best.
TEST(PolicyModelTest, DecideWithMembersMaximisesThePessimisticScoreAndCountsAgreement) {
  for (float pessimism : {0.0f, 0.5f, 1.5f}) {
    SyntheticPolicyOptions options;
    options.critic_members = 3;
    options.seed = 9;
    PolicyFile f = MakeSyntheticPolicy(options);
    f.pessimism = pessimism;
    auto model = MustModel(f);
    ASSERT_TRUE(model);
    ASSERT_EQ(model->critic_count(), 4u);
    std::mt19937_64 rng(3);
    size_t checked = 0;
    std::set<std::vector<uint32_t>> chosen;
    for (int i = 0; i < 300; ++i) {
      std::vector<int64_t> dims = RandomDims(f, rng);
      const ReferenceScreen screen = ScreenByReference(f, *model, dims);
      std::vector<size_t> order(screen.candidates.size());
      for (size_t c = 0; c < order.size(); ++c) order[c] = c;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return screen.scores[a] > screen.scores[b]; });
      if (order.size() > 1 && screen.scores[order[0]] - screen.scores[order[1]] < 1e-4) continue;  // near tie
      const size_t best = order[0];
      bool near_edge = false;
      const double agreement = ReferenceAgreement(screen, best, &near_edge);
      if (near_edge) continue;
      std::vector<uint32_t> decided(f.knobs.size());
      double confidence = -2;
      model->Decide(dims.data(), decided.data(), &confidence);
      EXPECT_EQ(decided, screen.candidates[best]) << "pessimism " << pessimism << " dims " << dims[0];
      EXPECT_DOUBLE_EQ(confidence, agreement) << "dims " << dims[0];
      EXPECT_DOUBLE_EQ(model->ConfidenceOf(dims.data(), decided.data()), confidence);
      chosen.insert(decided);
      ++checked;
    }
    EXPECT_GE(checked, 200u) << "too many near ties for the check to mean much";
    EXPECT_GE(chosen.size(), 2u) << "pessimism " << pessimism << ": a choice that never varies checks little";
  }
}

// With an incumbent (format version 5), against the reference: Decide keeps it unless the best score beats the
// incumbent's by log(1 + switch margin); the confidence is the agreement on what was chosen. A margin of 0 is
// the plain rule; a margin in the middle of the leads keeps the incumbent at some dims where another config
// scores best and leaves it at others; one of 100% keeps it at more.
TEST(PolicyModelTest, DecideKeepsTheIncumbentUnlessTheBestScoreBeatsItByTheSwitchMargin) {
  SyntheticPolicyOptions options;
  options.critic_members = 3;
  options.seed = 9;
  PolicyFile base = MakeSyntheticPolicy(options);
  base.incumbent = base.table[1].config;
  // A margin in the middle of the leads the best candidate has over the incumbent at these dims, so that it
  // decides some of them each way.
  std::vector<double> leads;
  {
    auto model = MustModel(base);
    ASSERT_TRUE(model);
    std::mt19937_64 rng(3);
    for (int i = 0; i < 300; ++i) {
      const ReferenceScreen screen = ScreenByReference(base, *model, RandomDims(base, rng));
      double best = -1e300, incumbent = 0;
      for (size_t c = 0; c < screen.candidates.size(); ++c) {
        best = std::max(best, screen.scores[c]);
        if (c > 0 && screen.candidates[c] == base.incumbent) incumbent = screen.scores[c];
      }
      if (best > incumbent) leads.push_back(best - incumbent);
    }
  }
  ASSERT_GE(leads.size(), 20u);
  std::nth_element(leads.begin(), leads.begin() + leads.size() / 2, leads.end());
  const float middle = static_cast<float>(std::expm1(leads[leads.size() / 2]));
  ASSERT_LT(middle, 1.0f);
  size_t previously_kept = 0;
  for (float margin : {0.0f, middle, 1.0f}) {
    PolicyFile f = base;
    f.switch_margin = margin;
    auto model = MustModel(f);
    ASSERT_TRUE(model);
    std::mt19937_64 rng(3);
    size_t checked = 0, kept = 0, kept_over_a_better_score = 0;
    for (int i = 0; i < 300; ++i) {
      std::vector<int64_t> dims = RandomDims(f, rng);
      const ReferenceScreen screen = ScreenByReference(f, *model, dims);
      size_t incumbent = 0;
      while (incumbent < screen.candidates.size() &&
             (incumbent == 0 || screen.candidates[incumbent] != f.incumbent))
        ++incumbent;  // among the screened ones (index 0 is the greedy config)
      ASSERT_LT(incumbent, screen.candidates.size()) << "the incumbent is screened";
      size_t best = 0;
      double runner_up = -1e300;
      for (size_t c = 1; c < screen.candidates.size(); ++c) {
        if (screen.scores[c] > screen.scores[best]) {
          runner_up = screen.scores[best];
          best = c;
        } else {
          runner_up = std::max(runner_up, screen.scores[c]);
        }
      }
      if (screen.scores[best] - runner_up < 1e-4) continue;  // a near tie: float may flip it
      const double lead = screen.scores[best] - screen.scores[incumbent];
      if (best != incumbent && std::fabs(lead - std::log1p(static_cast<double>(margin))) < 1e-4) continue;
      const bool keep = screen.candidates[best] == f.incumbent || lead <= std::log1p(static_cast<double>(margin));
      const size_t expected = keep ? incumbent : best;
      bool near_edge = false;
      const double agreement = ReferenceAgreement(screen, expected, &near_edge);
      if (near_edge) continue;
      std::vector<uint32_t> decided(f.knobs.size());
      double confidence = -2;
      model->Decide(dims.data(), decided.data(), &confidence);
      EXPECT_EQ(decided, screen.candidates[expected]) << "margin " << margin << " dims " << dims[0];
      EXPECT_DOUBLE_EQ(confidence, agreement) << "margin " << margin << " dims " << dims[0];
      EXPECT_DOUBLE_EQ(model->ConfidenceOf(dims.data(), decided.data()), confidence);
      ++checked;
      kept += decided == f.incumbent;
      kept_over_a_better_score += keep && screen.candidates[best] != f.incumbent;
    }
    EXPECT_GE(checked, 200u) << "margin " << margin << ": too many near ties for the check to mean much";
    if (margin == middle) {
      EXPECT_GT(kept_over_a_better_score, 0u) << "margin " << margin << " never mattered";
      EXPECT_LT(kept, checked) << "margin " << margin << ": the incumbent everywhere checks little";
    }
    EXPECT_GE(kept, previously_kept) << "a wider margin keeps the incumbent at no fewer dims";
    previously_kept = kept;
  }
}

// With a calibration (format version 4) the same decisions are made and the stated confidence is the rate of
// the band the raw agreement falls in (policy_file.h: CalibrationBin).
TEST(PolicyModelTest, ACalibratedPolicyStatesTheRateOfItsAgreementsBand) {
  SyntheticPolicyOptions options;
  options.critic_members = 3;
  options.seed = 9;
  options.calibrated = true;
  PolicyFile calibrated = MakeSyntheticPolicy(options);
  ASSERT_EQ(calibrated.calibration.size(), 3u);
  PolicyFile raw = calibrated;
  raw.calibration.clear();
  auto stated = MustModel(calibrated);
  auto agreeing = MustModel(raw);
  ASSERT_TRUE(stated && agreeing);
  EXPECT_EQ(stated->Calibrated(-1), -1.0);
  EXPECT_FLOAT_EQ(stated->Calibrated(0.0), 0.3f);
  EXPECT_FLOAT_EQ(stated->Calibrated(0.49), 0.3f);
  EXPECT_FLOAT_EQ(stated->Calibrated(0.5), 0.45f);
  EXPECT_FLOAT_EQ(stated->Calibrated(0.79), 0.45f);
  EXPECT_FLOAT_EQ(stated->Calibrated(0.8), 0.75f);
  EXPECT_FLOAT_EQ(stated->Calibrated(1.0), 0.75f);
  EXPECT_EQ(agreeing->Calibrated(0.6), 0.6);  // no calibration: the agreement itself
  std::mt19937_64 rng(4);
  std::set<double> agreements;
  for (int i = 0; i < 200; ++i) {
    std::vector<int64_t> dims = RandomDims(calibrated, rng);
    std::vector<uint32_t> a(calibrated.knobs.size()), b(calibrated.knobs.size());
    double confidence = -2, agreement = -2;
    stated->Decide(dims.data(), a.data(), &confidence);
    agreeing->Decide(dims.data(), b.data(), &agreement);
    EXPECT_EQ(a, b) << "dims " << dims[0];
    EXPECT_DOUBLE_EQ(confidence, stated->Calibrated(agreement)) << "dims " << dims[0];
    EXPECT_DOUBLE_EQ(stated->ConfidenceOf(dims.data(), a.data()), confidence);
    agreements.insert(agreement);
  }
  EXPECT_GE(agreements.size(), 2u) << "an agreement that never varies checks little";
}

// A policy without members states no confidence: -1 from Decide and ConfidenceOf.
TEST(PolicyModelTest, WithoutMembersTheConfidenceIsUnknown) {
  SyntheticPolicyOptions options;
  options.critic_members = 0;
  auto model = MustModel(MakeSyntheticPolicy(options));
  ASSERT_TRUE(model);
  std::vector<int64_t> dims(model->dim_count(), 7);
  std::vector<uint32_t> decided(model->knob_count());
  double confidence = 0;
  model->Decide(dims.data(), decided.data(), &confidence);
  EXPECT_EQ(confidence, -1.0);
  EXPECT_EQ(model->ConfidenceOf(dims.data(), decided.data()), -1.0);
}

// The index of `config` among the model's screened candidates (their count when it is not one of them).
long CandidateIndex(const PolicyModel& model, const std::vector<uint32_t>& config) {
  const auto& candidates = model.screened_candidates();
  return static_cast<long>(std::find(candidates.begin(), candidates.end(), config) - candidates.begin());
}

// The neighbour incumbent (format version 6): away from the table, where the two nearest table entries share a
// config, that config is kept unless beaten by the switch margin; elsewhere the file's incumbent. An entry at
// exactly the dims does not count (Decide answers as if it were not in the table), nor a config the mask forbids.
TEST(PolicyModelTest, TheIncumbentIsTheConfigTheTwoNearestTunedShapesShare) {
  SyntheticPolicyOptions options;
  options.critic_members = 3;
  options.seed = 9;
  options.table_dims = {{2}, {8}, {64}, {512}};  // dlrm_mlp: one dim, batch
  PolicyFile f = MakeSyntheticPolicy(options);
  std::mt19937 rng(5);
  std::vector<uint32_t> shared = RandomConfig(f, rng), other = RandomConfig(f, rng);
  f.incumbent = RandomConfig(f, rng);
  ASSERT_NE(shared, other);
  ASSERT_NE(shared, f.incumbent);
  f.table[0].config = other;   // batch 2
  f.table[1].config = shared;  // batch 8
  f.table[2].config = shared;  // batch 64
  f.table[3].config = other;   // batch 512
  f.switch_margin = 0.05f;
  {
    auto model = MustModel(f);  // without the flag: the file's incumbent everywhere
    ASSERT_TRUE(model);
    for (int64_t batch : {20, 100}) EXPECT_EQ(model->IncumbentAt(&batch), CandidateIndex(*model, f.incumbent));
  }
  f.neighbour_incumbent = true;
  auto model = MustModel(f);
  ASSERT_TRUE(model);
  const long shared_index = CandidateIndex(*model, shared), file_index = CandidateIndex(*model, f.incumbent);
  for (int64_t batch : {12, 20, 40, 63}) EXPECT_EQ(model->IncumbentAt(&batch), shared_index) << "batch " << batch;
  // Nearest 512 and 64 (other, shared); nearest 2 and 8 (other, shared): no shared config; at 9, 8 and 2.
  for (int64_t batch : {300, 2048, 1, 3, 9}) EXPECT_EQ(model->IncumbentAt(&batch), file_index) << "batch " << batch;
  // At batch 8 itself its own entry is skipped: the nearest others are 2 and 64, which disagree; at 64 they are
  // 8 and 512, which disagree too.
  for (int64_t batch : {8, 64}) EXPECT_EQ(model->IncumbentAt(&batch), file_index) << "batch " << batch;

  // Decide keeps the shared config unless another beats it by the margin: with a margin of 100% more often than
  // with none, and exactly where the reference says so.
  size_t kept_with_margin = 0, kept_without = 0;
  for (float margin : {0.0f, 1.0f}) {
    PolicyFile g = f;
    g.switch_margin = margin;
    auto m = MustModel(g);
    ASSERT_TRUE(m);
    for (int64_t batch = 12; batch < 64; ++batch) {  // nearest 8 and 64 (below 11.3 batch 2 is nearer than 64)
      const ReferenceScreen screen = ScreenByReference(g, *m, {batch});
      size_t best = 0;
      for (size_t c = 1; c < screen.candidates.size(); ++c)
        if (screen.scores[c] > screen.scores[best]) best = c;
      const size_t incumbent = static_cast<size_t>(shared_index) + 1;  // index 0 is the greedy config
      const double lead = screen.scores[best] - screen.scores[incumbent];
      if (std::fabs(lead - std::log1p(static_cast<double>(margin))) < 1e-4) continue;
      const bool keep = lead <= std::log1p(static_cast<double>(margin));
      std::vector<uint32_t> decided(g.knobs.size());
      m->Decide(&batch, decided.data());
      if (best != incumbent && !keep) {
        EXPECT_EQ(decided, screen.candidates[best]) << "batch " << batch;
      }
      if (keep) {
        EXPECT_EQ(decided, shared) << "margin " << margin << " batch " << batch;
      }
      (margin > 0 ? kept_with_margin : kept_without) += decided == shared;
    }
  }
  EXPECT_GT(kept_with_margin, kept_without) << "the margin never kept the shared config over a better score";

  // A shared config the mask forbids is never the incumbent.
  PolicyFile masked = f;
  size_t plan_knob = 0;  // a knob whose value in the shared config neither other config holds
  while (plan_knob < f.knobs.size() && (!f.knobs[plan_knob].plan || shared[plan_knob] == other[plan_knob] ||
                                        shared[plan_knob] == f.incumbent[plan_knob]))
    ++plan_knob;
  ASSERT_LT(plan_knob, f.knobs.size()) << "the random configs leave no value to mask";
  masked.mask[plan_knob][shared[plan_knob]] = 0;
  auto masked_model = MustModel(masked);
  ASSERT_TRUE(masked_model);
  int64_t batch = 20;
  EXPECT_EQ(masked_model->IncumbentAt(&batch), CandidateIndex(*masked_model, f.incumbent));
}

// The neighbours' incumbent, two edges of its rule: a distance tie for second place is broken by table order, and a
// dim beyond its declared range counts as the range's end (as the networks see it), which can change the pair.
TEST(PolicyModelTest, TheNeighbourIncumbentBreaksTiesByTableOrderAndClampsDimsToTheirRange) {
  auto neighbour_policy = [](TestWorkload workload, std::vector<std::vector<int64_t>> table_dims,
                             std::vector<int> labels, std::vector<uint32_t>* shared) {
    SyntheticPolicyOptions options;
    options.workload = workload;
    options.critic_members = 3;
    options.seed = 4;
    options.table_dims = std::move(table_dims);
    PolicyFile f = MakeSyntheticPolicy(options);
    std::mt19937 rng(8);
    const std::vector<uint32_t> configs[2] = {RandomConfig(f, rng), RandomConfig(f, rng)};
    f.incumbent = RandomConfig(f, rng);
    EXPECT_NE(configs[0], configs[1]);
    EXPECT_NE(configs[0], f.incumbent);
    for (size_t e = 0; e < labels.size(); ++e) f.table[e].config = configs[labels[e]];
    f.switch_margin = 0.05f;
    f.neighbour_incumbent = true;
    *shared = configs[0];
    return f;
  };
  std::vector<uint32_t> shared;
  // Batch 32 (log2 5): 36 is nearest, 16 and 64 tie for second (distance 1 each). 36 and 16 share a config, 64
  // holds another: the entry listed first of the two tied decides.
  {
    auto model = MustModel(neighbour_policy(TestWorkload::kDlrmMlp, {{36}, {16}, {64}}, {0, 0, 1}, &shared));
    ASSERT_TRUE(model);
    int64_t batch = 32;
    EXPECT_EQ(model->IncumbentAt(&batch), CandidateIndex(*model, shared)) << "16 is listed before 64";
  }
  {
    PolicyFile f = neighbour_policy(TestWorkload::kDlrmMlp, {{36}, {64}, {16}}, {0, 1, 0}, &shared);
    auto model = MustModel(f);
    ASSERT_TRUE(model);
    int64_t batch = 32;
    EXPECT_EQ(model->IncumbentAt(&batch), CandidateIndex(*model, f.incumbent)) << "64 is listed before 16";
  }
  // bert_attention, batch in [1, 16], seq in [8, 512] (log2: [0, 4] and [3, 9]). Entries (16, 8) and (1, 8) share
  // a config, (16, 512) holds another. At batch 1024, seq 8 — batch counted as 16 — the nearest are (16, 8) and
  // (1, 8) (log2 distances 0 and 16): shared. Unclamped, (16, 512) would be second (36 and 72, against 100).
  {
    PolicyFile f = neighbour_policy(TestWorkload::kBertAttention, {{16, 8}, {16, 512}, {1, 8}}, {0, 1, 0}, &shared);
    ASSERT_EQ(f.dims.size(), 2u);
    ASSERT_EQ(f.dims[0].max, 16);
    auto model = MustModel(f);
    ASSERT_TRUE(model);
    const int64_t beyond[2] = {1024, 8}, inside[2] = {16, 300};
    EXPECT_EQ(model->IncumbentAt(beyond), CandidateIndex(*model, shared)) << "batch 1024 counts as 16";
    // Inside the range, nearest (16, 512) then (16, 8): no shared config.
    EXPECT_EQ(model->IncumbentAt(inside), CandidateIndex(*model, f.incumbent));
  }
  // Below the range: entries (16, 8) and (16, 16) share a config, (4, 8) holds another. At batch 16, seq 2 —
  // counted as 8 — the nearest are (16, 8) and (16, 16) (0 and 1, against 4): shared. Unclamped (log2 seq 1) they
  // would be (16, 8) and (4, 8) (4 and 8, against 9).
  {
    PolicyFile f = neighbour_policy(TestWorkload::kBertAttention, {{16, 8}, {16, 16}, {4, 8}}, {0, 0, 1}, &shared);
    ASSERT_EQ(f.dims[1].min, 8);
    auto model = MustModel(f);
    ASSERT_TRUE(model);
    const int64_t below[2] = {16, 2};
    EXPECT_EQ(model->IncumbentAt(below), CandidateIndex(*model, shared)) << "seq 2 counts as 8";
  }
}

}  // namespace
}  // namespace crmap
