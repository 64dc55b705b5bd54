// Shared pieces of the `crmap` command-line tool: exit codes, error reporting, option parsing helpers,
// atomic output files and a progress line. Only the CLI prints and chooses exit codes (docs/design.md).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "common/atomic_file.h"
#include "common/json_fields.h"
#include "common/status.h"
#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap::cli {

// Documented in docs/cli.md.
enum ExitCode {
  kExitOk = 0,
  kExitFailure = 1,        // an internal or runtime failure (a bug, an I/O error while writing)
  kExitBadInput = 2,       // unknown workload/knob/value, dims out of range, malformed file, over the memory budget
  kExitNotMeasurable = 3,  // a valid request this host cannot answer: unsupported kernel, wrong answer, timeout
};

int ExitCodeFor(const Status& status);
// Prints "crmap: error: <message>" to stderr and returns ExitCodeFor(status).
int Fail(const Status& status);

// The value of option --`name` (declared with type T), checked against [lo, hi]: InvalidArgument
// "--batch must be in [1, 4096], got 0".
template <typename T>
Result<T> OptionInRange(const cxxopts::ParseResult& args, const std::string& name, T lo, T hi) {
  T value = args[name].as<T>();
  if (value < lo || value > hi)
    return Status::InvalidArgument("--" + name + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                   "], got " + std::to_string(value));
  return value;
}

// Declares -o/--out (the command's output file, described by `help`) and --force-out.
void AddOutOption(cxxopts::Options& options, const std::string& help);

// Parses argv with cxxopts; on a parse error, --help, or an --out file that cannot be written (checked before
// any work) prints and sets *exit_code. Returns false when the command should stop. --out is refused when it
// names the same file as any other option's value (an input: --db, --policy, --workload, ...) or an existing
// FIFO, device or symlink, unless --force-out (CheckOutputPath).
bool ParseOptions(cxxopts::Options& options, int argc, char** argv, cxxopts::ParseResult* result, int* exit_code);

// Output files other than --out (e.g. serve's --telemetry, --summary), checked like --out before any work:
// against every other option's value and each other, refused when a FIFO, device or symlink, unless --force-out.
Status CheckOutputOptions(const cxxopts::ParseResult& args, const std::vector<std::string>& names);

// A workload, its space and checked dims, from --workload and --dims (AddTargetOptions declares both).
void AddTargetOptions(cxxopts::Options& options);
struct Target {
  Workload workload;
  SearchSpace space;
  Dims dims;
};
Result<Workload> LoadWorkloadOption(const cxxopts::ParseResult& args);
Result<Target> LoadTarget(const cxxopts::ParseResult& args);

// Logs a warning (commands call it once results are in) when other processes keep the cores busy (1-minute load average above half the cores):
// multi-threaded plans then lose whole scheduler time slices and rank far too low (seen here: a 2-thread plan
// measured 40x slower than itself while a compiler ran).
void WarnIfMachineBusy();

// Prints `json` (with --json) or `text` to stdout.
void PrintJsonOrText(const cxxopts::ParseResult& args, const Json& json, const std::string& text);

// Raises the log level to warnings (when it is lower): for commands whose --json report should come alone.
void QuietInfoLogs();

// A long command's clean stop: InstallStopSignals has each of `signals` (SIGINT, SIGTERM) raise one process-wide
// flag, which the command polls to stop at its next safe point and still write what it has; a second signal
// ends the process at once (the signal's default action). Returns the flag. RestoreDefaultSignals puts the
// default actions back; the flag stays as it is, so the command can still read whether it was stopped.
std::atomic<bool>* InstallStopSignals(std::initializer_list<int> signals);
void RestoreDefaultSignals(std::initializer_list<int> signals);


// One line of progress on stderr: redrawn in place on a terminal; otherwise, after the first 2 seconds, a log
// line per stage and at most one every 5 seconds.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled);
  ~ProgressLine();
  void Update(const std::string& stage, int done, int total);
  void Finish();
  // A progress callback (as SessionOptions and SweepOptions take) that updates this line.
  std::function<void(const std::string&, int, int)> Callback() {
    return [this](const std::string& stage, int done, int total) { Update(stage, done, total); };
  }

 private:
  bool enabled_;
  bool tty_;
  std::string last_stage_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_log_;
  bool drawn_ = false;
};

}  // namespace crmap::cli
