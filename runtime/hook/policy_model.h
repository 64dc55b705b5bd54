// PolicyModel: a decoded policy file compiled for answering queries fast, in plain C++ (no LibTorch).
//
// Decide() runs the policy network's greedy decode — knob by knob, masked — as PolicyNetwork::Sample(greedy)
// does in LibTorch, with the first layer updated incrementally (one weight column added per chosen knob
// value) instead of recomputed, weights transposed for vectorised loops and a tanh accurate to 1.5e-7 (the
// choices agree with LibTorch's; only exact ties could differ). PredictLatencyUs() combines the latency model
// (log latency of the default config by shape) with the critics (log speedup of a config: the main critic and,
// from format version 3, its bootstrap members; their mean is the prediction, their spread the uncertainty).
// Table lookups are a binary search. Nothing here allocates after Create: scratch lives on the stack (hidden
// sizes and member counts are bounded).
//
// Immutable after Create; every method is const and safe to call from many threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "runtime/hook/policy_file.h"

namespace crmap {

class PolicyModel {
 public:
  // A dense layer with its weights transposed to [in][out] (the layout the evaluator's loops want).
  struct Transposed {
    uint32_t in = 0;
    uint32_t out = 0;
    std::vector<float> weights;
    std::vector<float> bias;
  };

  static Result<std::unique_ptr<PolicyModel>> Create(PolicyFile file);

  const PolicyFile& file() const { return file_; }
  size_t dim_count() const { return file_.dims.size(); }
  size_t knob_count() const { return file_.knobs.size(); }

  // Index into file().table of the entry for exactly these dims (dim_count() values), or -1.
  long FindTableEntry(const int64_t* dims) const;
  // The hook's answer for dims it has no table entry for: among the policy network's greedy config, the
  // distinct best configs of the tuned shapes, the fallback and the incumbent, the one the critics predict
  // fastest at these dims (the rl agent's screening, with the candidates the table vouches for): the largest
  // score, the mean predicted log speedup minus file().pessimism x its standard deviation over the critics —
  // except that a policy with an incumbent (format version 5) keeps it unless the largest score beats the
  // incumbent's by log(1 + file().switch_margin): a predicted gain smaller than the margin is not worth leaving
  // the config that was good across the tuned shapes (or, with file().neighbour_incumbent, IncumbentAt the dims).
  // knob_count() value indices into `config`; runtime knobs at their defaults. `confidence`, when not null,
  // receives ConfidenceOf the choice.
  // Returns the critics' mean predicted log speedup of the chosen config.
  double Decide(const int64_t* dims, uint32_t* config, double* confidence = nullptr) const;
  // How sure the policy is that `config` is within 5% of the best config at `dims`. Its agreement: the share of
  // the critics (main and members) whose prediction for it is within log(1.05) of their own best prediction
  // among the candidates Decide screens and `config`; stated through the file's calibration (Calibrated), or
  // raw when it has none (before format version 4). -1 (unknown) for a policy without members.
  double ConfidenceOf(const int64_t* dims, const uint32_t* config) const;
  // The confidence stated for an agreement: the rate of the calibration bin it falls in (policy_file.h:
  // CalibrationBin), or the agreement itself without a calibration; -1 stays -1.
  double Calibrated(double agreement) const;
  // Index into screened_candidates() of the config Decide keeps at `dims` unless beaten by the switch margin, or -1
  // (none). The file's incumbent — except, with file().neighbour_incumbent, where the two table entries nearest
  // `dims` (squared log2 distance over the dims, each clamped to its declared range as the networks see it; an
  // entry at exactly `dims` is skipped, so Decide at a tuned shape answers as if it were not in the table) share a
  // config the mask allows: then that config. A scan of the table, no allocation.
  long IncumbentAt(const int64_t* dims) const;
  // The critics: the main one and its members (1 + file().critic_members.size()).
  size_t critic_count() const { return critics_.size(); }
  // The policy network's own greedy config (what PolicyNetwork::Sample(greedy) gives in LibTorch).
  void DecodeGreedy(const int64_t* dims, uint32_t* config) const;
  // The configs Decide screens besides the greedy one: the table's distinct configs, the fallback and the
  // incumbent (those the mask allows).
  const std::vector<std::vector<uint32_t>>& screened_candidates() const { return candidates_; }
  // Predicted latency of `config` at `dims`, in microseconds.
  double PredictLatencyUs(const int64_t* dims, const uint32_t* config) const;
  // The same from a predicted log speedup over the default (what Decide returns).
  double LatencyFromLogSpeedup(const int64_t* dims, double log_speedup) const;
  // The critics' mean predicted log speedup of `config` over the default config at `dims`.
  double PredictLogSpeedup(const int64_t* dims, const uint32_t* config) const;
  // Sets the runtime knobs (batching, placement) of `config` to the policy's values for them: each knob's
  // default_index, which `crmap tune --requests` sets to what serving measured best. Every answer passes here.
  void SetRuntimeKnobs(uint32_t* config) const {
    for (size_t k : runtime_knobs_) config[k] = file_.knobs[k].default_index;
  }
  // Mixed-radix id of a config (first knob least significant) and back.
  uint64_t ConfigId(const uint32_t* config) const;
  void ConfigFromId(uint64_t id, uint32_t* config) const;
  // Writes the canonical config string, NUL-terminated; returns its length, or 0 if `capacity` is too small.
  size_t FormatConfig(const uint32_t* config, char* buffer, size_t capacity) const;
  // The longest canonical config string this policy can produce (without the NUL).
  size_t max_config_length() const { return max_config_length_; }
  // Whether every config has a distinct uint64 ConfigId (the space has fewer than 2^64 configs).
  bool ids_fit() const { return ids_fit_; }

 private:
  explicit PolicyModel(PolicyFile file) : file_(std::move(file)) {}
  static Transposed Transpose(const DenseLayer& layer);
  // One critic, transposed, with the sum of its first-layer knob rows for each screened candidate.
  struct Critic {
    Transposed layer1, layer2, layer3;
    std::vector<std::vector<float>> candidate_rows;
  };
  void DimFeatures(const int64_t* dims, float* out) const;
  // A critic's first layer without the knob one-hots: bias + weights x dim features.
  void CriticDimPart(const Critic& critic, const int64_t* dims, float* out) const;
  // Adds the first-layer rows of `config`'s one-hots to `layer1`.
  void AddCriticKnobRows(const Critic& critic, const uint32_t* config, float* layer1) const;
  // A critic's output from its complete first-layer pre-activation.
  static double CriticFromLayer1(const Critic& critic, const float* layer1);
  // Screens the greedy config (in `greedy`) and the candidates at `dims`; writes the choice into `config` unless
  // `forced` names the config to judge instead. Returns its mean prediction; `confidence` gets its share.
  double Screen(const int64_t* dims, const uint32_t* greedy, const uint32_t* forced, uint32_t* config,
                double* confidence) const;

  PolicyFile file_;
  std::vector<uint32_t> table_order_;     // table indices sorted by dims
  std::vector<size_t> plan_knobs_;        // knob indices of plan knobs
  std::vector<size_t> runtime_knobs_;     // knob indices of runtime knobs
  std::vector<size_t> choice_offset_;     // per plan knob: first one-hot slot in the policy input
  std::vector<size_t> feature_offset_;    // per knob: first one-hot slot in the critic input (plan knobs only)
  Transposed trunk1_, trunk2_;
  std::vector<Critic> critics_;  // the main critic first, then the members
  std::vector<std::vector<uint32_t>> candidates_;
  long incumbent_index_ = -1;       // into candidates_: file().incumbent, or -1 (none, or the mask forbids it)
  std::vector<long> table_candidate_;  // per table entry: its config's index into candidates_, -1 if masked
  std::vector<double> table_log2_;     // per table entry, per dim: log2 of the dim (at least 1)
  double switch_log_margin_ = 0;    // log(1 + file().switch_margin)
  size_t max_config_length_ = 0;
  bool ids_fit_ = true;
  std::vector<Transposed> heads_;
};

}  // namespace crmap
