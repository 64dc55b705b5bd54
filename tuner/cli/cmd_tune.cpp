// crmap tune: one tuning campaign on the real backend (tuner/campaign_task.h).
#include <string_view>

#include "tuner/cli/commands.h"
#include "tuner/cli/measure_options.h"
#include "tuner/cli/task_options.h"
#include "datasets/shape_cover.h"

namespace crmap::cli {

int RunTune(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)  // a request stream to serve: tune the runtime's knobs under load
    if (std::string_view(argv[i]) == "--requests" || std::string_view(argv[i]).rfind("--requests=", 0) == 0)
      return RunTuneRuntime(argc, argv);
  cxxopts::Options options("crmap tune",
                           "Run a tuning campaign: an agent spends --budget measurements over shapes drawn from a "
                           "distribution (or listed), every result appended to --db.");
  options.add_options()
      ("w,workload", "built-in workload name or path", cxxopts::value<std::string>())
      ("shapes", "distribution name or path, or a list like 'tokens=1;tokens=64'", cxxopts::value<std::string>())
      ("num-shapes", "shapes taken from a distribution", cxxopts::value<int>()->default_value("8"))
      ("shape-choice",
       "how they are taken: draws (distinct random draws), cover (shapes that cover the distribution's support, "
       "rare large ones too), edges (each dim's smallest and largest shape of the support, then a cover) or quantiles "
       "(one shape per equal share of the distribution's mass, dims paired by a seeded shuffle); cover and edges "
       "take at most " + std::to_string(kMaxCoveringShapes),
       cxxopts::value<std::string>()->default_value("draws"))
      ("agent", "random, grid, evolution, bandit, model or rl", cxxopts::value<std::string>()->default_value("rl"))
      ("budget", "measurements the agent may spend (configs this host refuses are stored, not charged)",
       cxxopts::value<int>()->default_value("100"))
      ("campaign", "name recorded with every measurement", cxxopts::value<std::string>())
      ("leader-climbs", "rl agent: at a shape the campaign's leader won, measure a neighbour of the leader that no "
                        "shape has measured (docs/agents.md); off by default");
  AddTaskSettingsOptions(options);
  AddMeasureOptions(options, 10, /*default_cold_samples=*/1);
  AddObjectiveOption(options);
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  for (const char* required : {"workload", "shapes", "db"})
    if (!args.count(required)) return Fail(Status::InvalidArgument(std::string("missing --") + required));
  auto session = ReadMeasureOptions(args);
  if (!session.ok()) return Fail(session.status());
  auto objective = ReadObjectiveOption(args, &*session);
  if (!objective.ok()) return Fail(objective.status());

  TuneTask task;
  task.workload = args["workload"].as<std::string>();
  task.shapes = args["shapes"].as<std::string>();
  int num_shapes = args["num-shapes"].as<int>(), budget = args["budget"].as<int>();
  if (num_shapes < 1 || budget < 1) return Fail(Status::InvalidArgument("--num-shapes and --budget must be >= 1"));
  task.num_shapes = static_cast<size_t>(num_shapes);
  auto shape_choice = ParseShapeChoice(args["shape-choice"].as<std::string>());
  if (!shape_choice.ok()) return Fail(shape_choice.status().WithContext("--shape-choice"));
  task.shape_choice = *shape_choice;
  task.budget = static_cast<size_t>(budget);
  task.agent = args["agent"].as<std::string>();

  TaskSettings settings;
  settings.db = args["db"].as<std::string>();
  settings.resume = args.count("resume") > 0;
  settings.seed = args["seed"].as<uint64_t>();
  settings.time_limit_s = args["time-limit"].as<double>();
  auto batch = OptionInRange(args, "batch", 1, 4096);
  if (!batch.ok()) return Fail(batch.status());
  settings.batch = static_cast<size_t>(*batch);
  settings.rounds = session->measure.rounds;
  settings.objective = *objective;
  settings.warmup = session->measure.warmup;
  settings.confirm = args.count("no-confirm") == 0;
  if (Status share = ReadBudgetShares(args, &settings); !share.ok()) return Fail(share);
  settings.leader_climbs = args.count("leader-climbs") > 0;
  if (settings.leader_climbs && task.agent != "rl")
    return Fail(Status::InvalidArgument("--leader-climbs applies to the rl agent only (--agent rl), not '" + task.agent +
                                        "'"));
  settings.session = *session;
  if (args.count("max-failures")) {
    auto max_failures = OptionInRange(args, "max-failures", 0, 1000000);
    if (!max_failures.ok()) return Fail(max_failures.status());
    settings.max_failures = *max_failures;
  }
  settings.campaign = args.count("campaign") ? args["campaign"].as<std::string>()
                                             : "tune-" + task.agent + "-" + std::to_string(settings.seed);
  Status campaign_name = CheckCampaignName(settings.campaign);
  if (!campaign_name.ok()) return Fail(campaign_name);
  if (settings.time_limit_s < 0) return Fail(Status::InvalidArgument("--time-limit must be >= 0"));

  ProgressLine progress(!args.count("json"));
  WatchProgressAndCtrlC(args, &settings, &progress);
  RestartOnHang(settings, argc, argv);
  TaskReport report;
  Status status = RunTuneTask(task, settings, &report);
  progress.Finish();
  if (!status.ok()) return Fail(status);
  return FinishTasks({report}, settings, args, ResumeHint(argc, argv));
}

}  // namespace crmap::cli
