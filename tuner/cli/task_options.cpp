#include "tuner/cli/task_options.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tuner/cli/measure_options.h"
#include "tuner/text_table.h"

namespace crmap::cli {

namespace {

constexpr const char* kRestartsVariable = "CRMAP_HANG_RESTARTS";

int RestartsSoFar() {
  const char* value = std::getenv(kRestartsVariable);
  int restarts = 0;
  if (value) std::from_chars(value, value + std::strlen(value), restarts);
  return std::max(restarts, 0);
}

}  // namespace

void RestartOnHang(const TaskSettings& settings, int argc, char** argv) {
  if (!settings.session.watchdog) return;
  std::vector<std::string> command = {"crmap"};
  bool has_resume = false;
  for (int i = 0; i < argc; ++i) {
    command.emplace_back(argv[i]);
    has_resume |= command.back() == "--resume";
  }
  if (!has_resume) command.emplace_back("--resume");
  const int restarts = RestartsSoFar();
  const std::string hint = ResumeHint(argc, argv);
  settings.session.watchdog->SetHandler([command, restarts, hint](const HangEvent& event) {
    std::fflush(stdout);
    if (restarts >= kMaxHangRestarts) {
      std::fprintf(stderr, "\ncrmap: error: %s; recorded as a timeout. This campaign was restarted %d times after hung "
                   "kernels already, so it stops here (exit 3); continue with: %s\n",
                   DescribeHang(event).c_str(), restarts, hint.c_str());
      std::fflush(stderr);
      ::_exit(kExitNotMeasurable);
    }
    std::fprintf(stderr, "\ncrmap: warning: %s; recorded as a timeout. A running kernel cannot be interrupted: "
                 "restarting the campaign with --resume (restart %d of at most %d)\n",
                 DescribeHang(event).c_str(), restarts + 1, kMaxHangRestarts);
    std::fflush(stderr);
    std::vector<std::string> environment;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, kRestartsVariable, std::strlen(kRestartsVariable)) != 0 ||
          (*e)[std::strlen(kRestartsVariable)] != '=')
        environment.emplace_back(*e);
    environment.push_back(std::string(kRestartsVariable) + "=" + std::to_string(restarts + 1));
    std::vector<char*> args, envp;
    for (const auto& a : command) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : environment) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    ::execve("/proc/self/exe", args.data(), envp.data());
    std::fprintf(stderr, "crmap: error: could not restart (%s); continue with: %s\n", std::strerror(errno),
                 hint.c_str());
    ::_exit(kExitNotMeasurable);
  });
}

void WatchProgressAndCtrlC(const cxxopts::ParseResult& args, TaskSettings* settings, ProgressLine* progress) {
  if (args.count("json")) QuietInfoLogs();  // the JSON report alone on stdout, no log lines around it
  settings->on_progress = progress->Callback();
  // Ctrl-C: the first one asks the campaign to stop after the batch in flight; a second one kills the process
  // (the database then holds every batch completed before it).
  settings->stop = InstallStopSignals({SIGINT});
}

void AddTaskSettingsOptions(cxxopts::Options& options) {
  options.add_options("campaign")
      ("db", "tuning database (JSON Lines), appended to", cxxopts::value<std::string>())
      ("resume", "continue the campaign already in the database without re-measuring")
      ("seed", "seed of the agent and of the shapes drawn", cxxopts::value<uint64_t>()->default_value("1"))
      ("time-limit", "stop after this many seconds (per task)", cxxopts::value<double>()->default_value("0"))
      ("batch", "candidates measured together (interleaved) per step", cxxopts::value<int>()->default_value("8"))
      ("no-confirm", "skip the final side-by-side run with the default and LibTorch")
      ("max-failures", "stop the agent after this many consecutive failed measurements (0: never; default 48, "
                       "none for grid)", cxxopts::value<int>())
      ("recheck-share", "share of the budget in [0, 1) kept back from the agent to measure each shape's two "
                        "leading configs again, the least resolved first",
       cxxopts::value<double>()->default_value("0"))
      ("probe-share", "share of the budget in [0, 1) kept back to measure the tuned shapes' labels at every thread "
                      "count above the tuned range (at most two shapes of the distribution)",
       cxxopts::value<double>()->default_value("0"));
}

Status ReadBudgetShares(const cxxopts::ParseResult& args, TaskSettings* settings) {
  const double recheck = args["recheck-share"].as<double>();
  if (!(recheck >= 0 && recheck < 1))
    return Status::InvalidArgument(Format("--recheck-share must be in [0, 1), got %g", recheck));
  const double probe = args["probe-share"].as<double>();
  if (!(probe >= 0 && probe < 1))
    return Status::InvalidArgument(Format("--probe-share must be in [0, 1), got %g", probe));
  if (recheck + probe >= 1)
    return Status::InvalidArgument(Format("--recheck-share and --probe-share must sum to below 1 (the agent's "
                                          "share), got %g + %g", recheck, probe));
  settings->recheck_share = recheck;
  settings->probe_share = probe;
  return Status::Ok();
}

int FinishTasks(const std::vector<TaskReport>& reports, const TaskSettings& settings, const cxxopts::ParseResult& args,
           const std::string& resume_hint) {
  Json all = Json::array();
  for (const auto& r : reports) all.push_back(r.json);
  Json summary = all.size() == 1 ? all[0] : all;
  Status written = WriteOutOption(args, summary);
  if (!written.ok()) return Fail(written);
  WarnIfMachineBusy();
  if (args.count("json")) {
    std::printf("%s\n", summary.dump(2).c_str());
  } else {
    for (const auto& r : reports) std::printf("%s", r.text.c_str());
  }
  if (settings.stop && settings.stop->load()) {
    std::fprintf(stderr, "crmap: stopped after the batch in flight; every completed measurement is in %s.\n"
                         "continue with: %s\n", settings.db.c_str(), resume_hint.c_str());
    return 130;
  }
  return kExitOk;
}

std::string ResumeHint(int argc, char** argv) {
  std::string hint = "crmap";
  bool has_resume = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    has_resume |= arg == "--resume";
    hint += " " + (arg.find_first_of(" ;'\"") == std::string::npos ? arg : "'" + arg + "'");
  }
  return has_resume ? hint : hint + " --resume";
}

}  // namespace crmap::cli
