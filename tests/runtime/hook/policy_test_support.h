// Synthetic policy files for the runtime hook's tests, built without LibTorch or the search space code.
//
// PolicySkeleton() gives the identity, dims and knobs of a built-in workload's space exactly as
// SearchSpace::Build(workload, {max_threads = 2}) produces them, and its feature spec exactly as FeatureSpec
// (policy_file_test checks both against the real classes). MakeSyntheticPolicy() fills in random finite
// weights from a seeded std::mt19937, a small table of tuned shapes and a fallback: a file that
// ValidatePolicyFile accepts and PolicyModel can answer from. The helpers depend only on the codec
// (runtime/hook/policy_file.h), so the ThreadSanitizer test, the fuzz corpus writer and the example's test
// policy writer use them too. Pure functions apart from the temp-file helpers; no gtest.
#pragma once

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/hash.h"
#include "runtime/hook/host_isa.h"
#include "runtime/hook/policy_file.h"

namespace crmap::testing {

enum class TestWorkload { kDlrmMlp, kBertFfn, kBertAttention };

// The feature spec FeatureSpec(workload, space) defines: "dim.<name>" over log2 of the range, then a one-hot
// "knob.<name>=<value>" per value of every plan knob.
inline std::vector<PolicyFeature> FeaturesFor(const std::vector<PolicyDim>& dims,
                                              const std::vector<PolicyKnob>& knobs) {
  std::vector<PolicyFeature> features;
  for (const auto& d : dims)
    features.push_back({"dim." + d.name, std::log2(static_cast<double>(d.min)), std::log2(static_cast<double>(d.max))});
  for (const auto& k : knobs)
    if (k.plan)
      for (const auto& v : k.values) features.push_back({"knob." + k.name + "=" + v, 0, 1});
  return features;
}

// Workload identity, dims, knobs and features of a built-in workload's space with max_threads = 2 (what
// `crmap space --workload <name>` prints on a 2-core host). No weights, table or fallback.
inline PolicyFile PolicySkeleton(TestWorkload workload) {
  PolicyFile f;
  std::vector<PolicyKnob> fusion;
  switch (workload) {
    case TestWorkload::kDlrmMlp:
      f.workload = "dlrm_mlp";
      f.workload_fingerprint = "d8ba560ff601b4ea";
      f.space_fingerprint = "fcc4c33d5ac5594f";
      f.dims = {{"batch", 1, 2048}};
      fusion = {{"fuse.fc1", true, {"none", "bias", "bias+relu"}, 0},
                {"fuse.fc2", true, {"none", "bias", "bias+relu"}, 0},
                {"fuse.head", true, {"none", "bias", "bias+sigmoid"}, 0}};
      break;
    case TestWorkload::kBertFfn:
      f.workload = "bert_ffn";
      f.workload_fingerprint = "33c82878ef92a695";
      f.space_fingerprint = "704bf045453bad28";
      f.dims = {{"tokens", 1, 4096}};
      fusion = {{"fuse.fc1", true, {"none", "bias", "bias+gelu_erf"}, 0},
                {"fuse.fc2", true, {"none", "bias", "bias+add"}, 0}};
      break;
    case TestWorkload::kBertAttention:
      f.workload = "bert_attention";
      f.workload_fingerprint = "b6cccc29046da931";
      f.space_fingerprint = "f35e74cb76b36e99";
      f.dims = {{"batch", 1, 16}, {"seq", 8, 512}};
      fusion = {{"fuse.qkv", true, {"none", "bias"}, 0},
                {"fuse.scores", true, {"none", "linear"}, 0},
                {"fuse.proj", true, {"none", "bias", "bias+add"}, 0}};
      break;
  }
  f.knobs = fusion;
  f.knobs.push_back({"weights", true, {"stored", "packed"}, 0});
  f.knobs.push_back({"precision", true, {"f32", "bf16"}, 0});
  f.knobs.push_back({"threads", true, {"1", "2"}, 1});
  f.knobs.push_back({"batch", false, {"1", "4", "16", "64"}, 0});
  f.knobs.push_back({"queue_delay_us", false, {"0", "200", "1000", "5000"}, 0});
  f.knobs.push_back({"placement", false, {"shared", "per_core"}, 0});
  f.features = FeaturesFor(f.dims, f.knobs);
  for (const auto& k : f.knobs) f.mask.emplace_back(k.values.size(), uint8_t{1});
  return f;
}

struct SyntheticPolicyOptions {
  TestWorkload workload = TestWorkload::kDlrmMlp;
  uint32_t seed = 1;
  uint32_t hidden = 8;         // policy trunk width
  uint32_t critic_hidden = 8;  // critic width
  float weight_scale = 1.5f;   // weights ~ U(-scale, scale): large enough that answers vary with the shape
  // Shapes of the table (one value per dim); empty: a default set inside the dims' ranges.
  std::vector<std::vector<int64_t>> table_dims;
  // Knob values the mask forbids ({knob name, value name}).
  std::vector<std::pair<std::string, std::string>> masked;
  uint32_t critic_members = 2;  // random critics besides the main one (format version 3), with a pessimism of 0.5
  bool calibrated = false;      // with members: a three-band confidence calibration (format version 4)
  bool incumbent = false;       // a random incumbent config with a switch margin of 0.05 (format version 5)
};

// A random config: plan knobs uniform, runtime knobs at their defaults.
inline std::vector<uint32_t> RandomConfig(const PolicyFile& f, std::mt19937& rng) {
  std::vector<uint32_t> config;
  for (const auto& k : f.knobs)
    config.push_back(k.plan
                         ? std::uniform_int_distribution<uint32_t>(0, static_cast<uint32_t>(k.values.size() - 1))(rng)
                         : k.default_index);
  return config;
}

inline DenseLayer RandomLayer(uint32_t in, uint32_t out, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-scale, scale);
  DenseLayer layer;
  layer.in = in;
  layer.out = out;
  for (size_t i = 0; i < static_cast<size_t>(in) * out; ++i) layer.weights.push_back(u(rng));
  for (uint32_t i = 0; i < out; ++i) layer.bias.push_back(u(rng));
  return layer;
}

// A skeleton of made-up knobs: `dims` dims "d0".. over [1, 4096], `knobs` plan knobs "k0".. of `values`
// values "v0".. (default 0), and the runtime knob "batch"; features and an allow-all mask to match. For
// policies at or beyond the limits of the format and of the hook.
inline PolicyFile CustomSkeleton(size_t dims, size_t knobs, size_t values, const std::string& value_prefix = "v") {
  PolicyFile f;
  f.workload = "custom";
  f.workload_fingerprint = "0000000000000001";
  f.space_fingerprint = "0000000000000002";
  for (size_t d = 0; d < dims; ++d) f.dims.push_back({"d" + std::to_string(d), 1, 4096});
  for (size_t k = 0; k < knobs; ++k) {
    PolicyKnob knob{"k" + std::to_string(k), true, {}, 0};
    for (size_t v = 0; v < values; ++v) knob.values.push_back(value_prefix + std::to_string(v));
    f.knobs.push_back(knob);
  }
  f.knobs.push_back({"batch", false, {"1", "4"}, 0});
  f.features = FeaturesFor(f.dims, f.knobs);
  for (const auto& k : f.knobs) f.mask.emplace_back(k.values.size(), uint8_t{1});
  return f;
}

// Random weights, a table and a fallback for `skeleton` (identity, dims, knobs, features and mask set):
// ValidatePolicyFile accepts the result. options.workload is ignored.
inline PolicyFile FillSyntheticPolicy(PolicyFile skeleton, const SyntheticPolicyOptions& options) {
  PolicyFile f = std::move(skeleton);
  std::mt19937 rng(options.seed);
  for (const auto& [knob, value] : options.masked)
    for (size_t k = 0; k < f.knobs.size(); ++k)
      if (f.knobs[k].name == knob)
        for (size_t v = 0; v < f.knobs[k].values.size(); ++v)
          if (f.knobs[k].values[v] == value) f.mask[k][v] = 0;

  uint32_t choice_width = 0;
  for (const auto& k : f.knobs)
    if (k.plan) choice_width += static_cast<uint32_t>(k.values.size());
  const uint32_t dims = static_cast<uint32_t>(f.dims.size());
  const float s = options.weight_scale;
  f.policy.trunk1 = RandomLayer(dims + choice_width, options.hidden, s, rng);
  f.policy.trunk2 = RandomLayer(options.hidden, options.hidden, s, rng);
  for (const auto& k : f.knobs)
    if (k.plan) f.policy.heads.push_back(RandomLayer(options.hidden, static_cast<uint32_t>(k.values.size()), s, rng));
  const uint32_t features = static_cast<uint32_t>(f.features.size());
  f.critic.layer1 = RandomLayer(features, options.critic_hidden, 0.5f, rng);
  f.critic.layer2 = RandomLayer(options.critic_hidden, options.critic_hidden, 0.5f, rng);
  f.critic.layer3 = RandomLayer(options.critic_hidden, 1, 0.5f, rng);
  // log(default latency) = 2 + 6 * (scaled log dims): a few us at the smallest shape, a few ms at the largest.
  for (uint32_t i = 0; i < dims; ++i) f.latency_model.push_back(6.0f / static_cast<float>(dims));
  f.latency_model.push_back(2.0f);

  std::vector<std::vector<int64_t>> shapes = options.table_dims;
  if (shapes.empty()) {
    for (int64_t scale : {1, 32, 256}) {
      std::vector<int64_t> shape;
      for (const auto& d : f.dims) shape.push_back(std::min(d.max, std::max(d.min, scale)));
      shapes.push_back(shape);
    }
  }
  std::uniform_real_distribution<float> latency(5.0f, 500.0f), speedup(1.0f, 3.0f);
  for (const auto& shape : shapes) {
    TableEntry e;
    e.dims = shape;
    e.config = RandomConfig(f, rng);
    e.median_us = latency(rng);
    e.p99_us = e.median_us * 1.25f;
    e.speedup = speedup(rng);
    f.table.push_back(e);
  }
  f.fallback = RandomConfig(f, rng);
  f.workload_source = "builtin";
  f.host = {"Synthetic CPU", HostIsa(), "3.0.0", 2};  // this host's ISA: the hook refuses others
  f.training = {"synthetic.jsonl",
                "0000000000000000",
                "2026-01-01T00:00:00Z",
                "0.1.0",
                1234,
                static_cast<uint64_t>(options.seed)};
  // Drawn last, so the fields above are those of a policy without members for the same seed.
  for (uint32_t m = 0; m < options.critic_members; ++m) {
    CriticWeights member;
    member.layer1 = RandomLayer(features, options.critic_hidden, 0.5f, rng);
    member.layer2 = RandomLayer(options.critic_hidden, options.critic_hidden, 0.5f, rng);
    member.layer3 = RandomLayer(options.critic_hidden, 1, 0.5f, rng);
    f.critic_members.push_back(member);
  }
  if (options.critic_members > 0) {
    f.pessimism = 0.5f;
    std::uniform_real_distribution<float> share(0.0f, 1.0f);
    for (auto& e : f.table) e.confidence = share(rng);
    if (options.calibrated) f.calibration = {{0.0f, 3, 1, 0.3f}, {0.5f, 2, 1, 0.45f}, {0.8f, 5, 4, 0.75f}};
  }
  if (options.incumbent) {  // drawn after everything else, so the fields above stay those of a policy without
    f.incumbent = RandomConfig(f, rng);
    f.switch_margin = 0.05f;
  }
  return f;
}

// A valid policy of `options.workload` with random weights (ValidatePolicyFile accepts it).
inline PolicyFile MakeSyntheticPolicy(const SyntheticPolicyOptions& options = {}) {
  return FillSyntheticPolicy(PolicySkeleton(options.workload), options);
}

// Replaces the trailing FNV-1a checksum of an encoded policy so that a deliberately edited file passes the
// checksum and reaches the decoder's other checks.
inline std::string WithValidChecksum(std::string bytes) {
  if (bytes.size() < 8) return bytes;
  uint64_t sum = Fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8));
  std::memcpy(&bytes[bytes.size() - 8], &sum, 8);
  return bytes;
}

// A fresh directory for this process's files (under $TMPDIR or /tmp), created on first use and removed with
// its files when the process exits normally.
inline const std::string& TestTempDir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/crmap_hook_test.XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data())) return std::string("/tmp");
    return std::string(buffer.data());
  }();
  static const bool cleanup_registered = [] {
    if (dir == "/tmp") return false;
    return std::atexit([] {
             if (DIR* d = opendir(dir.c_str())) {
               while (dirent* entry = readdir(d))
                 if (std::strcmp(entry->d_name, ".") && std::strcmp(entry->d_name, ".."))
                   unlink((dir + "/" + entry->d_name).c_str());
               closedir(d);
             }
             rmdir(dir.c_str());
           }) == 0;
  }();
  (void)cleanup_registered;
  return dir;
}

inline std::string TestTempPath(const std::string& name) { return TestTempDir() + "/" + name; }

// Writes raw bytes (a valid encoding or a damaged one) to `path`; false on an I/O error.
inline bool WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out.flush());
}

// Encodes `file` (without validating it) into TestTempPath(name) and returns the path ("" on an I/O error).
inline std::string WriteTestPolicy(const std::string& name, const PolicyFile& file) {
  std::string path = TestTempPath(name);
  return WriteBytes(path, EncodePolicyFile(file)) ? path : "";
}

}  // namespace crmap::testing
