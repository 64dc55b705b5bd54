#include "tuner/policy_evaluation.h"

#include <spdlog/spdlog.h>

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
    std::vector<double> ratios;
  };
  std::vector<Method> methods = {{"crmap policy (hook)", {}}, {"static plan", {}}, {"nearest tuned shape", {}},
                                 {"default config", {}}};
  if (comparing) methods.push_back({"compared policy (hook)", {}});
  Json per_shape = Json::array();
  std::vector<double> confidences;  // the hook's, per shape (-1: unknown)
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
    double oracle = 1e300;  // the smallest ratio to the default at the objective in the final run
    std::string oracle_config;
    std::map<std::string, double> ratio_of;
    for (const auto& r : result.final) {
      const double ratio = RatioToAnchor(r, request.sweep.objective);
      if (r.is_baseline || ratio <= 0) continue;
      ratio_of[r.label] = ratio;
      if (ratio < oracle) {
        oracle = ratio;
        oracle_config = r.label;
      }
    }
    Json row = {{"dims", Json(dims)}, {"oracle_speedup_vs_default", 1 / oracle}, {"oracle_config", oracle_config}};
    for (size_t m = 0; m < methods.size(); ++m) {
      auto it = ratio_of.find(space.ToString(picks[m]));
      double ratio = it == ratio_of.end() ? 0.0 : oracle / it->second;  // a failing pick scores 0
      methods[m].ratios.push_back(ratio);
      row[methods[m].name] = {{"config", space.ToString(picks[m])}, {"oracle_ratio", ratio}};
    }
    row["hook_source"] = HookSourceName(decision.source);
    row["confidence"] = decision.confidence;
    confidences.push_back(decision.confidence);
    per_shape.push_back(row);
  }

  TextTable table({"method", ">within 5% of oracle (CTMA)", ">geo-mean oracle ratio", ">worst", "worst shape"});
  Json summary = Json::array();
  for (const auto& m : methods) {
    size_t within = 0, worst_shape = 0;
    double worst = 1;
    std::vector<double> floored;
    for (size_t i = 0; i < m.ratios.size(); ++i) {
      const double r = m.ratios[i];
      within += r >= 0.95;
      floored.push_back(std::max(r, 1e-6));
      if (r < worst) {
        worst = r;
        worst_shape = i;
      }
    }
    const double geo = GeometricMean(floored);
    const double ctma = static_cast<double>(within) / static_cast<double>(m.ratios.size());
    table.AddRow({m.name, Format("%.0f%% (%zu/%zu)", 100 * ctma, within, m.ratios.size()), Format("%.3f", geo),
                  Format("%.3f", worst), DimsToText(shapes[worst_shape])});
    summary.push_back({{"method", m.name}, {"ctma", ctma}, {"geo_mean_oracle_ratio", geo}, {"worst", worst},
                       {"worst_dims", Json(shapes[worst_shape])}});
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
      within += methods[0].ratios[i] >= 0.95;
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
  std::string held_out_text;
  for (const Dims& dims : shapes) held_out_text += (held_out_text.empty() ? "" : "; ") + DimsToText(dims);
  EvaluationReport report;
  report.json = {{"workload", workload.name()}, {"policy", request.policy_path}, {"held_out", shapes.size()},
                 {"compared_policy", request.compare_policy_path},
                 {"objective", ObjectiveName(request.sweep.objective)}, {"rounds", request.sweep.rounds},
                 {"static_plan", space.ToString(static_plan)}, {"methods", summary}, {"shapes", per_shape},
                 {"calibration", calibration}};
  report.text = Format("%s: %zu held-out shapes from %s (none tuned), each against its exhaustive oracle at the %s "
                       "latency (%d interleaved rounds)\nheld-out: %s\n%sstatic plan: %s\ncalibration of the policy's "
                       "confidence:\n%s",
                       workload.name().c_str(), shapes.size(), request.shapes.c_str(),
                       ObjectiveName(request.sweep.objective), request.sweep.rounds, held_out_text.c_str(),
                       table.Render().c_str(), ShortConfigLabel(space, static_plan).c_str(), calibration_text.c_str());
  return report;
}

}  // namespace crmap
