// crmap campaign: every task of a campaign spec into one tuning database (tuner/campaign_task.h).
#include <cstdio>

#include "common/file_read.h"
#include "datasets/catalog.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/measure_options.h"
#include "tuner/cli/task_options.h"

namespace crmap::cli {

int RunCampaign(int argc, char** argv) {
  cxxopts::Options options("crmap campaign",
                           "Run a whole campaign from a spec file: workloads x shape sets x agent x budget, one "
                           "tuning database. Without --spec, runs the built-in default spec (about 2 minutes).");
  options.add_options()
      ("spec", "campaign spec (docs/campaign-spec.md); default: the built-in spec", cxxopts::value<std::string>())
      ("print-default-spec", "print the built-in spec and exit");
  AddTaskSettingsOptions(options);
  AddMeasureOptions(options, 10, /*default_cold_samples=*/1);
  AddObjectiveOption(options);
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (args.count("print-default-spec")) {
    std::printf("%s\n", DefaultCampaignSpecText());
    return kExitOk;
  }
  std::string text = DefaultCampaignSpecText(), source = "built-in default spec";
  if (args.count("spec")) {
    source = args["spec"].as<std::string>();
    auto file = ReadFileCapped(source, kMaxDatasetFileBytes, "campaign spec");
    if (!file.ok()) return Fail(file.status());
    text = *file;
  }
  auto spec = ParseCampaignSpec(text, source);
  if (!spec.ok()) return Fail(spec.status());
  auto session = ReadMeasureOptions(args);
  if (!session.ok()) return Fail(session.status());
  auto objective = ReadObjectiveOption(args, &*session);
  if (!objective.ok()) return Fail(objective.status());

  TaskSettings settings;
  settings.campaign = spec->name;
  settings.db = args.count("db") ? args["db"].as<std::string>() : spec->db;
  settings.resume = args.count("resume") > 0;
  // Flags given on the command line override the spec.
  settings.seed = args.count("seed") ? args["seed"].as<uint64_t>() : spec->seed;
  settings.time_limit_s = args.count("time-limit") ? args["time-limit"].as<double>() : spec->time_limit_s;
  settings.batch = args.count("batch") ? static_cast<size_t>(std::max(1, args["batch"].as<int>())) : spec->batch;
  settings.rounds = args.count("rounds") ? session->measure.rounds : std::max(spec->rounds, MinimumRounds(*objective));
  settings.objective = *objective;
  settings.warmup = args.count("warmup") ? session->measure.warmup : spec->warmup;
  settings.confirm = spec->confirm && args.count("no-confirm") == 0;
  if (Status share = ReadBudgetShares(args, &settings); !share.ok()) return Fail(share);
  settings.session = *session;
  if (args.count("max-failures")) settings.max_failures = std::max(0, args["max-failures"].as<int>());

  ProgressLine progress(!args.count("json"));
  WatchProgressAndCtrlC(args, &settings, &progress);
  RestartOnHang(settings, argc, argv);
  std::vector<TaskReport> reports;
  Status status = RunCampaignSpec(*spec, settings, &reports);
  progress.Finish();
  if (!status.ok()) return Fail(status);
  return FinishTasks(reports, settings, args, ResumeHint(argc, argv));
}

}  // namespace crmap::cli
