// crmap evaluate: compile-time mapping accuracy of a policy on held-out shapes (tuner/policy_evaluation.h).
#include <cstdio>

#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/measure_options.h"
#include "tuner/policy_evaluation.h"
#include "tuner/text_table.h"

namespace crmap::cli {

int RunEvaluate(int argc, char** argv) {
  cxxopts::Options options(
      "crmap evaluate",
      "Compile-time mapping accuracy on held-out shapes: for each of N shapes drawn from a distribution that the "
      "policy was not tuned on, measure the policy's pick against that shape's oracle (exhaustive over the plan "
      "knobs), next to a static plan, the nearest tuned shape's config and the default, all in one interleaved run; "
      "then the oracle again beside the picks in a second run, whose ratios are reported.");
  options.add_options()
      ("policy", "policy file", cxxopts::value<std::string>())
      ("shapes", "distribution to draw held-out shapes from (built-in name or path), or a list \"tokens=100;tokens=200\"",
       cxxopts::value<std::string>())
      ("held-out", "number of held-out shapes (with a list: at most this many of them; default all)",
       cxxopts::value<int>()->default_value("8"))
      ("db", "the tuning database the policy was trained on (default: the one its metadata names); the static "
             "plan comes from it", cxxopts::value<std::string>())
      ("seed", "seed of the shapes drawn", cxxopts::value<uint64_t>()->default_value("101"))
      ("screen-rounds", "interleaved rounds per screening chunk", cxxopts::value<int>()->default_value("5"))
      ("confirm-rounds", "rounds of each shape's confirmation run, which measures the oracle again beside the picks "
                         "(default: as many as --rounds; 0: none, the sweep's own ratios, biased low)",
       cxxopts::value<int>())
      ("w,workload", "the workload's file, if the policy's recorded one moved (default: the built-in, or the "
                     "file the policy records)", cxxopts::value<std::string>())
      ("compare-policy", "a second policy file of the same workload and space (e.g. trained by an earlier crmap "
                         "from the same database): its picks are measured in the same interleaved runs, a fifth "
                         "method", cxxopts::value<std::string>())
      ("force", "evaluate a policy tuned on a host of another CPU ISA (refused otherwise)");
  AddMeasureOptions(options, 20, /*default_cold_samples=*/1);
  AddObjectiveOption(options);
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  for (const char* required : {"policy", "shapes"})
    if (!args.count(required)) return Fail(Status::InvalidArgument(std::string("missing --") + required));
  auto measure = ReadMeasureOptions(args);
  if (!measure.ok()) return Fail(measure.status());
  auto objective = ReadObjectiveOption(args, &*measure);
  if (!objective.ok()) return Fail(objective.status());

  EvaluationRequest request;
  request.policy_path = args["policy"].as<std::string>();
  request.shapes = args["shapes"].as<std::string>();
  request.held_out = args["held-out"].as<int>();
  request.held_out_given = args.count("held-out") > 0;
  if (args.count("compare-policy")) request.compare_policy_path = args["compare-policy"].as<std::string>();
  if (args.count("db")) request.db_path = args["db"].as<std::string>();
  if (args.count("workload")) request.workload = args["workload"].as<std::string>();
  request.seed = args["seed"].as<uint64_t>();
  request.allow_other_isa = args.count("force") > 0;
  request.sweep = SweepOptionsFrom(*measure);
  request.sweep.objective = *objective;
  request.sweep.screen_rounds = args["screen-rounds"].as<int>();
  if (args.count("confirm-rounds")) {
    request.confirm_rounds = args["confirm-rounds"].as<int>();
    if (request.confirm_rounds < 0 || request.confirm_rounds > 100000)
      return Fail(Status::InvalidArgument(
          Format("--confirm-rounds must be >= 0 and at most 100000, got %d", request.confirm_rounds)));
  }
  ProgressLine progress(!args.count("json"));
  request.on_progress = [&](size_t shape, size_t shapes, const std::string& stage, int done, int total) {
    progress.Update(Format("shape %zu/%zu %s", shape + 1, shapes, stage.c_str()), done, total);
  };
  auto report = EvaluatePolicy(request);
  progress.Finish();
  if (!report.ok()) return Fail(report.status());
  WarnIfMachineBusy();
  Status written = WriteOutOption(args, report->json);
  if (!written.ok()) return Fail(written);
  PrintJsonOrText(args, report->json, report->text);
  return kExitOk;
}

}  // namespace crmap::cli
