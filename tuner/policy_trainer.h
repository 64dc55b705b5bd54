// Policy trainer: a tuning database in, a policy file out (`crmap train`).
//
// Data flow: the database's records of one workload and space -> one observation per shape and config at its
// median score (replay_evaluator.h: ScoredObservations) and a noise-aware label per tuned shape
// (config_scores.h: NoiseAwareLabel) -> the rl agent learns them offline (critic on every observation, then the
// policy towards each label and the critic's view of every shape) -> critic members on bootstrap resamples ->
// PolicyFile: the knobs, dims and feature spec of the space, the policy, critic and member weights, the learned
// mask, a latency model of the default config by shape (least squares on the tuned shapes), the table of tuned
// shapes with their labels and the ensemble's confidence in each, a fallback config, the incumbent (the static
// plan, which a decision away from the table keeps unless the critics predict a gain beyond the switch margin),
// the confidence calibration (each tuned shape left out in turn: tuner/confidence_calibration.h), the host the
// database was measured on, and training metadata. Deterministic for a seed when LibTorch runs on one thread
// (OMP_NUM_THREADS=1); with more, reductions may differ in the last bits between runs. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/workload.h"
#include "search_space/search_space.h"
#include "runtime/hook/policy_file.h"
#include "tuner/config_scores.h"
#include "tuner/tuning_db.h"

namespace crmap {

struct TrainOptions {
  uint64_t seed = 1;
  int critic_epochs = 800;
  int policy_steps = 400;
  int hidden = 32;  // width of the exported networks (the hook's decide cost grows with it)
  // Critics besides the main one, each trained on a bootstrap resample of the observations (same epochs, its
  // own seed): their spread is each decision's confidence (policy_model.h). 0: none (confidence unknown).
  int critic_members = 4;
  float pessimism = 1;  // a decision away from the table maximises mean - pessimism x spread of the critics
  // ... but keeps the static plan (the incumbent) unless another config's score beats it by log(1 + this):
  // policy_model.h, Decide. In [0, 1].
  float switch_margin = 0.05f;
  // ... or, where the two tuned shapes nearest a shape share their label, that label (policy_file.h:
  // neighbour_incumbent; `crmap train --incumbent neighbours`).
  bool neighbour_incumbent = false;
  std::string db_path;  // recorded in the training metadata
};

// One tuned shape as `crmap train` reports it: the table's label there, the policy's own answer (PolicyModel::Decide,
// as if the shape were not in the table) and how that answer stands against the best measured there, within 5%
// (kNoiseBand) and within the labels' tie band (StandingAt; kUnknown: never measured ok there).
struct TunedShapeAnswer {
  Dims dims;
  std::string label;
  std::string policy_answer;
  Standing within_5pct = Standing::kUnknown;
  Standing within_label_band = Standing::kUnknown;
};

struct TrainReport {
  size_t records = 0;        // records used
  size_t ignored = 0;        // records of this workload refused by CheckRecordFits (named in warnings on stderr)
  size_t shapes = 0;         // tuned shapes (with a measured default config)
  double critic_loss = 0;    // mean squared error on the records
  // A record's noise as the database shows it (config_scores.h: EstimateRecordNoise; 0: too few changes to say)
  // and the tie band it gives the labels between two configs of one record each (TieBand).
  double record_noise = 0;
  double label_tie_band = kNoiseBand;
  size_t policy_agrees = 0;  // tuned shapes where the policy's own choice (PolicyModel::Decide) is the table's best
  // ... where it is the best or tied with it within kNoiseBand (config_scores.h: StandingAt); where it is tied
  // within the labels' own tie band (the record noise the database shows, as the labels and the leave-one-out
  // folds judge: at least kNoiseBand); and where its choice was never measured ok there, so no one can say.
  size_t policy_within_noise = 0;
  size_t policy_within_label_band = 0;
  size_t policy_choice_unmeasured = 0;
  std::vector<TunedShapeAnswer> tuned_shapes;  // per tuned shape, in the table's order (the counts above, shown)
  std::string fallback;      // the fallback config's canonical string
  std::string incumbent;     // the incumbent's (the static plan)
  double mean_table_confidence = -1;  // over the table's entries (-1 without critic members)
  // Leave-one-shape-out (confidence_calibration.h; none without critic members): folds run, folds whose choice
  // was measured at the shape left out, and of those where it stood within the noise band of the best there —
  // the policy's accuracy at shapes it never saw, as far as the database can tell.
  size_t calibration_folds = 0;
  size_t calibration_measured = 0;
  size_t calibration_within = 0;
  std::vector<CalibrationBin> calibration;  // as written into the policy file
};

// The fallback: among configs measured ok at every tuned shape (and never failing anywhere), the one with the
// best worst-case speedup over the default; the default config when no other qualifies.
Config ChooseFallback(const SearchSpace& space, const std::vector<TuningRecord>& records, const std::vector<Dims>& shapes);
// ... from the records' scores (config_scores.h: ScoreConfigs), when the caller has them already.
Config ChooseFallback(const SearchSpace& space, const std::map<Dims, ShapeScores>& scores,
                      const std::vector<Dims>& shapes);

// The static plan: among configs never failing and measured ok at StaticPlanCoverage of the tuned shapes or more,
// the best geometric-mean speedup over the default at the shapes where each was measured (what one config for the
// whole distribution, as a TensorRT optimisation profile has, would be) — or, among those whose geometric mean is
// within the tie band of the best's (config_scores.h: TieBand over the database's record noise, one record per
// shape each side measured it at), the one that fuses furthest beyond it (config_scores.h: DeepestFusionOf), as the
// labels do. The default config when no config qualifies.
// Each mean is over the shapes where that config was measured, so two candidates' means may cover different
// shapes (at most a quarter apart); a search that measures a config where it expects it to do well flatters it —
// the price of a rule that still has a choice when no config but the default was measured everywhere.
// Why not "measured at every tuned shape" (the rule before 2026-12-08): a campaign of 24 tuned shapes at 10% of
// each one's space measures ~2-11 configs per shape, and no config but the default (every shape's anchor) may
// reach all 24 — the static plan, and with it the incumbent a decision away from the table keeps, was then the
// unfused default (RESULTS.md, "A static plan measured at three quarters of the tuned shapes").
inline constexpr double kStaticPlanCoverage = 0.75;
// The tuned shapes a static plan candidate must have been measured at: ceil(kStaticPlanCoverage x shapes) (every
// shape of 1 or 2; 3 of 4; 18 of 24).
size_t StaticPlanCoverage(size_t shapes);
Config ChooseStaticPlan(const SearchSpace& space, const std::vector<TuningRecord>& records,
                        const std::vector<Dims>& shapes);
Config ChooseStaticPlan(const SearchSpace& space, const std::map<Dims, ShapeScores>& scores,
                        const std::vector<Dims>& shapes);

// A config from the hook's value indices (one per knob, as PolicyModel::Decide writes them).
Config ConfigFromValueIndices(const SearchSpace& space, const std::vector<uint32_t>& values);

Result<PolicyFile> TrainPolicy(const Workload& workload, const SearchSpace& space,
                               const std::vector<TuningRecord>& records, const TrainOptions& options,
                               TrainReport* report);

// `crmap train` end to end: reads `db_path`, finds its workload (workload_resolver.h: `workload` is --workload,
// "" for the database's only one), trains on the records of its current fingerprints and writes the policy to
// `out_path` atomically. `options.db_path` is set to the database's absolute path. On success *workload_name
// names the workload. InvalidArgument when the database holds no usable records; nothing is written on failure.
Status TrainFromDatabase(const std::string& db_path, const std::string& workload, const std::string& out_path,
                         TrainOptions options, TrainReport* report, std::string* workload_name);

}  // namespace crmap
