// SearchSpace: the knobs of one workload, their domains and constraints, and the Config values they span.
//
// Built from a workload graph (see docs/search-space.md):
//   plan knobs     fuse.<op> (per compute op, how far along its fusion chain), layout (image workloads only),
//                  weights (stored | packed), precision (f32 | bf16), threads (1 .. host cores)
//   runtime knobs  batch (max batch size), queue_delay_us (max queue delay), placement (shared | per_core)
// The backend compiles plan knobs; the serving runtime applies runtime knobs. A Config holds one value index
// per knob. Its canonical string ("fuse.fc1=bias;...;placement=shared", every knob in space order) and its
// id (mixed-radix over the domains) both round-trip. The default config is what a user gets without crmap:
// no fusion, plain layout, weights as stored, f32, all cores, batch 1.
//
// A SearchSpace is immutable after Build; every method is const and thread-safe.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/workload.h"
#include "search_space/fusion.h"

namespace crmap {

// The largest number of configs a space may span (ids are uint64).
constexpr uint64_t kMaxSpaceSize = uint64_t{1} << 62;

enum class KnobKind { kFusion, kLayout, kWeights, kPrecision, kThreads, kBatch, kQueueDelay, kPlacement };
enum class KnobScope { kPlan, kRuntime };

struct Knob {
  std::string name;  // "fuse.fc1", "layout", ...
  KnobKind kind = KnobKind::kFusion;
  KnobScope scope = KnobScope::kPlan;
  std::vector<std::string> values;
  int default_index = 0;
  std::string help;
  size_t op_index = 0;  // kFusion: the compute op the knob belongs to
};

// One value index per knob of a SearchSpace, in the space's knob order.
struct Config {
  std::vector<int> values;
  bool operator==(const Config& other) const { return values == other.values; }
  bool operator!=(const Config& other) const { return values != other.values; }
  bool operator<(const Config& other) const { return values < other.values; }
};

struct SpaceOptions {
  int max_threads = 0;  // 0: the host's hardware concurrency
};

// Limits every candidate must respect; configs that break them get a failing status, not a crash.
struct SpaceConstraints {
  int64_t memory_budget_bytes = 0;  // peak bytes of a compiled plan
  AccuracyBudget accuracy;          // bound on the scaled error vs the f32 reference, per precision
};

class SearchSpace {
 public:
  static Result<SearchSpace> Build(const Workload& workload, SpaceOptions options = {});

  const std::string& workload_name() const { return workload_name_; }
  const std::vector<Knob>& knobs() const { return knobs_; }
  const SpaceConstraints& constraints() const { return constraints_; }
  // Hex digest over the workload fingerprint and every knob with its domain.
  const std::string& fingerprint() const { return fingerprint_; }

  // Index of the knob called `name`, or -1.
  int FindKnob(const std::string& name) const;
  // Index of the first knob of this kind, or -1 (fusion knobs: use FindKnob("fuse.<op>")).
  int FindKnobOfKind(KnobKind kind) const;
  // The value name of knob `kind` in `config` ("" if the space has no such knob).
  std::string ValueOf(const Config& config, KnobKind kind) const;
  // Number of configs over the knobs of `scope` (the others held at their defaults).
  uint64_t Size(KnobScope scope) const;
  uint64_t TotalSize() const;

  Config Default() const;
  // Accepts "default", a canonical or partial "knob=value;knob=value" string (missing knobs take their
  // defaults), or a JSON object {"knob": value}. InvalidArgument names an unknown knob or value and lists
  // what is allowed.
  Result<Config> Parse(const std::string& text) const;
  std::string ToString(const Config& config) const;
  // Only the plan knobs: the key under which a compiled plan can be cached.
  std::string PlanKey(const Config& config) const;
  uint64_t ToId(const Config& config) const;
  Result<Config> FromId(uint64_t id) const;
  // Same config with its runtime knobs set to their defaults.
  Config PlanPart(const Config& config) const;
  Status Validate(const Config& config) const;

  // Every config over the knobs of `scope`, others at defaults, in id order.
  std::vector<Config> Enumerate(KnobScope scope = KnobScope::kPlan) const;
  // The i-th config of Enumerate(scope) without materialising the list; i < Size(scope).
  Config NthConfig(uint64_t i, KnobScope scope = KnobScope::kPlan) const;
  Config Sample(std::mt19937_64& rng, KnobScope scope = KnobScope::kPlan) const;
  // Configs that differ from `config` in exactly one knob of `scope`.
  std::vector<Config> Neighbours(const Config& config, KnobScope scope = KnobScope::kPlan) const;

  // How far `config` fuses: the sum over its fusion knobs of how far along each op's chain it fuses (0: none).
  int FusionDepth(const Config& config) const;
  // Whether `deeper` is `than` fused further: equal in every other knob, at least as far along every op's chain
  // and further along one. Fusing a step of the chain moves work that would run as its own primitive (a bias
  // add, an eltwise op, a residual add) into the producer's post-ops, which saves a pass over the op's output;
  // the labels prefer such a config where the measurements cannot tell the two apart (tuner/config_scores.h).
  bool FusesFurther(const Config& deeper, const Config& than) const;

 private:
  std::string workload_name_;
  std::vector<Knob> knobs_;
  SpaceConstraints constraints_;
  std::string fingerprint_;
};

const char* KnobKindName(KnobKind kind);

}  // namespace crmap
