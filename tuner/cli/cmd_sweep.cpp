// crmap sweep: the whole plan space at one shape, then the best plans confirmed side by side.
#include <cstdio>
#include <map>

#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/measure_options.h"
#include "tuner/cli/result_output.h"
#include "tuner/sweep.h"
#include "tuner/text_table.h"

namespace crmap::cli {

int RunSweep(int argc, char** argv) {
  cxxopts::Options options("crmap sweep",
                           "Screen every plan config at one shape (chunks anchored on the default config), then "
                           "compare the best ones, the default and optionally LibTorch in one interleaved run.");
  AddTargetOptions(options);
  options.add_options()
      ("screen-rounds", "interleaved rounds per screening chunk", cxxopts::value<int>()->default_value("5"))
      ("chunk", "candidates per screening chunk, the anchor included", cxxopts::value<int>()->default_value("12"))
      ("top", "screened configs carried into the final comparison", cxxopts::value<int>()->default_value("5"))
      ("baseline", "add a peer to the final comparison: 'libtorch'", cxxopts::value<std::string>());
  AddMeasureOptions(options, 30);
  AddObjectiveOption(options);
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  auto target = LoadTarget(args);
  if (!target.ok()) return Fail(target.status());
  auto measure = ReadMeasureOptions(args);
  if (!measure.ok()) return Fail(measure.status());
  auto objective = ReadObjectiveOption(args, &*measure);
  if (!objective.ok()) return Fail(objective.status());

  SweepOptions sweep_options = SweepOptionsFrom(*measure);
  sweep_options.objective = *objective;
  sweep_options.screen_rounds = args["screen-rounds"].as<int>();
  sweep_options.chunk = args["chunk"].as<int>();
  sweep_options.top = args["top"].as<int>();
  if (sweep_options.screen_rounds < 1 || sweep_options.chunk < 2 || sweep_options.top < 1)
    return Fail(Status::InvalidArgument("need --screen-rounds >= 1, --chunk >= 2 and --top >= 1"));
  auto baseline = ReadBaselineOption(args, target->workload);
  if (!baseline.ok()) return Fail(baseline.status());
  sweep_options.baselines = *baseline;
  ProgressLine progress(WantsProgress(args));
  sweep_options.on_progress = progress.Callback();

  MeasurementSession session(target->workload, target->space, target->dims);
  SweepResult sweep = SweepPlanSpace(session, target->space, sweep_options);
  progress.Finish();
  if (!sweep.status.ok()) return Fail(sweep.status);
  WarnIfMachineBusy();

  std::map<std::string, int> by_status;
  for (const auto& r : sweep.screened) ++by_status[CandidateStatusName(r.status)];
  Json json = ResultsJson(target->workload, target->space, target->dims, sweep.final,
                          CliRecordContext(*measure, "sweep"));
  json["screened"] = Json::array();
  for (const auto& r : sweep.screened) {
    Json row = {{"config", r.label}, {"status", CandidateStatusName(r.status)}};
    if (r.ratio_to_anchor.rounds > 0) row["ratio_to_default"] = r.ratio_to_anchor.median;
    if (r.p95_ratio_to_anchor > 0) row["p95_ratio_to_default"] = r.p95_ratio_to_anchor;
    if (r.p99_ratio_to_anchor > 0) row["p99_ratio_to_default"] = r.p99_ratio_to_anchor;
    if (r.status == CandidateStatus::kOk) {
      row["max_error"] = r.error.max_abs;
      row["scaled_error"] = r.error.scaled;
    }
    json["screened"].push_back(row);
  }
  json["screened_by_status"] = Json(by_status);
  json["best"] = sweep.best_index >= 0 ? Json(sweep.final[sweep.best_index].label) : Json();
  json["objective"] = ObjectiveName(*objective);

  Status written = WriteOutOption(args, json);
  if (!written.ok()) return Fail(written);
  if (args.count("json")) {
    std::printf("%s\n", json.dump(2).c_str());
    return sweep.best_index >= 0 ? kExitOk : kExitNotMeasurable;
  }
  std::printf("%s", HeaderLine(target->workload, target->dims).c_str());
  std::string counts;
  for (const auto& [status, n] : by_status) counts += Format("%s%d %s", counts.empty() ? "" : ", ", n, status.c_str());
  std::printf("screened %zu plan configs (%s), %d rounds each against the default\n\n", sweep.screened.size(),
              counts.c_str(), sweep_options.screen_rounds);
  std::printf("final comparison (%d interleaved rounds):\n%s", sweep_options.rounds,
              RenderComparison(target->space, sweep.final, *objective).c_str());
  if (sweep.best_index >= 0)
    std::printf("\nbest plan%s: %s\n",
                *objective == Objective::kMedian ? "" : Format(" at the %s latency", ObjectiveName(*objective)).c_str(),
                ShortConfigLabel(target->space, sweep.final[sweep.best_index].config).c_str());
  return sweep.best_index >= 0 ? kExitOk : kExitNotMeasurable;
}

}  // namespace crmap::cli
