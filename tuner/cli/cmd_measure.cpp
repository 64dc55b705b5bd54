// crmap measure / crmap compare.
#include <cstdio>

#include "backend/session.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/measure_options.h"
#include "tuner/cli/result_output.h"

namespace crmap::cli {

namespace {

int ExitCodeForCandidate(const CandidateResult& r) {
  switch (r.status) {
    case CandidateStatus::kOk: return kExitOk;
    case CandidateStatus::kOverMemory: return kExitBadInput;
    case CandidateStatus::kError: return kExitFailure;
    default: return kExitNotMeasurable;
  }
}

}  // namespace

int RunMeasure(int argc, char** argv) {
  cxxopts::Options options("crmap measure", "Compile, validate and measure one config of a workload at one shape.");
  AddTargetOptions(options);
  options.add_options()
      ("c,config", "'default', knob=value;... (others default) or a JSON object",
       cxxopts::value<std::string>()->default_value("default"));
  AddMeasureOptions(options, 30);
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;

  auto target = LoadTarget(args);
  if (!target.ok()) return Fail(target.status());
  auto config = target->space.Parse(args["config"].as<std::string>());
  if (!config.ok()) return Fail(config.status());
  auto session_options = ReadMeasureOptions(args);
  if (!session_options.ok()) return Fail(session_options.status());

  ProgressLine progress(WantsProgress(args));
  session_options->on_progress = progress.Callback();
  MeasurementSession session(target->workload, target->space, target->dims);
  std::vector<CandidateResult> results = session.Compare({*config}, *session_options);
  progress.Finish();
  const CandidateResult& result = results[0];
  Status over = OverBudgetStatus(results);
  if (!over.ok()) return Fail(over);
  WarnIfMachineBusy();

  Json json = MeasurementRecordJson(target->workload, target->space, target->dims, result,
                                    CliRecordContext(*session_options));
  if (result.status == CandidateStatus::kOk) {
    Status written = WriteOutOption(args, json);
    if (!written.ok()) return Fail(written);
  }
  PrintJsonOrText(args, json, HeaderLine(target->workload, target->dims) + RenderMeasurement(target->space, result));
  if (result.status != CandidateStatus::kOk)
    std::fprintf(stderr, "crmap: %s: %s\n", CandidateStatusName(result.status), result.message.c_str());
  return ExitCodeForCandidate(result);
}

int RunCompare(int argc, char** argv) {
  cxxopts::Options options("crmap compare",
                           "Measure several configs side by side in one process, interleaving rounds; the first "
                           "config is the anchor every ratio refers to.");
  AddTargetOptions(options);
  options.add_options()
      ("c,config", "a config (repeat the flag): 'default', knob=value;... or JSON",
       cxxopts::value<std::vector<std::string>>())
      ("baseline", "add peers: 'libtorch' (LibTorch f32 on all cores at its best: eager as installed, with the "
                   "host's OpenBLAS core if the installed one is older, and its oneDNN path for linear ops) or a "
                   "list such as 'libtorch,libtorch[mkldnn],libtorch[openblas=Haswell]'",
       cxxopts::value<std::string>());
  AddMeasureOptions(options, 30);
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;

  auto target = LoadTarget(args);
  if (!target.ok()) return Fail(target.status());
  std::vector<Config> configs;
  if (args.count("config")) {
    for (const auto& text : args["config"].as<std::vector<std::string>>()) {
      auto config = target->space.Parse(text);
      if (!config.ok()) return Fail(config.status());
      configs.push_back(*config);
    }
  }
  if (configs.empty()) return Fail(Status::InvalidArgument("give at least one --config (the first is the anchor)"));
  auto session_options = ReadMeasureOptions(args);
  if (!session_options.ok()) return Fail(session_options.status());
  auto baseline = ReadBaselineOption(args, target->workload);
  if (!baseline.ok()) return Fail(baseline.status());
  session_options->baselines = *baseline;
  session_options->stop_on_over_memory = true;  // a config over the budget is bad input: measure nothing

  ProgressLine progress(WantsProgress(args));
  session_options->on_progress = progress.Callback();
  MeasurementSession session(target->workload, target->space, target->dims);
  std::vector<CandidateResult> results = session.Compare(configs, *session_options);
  progress.Finish();
  Status over = OverBudgetStatus(results);
  if (!over.ok()) return Fail(over);
  WarnIfMachineBusy();

  Json json = ResultsJson(target->workload, target->space, target->dims, results, CliRecordContext(*session_options));
  Status written = WriteOutOption(args, json);
  if (!written.ok()) return Fail(written);
  PrintJsonOrText(args, json, HeaderLine(target->workload, target->dims) + RenderComparison(target->space, results));
  return kExitOk;
}

}  // namespace crmap::cli
