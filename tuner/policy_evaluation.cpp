#include "tuner/policy_evaluation.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>

#include "common/numeric.h"
#include "datasets/distribution.h"
#include "runtime/hook/crmap_hook.hpp"
#include "runtime/hook/policy_file.h"
#include "tuner/campaign_spec.h"
#include "tuner/measurement_record.h"
#include "tuner/nearest_shape.h"
#include "tuner/policy_trainer.h"
#include "tuner/text_table.h"
#include "tuner/tuning_db.h"
#include "tuner/workload_resolver.h"

namespace crmap {

namespace {

// The hook's last error as a Status of the matching code.
Status HookError(crmap_status status) {
  const std::string message = crmap_hook_last_error();
  switch (status) {
    case CRMAP_ERR_HOST: return Status::Unsupported(message);
    case CRMAP_ERR_NOT_FOUND: return Status::NotFound(message);
    case CRMAP_ERR_INTERNAL: return Status::Internal(message);
    default: return Status::InvalidArgument(message);
  }
}

}  // namespace

OracleRatio OracleRatioInRun(const CandidateResult& pick, Objective objective) {
  const double to_oracle = RatioToAnchor(pick, objective);  // pick / oracle
  if (pick.status != CandidateStatus::kOk || pick.is_baseline || !(to_oracle > 0)) return {};
  OracleRatio ratio = OracleRatio::Unknown(std::min(1.0, 1 / to_oracle));
  if (objective == Objective::kMedian && pick.ratio_to_anchor.median_low > 0) {
    ratio.low = std::min(ratio.ratio, 1 / pick.ratio_to_anchor.median_high);
    ratio.high = 1 / pick.ratio_to_anchor.median_low;
  }
  return ratio;
}

MethodSummary SummarizeOracleRatios(const std::vector<OracleRatio>& ratios) {
  MethodSummary summary;
  if (ratios.empty()) return summary;
  std::vector<double> floored;
  for (size_t i = 0; i < ratios.size(); ++i) {
    const OracleRatio& r = ratios[i];
    summary.within += r.ratio >= 0.95;
    summary.clearly_within += r.low >= 0.95;
    summary.clear_misses += r.high < 0.95;
    floored.push_back(std::max(r.ratio, 1e-6));
    if (r.ratio < summary.worst) {
      summary.worst = r.ratio;
      summary.worst_shape = i;
    }
  }
  summary.geo_mean = GeometricMean(floored);
  summary.ctma = static_cast<double>(summary.within) / static_cast<double>(ratios.size());
  return summary;
}

size_t NearestTunedShape(const PolicyFile& file, const std::vector<int64_t>& values) {
  size_t nearest = 0;
  double nearest_distance = 1e300;
  for (size_t t = 0; t < file.table.size(); ++t) {
    double distance = 0;
    for (size_t i = 0; i < values.size(); ++i)
      distance += std::pow(std::log2(static_cast<double>(values[i])) -
                               std::log2(static_cast<double>(file.table[t].dims[i])), 2);
    if (distance < nearest_distance) {
      nearest_distance = distance;
      nearest = t;
    }
  }
  return nearest;
}

Result<std::vector<Dims>> HeldOutShapes(const EvaluationRequest& request, const Workload& workload,
                                        const PolicyFile& file) {
  int held_out = request.held_out;
  if (held_out < 1 || held_out > 1000) return Status::InvalidArgument("--held-out must be in [1, 1000]");
  std::set<std::vector<int64_t>> tuned;
  for (const auto& e : file.table) tuned.insert(e.dims);
  std::vector<Dims> candidates;
  if (request.shapes.find('=') != std::string::npos) {
    CRMAP_ASSIGN_OR_RETURN(candidates, ResolveShapes(workload, request.shapes, 1, 0));
    // Every listed shape counts unless --held-out caps them.
    if (!request.held_out_given) held_out = static_cast<int>(std::min<size_t>(candidates.size(), 1000));
  } else {
    CRMAP_ASSIGN_OR_RETURN(ShapeDistribution distribution, LoadDistribution(request.shapes, workload));
    candidates = SampleDistinct(distribution, static_cast<size_t>(held_out) + tuned.size(), request.seed,
                                static_cast<size_t>(held_out) * 400);
  }
  std::vector<Dims> shapes;
  for (const Dims& dims : candidates) {
    std::vector<int64_t> key;
    for (const auto& d : file.dims) key.push_back(dims.at(d.name));
    if (!tuned.count(key) && static_cast<int>(shapes.size()) < held_out) shapes.push_back(dims);
  }
  if (shapes.empty()) return Status::InvalidArgument("--shapes has no shape the policy was not tuned on");
  return shapes;
}

Result<EvaluationReport> EvaluatePolicy(const EvaluationRequest& request) {
  CRMAP_ASSIGN_OR_RETURN(PolicyFile file, ReadPolicyFile(request.policy_path));
  if (file.table.empty())
    return Status::InvalidArgument(
        "policy " + request.policy_path +
        " has no tuned shapes (its table is empty): evaluate compares it with the static plan and the nearest tuned "
        "shape's config, which need them; train the policy from a database with successful measurements");
  WorkloadRef ref{file.workload, {file.workload_fingerprint}, file.workload_source};
  CRMAP_ASSIGN_OR_RETURN(Workload workload, ResolveWorkload(ref, request.workload, "policy " + request.policy_path));
  CRMAP_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Build(workload));
  if (space.fingerprint() != file.space_fingerprint)
    return Status::InvalidArgument("the policy was trained for another version of " + workload.name() +
                                   "'s search space (fingerprint " + file.space_fingerprint + ", now " +
                                   space.fingerprint() + "): retrain it");
  if (request.confirm_rounds > 0 && request.confirm_rounds < MinimumRounds(request.sweep.objective))
    return Status::InvalidArgument(Format("--confirm-rounds must be 0 (no confirmation run) or >= %d for objective "
                                          "%s, got %d", MinimumRounds(request.sweep.objective),
                                          ObjectiveName(request.sweep.objective), request.confirm_rounds));
  const std::string db_path = request.db_path.empty() ? file.training.db_path : request.db_path;
  auto db = ReadTuningDbFor(db_path, workload, space);
  if (!db.ok()) return db.status().WithContext("the training database (for the static plan; --db names it)");
  for (const auto& warning : db->warnings) spdlog::warn("{}", warning);
  const bool comparing = !request.compare_policy_path.empty();
  PolicyFile shapes_of_both = file;  // a shape either policy was tuned on is not held out
  if (comparing) {
    std::error_code same_error;
    if (std::filesystem::equivalent(request.compare_policy_path, request.policy_path, same_error))
      return Status::InvalidArgument("--compare-policy names the policy itself (" + request.policy_path +
                                     "): give the other policy file to compare with");
    CRMAP_ASSIGN_OR_RETURN(PolicyFile other, ReadPolicyFile(request.compare_policy_path));
    if (other.workload_fingerprint != file.workload_fingerprint || other.space_fingerprint != file.space_fingerprint)
      return Status::InvalidArgument("--compare-policy " + request.compare_policy_path + " is a policy of " +
                                     other.workload + " (workload " + other.workload_fingerprint + ", space " +
                                     other.space_fingerprint + "); the policy is of " + file.workload + " (" +
                                     file.workload_fingerprint + ", " + file.space_fingerprint +
                                     "): compare policies of one workload and search space");
    shapes_of_both.table.insert(shapes_of_both.table.end(), other.table.begin(), other.table.end());
  }
  CRMAP_ASSIGN_OR_RETURN(std::vector<Dims> shapes, HeldOutShapes(request, workload, shapes_of_both));

  Hook hook, compared_hook;
  crmap_status opened = hook.Open(request.policy_path, "", "", request.allow_other_isa);
  if (opened != CRMAP_OK) return HookError(opened);
  if (comparing) {
    opened = compared_hook.Open(request.compare_policy_path, "", "", request.allow_other_isa);
    if (opened != CRMAP_OK) return HookError(opened).WithContext("--compare-policy");
  }
  std::vector<Dims> table_shapes;
  for (const auto& e : file.table) {
    Dims d;
    for (size_t i = 0; i < file.dims.size(); ++i) d[file.dims[i].name] = e.dims[i];
    table_shapes.push_back(d);
  }
  const Config static_plan = ChooseStaticPlan(space, db->records, table_shapes);

  struct Method {
    const char* name;
    std::vector<OracleRatio> ratios;        // from the confirmation run (or the sweep's, without one)
    std::vector<OracleRatio> sweep_ratios;  // from the sweep's final run, which chose the oracle
  };
  std::vector<Method> methods = {{"crmap policy (hook)", {}, {}}, {"static plan", {}, {}},
                                 {"nearest tuned shape", {}, {}}, {"default config", {}, {}}};
  if (comparing) methods.push_back({"compared policy (hook)", {}, {}});
  const int confirm_rounds = request.confirm_rounds < 0 ? request.sweep.rounds : request.confirm_rounds;
  Json per_shape = Json::array();
  std::vector<double> confidences;  // the hook's, per shape (-1: unknown)
  std::vector<bool> beyond;          // per shape: beyond the tuned range (nearest_shape.h: BeyondRangeOf)
  for (size_t s = 0; s < shapes.size(); ++s) {
    const Dims& dims = shapes[s];
    std::vector<int64_t> values;
    for (const auto& d : file.dims) values.push_back(dims.at(d.name));
    crmap_decision decision;
    if (crmap_status decided = hook.Decide(values, &decision); decided != CRMAP_OK) return HookError(decided);
    CRMAP_ASSIGN_OR_RETURN(Config policy_pick, space.Parse(decision.config));
    const size_t nearest = NearestTunedShape(file, values);
    Config nearest_config = space.Default();
    for (size_t k = 0; k < file.knobs.size(); ++k)
      nearest_config.values[k] = static_cast<int>(file.table[nearest].config[k]);
    std::vector<Config> picks = {policy_pick, static_plan, nearest_config, space.Default()};
    if (comparing) {
      crmap_decision compared;
      if (crmap_status decided = compared_hook.Decide(values, &compared); decided != CRMAP_OK)
        return HookError(decided).WithContext("--compare-policy");
      CRMAP_ASSIGN_OR_RETURN(Config compared_pick, space.Parse(compared.config));
      picks.push_back(compared_pick);
    }

    SweepOptions sweep = request.sweep;
    sweep.must_confirm = picks;
    if (request.on_progress) {
      sweep.on_progress = [&](const std::string& stage, int done, int total) {
        request.on_progress(s, shapes.size(), stage, done, total);
      };
    }
    MeasurementSession session(workload, space, dims);
    SweepResult result = SweepPlanSpace(session, space, sweep);
    if (!result.status.ok()) return result.status.WithContext("shape " + DimsToText(dims));
    if (result.best_index < 0)
      return Status::Internal("shape " + DimsToText(dims) + ": no config of the sweep's final run has a ratio");
    const CandidateResult& oracle = result.final[static_cast<size_t>(result.best_index)];
    const double oracle_to_default = RatioToAnchor(oracle, request.sweep.objective);
    std::map<std::string, OracleRatio> sweep_ratio_of;  // oracle / config in the sweep's final run
    for (const auto& r : result.final) {
      const double ratio = RatioToAnchor(r, request.sweep.objective);
      if (r.is_baseline || ratio <= 0) continue;
      const double point = oracle_to_default / ratio;
      sweep_ratio_of[r.label] = OracleRatio::Unknown(point);  // chosen and scored on the same samples: no interval
    }

    // The confirmation run: the oracle as the anchor, then each distinct pick.
    std::map<std::string, OracleRatio> confirmed_ratio_of;
    bool confirmed = false;
    if (confirm_rounds > 0) {
      std::vector<Config> rerun = {oracle.config};
      for (const Config& pick : picks)
        if (std::find(rerun.begin(), rerun.end(), pick) == rerun.end()) rerun.push_back(pick);
      SessionOptions options = FinalSessionOptions(request.sweep);
      options.measure.rounds = confirm_rounds;
      options.baselines.clear();
      if (request.on_progress) {
        options.on_progress = [&](const std::string& stage, int done, int total) {
          request.on_progress(s, shapes.size(), "confirmation " + stage, done, total);
        };
      }
      std::vector<CandidateResult> rerun_results = session.Compare(rerun, options);
      confirmed = rerun_results[0].status == CandidateStatus::kOk;
      if (!confirmed) {
        spdlog::warn("shape {}: the oracle {} failed in the confirmation run ({}): its figures are the sweep's",
                     DimsToText(dims), oracle.label, rerun_results[0].message);
      } else {
        confirmed_ratio_of[oracle.label] = {1, 1, 1};
        for (size_t i = 1; i < rerun_results.size(); ++i) {
          const CandidateResult& pick = rerun_results[i];
          if (pick.status != CandidateStatus::kOk)
            spdlog::warn("shape {}: the pick {} failed in the confirmation run ({}): it scores 0 there",
                         DimsToText(dims), pick.label, pick.message);
          confirmed_ratio_of[pick.label] = OracleRatioInRun(pick, request.sweep.objective);
        }
      }
    }
    Json row = {{"dims", Json(dims)}, {"oracle_speedup_vs_default", 1 / oracle_to_default},
                {"oracle_config", oracle.label}, {"confirmed", confirmed}};
    for (size_t m = 0; m < methods.size(); ++m) {
      const std::string label = space.ToString(picks[m]);
      auto in_sweep = sweep_ratio_of.find(label);
      const OracleRatio sweep_ratio = in_sweep == sweep_ratio_of.end() ? OracleRatio{} : in_sweep->second;
      OracleRatio ratio = sweep_ratio;  // a pick that failed in the sweep scores 0
      if (confirmed) {
        auto in_rerun = confirmed_ratio_of.find(label);
        if (in_rerun == confirmed_ratio_of.end())
          return Status::Internal("shape " + DimsToText(dims) + ": the pick " + label + " was not measured in the "
                                  "confirmation run");
        ratio = in_rerun->second;
      }
      methods[m].ratios.push_back(ratio);
      methods[m].sweep_ratios.push_back(sweep_ratio);
      row[methods[m].name] = {{"config", label}, {"oracle_ratio", ratio.ratio}, {"oracle_ratio_low", ratio.low},
                              {"oracle_ratio_high", ratio.high}, {"sweep_oracle_ratio", sweep_ratio.ratio}};
    }
    row["hook_source"] = HookSourceName(decision.source);
    row["confidence"] = decision.confidence;
    beyond.push_back(BeyondRangeOf(dims, table_shapes));
    row["beyond_tuned_range"] = beyond.back();
    confidences.push_back(decision.confidence);
    per_shape.push_back(row);
  }

  TextTable table({"method", ">within 5% of oracle (CTMA)", ">geo-mean oracle ratio", ">worst", "worst shape",
                   ">clearly within / missed"});
  Json summary = Json::array();
  for (const auto& m : methods) {
    const MethodSummary confirmed = SummarizeOracleRatios(m.ratios);
    const MethodSummary in_sweep = SummarizeOracleRatios(m.sweep_ratios);
    const size_t n = m.ratios.size();
    table.AddRow({m.name, Format("%.0f%% (%zu/%zu)", 100 * confirmed.ctma, confirmed.within, n),
                  Format("%.3f", confirmed.geo_mean), Format("%.3f", confirmed.worst),
                  DimsToText(shapes[confirmed.worst_shape]),
                  Format("%zu / %zu", confirmed.clearly_within, confirmed.clear_misses)});
    summary.push_back({{"method", m.name}, {"ctma", confirmed.ctma}, {"geo_mean_oracle_ratio", confirmed.geo_mean},
                       {"worst", confirmed.worst}, {"worst_dims", Json(shapes[confirmed.worst_shape])},
                       {"clearly_within", confirmed.clearly_within}, {"clear_misses", confirmed.clear_misses},
                       {"sweep_ctma", in_sweep.ctma}, {"sweep_geo_mean_oracle_ratio", in_sweep.geo_mean},
                       {"sweep_worst", in_sweep.worst}});
  }
  // Calibration: per band of the policy's stated confidence, how often its pick was within 5% of the oracle.
  Json calibration = Json::array();
  std::string calibration_text;
  const double edges[] = {0.0, 0.5, 0.8, 1.0 + 1e-9};
  for (size_t b = 0; b + 1 < std::size(edges); ++b) {
    size_t count = 0, within = 0;
    double stated = 0;
    for (size_t i = 0; i < confidences.size(); ++i) {
      if (!(confidences[i] >= edges[b] && confidences[i] < edges[b + 1])) continue;
      ++count;
      stated += confidences[i];
      within += methods[0].ratios[i].ratio >= 0.95;
    }
    if (count == 0) continue;
    calibration.push_back({{"from", edges[b]}, {"to", std::min(edges[b + 1], 1.0)}, {"shapes", count},
                           {"mean_confidence", stated / static_cast<double>(count)},
                           {"within_5pct", static_cast<double>(within) / static_cast<double>(count)}});
    calibration_text += Format("  confidence [%.1f, %.1f%s: %zu shapes, stated %.2f on average, within 5%% of the "
                               "oracle at %.2f\n", edges[b], std::min(edges[b + 1], 1.0), b + 2 == std::size(edges) ? "]" : ")",
                               count, stated / static_cast<double>(count),
                               static_cast<double>(within) / static_cast<double>(count));
  }
  if (calibration_text.empty()) calibration_text = "  no confidence known (a policy without critic members)\n";
  // The same by where the shape lies: within the tuned range or beyond it, where the critics extrapolate.
  Json calibration_by_range = Json::array();
  for (bool outside : {false, true}) {
    size_t count = 0, within = 0;
    double stated = 0;
    for (size_t i = 0; i < confidences.size(); ++i) {
      if (beyond[i] != outside || !(confidences[i] >= 0)) continue;
      ++count;
      stated += confidences[i];
      within += methods[0].ratios[i].ratio >= 0.95;
    }
    if (count == 0) continue;
    calibration_by_range.push_back({{"range", outside ? "beyond" : "within"}, {"shapes", count},
                                    {"mean_confidence", stated / static_cast<double>(count)},
                                    {"within_5pct", static_cast<double>(within) / static_cast<double>(count)}});
    calibration_text += Format("  %s the tuned range: %zu shapes, stated %.2f on average, within 5%% of the oracle at "
                               "%.2f\n", outside ? "beyond" : "within", count, stated / static_cast<double>(count),
                               static_cast<double>(within) / static_cast<double>(count));
  }
  std::string held_out_text;
  for (const Dims& dims : shapes) held_out_text += (held_out_text.empty() ? "" : "; ") + DimsToText(dims);
  EvaluationReport report;
  report.json = {{"workload", workload.name()}, {"policy", request.policy_path}, {"held_out", shapes.size()},
                 {"compared_policy", request.compare_policy_path},
                 {"objective", ObjectiveName(request.sweep.objective)}, {"rounds", request.sweep.rounds},
                 {"confirm_rounds", confirm_rounds},
                 {"static_plan", space.ToString(static_plan)}, {"methods", summary}, {"shapes", per_shape},
                 {"calibration", calibration}, {"calibration_by_range", calibration_by_range}};
  const std::string confirmation_text =
      confirm_rounds > 0
          ? Format("the oracle measured again beside each pick in a confirmation run of %d rounds; clearly within / "
                   "missed: shapes whose 95%% interval of the oracle ratio lies wholly above / below 0.95",
                   confirm_rounds)
          : std::string("no confirmation run: the ratios are the sweep's, against an oracle chosen as the fastest of "
                        "that run (biased low)");
  report.text = Format("%s: %zu held-out shapes from %s (none tuned), each against its exhaustive oracle at the %s "
                       "latency (%d interleaved rounds; %s)\nheld-out: %s\n%sstatic plan: %s\ncalibration of the "
                       "policy's confidence:\n%s",
                       workload.name().c_str(), shapes.size(), request.shapes.c_str(),
                       ObjectiveName(request.sweep.objective), request.sweep.rounds, confirmation_text.c_str(),
                       held_out_text.c_str(), table.Render().c_str(), ShortConfigLabel(space, static_plan).c_str(),
                       calibration_text.c_str());
  return report;
}

}  // namespace crmap
