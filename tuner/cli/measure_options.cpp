#include "tuner/cli/measure_options.h"

#include <optional>
#include <string>

#include "tuner/cli/cli_common.h"
#include "tuner/text_table.h"

namespace crmap::cli {

void AddMeasureOptions(cxxopts::Options& options, int default_rounds, int default_cold_samples) {
  options.add_options("measurement")
      ("rounds", "interleaved timed rounds", cxxopts::value<int>()->default_value(std::to_string(default_rounds)))
      ("warmup", "untimed runs per candidate before the rounds", cxxopts::value<int>()->default_value("3"))
      ("warm-calls", "untimed calls of a candidate right before each of its timed samples",
       cxxopts::value<int>()->default_value("1"))
      ("cold-samples", "samples per candidate after the process idled (cold thread team); 0: none",
       cxxopts::value<int>()->default_value(std::to_string(default_cold_samples)))
      ("timeout-ms", "drop a candidate whose single run exceeds this", cxxopts::value<double>()->default_value("10000"))
      ("hang-ms", "a run still going after this never returns: it is recorded as a timeout and the process ends "
                  "(campaigns restart with --resume); default 3x --timeout-ms", cxxopts::value<double>())
      ("memory-budget", "peak plan bytes allowed (default: the workload's budget)", cxxopts::value<int64_t>())
      ("allow-reference-kernels", "accept oneDNN's reference (ref:) compute kernels, 100-1000x slower")
      ("data-seed", "seed of the input values", cxxopts::value<uint64_t>()->default_value("0"))
      ("no-validate", "skip the comparison with the LibTorch f32 reference")
      ("json", "print JSON measurement records instead of a table");
  AddOutOption(options, "also write the JSON to this file (atomically; only on success)");
}

Result<SessionOptions> ReadMeasureOptions(const cxxopts::ParseResult& args) {
  SessionOptions options;
  options.peer_executable = "/proc/self/exe";  // peers in a child process run `crmap peer-worker`
  options.measure.rounds = args["rounds"].as<int>();
  options.measure.warmup = args["warmup"].as<int>();
  options.measure.timeout_ms = args["timeout-ms"].as<double>();
  if (options.measure.rounds < 1 || options.measure.rounds > 100000)
    return Status::InvalidArgument("--rounds must be in [1, 100000]");
  if (options.measure.warmup < 0 || options.measure.warmup > 10000)
    return Status::InvalidArgument("--warmup must be in [0, 10000]");
  options.measure.warm_calls = args["warm-calls"].as<int>();
  if (options.measure.warm_calls < 0 || options.measure.warm_calls > 100)
    return Status::InvalidArgument("--warm-calls must be in [0, 100]");
  options.measure.cold_samples = args["cold-samples"].as<int>();
  if (options.measure.cold_samples < 0 || options.measure.cold_samples > 1000)
    return Status::InvalidArgument("--cold-samples must be in [0, 1000]");
  if (!(options.measure.timeout_ms > 0 && options.measure.timeout_ms <= 1e9))
    return Status::InvalidArgument("--timeout-ms must be in (0, 1e9]");
  options.hang_ms = args.count("hang-ms") ? args["hang-ms"].as<double>() : 0;
  if (args.count("hang-ms") && !(options.hang_ms >= options.measure.timeout_ms && options.hang_ms <= 1e10))
    return Status::InvalidArgument("--hang-ms must be in [--timeout-ms, 1e10], got " + Format("%g", options.hang_ms));
  options.watchdog = std::make_shared<HangWatchdog>();  // ends the process; campaigns add the record and a restart
  if (args.count("memory-budget")) {
    options.compile.memory_budget_bytes = args["memory-budget"].as<int64_t>();
    if (options.compile.memory_budget_bytes < 1) return Status::InvalidArgument("--memory-budget must be >= 1 byte");
  }
  options.compile.allow_reference_kernels = args.count("allow-reference-kernels") > 0;
  options.compile.data_seed = args["data-seed"].as<uint64_t>();
  options.validate = args.count("no-validate") == 0;
  return options;
}

void AddObjectiveOption(cxxopts::Options& options) {
  options.add_options("measurement")
      ("objective", std::string("the latency statistic that decides which config is best: ") + ObjectiveNames() +
                        " (p95 needs >= 100 rounds, p99 >= 500, so that 5 samples lie beyond the quantile; "
                        "--rounds defaults to that)",
       cxxopts::value<std::string>()->default_value("median"));
}

Result<Objective> ReadObjectiveOption(const cxxopts::ParseResult& args, SessionOptions* options) {
  const std::string name = args["objective"].as<std::string>();
  std::optional<Objective> objective = ParseObjective(name);
  if (!objective)
    return Status::InvalidArgument("--objective '" + name + "' is unknown; allowed: " + ObjectiveNames());
  const int needed = MinimumRounds(*objective);
  if (options->measure.rounds < needed) {
    if (args.count("rounds"))
      return Status::InvalidArgument(Format("--objective %s needs --rounds >= %d (5 samples beyond the quantile, so "
                                            "that no single sample decides it); got %d",
                                            name.c_str(), needed, options->measure.rounds));
    options->measure.rounds = needed;
  }
  return *objective;
}

RecordContext CliRecordContext(const SessionOptions& options, const std::string& agent) {
  RecordContext context;
  context.agent = agent;
  context.data_seed = options.compile.data_seed;
  return context;
}

Result<std::vector<PeerBaseline>> ReadBaselineOption(const cxxopts::ParseResult& args, const Workload& workload) {
  if (!args.count("baseline")) return std::vector<PeerBaseline>{};
  auto peers = ParsePeers(args["baseline"].as<std::string>(), workload);
  if (!peers.ok()) return peers.status().WithContext("--baseline");
  return peers;
}

Status WriteOutOption(const cxxopts::ParseResult& args, const Json& json) {
  if (!args.count("out")) return Status::Ok();
  return WriteFileAtomically(args["out"].as<std::string>(), json.dump(2) + "\n");
}

bool WantsProgress(const cxxopts::ParseResult& args) { return !args.count("json") || args.count("out"); }

SweepOptions SweepOptionsFrom(const SessionOptions& options) {
  SweepOptions sweep;
  sweep.rounds = options.measure.rounds;
  sweep.warmup = options.measure.warmup;
  sweep.warm_calls = options.measure.warm_calls;
  sweep.cold_samples = options.measure.cold_samples;
  sweep.timeout_ms = options.measure.timeout_ms;
  sweep.watchdog = options.watchdog;
  sweep.hang_ms = options.hang_ms;
  sweep.compile = options.compile;
  sweep.validate = options.validate;
  sweep.peer_executable = options.peer_executable;
  return sweep;
}

}  // namespace crmap::cli
