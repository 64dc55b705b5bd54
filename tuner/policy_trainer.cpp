#include "tuner/policy_trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "agents/cost_model.h"
#include "agents/rl_agent.h"
#include "common/file_read.h"
#include "common/hash.h"
#include "datasets/catalog.h"
#include "search_space/features.h"
#include "runtime/hook/policy_model.h"
#include "tuner/measurement_record.h"
#include "tuner/config_scores.h"
#include "tuner/confidence_calibration.h"
#include "tuner/replay_evaluator.h"
#include "tuner/workload_resolver.h"

namespace crmap {

namespace {

// Speedups over the default per config and shape (config_scores.h), and the configs that failed anywhere.
struct Scores {
  std::map<std::string, std::map<std::string, double>> speedup;  // config -> shape -> speedup
  std::map<std::string, Config> configs;
  std::set<std::string> failed;
};

Scores Collect(const SearchSpace& space, const std::map<Dims, ShapeScores>& by_shape) {
  Scores scores;
  for (const auto& [dims, shape] : by_shape) {
    for (const auto& [key, score] : shape.configs) {
      scores.configs.emplace(key, *space.Parse(key));
      if (score.failed > 0) scores.failed.insert(key);
      if (score.ran() && score.speedup > 0) scores.speedup[key].emplace(DimsToText(dims), score.speedup);
    }
  }
  return scores;
}

// The candidate configs never failing and measured ok at `at_least` of `shapes` or more, each with its speedups
// where it was (in config order).
std::vector<std::pair<std::string, std::vector<double>>> MeasuredAtLeast(const Scores& scores,
                                                                         const std::vector<Dims>& shapes,
                                                                         size_t at_least) {
  std::vector<std::pair<std::string, std::vector<double>>> candidates;
  for (const auto& [key, by_shape] : scores.speedup) {
    if (scores.failed.count(key)) continue;
    std::vector<double> values;
    for (const Dims& dims : shapes) {
      auto it = by_shape.find(DimsToText(dims));
      if (it != by_shape.end()) values.push_back(it->second);
    }
    if (values.size() >= at_least && !values.empty()) candidates.emplace_back(key, std::move(values));
  }
  return candidates;
}

// ... measured ok at every shape.
std::vector<std::pair<std::string, std::vector<double>>> MeasuredEverywhere(const Scores& scores,
                                                                            const std::vector<Dims>& shapes) {
  return MeasuredAtLeast(scores, shapes, shapes.size());
}

// The candidate (MeasuredEverywhere) of the highest score; the default config when there is none.
template <typename Score>
Config BestEverywhere(const SearchSpace& space, const std::map<Dims, ShapeScores>& by_shape,
                      const std::vector<Dims>& shapes, Score score) {
  Scores scores = Collect(space, by_shape);
  Config best = space.Default();
  double best_score = -1e300;
  for (const auto& [key, values] : MeasuredEverywhere(scores, shapes)) {
    double s = score(values);
    if (s > best_score) {
      best_score = s;
      best = scores.configs.at(key);
    }
  }
  return best;
}

DenseLayer Layer(const std::vector<float>& weights, const std::vector<float>& bias) {
  DenseLayer layer;
  layer.out = static_cast<uint32_t>(bias.size());
  layer.in = layer.out ? static_cast<uint32_t>(weights.size() / layer.out) : 0;
  layer.weights = weights;
  layer.bias = bias;
  return layer;
}

// Least squares with a small ridge: log(default latency) ~ w . dim features + b.
std::vector<float> FitLatencyModel(const std::vector<std::vector<float>>& x, const std::vector<double>& y) {
  const size_t n = x.empty() ? 0 : x[0].size() + 1;
  std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0.0));
  for (size_t r = 0; r < x.size(); ++r) {
    std::vector<double> row(x[r].begin(), x[r].end());
    row.push_back(1.0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) a[i][j] += row[i] * row[j];
      a[i][n] += row[i] * y[r];
    }
  }
  for (size_t i = 0; i < n; ++i) a[i][i] += 1e-3;
  for (size_t c = 0; c < n; ++c) {  // Gauss-Jordan with partial pivoting
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    for (size_t r = 0; r < n; ++r) {
      if (r == c || a[c][c] == 0) continue;
      double f = a[r][c] / a[c][c];
      for (size_t k = c; k <= n; ++k) a[r][k] -= f * a[c][k];
    }
  }
  std::vector<float> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = a[i][i] != 0 ? static_cast<float>(a[i][n] / a[i][i]) : 0.f;
  return w;
}

// The options' ranges (each message names the flag and what is allowed).
Status CheckTrainOptions(const TrainOptions& options) {
  if (options.critic_epochs < 0 || options.policy_steps < 0)
    return Status::InvalidArgument("--critic-epochs and --policy-steps must be >= 0");
  if (options.hidden < 1 || options.hidden > static_cast<int>(kMaxHidden))
    return Status::InvalidArgument("hidden size must be in [1, " + std::to_string(kMaxHidden) + "]");
  if (options.critic_members < 0 || options.critic_members > static_cast<int>(kMaxCriticMembers) ||
      static_cast<size_t>(1 + options.critic_members) * static_cast<size_t>(options.hidden) > kMaxCriticFloats)
    return Status::InvalidArgument("--critic-members must be in [0, " + std::to_string(kMaxCriticMembers) +
                                   "] with (1 + members) x hidden at most " + std::to_string(kMaxCriticFloats));
  if (!(options.pessimism >= 0 && options.pessimism <= 100))
    return Status::InvalidArgument("--pessimism must be in [0, 100]");
  if (!(options.switch_margin >= 0 && options.switch_margin <= 1))
    return Status::InvalidArgument("--switch-margin must be in [0, 1]");
  return Status::Ok();
}

}  // namespace

Config ConfigFromValueIndices(const SearchSpace& space, const std::vector<uint32_t>& values) {
  Config config = space.Default();
  for (size_t k = 0; k < values.size() && k < config.values.size(); ++k) config.values[k] = static_cast<int>(values[k]);
  return config;
}

Config ChooseFallback(const SearchSpace& space, const std::map<Dims, ShapeScores>& scores,
                      const std::vector<Dims>& shapes) {
  return BestEverywhere(space, scores, shapes, [](const std::vector<double>& v) {
    double worst = v[0];
    for (double s : v) worst = std::min(worst, s);
    return worst;
  });
}

size_t StaticPlanCoverage(size_t shapes) {
  return static_cast<size_t>(std::ceil(kStaticPlanCoverage * static_cast<double>(shapes) - 1e-9));
}

Config ChooseStaticPlan(const SearchSpace& space, const std::map<Dims, ShapeScores>& scores,
                        const std::vector<Dims>& shapes) {
  // Each candidate's mean log speedup over the shapes it was measured at and their count, best first (the first
  // of equal means in config order, as BestEverywhere).
  struct Candidate {
    double mean;
    size_t shapes;
    std::string key;
  };
  const Scores collected = Collect(space, scores);
  std::vector<Candidate> by_mean;
  for (const auto& [key, values] : MeasuredAtLeast(collected, shapes, StaticPlanCoverage(shapes.size()))) {
    double sum = 0;
    for (double s : values) sum += std::log(s);
    by_mean.push_back({sum / static_cast<double>(values.size()), values.size(), key});  // values is never empty
  }
  if (by_mean.empty()) return space.Default();
  std::stable_sort(by_mean.begin(), by_mean.end(), [](const auto& a, const auto& b) { return a.mean > b.mean; });
  const Candidate& best = by_mean.front();
  // The configs whose geometric mean is within the tie band of the best's (each side's shapes as its records); the
  // deepest-fused of those that fuse further than the best takes its place.
  const double noise = EstimateRecordNoise(scores);
  std::vector<std::string> within;
  for (const Candidate& candidate : by_mean)
    if (std::exp(best.mean - candidate.mean) <= 1 + TieBand(kNoiseBand, noise, best.shapes, candidate.shapes))
      within.push_back(candidate.key);
  const int deeper = DeepestFusionOf(space, best.key, within);
  return collected.configs.at(deeper < 0 ? best.key : within[static_cast<size_t>(deeper)]);
}

Config ChooseFallback(const SearchSpace& space, const std::vector<TuningRecord>& records,
                      const std::vector<Dims>& shapes) {
  return ChooseFallback(space, ScoreConfigs(space, records), shapes);
}

Config ChooseStaticPlan(const SearchSpace& space, const std::vector<TuningRecord>& records,
                        const std::vector<Dims>& shapes) {
  return ChooseStaticPlan(space, ScoreConfigs(space, records), shapes);
}

Result<PolicyFile> TrainPolicy(const Workload& workload, const SearchSpace& space,
                               const std::vector<TuningRecord>& records, const TrainOptions& options,
                               TrainReport* report) {
  // Noise-aware: one observation per shape and config at its median score, and labels that treat every
  // config within the noise band of a shape's best as right (config_scores.h: NoiseAwareLabel).
  std::vector<std::pair<Candidate, Evaluation>> observations = ScoredObservations(space, records);
  const std::map<Dims, ShapeScores> scores = ScoreConfigs(space, records);
  ReplayEvaluator replay(space, records);
  std::vector<Dims> shapes = replay.Shapes();
  if (shapes.empty())
    return Status::InvalidArgument("no shape of workload '" + workload.name() + "' has a measured default config in "
                                   "the database: run a campaign (crmap tune) first");
  CRMAP_RETURN_IF_ERROR(CheckTrainOptions(options));

  RlOptions rl_options;
  rl_options.policy_hidden = options.hidden;
  rl_options.critic_hidden = options.hidden;
  RlAgent agent({&workload, &space, shapes, options.seed}, rl_options);
  OfflineOptions offline;
  offline.critic_epochs = options.critic_epochs;
  offline.policy_steps = options.policy_steps;
  // A record's noise as the database shows it widens the tie band where single records cannot tell two configs
  // apart (config_scores.h: EstimateRecordNoise, TieBand).
  const double record_noise = EstimateRecordNoise(scores);
  for (const Dims& dims : shapes)
    if (const ConfigScore* label = NoiseAwareLabel(scores, dims, kNoiseBand, record_noise, &space))
      offline.labels.emplace(dims, *space.Parse(label->config));
  agent.LearnOffline(observations, offline);

  PolicyFile file;
  file.workload = workload.name();
  file.workload_fingerprint = workload.fingerprint();
  file.workload_source = workload.origin();
  file.space_fingerprint = space.fingerprint();
  for (const auto& [name, range] : workload.dims()) file.dims.push_back({name, range.min, range.max});
  for (const auto& knob : space.knobs())
    file.knobs.push_back({knob.name, knob.scope == KnobScope::kPlan, knob.values,
                          static_cast<uint32_t>(knob.default_index)});
  const FeatureSpec& features = agent.features();
  for (const auto& f : features.features()) file.features.push_back({f.name, f.lo, f.hi});
  for (const auto& row : agent.Mask()) file.mask.emplace_back(row.begin(), row.end());

  std::vector<std::vector<float>> policy = agent.policy().ExportParameters();
  if (policy.size() < 4) return Status::Internal("unexpected policy network layout");
  file.policy.trunk1 = Layer(policy[0], policy[1]);
  file.policy.trunk2 = Layer(policy[2], policy[3]);
  for (size_t i = 4; i + 1 < policy.size(); i += 2) file.policy.heads.push_back(Layer(policy[i], policy[i + 1]));
  std::vector<std::vector<float>> critic = agent.critic().ExportParameters();
  if (critic.size() != 6) return Status::Internal("unexpected critic layout");
  file.critic.layer1 = Layer(critic[0], critic[1]);
  file.critic.layer2 = Layer(critic[2], critic[3]);
  file.critic.layer3 = Layer(critic[4], critic[5]);
  // Bootstrap members: each critic sees a resample (with replacement) of the observations, so where the data
  // say little (a config measured at few shapes, dims far from every tuned one) the members disagree.
  for (int m = 0; m < options.critic_members; ++m) {
    const uint64_t member_seed = options.seed * 1000003 + static_cast<uint64_t>(m) + 1;
    CostModel member(features.size(), member_seed, CostModelOptions{options.hidden});
    std::mt19937_64 rng(member_seed);
    std::uniform_int_distribution<size_t> pick(0, observations.size() - 1);
    for (size_t i = 0; i < observations.size(); ++i) {
      const auto& [candidate, evaluation] = observations[pick(rng)];
      member.Add(features.Encode(candidate.dims, candidate.config), Reward(evaluation));
    }
    member.Train(options.critic_epochs);
    std::vector<std::vector<float>> weights = member.ExportParameters();
    if (weights.size() != 6) return Status::Internal("unexpected critic member layout");
    file.critic_members.push_back(
        {Layer(weights[0], weights[1]), Layer(weights[2], weights[3]), Layer(weights[4], weights[5])});
  }
  file.pessimism = options.pessimism;

  // The table of tuned shapes (each with its label: a best config by the rule of config_scores.h, the most
  // general one among those tied within the noise band, or a tied one that fuses further: NoiseAwareLabel) and
  // the latency model of the default config.
  std::vector<std::vector<float>> x;
  std::vector<double> y;
  for (const Dims& dims : shapes) {
    auto label = offline.labels.find(dims);
    const Config best = label == offline.labels.end() ? replay.OracleConfig(dims) : label->second;
    Evaluation e = replay.Evaluate({{dims, best}})[0];
    Evaluation d = replay.Evaluate({{dims, space.Default()}})[0];
    TableEntry entry;
    for (const auto& [name, value] : dims) entry.dims.push_back(value);
    for (int v : best.values) entry.config.push_back(static_cast<uint32_t>(v));
    entry.median_us = static_cast<float>(e.median_us);
    entry.p99_us = static_cast<float>(e.p99_us);
    entry.speedup = static_cast<float>(e.speedup);
    file.table.push_back(entry);
    if (d.ok() && d.median_us > 0) {
      std::vector<float> f(features.dim_feature_count());
      features.EncodeDims(dims, f.data());
      x.push_back(f);
      y.push_back(std::log(d.median_us));
    }
  }
  file.latency_model = FitLatencyModel(x, y);
  Config fallback = ChooseFallback(space, scores, shapes);
  for (int v : fallback.values) file.fallback.push_back(static_cast<uint32_t>(v));
  // The static plan is the incumbent: away from the table the hook leaves it only for a predicted gain beyond
  // the switch margin (measured: issue 12's static plan was ahead of the learned choice on dlrm_bottom_mlp, whose
  // critics pick among configs within a few percent of each other; experiments/RESULTS.md).
  const Config incumbent = ChooseStaticPlan(space, scores, shapes);
  for (int v : incumbent.values) file.incumbent.push_back(static_cast<uint32_t>(v));
  file.switch_margin = options.switch_margin;
  file.neighbour_incumbent = options.neighbour_incumbent;

  // What the ensemble's agreement is worth at shapes it never saw: each tuned shape left out in turn
  // (confidence_calibration.h); the hook states the calibrated rate as each decision's confidence.
  if (options.critic_members > 0) {
    spdlog::info("calibrating the confidence: {} critics per fold, each of {} tuned shapes left out in turn...",
                 1 + options.critic_members, shapes.size());
    LeaveOneShapeOutOptions folds_options;
    folds_options.seed = options.seed;
    folds_options.critics = 1 + options.critic_members;
    folds_options.epochs = options.critic_epochs;
    folds_options.hidden = options.hidden;
    folds_options.pessimism = options.pessimism;
    folds_options.switch_margin = options.switch_margin;
    folds_options.neighbour_incumbent = options.neighbour_incumbent;
    const std::vector<FoldOutcome> folds =
        LeaveOneShapeOut(space, features, observations, scores, shapes, folds_options);
    file.calibration = CalibrationFromFolds(folds);
    if (report) {
      report->calibration = file.calibration;
      report->calibration_folds = folds.size();
      for (const FoldOutcome& fold : folds) {
        report->calibration_measured += fold.measured;
        report->calibration_within += fold.measured && fold.within_noise;
      }
    }
  }

  const TuningRecord& first = records.front();
  file.host = {first.host_cpu, first.host_isa, first.host_onednn, static_cast<uint32_t>(std::max(0, first.host_cores))};
  file.training.db_path = options.db_path;
  auto db_digest = DigestFile(options.db_path, kMaxTuningDbBytes, "tuning database");
  file.training.db_digest = db_digest.ok() ? HexDigest(*db_digest) : "";
  file.training.date = UtcTimestamp();
  file.training.crmap_version = CRMAP_VERSION_STRING;
  size_t records_used = 0;
  for (const auto& [dims, shape] : scores) records_used += shape.records;
  file.training.records_used = records_used;
  file.training.seed = options.seed;
  CRMAP_RETURN_IF_ERROR(ValidatePolicyFile(file).WithContext("trained policy"));
  {
    // The ensemble's confidence in each table entry's config at its shape (what the hook returns with it).
    CRMAP_ASSIGN_OR_RETURN(auto model, PolicyModel::Create(file));
    for (TableEntry& entry : file.table)
      entry.confidence = static_cast<float>(model->ConfidenceOf(entry.dims.data(), entry.config.data()));
  }

  if (report) {
    report->records = records_used;
    report->shapes = shapes.size();
    report->critic_loss = agent.critic().TrainingLoss();
    report->record_noise = record_noise;
    report->label_tie_band = TieBand(kNoiseBand, record_noise, 1, 1);
    report->fallback = space.ToString(fallback);
    report->incumbent = space.ToString(incumbent);
    if (!file.critic_members.empty() && !file.table.empty()) {
      double sum = 0;
      for (const TableEntry& entry : file.table) sum += entry.confidence;
      report->mean_table_confidence = sum / static_cast<double>(file.table.size());
    }
    CRMAP_ASSIGN_OR_RETURN(auto model, PolicyModel::Create(file));
    report->policy_agrees = 0;
    report->tuned_shapes.clear();
    for (size_t i = 0; i < file.table.size(); ++i) {
      const TableEntry& entry = file.table[i];
      std::vector<uint32_t> decided(file.knobs.size());
      model->Decide(entry.dims.data(), decided.data());
      report->policy_agrees += decided == entry.config;
      const Config config = ConfigFromValueIndices(space, decided);
      auto shape = scores.find(shapes[i]);
      const std::string name = space.ToString(config);
      const Standing standing = shape == scores.end() ? Standing::kUnknown : StandingAt(shape->second, name);
      report->policy_within_noise += standing == Standing::kBest || standing == Standing::kTied;
      const Standing in_label_band = shape == scores.end() ? Standing::kUnknown
                                                            : StandingAt(shape->second, name, kNoiseBand, record_noise);
      report->policy_within_label_band += in_label_band == Standing::kBest || in_label_band == Standing::kTied;
      report->policy_choice_unmeasured += standing == Standing::kUnknown;
      report->tuned_shapes.push_back({shapes[i], space.ToString(ConfigFromValueIndices(space, entry.config)), name,
                                      standing, in_label_band});
    }
  }
  return file;
}

Status TrainFromDatabase(const std::string& db_path, const std::string& workload_option, const std::string& out_path,
                         TrainOptions options, TrainReport* report, std::string* workload_name) {
  CRMAP_RETURN_IF_ERROR(CheckTrainOptions(options));  // before anything is read or logged
  CRMAP_ASSIGN_OR_RETURN(TuningDbContents all, ReadTuningDb(db_path));
  CRMAP_ASSIGN_OR_RETURN(Workload workload, ResolveDbWorkload(all.records, workload_option, db_path));
  CRMAP_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Build(workload));
  CRMAP_ASSIGN_OR_RETURN(TuningDbContents db, ReadTuningDbFor(db_path, workload, space));
  for (const auto& warning : db.warnings) spdlog::warn("{}", warning);
  if (report) report->ignored = db.unusable;
  if (db.records.empty())
    return Status::InvalidArgument(db_path + " has no records of " + workload.name() + " with its current "
                                   "fingerprints (" + std::to_string(db.other_fingerprints) + " of others)");
  // Absolute, so that `crmap evaluate` finds the database from any directory.
  std::error_code absolute_error;
  std::filesystem::path absolute_db = std::filesystem::absolute(db_path, absolute_error);
  options.db_path = absolute_error ? db_path : absolute_db.lexically_normal().string();
  spdlog::info("training on the records of {} in {} ({} with its current fingerprints, LibTorch rows included)...",
               workload.name(), db_path, db.records.size());
  CRMAP_ASSIGN_OR_RETURN(PolicyFile file, TrainPolicy(workload, space, db.records, options, report));
  CRMAP_RETURN_IF_ERROR(WritePolicyFile(out_path, file));
  if (workload_name) *workload_name = workload.name();
  return Status::Ok();
}

}  // namespace crmap
