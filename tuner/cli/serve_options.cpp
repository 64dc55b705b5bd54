#include "tuner/cli/serve_options.h"

#include <charconv>

#include "tuner/cli/cli_common.h"

namespace crmap::cli {

namespace {

// "0,1" -> {0, 1}: one priority level per stream.
Result<std::vector<int>> ParsePriorities(const std::string& text) {
  std::vector<int> levels;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(start, comma - start);
    int level = -1;
    auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), level);
    if (item.empty() || error != std::errc() || end != item.data() + item.size() || level < 0 || level > 100)
      return Status::InvalidArgument("--priorities '" + text + "': each level an integer in [0, 100], "
                                     "comma-separated, one per stream (e.g. 0,1)");
    levels.push_back(level);
    start = comma + 1;
  }
  return levels;
}

}  // namespace

void AddServeStreamOptions(cxxopts::Options& options) {
  options.add_options()
      ("w,workload", "built-in workload name or path", cxxopts::value<std::string>())
      ("requests", "a scenario (built-in name or file), a *.jsonl request trace or a *.csv trace (Azure schema)",
       cxxopts::value<std::string>())
      ("mode", "default, triton, static, policy or oracle", cxxopts::value<std::string>()->default_value("default"))
      ("policy", "policy file (mode policy)", cxxopts::value<std::string>())
      ("fallback", "config served when the policy cannot be used (mode policy)", cxxopts::value<std::string>())
      ("db", "tuning database (mode oracle; mode static without --config)", cxxopts::value<std::string>())
      ("c,config", "the config of mode static", cxxopts::value<std::string>())
      ("map", "CSV columns to dims, e.g. tokens=ContextTokens", cxxopts::value<std::string>())
      ("dims", "CSV: values of the dims no column maps, e.g. batch=2", cxxopts::value<std::string>())
      ("out-of-range", "CSV values outside a dim's range: clamp, scale or reject",
       cxxopts::value<std::string>()->default_value("reject"))
      ("time-scale", "multiply every recorded time (0.5: twice as fast)", cxxopts::value<double>()->default_value("1"))
      ("seed", "seed of a scenario's requests", cxxopts::value<uint64_t>()->default_value("1"))
      ("executor", "onednn (the workload's plans) or libtorch (LibTorch eager, the peer)",
       cxxopts::value<std::string>()->default_value("onednn"))
      ("priorities", "priority level per stream, 0 first, e.g. 0,1 (default: all 0)", cxxopts::value<std::string>())
      ("max-queue-size", "requests queued per stream before arrivals are rejected (0: no limit)",
       cxxopts::value<int64_t>()->default_value("0"))
      ("timeout-ms", "a request queued longer is rejected or delayed (0: never)",
       cxxopts::value<double>()->default_value("0"))
      ("timeout-action", "reject or delay (served only when nothing else waits)",
       cxxopts::value<std::string>()->default_value("reject"))
      ("duration", "stop arrivals after this many seconds (0: the whole stream)",
       cxxopts::value<double>()->default_value("0"))
      ("slo-ms", "latency objective of goodput (0: none)", cxxopts::value<double>()->default_value("0"))
      ("no-warmup", "take the first request cold (by default its plan is compiled on every executor first)")
      ("warmup-shapes", "also compile these shapes' plans on every executor before arrivals: a list like "
                        "tokens=1;tokens=64, buckets (every plan bucket of the summing dim), or support (a "
                        "scenario's: every plan bucket its distributions draw)",
       cxxopts::value<std::string>())
      ("no-background-compile", "compile plans on the executor's thread (no substitution)")
      ("plan-memory-mb", "memory budget of the plan cache", cxxopts::value<int64_t>()->default_value("2048"))
      ("max-plans", "plans the plan cache holds at most, per run (raised to hold every executor's warm-ups)",
       cxxopts::value<int64_t>()->default_value("64"));
}

Status ReadServeStreamOptions(const cxxopts::ParseResult& args, ServeTaskOptions* task) {
  for (const char* required : {"workload", "requests"})
    if (!args.count(required)) return Status::InvalidArgument(std::string("missing --") + required);
  task->workload = args["workload"].as<std::string>();
  task->requests = args["requests"].as<std::string>();
  task->mode = args["mode"].as<std::string>();
  if (args.count("policy")) task->policy = args["policy"].as<std::string>();
  if (args.count("fallback")) task->fallback = args["fallback"].as<std::string>();
  if (args.count("db")) task->db = args["db"].as<std::string>();
  if (args.count("config")) task->config = args["config"].as<std::string>();
  if (args.count("map")) task->map = args["map"].as<std::string>();
  if (args.count("dims")) {
    auto dims = ParseDimsText(args["dims"].as<std::string>());
    if (!dims.ok()) return dims.status().WithContext("--dims");
    task->fixed_dims = *dims;
  }
  task->out_of_range = args["out-of-range"].as<std::string>();
  task->time_scale = args["time-scale"].as<double>();
  task->seed = args["seed"].as<uint64_t>();
  task->executor = args["executor"].as<std::string>();
  auto queue_size = OptionInRange<int64_t>(args, "max-queue-size", 0, 100000000);
  auto timeout = OptionInRange(args, "timeout-ms", 0.0, 1e7);
  auto duration = OptionInRange(args, "duration", 0.0, 1e7);
  auto slo = OptionInRange(args, "slo-ms", 0.0, 1e7);
  auto memory = OptionInRange<int64_t>(args, "plan-memory-mb", 1, 1 << 20);
  auto max_plans = OptionInRange<int64_t>(args, "max-plans", 1, 100000);
  for (const Status& s : {queue_size.status(), timeout.status(), duration.status(), slo.status(), memory.status(),
                          max_plans.status()})
    CRMAP_RETURN_IF_ERROR(s);
  task->max_queue_size = *queue_size;
  if (args.count("priorities")) {
    CRMAP_ASSIGN_OR_RETURN(task->priorities, ParsePriorities(args["priorities"].as<std::string>()));
  }
  task->timeout_ms = *timeout;
  task->timeout_action = args["timeout-action"].as<std::string>();
  task->duration_s = *duration;
  task->slo_ms = *slo;
  task->background_compile = args.count("no-background-compile") == 0;
  task->warmup = args.count("no-warmup") == 0;
  if (args.count("warmup-shapes")) task->warmup_shapes = args["warmup-shapes"].as<std::string>();
  task->plans.memory_budget_bytes = *memory << 20;
  task->plans.max_plans = static_cast<size_t>(*max_plans);
  return Status::Ok();
}

}  // namespace crmap::cli
