// Policy file: a learned mapping policy as crmap's own self-contained, versioned, checksummed binary format
// (docs/policy-format.md). Written by `crmap train`, read by the runtime hook (libcrmap_hook), which must not
// need the workload files, LibTorch or oneDNN: the file carries everything — the knobs with their value names,
// the dims with their ranges, the feature spec, the policy and critic weights, the table of tuned shapes, the
// fallback and incumbent configs, the host it was tuned on and how it was trained.
//
// Layout: magic "CRMAPPOL", u32 format version, u32 flags (0), u64 payload length, payload, u64 FNV-1a checksum
// of everything before it. All integers little-endian; floats IEEE-754 binary32, strings u32 length + bytes,
// arrays u32 count + items. DecodePolicyFile returns Corruption for any truncated, oversized or inconsistent
// input (never reads out of bounds, never allocates more than the input could hold), InvalidArgument for a
// format version it does not read. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace crmap {

constexpr char kPolicyMagic[8] = {'C', 'R', 'M', 'A', 'P', 'P', 'O', 'L'};
// Written; 2 added the workload's source, 3 the critic ensemble, the pessimism and the table's confidences, 4 the
// confidence calibration, 5 the incumbent config and its switch margin, 6 the neighbours' incumbent.
constexpr uint32_t kPolicyFormatVersion = 6;
constexpr uint32_t kOldestPolicyFormatVersion = 1;  // read

// Limits a decoder enforces before allocating: a file claiming more is corrupt.
constexpr uint32_t kMaxPolicyString = 4096;
constexpr uint32_t kMaxPolicyDims = 8;
constexpr uint32_t kMaxPolicyKnobs = 64;
constexpr uint32_t kMaxKnobValues = 64;
constexpr uint32_t kMaxHidden = 1024;
constexpr uint32_t kMaxLayerInputs = 8192;
constexpr uint32_t kMaxTableEntries = 1000000;
constexpr uint32_t kMaxCriticMembers = 16;
constexpr uint32_t kMaxCriticFloats = 4096;  // (1 + critic members) x critic hidden size: the hook's stack scratch
constexpr uint32_t kMaxCalibrationBins = 16;
constexpr uint64_t kMaxPolicyFileBytes = uint64_t{256} << 20;  // a whole file (ReadPolicyFile)

struct PolicyDim {
  std::string name;
  int64_t min = 1;
  int64_t max = 1;
};

struct PolicyKnob {
  std::string name;
  bool plan = true;  // false: a runtime knob (batching, placement), always answered with its default
  std::vector<std::string> values;
  uint32_t default_index = 0;
};

// One feature of the feature spec: "dim.<name>" (log-scaled, lo/hi = log2 of the range) or
// "knob.<name>=<value>" (one-hot). The loader checks the spec against the dims and knobs.
struct PolicyFeature {
  std::string name;
  double lo = 0;
  double hi = 1;
};

// y = W x + b, W row-major [out][in].
struct DenseLayer {
  uint32_t in = 0;
  uint32_t out = 0;
  std::vector<float> weights;
  std::vector<float> bias;
};

// The autoregressive factorised policy (agents/policy_network.h): trunk tanh(L2(tanh(L1([dims, one-hot of
// choices so far])))), one head per plan knob, plan knobs decided in order.
struct PolicyNetworkWeights {
  DenseLayer trunk1;
  DenseLayer trunk2;
  std::vector<DenseLayer> heads;  // one per plan knob, in knob order
};

// The critic (agents/cost_model.h): relu MLP over the full feature vector -> predicted log speedup over the
// default config.
struct CriticWeights {
  DenseLayer layer1;
  DenseLayer layer2;
  DenseLayer layer3;
};

struct TableEntry {
  std::vector<int64_t> dims;      // in the order of PolicyFile::dims
  std::vector<uint32_t> config;   // one value index per knob
  float median_us = 0;
  float p99_us = 0;
  float speedup = 0;              // over the default config at that shape, measured side by side
  // How sure the policy is that `config` is within 5% of the best config at that shape, in [0, 1]
  // (policy_model.h: ConfidenceOf — the ensemble's agreement, calibrated from version 4); -1 when unknown (a file
  // before version 3, or trained without critic members).
  float confidence = -1;
};

// Since version 4: one band of the critic ensemble's agreement (policy_model.h) and what it was worth at
// training, leaving each tuned shape out (tuner/confidence_calibration.h). The hook states `rate` as the
// confidence of every decision whose agreement falls in the band.
struct CalibrationBin {
  float from = 0;       // agreement at or above this, up to the next bin's `from` (the first bin starts at 0)
  uint32_t folds = 0;   // held-out tuned shapes whose agreement fell here and whose choice was measured there
  uint32_t within = 0;  // ... where that choice stood within the noise band of the best measured there
  float rate = 0;       // in [0, 1]: the share within, shrunk towards the overall share
};

struct PolicyHost {
  std::string cpu;
  std::string isa;
  std::string onednn_version;
  uint32_t cores = 0;
};

struct TrainingInfo {
  std::string db_path;
  std::string db_digest;     // FNV-1a 64 of the database file, hex
  std::string date;          // UTC ISO 8601
  std::string crmap_version;
  uint64_t records_used = 0;
  uint64_t seed = 0;
};

struct PolicyFile {
  std::string workload;
  std::string workload_fingerprint;
  std::string workload_source;  // "builtin", the workload file's absolute path, or "" (unknown; version 1)
  std::string space_fingerprint;
  std::vector<PolicyDim> dims;
  std::vector<PolicyKnob> knobs;
  std::vector<PolicyFeature> features;
  std::vector<std::vector<uint8_t>> mask;  // [knob][value]: 1 = the policy may choose it
  PolicyNetworkWeights policy;
  CriticWeights critic;
  // Since version 3: critics of the same layout trained on bootstrap resamples of the training data (their
  // spread is the decision's uncertainty; empty before version 3), and how much a decision away from the table
  // discounts a candidate for that spread (it maximises mean - pessimism x standard deviation over the critics).
  std::vector<CriticWeights> critic_members;
  float pessimism = 0;
  std::vector<CalibrationBin> calibration;  // since version 4; empty: the hook states the raw agreement
  std::vector<float> latency_model;  // log(default latency, us) = sum_i w_i * dim_feature_i + w_last
  std::vector<TableEntry> table;
  std::vector<uint32_t> fallback;    // one value index per knob
  // Since version 5: the config a decision away from the table keeps unless another candidate's score (mean -
  // pessimism x spread of the critics) beats its own by log(1 + switch_margin) — `crmap train` stores the static
  // plan, the best config across the tuned shapes (policy_trainer.h: ChooseStaticPlan; policy_model.h: Decide). Empty (and a margin of 0): no
  // incumbent, the best score wins (files before version 5).
  std::vector<uint32_t> incumbent;  // empty or one value index per knob
  float switch_margin = 0;           // in [0, 1]
  // Since version 6: where the two tuned shapes nearest a shape away from the table share their label, that
  // label is the incumbent there instead (policy_model.h: IncumbentAt) — a config best at the two tuned shapes
  // nearest a shape is the one to leave only for a predicted gain beyond the margin. Needs an incumbent; false
  // before version 6.
  bool neighbour_incumbent = false;
  PolicyHost host;
  TrainingInfo training;
};

std::string EncodePolicyFile(const PolicyFile& file);
Result<PolicyFile> DecodePolicyFile(std::string_view bytes);
// Internal consistency: the feature spec matches dims and knobs, every layer fits the next, every index is in
// range, every weight finite. DecodePolicyFile runs it; EncodePolicyFile callers should too.
Status ValidatePolicyFile(const PolicyFile& file);

// Reads and decodes; NotFound for a missing file (the message names it).
Result<PolicyFile> ReadPolicyFile(const std::string& path);
// Encodes and writes through a temporary file and rename(2).
Status WritePolicyFile(const std::string& path, const PolicyFile& file);

// The canonical config string ("knob=value;...") of value indices under `knobs`.
std::string PolicyConfigString(const std::vector<PolicyKnob>& knobs, const std::vector<uint32_t>& config);

}  // namespace crmap
