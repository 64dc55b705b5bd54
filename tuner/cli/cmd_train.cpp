// crmap train: a tuning database in, a policy file out (tuner/policy_trainer.h).
#include <cstdio>

#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/config_scores.h"
#include "tuner/policy_export.h"
#include "tuner/policy_trainer.h"

namespace crmap::cli {

int RunTrain(int argc, char** argv) {
  cxxopts::Options options("crmap train",
                           "Train the shape-conditioned policy (rl agent's policy and critic) on every record of a "
                           "tuning database and write a policy file for the runtime hook.");
  options.add_options()
      ("db", "tuning database", cxxopts::value<std::string>())
      ("w,workload", "workload name or file (default: the database's, if it holds one; found as a built-in or at the "
                     "path its records name)", cxxopts::value<std::string>())
      ("seed", "training seed", cxxopts::value<uint64_t>()->default_value("1"))
      ("hidden", "width of the exported networks", cxxopts::value<int>()->default_value("32"))
      ("critic-epochs", "Adam steps of the critic", cxxopts::value<int>()->default_value("800"))
      ("policy-steps", "REINFORCE steps of the policy", cxxopts::value<int>()->default_value("400"))
      ("critic-members", "critics trained on bootstrap resamples besides the main one: their spread is each "
                         "decision's confidence (0: none, confidence unknown)",
       cxxopts::value<int>()->default_value("4"))
      ("pessimism", "a decision away from the table maximises the critics' mean predicted speedup minus this many "
                    "standard deviations of it", cxxopts::value<float>()->default_value("1"))
      ("switch-margin", "a decision away from the table keeps the static plan unless another config's score beats "
                        "the static plan's by more than this share (0.05: 5%)",
       cxxopts::value<float>()->default_value("0.05"))
      ("incumbent", "what a decision away from the table keeps: static (the static plan) or neighbours (the label "
                    "of the two tuned shapes nearest the shape where they share it, else the static plan)",
       cxxopts::value<std::string>()->default_value("static"))
      ("json", "print a JSON report");
  AddOutOption(options, "policy file to write");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (!args.count("db")) return Fail(Status::InvalidArgument("missing --db"));
  if (!args.count("out")) return Fail(Status::InvalidArgument("missing --out (the policy file to write)"));
  TrainOptions train;
  train.seed = args["seed"].as<uint64_t>();
  train.hidden = args["hidden"].as<int>();
  train.critic_epochs = args["critic-epochs"].as<int>();
  train.policy_steps = args["policy-steps"].as<int>();
  train.critic_members = args["critic-members"].as<int>();
  train.pessimism = args["pessimism"].as<float>();
  train.switch_margin = args["switch-margin"].as<float>();
  const std::string incumbent = args["incumbent"].as<std::string>();
  if (incumbent != "static" && incumbent != "neighbours")
    return Fail(Status::InvalidArgument("--incumbent " + incumbent + ": use static or neighbours"));
  train.neighbour_incumbent = incumbent == "neighbours";
  const std::string out = args["out"].as<std::string>();
  if (args.count("json")) QuietInfoLogs();  // the JSON report alone, as without logs
  TrainReport report;
  std::string workload;
  Status trained = TrainFromDatabase(args["db"].as<std::string>(),
                                     args.count("workload") ? args["workload"].as<std::string>() : "", out, train,
                                     &report, &workload);
  if (!trained.ok()) return Fail(trained);
  Json json = {{"policy", out}, {"workload", workload}, {"records", report.records}, {"records_ignored", report.ignored}, {"shapes", report.shapes},
               {"critic_mse", report.critic_loss}, {"record_noise", report.record_noise},
               {"label_tie_band", report.label_tie_band}, {"policy_agrees_with_table", report.policy_agrees},
               {"policy_within_noise_of_best", report.policy_within_noise},
               {"policy_within_label_tie_band", report.policy_within_label_band},
               {"policy_choice_unmeasured", report.policy_choice_unmeasured},
               {"fallback", report.fallback}, {"incumbent", report.incumbent},
               {"switch_margin", train.switch_margin}, {"incumbent_rule", incumbent},
               {"critic_members", train.critic_members},
               {"pessimism", train.pessimism}, {"mean_table_confidence", report.mean_table_confidence},
               {"leave_one_shape_out", {{"folds", report.calibration_folds},
                                        {"choice_measured", report.calibration_measured},
                                        {"within_noise_of_best", report.calibration_within}}},
               {"calibration", CalibrationJson(report.calibration)}};
  Json tuned_shapes = Json::array();
  for (const TunedShapeAnswer& shape : report.tuned_shapes)
    tuned_shapes.push_back({{"dims", shape.dims}, {"label", shape.label}, {"policy_answer", shape.policy_answer},
                            {"within_5pct", StandingName(shape.within_5pct)},
                            {"within_label_tie_band", StandingName(shape.within_label_band)}});
  json["tuned_shapes"] = tuned_shapes;
  if (args.count("json")) {
    std::printf("%s\n", json.dump(2).c_str());
  } else {
    std::printf("wrote %s: %s, %zu measurements of configs used, %zu tuned shapes\n  critic mean squared error %.4f "
                "(log speedup)\n  policy's own answer = the table's label at %zu of %zu tuned shapes, within "
                "%.0f%% of it at %zu (never measured there: %zu)\n  fallback %s\n  incumbent (the static plan%s, kept "
                "away from the table unless a gain beyond %g%% is predicted) %s\n  critic members %d, mean "
                "confidence in the table's configs %.2f (-1: unknown)\n",
                out.c_str(), workload.c_str(), report.records, report.shapes, report.critic_loss, report.policy_agrees,
                report.shapes, 100 * kNoiseBand, report.policy_within_noise, report.policy_choice_unmeasured,
                report.fallback.c_str(),
                train.neighbour_incumbent ? ", or the label the two nearest tuned shapes share" : "",
                100 * train.switch_margin, report.incumbent.c_str(), train.critic_members,
                report.mean_table_confidence);
    if (report.record_noise > 0)
      std::printf("  a record's noise as the database shows it %.3f (log speedup): labels tie configs of one record "
                  "each within %.1f%%; the policy's own answer is tied with the best within it at %zu of %zu tuned "
                  "shapes\n", report.record_noise, 100 * report.label_tie_band, report.policy_within_label_band,
                  report.shapes);
    else
      std::printf("  no record noise estimated (too few configs measured at two neighbouring shapes, or no spread "
                  "between them): labels tie within %.0f%%\n", 100 * kNoiseBand);
    for (const TunedShapeAnswer& shape : report.tuned_shapes)
      if (shape.policy_answer != shape.label)
        std::printf("  at %s the policy's own answer is %s (at 5%%: %s; in the tie band: %s), the label %s\n",
                    DimsToText(shape.dims).c_str(), shape.policy_answer.c_str(), StandingName(shape.within_5pct),
                    StandingName(shape.within_label_band), shape.label.c_str());
    if (report.calibration_folds > 0)
      std::printf("  each tuned shape left out in turn: the ensemble's choice there stood tied with the best measured "
                  "(within %.1f%%, the labels' tie band) at %zu of %zu (never measured there: %zu)\n",
                  100 * report.label_tie_band, report.calibration_within, report.calibration_measured,
                  report.calibration_folds - report.calibration_measured);
    for (size_t b = 0; b < report.calibration.size(); ++b) {
      const CalibrationBin& bin = report.calibration[b];
      const double to = b + 1 < report.calibration.size() ? report.calibration[b + 1].from : 1.0;
      std::printf("  agreement [%.1f, %.1f%s: %u of %u right, stated confidence %.2f\n", bin.from, to,
                  b + 1 < report.calibration.size() ? ")" : "]", bin.within, bin.folds, bin.rate);
    }
    if (report.ignored > 0)
      std::printf("  %zu records of this workload ignored (dims or config it does not accept; named above)\n",
                  report.ignored);
  }
  return kExitOk;
}

}  // namespace crmap::cli
