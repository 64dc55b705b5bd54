// crmap tune --requests: tune the serving runtime's knobs (max batch, queue delay, placement, thread wait) by
// serving a request stream with each set-up, interleaved, and reading the tail (tuner/runtime_tuning.h).
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "common/atomic_file.h"
#include "runtime/hook/policy_file.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "runtime/serve/decider.h"
#include "tuner/cli/serve_options.h"
#include "tuner/runtime_tuning.h"
#include "tuner/serve_task.h"
#include "tuner/text_table.h"

namespace crmap::cli {

namespace {

// "a,b,c" -> {"a", "b", "c"}; InvalidArgument naming the option for an empty list or item, or a repeated one.
Result<std::vector<std::string>> SplitOptionList(const cxxopts::ParseResult& args, const std::string& name) {
  const std::string text = args[name].as<std::string>();
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    if (item.empty()) return Status::InvalidArgument("--" + name + " '" + text + "': an empty item");
    if (std::find(items.begin(), items.end(), item) != items.end())
      return Status::InvalidArgument("--" + name + " '" + text + "' lists " + item + " twice");
    items.push_back(std::move(item));
    start = comma + 1;
  }
  return items;
}

template <typename T>
Result<std::vector<T>> NumberList(const cxxopts::ParseResult& args, const std::string& name, T lo, T hi) {
  CRMAP_ASSIGN_OR_RETURN(std::vector<std::string> items, SplitOptionList(args, name));
  std::vector<T> values;
  for (const std::string& item : items) {
    T value{};
    auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (error != std::errc() || end != item.data() + item.size() || !(value >= lo && value <= hi))
      return Status::InvalidArgument("--" + name + ": '" + item + "' is not a number in [" + Format("%g", double(lo)) +
                                     ", " + Format("%g", double(hi)) + "]");
    values.push_back(value);
  }
  return values;
}

}  // namespace

int RunTuneRuntime(int argc, char** argv) {
  cxxopts::Options options(
      "crmap tune --requests",
      "Tune the serving runtime's knobs: serve the request stream once per set-up (every combination of the lists "
      "below; the first of each list is the anchor) in interleaved rounds and rank them by the tail or goodput.");
  AddServeStreamOptions(options);
  options.add_options()
      ("max-batch", "max batch sizes to try", cxxopts::value<std::string>()->default_value("1,4,16,64"))
      ("queue-delay-us", "queue delays to try (us)", cxxopts::value<std::string>()->default_value("0,200,1000,5000"))
      ("placement", "placements to try: shared, per_core", cxxopts::value<std::string>()->default_value("shared,per_core"))
      ("thread-wait", "thread wait policies to try (passive, spin, spin_<N>us, ...); default: the decisions' own",
       cxxopts::value<std::string>())
      ("chunk", "chunk sizes to try along the summing dim (0: requests run whole)",
       cxxopts::value<std::string>()->default_value("0"))
      ("rounds", "interleaved rounds (each serves every set-up once)", cxxopts::value<int>()->default_value("3"))
      ("objective", "p50, p95, p99 (of latency, unserved requests counting as infinite) or goodput (needs --slo-ms)",
       cxxopts::value<std::string>()->default_value("p99"))
      ("write-policy", "mode policy: write a copy of --policy whose runtime knobs are the best set-up's",
       cxxopts::value<std::string>())
      ("summary", "the results as JSON (written at the end, atomically)", cxxopts::value<std::string>())
      ("force-out", "write --summary/--write-policy even over an input or an existing FIFO, device or symlink")
      ("json", "print the results as JSON");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  Status outputs = CheckOutputOptions(args, {"summary", "write-policy"});
  if (!outputs.ok()) return Fail(outputs);

  ServeTaskOptions base;
  Status stream = ReadServeStreamOptions(args, &base);
  if (!stream.ok()) return Fail(stream);
  auto objective = ParseRuntimeObjective(args["objective"].as<std::string>());
  if (!objective.ok()) return Fail(objective.status());
  if (*objective == RuntimeObjective::kGoodput && base.slo_ms <= 0)
    return Fail(Status::InvalidArgument("--objective goodput needs --slo-ms (the latency a request must meet)"));
  if (args.count("write-policy") && base.mode != "policy")
    return Fail(Status::InvalidArgument("--write-policy needs --mode policy and its --policy"));
  auto rounds = OptionInRange(args, "rounds", 1, 1000);
  if (!rounds.ok()) return Fail(rounds.status());
  auto batches = NumberList<int>(args, "max-batch", 1, 4096);
  if (!batches.ok()) return Fail(batches.status());
  auto delays = NumberList<double>(args, "queue-delay-us", 0.0, 1e7);
  if (!delays.ok()) return Fail(delays.status());
  auto placements = SplitOptionList(args, "placement");
  if (!placements.ok()) return Fail(placements.status());
  for (const std::string& p : *placements)
    if (p != "shared" && p != "per_core")
      return Fail(Status::InvalidArgument("--placement: '" + p + "' is unknown; allowed: shared, per_core"));
  std::vector<std::string> waits = {""};
  if (args.count("thread-wait")) {
    auto listed = SplitOptionList(args, "thread-wait");
    if (!listed.ok()) return Fail(listed.status());
    for (const std::string& w : *listed)
      if (!serve::KeepWarmUs(w))
        return Fail(Status::InvalidArgument("--thread-wait: '" + w + "' is unknown; allowed: passive, spin, "
                                            "spin_<N>us or spin_<N>ms"));
    waits = *listed;
  }
  auto chunks = NumberList<int64_t>(args, "chunk", 0, 1 << 30);
  if (!chunks.ok()) return Fail(chunks.status());
  const std::vector<RuntimeSetting> settings = RuntimeGrid(*batches, *delays, *placements, waits, *chunks);
  for (const RuntimeSetting& setting : settings) {  // every set-up must be servable before any is served
    Status servable = CheckServeTaskOptions(WithRuntimeSetting(base, setting));
    if (!servable.ok()) return Fail(servable.WithContext("set-up " + setting.Label()));
  }
  PolicyFile policy;
  if (args.count("write-policy")) {  // every set-up must fit the policy's knobs before any is served
    auto read = ReadPolicyFile(base.policy);
    if (!read.ok()) return Fail(read.status().WithContext("--policy"));
    policy = std::move(*read);
    for (const RuntimeSetting& setting : settings) {
      PolicyFile scratch = policy;
      std::vector<std::string> not_stored;
      Status fits = SetPolicyRuntimeKnobs(setting, &scratch, &not_stored);
      if (!fits.ok()) return Fail(fits.WithContext("--write-policy"));
    }
  }

  RuntimeTuningOptions tuning;
  tuning.rounds = *rounds;
  tuning.objective = *objective;
  std::atomic<bool>* stop = InstallStopSignals({SIGINT, SIGTERM});
  tuning.stop = stop;
  base.stop = stop;
  ProgressLine progress(!args.count("json"));
  tuning.on_progress = [&progress](int done, int total, const std::string& running) {
    progress.Update("tuning the runtime: serving " + running, done, total);
  };
  if (args.count("json")) QuietInfoLogs();
  auto result = TuneRuntime(settings, tuning, ServeRuntimeRunner(base));
  progress.Finish();
  RestoreDefaultSignals({SIGINT, SIGTERM});
  if (!result.ok()) {
    if (stop->load()) {
      std::fprintf(stderr, "crmap: stopped by a signal before every set-up was served once; nothing written\n");
      return 130;
    }
    return Fail(result.status());
  }

  Json json = RuntimeTuningJson(*result);
  json["workload"] = base.workload;
  json["requests"] = base.requests;
  json["mode"] = base.mode;
  json["slo_ms"] = base.slo_ms;
  std::string text = RuntimeTuningText(*result);
  if (args.count("write-policy") && stop->load()) {
    text += "not written: " + args["write-policy"].as<std::string>() + " (stopped before the rounds asked for)\n";
  } else if (args.count("write-policy")) {
    std::vector<std::string> not_stored;
    Status set = SetPolicyRuntimeKnobs(result->settings[result->best].setting, &policy, &not_stored);
    if (!set.ok()) return Fail(set);
    const std::string out = args["write-policy"].as<std::string>();
    Status written = WritePolicyFile(out, policy);
    if (!written.ok()) return Fail(written);
    text += "wrote " + out + ": " + base.policy + " with the best set-up's runtime knobs\n";
    for (const std::string& n : not_stored) text += "  not stored: " + n + "\n";
    json["written_policy"] = out;
    json["not_stored"] = not_stored;
  }
  if (args.count("summary")) {
    Status written = WriteFileAtomically(args["summary"].as<std::string>(), json.dump(2) + "\n");
    if (!written.ok()) return Fail(written);
  }
  if (args.count("json")) {
    std::printf("%s\n", json.dump(2).c_str());
  } else {
    std::printf("%s", text.c_str());
  }
  if (stop->load()) {
    std::fprintf(stderr, "crmap: stopped by a signal after %d full rounds\n", result->rounds_done);
    return 130;
  }
  return kExitOk;
}

}  // namespace crmap::cli
