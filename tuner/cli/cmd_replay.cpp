// crmap replay: agents run against a recorded tuning database (tuner/replay_runner.h).
#include <cstdio>

#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/measure_options.h"
#include "tuner/replay_runner.h"

namespace crmap::cli {

int RunReplay(int argc, char** argv) {
  cxxopts::Options options("crmap replay",
                           "Run agents against a recorded (ideally exhaustive, e.g. --agent grid) tuning database "
                           "and report best-found / oracle speedup versus measurements, per seed.");
  options.add_options()
      ("db", "tuning database to replay", cxxopts::value<std::string>())
      ("w,workload", "the workload the database measured (default: its only one, found as a built-in or at the "
                     "path its records name)", cxxopts::value<std::string>())
      ("agent", "agent(s) to replay, comma-separated", cxxopts::value<std::string>()->default_value("rl"))
      ("seeds", "seeds 1..N per agent", cxxopts::value<int>()->default_value("5"))
      ("budget", "measurements per run (default: 25% of the recorded measurements that ran; refusals are not charged)",
       cxxopts::value<int>())
      ("batch", "candidates per step", cxxopts::value<int>()->default_value("8"))
      ("transfer", "rl only: train on all shapes but the last N, then rate its first proposal on those N",
       cxxopts::value<int>()->default_value("0"))
      ("json", "print JSON");
  AddOutOption(options, "also write the JSON to this file");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (!args.count("db")) return Fail(Status::InvalidArgument("missing --db"));
  ReplayRequest request;
  request.db_path = args["db"].as<std::string>();
  if (args.count("workload")) request.workload = args["workload"].as<std::string>();
  request.agents = args["agent"].as<std::string>();
  request.seeds = args["seeds"].as<int>();
  if (args.count("budget")) {
    auto budget = OptionInRange(args, "budget", 1, 10000000);
    if (!budget.ok()) return Fail(budget.status());
    request.budget = *budget;
  }
  request.batch = args["batch"].as<int>();
  request.transfer = args["transfer"].as<int>();
  auto report = RunReplay(request);
  if (!report.ok()) return Fail(report.status());
  Status written = WriteOutOption(args, report->json);
  if (!written.ok()) return Fail(written);
  PrintJsonOrText(args, report->json, report->text);
  return kExitOk;
}

}  // namespace crmap::cli
