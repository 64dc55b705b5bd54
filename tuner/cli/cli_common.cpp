#include "tuner/cli/cli_common.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "common/atomic_file.h"
#include "common/json_fields.h"
#include "datasets/catalog.h"

namespace crmap::cli {

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kCorruption:
    case StatusCode::kResourceExhausted: return kExitBadInput;
    case StatusCode::kUnsupported: return kExitNotMeasurable;
    case StatusCode::kInternal: return kExitFailure;
  }
  return kExitFailure;
}

int Fail(const Status& status) {
  std::fprintf(stderr, "crmap: error: %s\n", status.message().c_str());
  return ExitCodeFor(status);
}

bool ParseOptions(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult* result, int* exit_code) {
  options.add_options("help")("h,help", "Show this help");
  try {
    *result = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
    // cxxopts names the value but not the option: find the option it was given to.
    std::string option = "an option";
    for (int i = 1; i < argc && option == "an option"; ++i) {
      const std::string arg = argv[i];
      const size_t eq = arg.find('=');
      if (arg.rfind("-", 0) == 0 && eq != std::string::npos) {
        if (eq + 1 < arg.size() && std::strstr(e.what(), arg.c_str() + eq + 1)) option = arg.substr(0, eq);
      } else if (i > 1 && argv[i - 1][0] == '-' && !arg.empty() && std::strstr(e.what(), arg.c_str())) {
        option = argv[i - 1];
      }
    }
    std::fprintf(stderr,
                 "crmap: error: %s: %s; it takes a number of its type and range (integers fit in 32 or 64 bits; "
                 "see '%s --help')\n",
                 option.c_str(), e.what(), options.program().c_str());
    *exit_code = kExitBadInput;
    return false;
  } catch (const cxxopts::exceptions::exception& e) {
    std::fprintf(stderr, "crmap: error: %s (see '%s --help')\n", e.what(), options.program().c_str());
    *exit_code = kExitBadInput;
    return false;
  }
  if (result->count("help")) {
    std::printf("%s", options.help().c_str());
    *exit_code = kExitOk;
    return false;
  }
  if (!result->unmatched().empty()) {
    std::fprintf(stderr, "crmap: error: unexpected argument '%s' (see '%s --help')\n", result->unmatched()[0].c_str(),
                 options.program().c_str());
    *exit_code = kExitBadInput;
    return false;
  }
  // Every command's output file (--out/-o) is checked before any work: a typo in a folder name is bad input
  // at once, not an error after minutes of measuring.
  if (result->count("out")) {
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const auto& argument : result->arguments())
      if (argument.key() != "out") inputs.emplace_back("--" + argument.key(), argument.value());
    Status writable = CheckOutputPath("--out", (*result)["out"].as<std::string>(), inputs,
                                      result->count("force-out") > 0);
    if (!writable.ok()) {
      *exit_code = Fail(writable);
      return false;
    }
  }
  return true;
}

Status CheckOutputOptions(const cxxopts::ParseResult& args, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (!args.count(name)) continue;
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const auto& argument : args.arguments())
      if (argument.key() != name) inputs.emplace_back("--" + argument.key(), argument.value());
    CRMAP_RETURN_IF_ERROR(CheckOutputPath("--" + name, args[name].as<std::string>(), inputs,
                                          args.count("force-out") > 0));
  }
  return Status::Ok();
}

void AddOutOption(cxxopts::Options& options, const std::string& help) {
  options.add_options()
      ("o,out", help, cxxopts::value<std::string>())
      ("force-out", "write --out even when it is also an input or an existing FIFO, device or symlink (written "
                    "through; a symlink's target is replaced)");
}

Result<Workload> LoadWorkloadOption(const cxxopts::ParseResult& args) {
  if (!args.count("workload"))
    return Status::InvalidArgument("missing --workload; built-in workloads: " +
                                   JoinNames(BuiltinNames(DatasetKind::kWorkload)));
  return LoadWorkload(args["workload"].as<std::string>());
}

void AddTargetOptions(cxxopts::Options& options) {
  options.add_options()
      ("w,workload", "built-in workload name or path to a workload .json", cxxopts::value<std::string>())
      ("d,dims", "concrete dims, e.g. tokens=128", cxxopts::value<std::string>());
}

Result<Target> LoadTarget(const cxxopts::ParseResult& args) {
  CRMAP_ASSIGN_OR_RETURN(Workload workload, LoadWorkloadOption(args));
  CRMAP_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Build(workload));
  Dims dims;
  if (args.count("dims")) {
    CRMAP_ASSIGN_OR_RETURN(dims, ParseDimsText(args["dims"].as<std::string>()));
  } else {
    return Status::InvalidArgument("missing --dims (e.g. --dims " + DimsToText(workload.TypicalDims()) + ")");
  }
  CRMAP_RETURN_IF_ERROR(workload.CheckDims(dims));
  return Target{std::move(workload), std::move(space), std::move(dims)};
}

void WarnIfMachineBusy() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  if (!(in >> load)) return;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (load > 0.5 * cores + 0.5)
    spdlog::warn("the machine is busy (load average {:.1f} on {} cores): measurements, multi-threaded plans above "
                 "all, will be distorted; measure on a quiet machine",
                 load, cores);
}


ProgressLine::ProgressLine(bool enabled)
    : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0), started_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { Finish(); }

void ProgressLine::Update(const std::string& stage, int done, int total) {
  if (!enabled_ || total <= 0) return;
  if (tty_) {
    int width = 30;
    int filled = static_cast<int>(static_cast<double>(done) / total * width);
    std::fprintf(stderr, "\r%-18s [%s%s] %d/%d ", stage.c_str(), std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), done, total);
    std::fflush(stderr);
    drawn_ = true;
    return;
  }
  // Not a terminal: quiet for the first 2 seconds (quick commands and early errors print nothing extra), then a
  // log line when a stage starts and at most one every 5 seconds.
  auto now = std::chrono::steady_clock::now();
  if (now - started_ < std::chrono::seconds(2)) return;
  if (stage != last_stage_ || now - last_log_ > std::chrono::seconds(5)) {
    spdlog::info("{} {}/{}", stage, done, total);
    last_stage_ = stage;
    last_log_ = now;
  }
}

void ProgressLine::Finish() {
  if (drawn_) {
    std::fprintf(stderr, "\r%80s\r", "");
    std::fflush(stderr);
    drawn_ = false;
  }
}

void QuietInfoLogs() {
  if (spdlog::get_level() < spdlog::level::warn) spdlog::set_level(spdlog::level::warn);
}

void PrintJsonOrText(const cxxopts::ParseResult& args, const Json& json, const std::string& text) {
  if (args.count("json")) {
    std::printf("%s\n", json.dump(2).c_str());
  } else {
    std::printf("%s", text.c_str());
  }
}

namespace {
std::atomic<bool> g_stop_requested{false};
void OnStopSignal(int signal) {
  if (g_stop_requested.exchange(true)) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}
}  // namespace

std::atomic<bool>* InstallStopSignals(std::initializer_list<int> signals) {
  for (int signal : signals) std::signal(signal, OnStopSignal);
  return &g_stop_requested;
}

void RestoreDefaultSignals(std::initializer_list<int> signals) {
  for (int signal : signals) std::signal(signal, SIG_DFL);
}

}  // namespace crmap::cli
