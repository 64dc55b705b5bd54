// crmap serve: replay a request stream open-loop on oneDNN through the serving runtime (tuner/serve_task.h).
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>

#include "common/atomic_file.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/serve_task.h"
#include "tuner/text_table.h"

namespace crmap::cli {

namespace {

// SIGINT/SIGTERM: stop arrivals; queued requests are finished or rejected (--on-stop), outputs written.
// A second signal ends the process at once.
std::atomic<bool> g_serve_stop{false};
void OnStopSignal(int signal) {
  if (g_serve_stop.exchange(true)) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}
// SIGHUP: reload the policy file (mode policy).
std::atomic<bool> g_reload{false};
void OnHangup(int) { g_reload = true; }

}  // namespace

int RunServe(int argc, char** argv) {
  cxxopts::Options options("crmap serve",
                           "Replay a request stream open-loop on the workload's oneDNN plans through the serving "
                           "runtime (queues, dynamic batcher, decisions per batch) and report the tail.");
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
      ("placement", "shared (one executor, all cores) or per_core (a pinned single-threaded executor per core)",
       cxxopts::value<std::string>()->default_value("shared"))
      ("max-batch", "requests per batch, over the decisions' batch knob", cxxopts::value<int>())
      ("queue-delay-us", "how long a batch's head waits for company, over the decisions' knob",
       cxxopts::value<double>())
      ("thread-wait", "between batches the executor's threads: passive (left to OpenMP), spin (until the next "
       "request), spin_<N>us / spin_<N>ms; over the decisions' thread_wait knob", cxxopts::value<std::string>())
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
      ("on-stop", "after Ctrl-C or SIGTERM: finish or reject the queued requests",
       cxxopts::value<std::string>()->default_value("finish"))
      ("reload-on-change", "mode policy: reload the policy when its file changes (SIGHUP always reloads it)")
      ("no-warmup", "take the first request cold (by default its plan is compiled on every executor first)")
      ("no-background-compile", "compile plans on the executor's thread (no substitution)")
      ("plan-memory-mb", "memory budget of the plan cache", cxxopts::value<int64_t>()->default_value("2048"))
      ("telemetry", "per-request JSON Lines file", cxxopts::value<std::string>())
      ("summary", "summary JSON file (written at the end, atomically)", cxxopts::value<std::string>())
      ("trace", "Chrome trace-event JSON for chrome://tracing or Perfetto (written at the end, atomically)",
       cxxopts::value<std::string>())
      ("metrics-port", "serve Prometheus metrics at http://127.0.0.1:PORT/metrics while running (0: any free port)",
       cxxopts::value<int>())
      ("metrics-bind", "address the metrics endpoint binds to (default 127.0.0.1; another only when you mean it)",
       cxxopts::value<std::string>())
      ("metrics-file", "Prometheus metrics in the text format (written at the end, atomically)",
       cxxopts::value<std::string>())
      ("force-out", "write --telemetry/--summary/--trace even over an input or an existing FIFO, device or symlink")
      ("json", "print the summary as JSON");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  for (const char* required : {"workload", "requests"})
    if (!args.count(required)) return Fail(Status::InvalidArgument(std::string("missing --") + required));
  Status outputs = CheckOutputOptions(args, {"telemetry", "summary", "trace", "metrics-file"});
  if (!outputs.ok()) return Fail(outputs);

  ServeTaskOptions task;
  task.workload = args["workload"].as<std::string>();
  task.requests = args["requests"].as<std::string>();
  task.mode = args["mode"].as<std::string>();
  if (args.count("policy")) task.policy = args["policy"].as<std::string>();
  if (args.count("fallback")) task.fallback = args["fallback"].as<std::string>();
  if (args.count("db")) task.db = args["db"].as<std::string>();
  if (args.count("config")) task.config = args["config"].as<std::string>();
  if (args.count("map")) task.map = args["map"].as<std::string>();
  if (args.count("dims")) {
    auto dims = ParseDimsText(args["dims"].as<std::string>());
    if (!dims.ok()) return Fail(dims.status().WithContext("--dims"));
    task.fixed_dims = *dims;
  }
  task.out_of_range = args["out-of-range"].as<std::string>();
  task.time_scale = args["time-scale"].as<double>();
  task.seed = args["seed"].as<uint64_t>();
  task.placement = args["placement"].as<std::string>();
  task.executor = args["executor"].as<std::string>();
  if (args.count("thread-wait")) task.thread_wait = args["thread-wait"].as<std::string>();
  if (args.count("max-batch")) {
    auto max_batch = OptionInRange(args, "max-batch", 1, 4096);
    if (!max_batch.ok()) return Fail(max_batch.status());
    task.max_batch = *max_batch;
  }
  if (args.count("queue-delay-us")) {
    auto delay = OptionInRange(args, "queue-delay-us", 0.0, 1e7);
    if (!delay.ok()) return Fail(delay.status());
    task.queue_delay_us = *delay;
  }
  auto queue_size = OptionInRange<int64_t>(args, "max-queue-size", 0, 100000000);
  auto timeout = OptionInRange(args, "timeout-ms", 0.0, 1e7);
  auto duration = OptionInRange(args, "duration", 0.0, 1e7);
  auto slo = OptionInRange(args, "slo-ms", 0.0, 1e7);
  auto memory = OptionInRange<int64_t>(args, "plan-memory-mb", 1, 1 << 20);
  for (const Status& s : {queue_size.status(), timeout.status(), duration.status(), slo.status(), memory.status()})
    if (!s.ok()) return Fail(s);
  task.max_queue_size = *queue_size;
  if (args.count("priorities")) {
    const std::string text = args["priorities"].as<std::string>();
    size_t start = 0;
    while (start <= text.size()) {
      size_t comma = text.find(',', start);
      if (comma == std::string::npos) comma = text.size();
      const std::string item = text.substr(start, comma - start);
      int level = -1;
      auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), level);
      if (item.empty() || error != std::errc() || end != item.data() + item.size() || level < 0 || level > 100)
        return Fail(Status::InvalidArgument("--priorities '" + text + "': each level an integer in [0, 100], "
                                            "comma-separated, one per stream (e.g. 0,1)"));
      task.priorities.push_back(level);
      start = comma + 1;
    }
  }
  task.timeout_ms = *timeout;
  task.timeout_action = args["timeout-action"].as<std::string>();
  task.duration_s = *duration;
  task.slo_ms = *slo;
  task.on_stop = args["on-stop"].as<std::string>();
  task.background_compile = args.count("no-background-compile") == 0;
  task.warmup = args.count("no-warmup") == 0;
  task.plans.memory_budget_bytes = *memory << 20;
  if (args.count("telemetry")) task.telemetry_path = args["telemetry"].as<std::string>();
  if (args.count("trace")) task.trace_path = args["trace"].as<std::string>();
  if (args.count("metrics-file")) task.metrics_path = args["metrics-file"].as<std::string>();
  if (args.count("metrics-port")) {
    auto port = OptionInRange(args, "metrics-port", 0, 65535);
    if (!port.ok()) return Fail(port.status());
    const std::string bind = args.count("metrics-bind") ? args["metrics-bind"].as<std::string>() : "127.0.0.1";
    task.metrics_address = bind + ":" + std::to_string(*port);
  } else if (args.count("metrics-bind")) {
    return Fail(Status::InvalidArgument("--metrics-bind needs --metrics-port"));
  }
  if (args.count("json")) QuietInfoLogs();

  ProgressLine progress(!args.count("json"));
  task.on_progress = [&progress](const serve::ServeProgress& p) {
    progress.Update(Format("serving: %.0f/%.0f s, p99 %.1f ms, queue %lld, requests done", p.elapsed_us / 1e6,
                           p.total_us / 1e6, p.recent_p99_us / 1000, static_cast<long long>(p.queue_depth)),
                    static_cast<int>(p.done), static_cast<int>(p.released));
  };
  task.stop = &g_serve_stop;
  task.reload_requested = &g_reload;
  task.reload_on_change = args.count("reload-on-change") > 0;
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  std::signal(SIGHUP, OnHangup);
  auto report = RunServeTask(task);
  const bool stopped = g_serve_stop.load();
  progress.Finish();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
  if (!report.ok()) return Fail(report.status());
  if (args.count("summary")) {
    Status written = WriteFileAtomically(args["summary"].as<std::string>(), report->json.dump(2) + "\n");
    if (!written.ok()) return Fail(written);
  }
  if (args.count("json")) {
    std::printf("%s\n", report->json.dump(2).c_str());
  } else {
    std::printf("%s", report->text.c_str());
  }
  if (stopped) {
    std::fprintf(stderr, "crmap: stopped by a signal; the outputs hold every request released before it\n");
    return 130;
  }
  return kExitOk;
}

}  // namespace crmap::cli
