// crmap serve: replay a request stream open-loop on oneDNN through the serving runtime (tuner/serve_task.h).
#include <atomic>
#include <csignal>
#include <cstdio>

#include "common/atomic_file.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/serve_options.h"
#include "tuner/serve_task.h"
#include "tuner/text_table.h"

namespace crmap::cli {

namespace {

// SIGHUP: reload the policy file (mode policy).
std::atomic<bool> g_reload{false};
void OnHangup(int) { g_reload = true; }

}  // namespace

int RunServe(int argc, char** argv) {
  cxxopts::Options options("crmap serve",
                           "Replay a request stream open-loop on the workload's oneDNN plans through the serving "
                           "runtime (queues, dynamic batcher, decisions per batch) and report the tail.");
  AddServeStreamOptions(options);
  options.add_options()
      ("placement", "shared (one executor, all cores) or per_core (a pinned single-threaded executor per core); "
       "default: the static config's or the policy's placement knob, else shared", cxxopts::value<std::string>())
      ("max-batch", "requests per batch, over the decisions' batch knob", cxxopts::value<int>())
      ("queue-delay-us", "how long a batch's head waits for company, over the decisions' knob",
       cxxopts::value<double>())
      ("thread-wait", "between batches the executor's threads: passive (left to OpenMP), spin (until the next "
       "request), spin_<N>us / spin_<N>ms; over the decisions' thread_wait knob", cxxopts::value<std::string>())
      ("chunk", "run a request longer than N along the summing dim in chunks of N, between other batches "
       "(0: whole)", cxxopts::value<int64_t>()->default_value("0"))
      ("on-stop", "after Ctrl-C or SIGTERM: finish or reject the queued requests",
       cxxopts::value<std::string>()->default_value("finish"))
      ("reload-on-change", "mode policy: reload the policy when its file changes (SIGHUP always reloads it)")
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
  Status outputs = CheckOutputOptions(args, {"telemetry", "summary", "trace", "metrics-file"});
  if (!outputs.ok()) return Fail(outputs);

  ServeTaskOptions task;
  Status stream = ReadServeStreamOptions(args, &task);
  if (!stream.ok()) return Fail(stream);
  if (args.count("placement")) task.placement = args["placement"].as<std::string>();
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
  auto chunk = OptionInRange<int64_t>(args, "chunk", 0, int64_t{1} << 30);
  if (!chunk.ok()) return Fail(chunk.status());
  task.chunk = *chunk;
  task.on_stop = args["on-stop"].as<std::string>();
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
  // SIGINT/SIGTERM: stop arrivals; queued requests are finished or rejected (--on-stop), outputs written.
  task.stop = InstallStopSignals({SIGINT, SIGTERM});
  task.reload_requested = &g_reload;
  task.reload_on_change = args.count("reload-on-change") > 0;
  std::signal(SIGHUP, OnHangup);
  auto report = RunServeTask(task);
  const bool stopped = task.stop->load();
  progress.Finish();
  RestoreDefaultSignals({SIGINT, SIGTERM, SIGHUP});
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
