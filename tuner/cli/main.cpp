// crmap: the command-line tool. main() configures logging once and dispatches to a subcommand from the table
// below; each subcommand parses its own flags, calls the libraries and maps their results to exit codes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/result_output.h"

namespace {

struct Command {
  const char* name;
  const char* help;
  int (*run)(int argc, char** argv);
};

const Command kCommands[] = {
    {"workloads", "list the workloads with their dims, ranges, distributions and scenarios", crmap::cli::RunWorkloads},
    {"space", "print a workload's knobs, domains, constraints and the size of its space", crmap::cli::RunSpace},
    {"measure", "compile, validate and measure one config at one shape", crmap::cli::RunMeasure},
    {"compare", "measure several configs side by side (interleaved rounds), optionally with LibTorch",
     crmap::cli::RunCompare},
    {"sweep", "measure the whole plan space at one shape and confirm the best plans", crmap::cli::RunSweep},
    {"tune", "run a tuning campaign: an agent spends a measurement budget over a shape distribution",
     crmap::cli::RunTune},
    {"campaign", "run a whole campaign from a spec file (or the built-in default spec)", crmap::cli::RunCampaign},
    {"db", "inspect a tuning database: stats, best, csv", crmap::cli::RunDb},
    {"replay", "run agents against a recorded tuning database: best-found / oracle vs measurements",
     crmap::cli::RunReplay},
    {"train", "train the shape-conditioned policy on a tuning database and write a policy file", crmap::cli::RunTrain},
    {"export", "dump a policy file as JSON", crmap::cli::RunExport},
    {"query", "ask a policy file for a decision through the runtime hook", crmap::cli::RunQuery},
    {"suggest", "suggest the shapes a campaign should measure next, where the policy is least confident",
     crmap::cli::RunSuggest},
    {"serve", "replay a request stream open-loop on oneDNN through the serving runtime and report the tail",
     crmap::cli::RunServe},
    {"evaluate", "compile-time mapping accuracy of a policy on held-out shapes vs their oracle",
     crmap::cli::RunEvaluate},
};

void PrintUsage() {
  std::printf("crmap %s: compiler-runtime mapping autotuner on oneDNN\n\n"
              "usage: crmap [--log-level debug|info|warn|error] <command> [options]\n\n",
              CRMAP_VERSION);
  std::printf("commands:\n");
  for (const auto& command : kCommands) std::printf("  %-10s %s\n", command.name, command.help);
  std::printf("  %-10s %s\n", "version", "print crmap's version and the host it runs on");
  std::printf("\n'crmap <command> --help' shows a command's options. Exit status: 0 ok, 1 failure, 2 bad input,\n"
              "3 not measurable on this host (see docs/cli.md). Logs (progress, warnings) go to stderr; --log-level,\n"
              "or CRMAP_LOG=debug|info|warn|error, sets their level (default info).\n");
}

bool IsLogLevel(const std::string& name) {
  return name == "debug" || name == "info" || name == "warn" || name == "error";
}

// The one logger, on stderr: libraries report progress and warnings through it, results go to stdout. Its level
// comes from --log-level (taken off the front of argv), else CRMAP_LOG, else info. Returns false (after the
// message) for a --log-level that is not a level.
bool ConfigureLogging(int* argc, char*** argv) {
  auto logger = spdlog::stderr_color_mt("crmap");
  logger->set_pattern("[%H:%M:%S] %^%l%$ %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::info);
  const char* env = std::getenv("CRMAP_LOG");
  if (env && *env) {
    if (IsLogLevel(env)) {
      spdlog::set_level(spdlog::level::from_str(env));
    } else {  // from_str would silently turn logging off
      std::fprintf(stderr, "crmap: warning: CRMAP_LOG='%s' is not a log level (debug, info, warn, error); using "
                           "info\n", env);
    }
  }
  if (*argc >= 2 && (!std::strcmp((*argv)[1], "--log-level") || !std::strncmp((*argv)[1], "--log-level=", 12))) {
    const bool joined = (*argv)[1][11] == '=';
    if (!joined && *argc < 3) {
      std::fprintf(stderr, "crmap: error: --log-level needs a level: debug, info, warn or error\n");
      return false;
    }
    const std::string level = joined ? (*argv)[1] + 12 : (*argv)[2];
    if (!IsLogLevel(level)) {
      std::fprintf(stderr, "crmap: error: --log-level '%s' is not a level; allowed: debug, info, warn, error\n",
                   level.c_str());
      return false;
    }
    spdlog::set_level(spdlog::level::from_str(level));
    const int taken = joined ? 1 : 2;
    (*argv)[taken] = (*argv)[0];
    *argv += taken;
    *argc -= taken;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (!ConfigureLogging(&argc, &argv)) return crmap::cli::kExitBadInput;
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    PrintUsage();
    return argc < 2 ? crmap::cli::kExitBadInput : crmap::cli::kExitOk;
  }
  if (!std::strcmp(argv[1], "version") || !std::strcmp(argv[1], "--version")) {
    std::printf("%s", crmap::cli::VersionText().c_str());
    return crmap::cli::kExitOk;
  }
  for (const auto& command : kCommands) {
    if (std::strcmp(argv[1], command.name) == 0) return command.run(argc - 1, argv + 1);
  }
  if (!std::strcmp(argv[1], "peer-worker")) return crmap::cli::RunPeerWorker(argc - 1, argv + 1);
  std::fprintf(stderr, "crmap: error: unknown command '%s'; commands:", argv[1]);
  for (const auto& command : kCommands) std::fprintf(stderr, " %s", command.name);
  std::fprintf(stderr, " version\n");
  return crmap::cli::kExitBadInput;
}
