#include "tuner/serve_task.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "backend/host.h"
#include "backend/plan_executor.h"
#include "backend/torch_executor.h"
#include "datasets/catalog.h"
#include "datasets/scenario.h"
#include "datasets/trace.h"
#include "runtime/hook/policy_file.h"
#include "runtime/serve/chrome_trace.h"
#include "runtime/serve/decider.h"
#include "runtime/serve/metrics.h"
#include "runtime/serve/telemetry.h"
#include "tuner/campaign_spec.h"
#include "tuner/config_scores.h"
#include "tuner/nearest_shape.h"
#include "tuner/policy_trainer.h"
#include "tuner/replay_evaluator.h"
#include "tuner/text_table.h"
#include "tuner/tuning_db.h"

namespace crmap {

namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<serve::RequestStream> LoadRequests(const ServeTaskOptions& o, const Workload& workload) {
  if (!(o.time_scale > 0 && o.time_scale <= 1e6))
    return Status::InvalidArgument("--time-scale must be in (0, 1e6]");
  if (EndsWith(o.requests, ".csv")) {
    if (o.map.empty())
      return Status::InvalidArgument("--requests " + o.requests +
                                     " is a CSV trace: say which column feeds which dim with --map, e.g. --map " +
                                     (workload.batch_dim().empty() ? "dim" : workload.batch_dim()) +
                                     "=ContextTokens");
    serve::CsvMapping mapping;
    CRMAP_ASSIGN_OR_RETURN(mapping.columns, serve::ParseColumnMap(o.map));
    CRMAP_ASSIGN_OR_RETURN(mapping.out_of_range, serve::ParseOutOfRange(o.out_of_range));
    mapping.fixed = o.fixed_dims;
    mapping.time_scale = o.time_scale;
    return serve::ReadAzureCsv(o.requests, workload, mapping);
  }
  if (!o.map.empty()) return Status::InvalidArgument("--map applies to a CSV trace only");
  if (EndsWith(o.requests, ".jsonl")) {
    CRMAP_ASSIGN_OR_RETURN(std::vector<TraceRequest> trace, ReadTraceJsonl(o.requests, workload));
    if (trace.empty()) return Status::InvalidArgument(o.requests + ": no requests");
    int streams = 1;
    for (const TraceRequest& t : trace) streams = std::max(streams, t.stream + 1);
    return serve::FromTrace(trace, streams, o.time_scale,
                            o.requests + ": " + std::to_string(trace.size()) + " requests");
  }
  CRMAP_ASSIGN_OR_RETURN(Scenario scenario, LoadScenario(o.requests, workload));
  std::vector<TraceRequest> trace = GenerateTrace(scenario, o.seed);
  if (trace.empty()) return Status::InvalidArgument("scenario " + scenario.name() + " produced no requests");
  return serve::FromTrace(trace, scenario.streams(), o.time_scale,
                          "scenario " + scenario.name() + " (seed " + std::to_string(o.seed) + "): " +
                              std::to_string(trace.size()) + " requests");
}

// Per batch, the best measured config of the tuned shape nearest the batch's dims (NearestShapes).
class OracleDecider : public serve::Decider {
 public:
  OracleDecider(std::vector<Dims> shapes, std::vector<std::string> best, serve::LimitOverrides overrides)
      : shapes_(std::move(shapes)), best_(std::move(best)), overrides_(overrides) {}
  serve::Decision Decide(const Dims& dims, int64_t) override {
    serve::Decision decision;
    decision.config = best_[shapes_.Nearest(dims)];
    decision.source = "oracle";
    decision.limits = overrides_.Apply(serve::LimitsFromConfig(decision.config, serve::BatchLimits{}));
    return decision;
  }

 private:
  const NearestShapes shapes_;
  const std::vector<std::string> best_;  // per shape
  const serve::LimitOverrides overrides_;
};

struct HookCloser {
  void operator()(crmap_hook* hook) const { crmap_hook_close(hook); }
};

Result<std::vector<TuningRecord>> DbRecords(const std::string& db, const Workload& workload,
                                            const SearchSpace& space) {
  CRMAP_ASSIGN_OR_RETURN(TuningDbContents contents, ReadTuningDbFor(db, workload, space));
  for (const auto& warning : contents.warnings) spdlog::warn("{}", warning);
  if (contents.records.empty())
    return Status::InvalidArgument(db + " holds no usable record of workload " + workload.name() + " (" +
                                   std::to_string(contents.other_fingerprints) + " of other workloads or spaces)");
  return contents.records;
}

// The placement a policy file answers (its runtime knob; runtime/hook/policy_model.h), or "" when unreadable.
std::string PolicyPlacement(const std::string& path) {
  Result<PolicyFile> file = ReadPolicyFile(path);
  if (!file.ok()) return "";
  for (const PolicyKnob& knob : file->knobs)
    if (knob.name == "placement" && !knob.plan && knob.default_index < knob.values.size())
      return knob.values[knob.default_index];
  return "";
}

// Every plan bucket of the summing dim from `from` to `to` (both clamped to buckets by BucketDims), the other
// dims as in `base`, in increasing order.
std::vector<Dims> SummingBuckets(const Workload& workload, Dims base, int64_t from, int64_t to) {
  const std::string& dim = workload.batch_dim();
  std::vector<Dims> buckets;
  for (int64_t value = from; value <= to;) {
    base[dim] = value;
    buckets.push_back(BucketDims(workload, base));
    value = buckets.back().at(dim) + 1;
  }
  return buckets;
}

}  // namespace

Result<std::vector<Dims>> WarmupShapes(const Workload& workload, const std::string& warmup_shapes, const Dims& first) {
  if (warmup_shapes == "buckets") {
    const std::string& dim = workload.batch_dim();
    if (dim.empty())
      return Status::InvalidArgument("--warmup-shapes buckets needs a summing dim; workload " + workload.name() +
                                     " declares none (list its shapes instead, e.g. " +
                                     DimsToText(workload.TypicalDims()) + ")");
    return SummingBuckets(workload, first.empty() ? workload.TypicalDims() : first, workload.dims().at(dim).min,
                          workload.dims().at(dim).max);
  }
  if (warmup_shapes.find('=') == std::string::npos)
    return Status::InvalidArgument("--warmup-shapes '" + warmup_shapes + "': allowed: buckets, support (a "
                                   "scenario's), or a list of shapes like " + DimsToText(workload.TypicalDims()) +
                                   ";...");
  Result<std::vector<Dims>> shapes = ResolveShapes(workload, warmup_shapes, 0, 0);
  if (!shapes.ok()) return shapes.status().WithContext("--warmup-shapes");
  return shapes;
}

Result<std::vector<Dims>> ScenarioSupportShapes(const Workload& workload, const Scenario& scenario) {
  std::set<Dims> buckets;
  for (size_t i = 0; i < scenario.phases().size(); ++i) {
    const std::vector<Dims> drawn =
        SampleDistinct(scenario.phases()[i].distribution, kSupportDraws, 0x5eed0000 + i, kSupportDraws);
    for (const Dims& shape : drawn) buckets.insert(BucketDims(workload, shape));  // a distribution names every dim
    if (buckets.size() > kMaxSupportShapes)
      return Status::InvalidArgument("--warmup-shapes support: scenario " + scenario.name() + " draws more than " +
                                     std::to_string(kMaxSupportShapes) + " plan buckets (by phase " +
                                     scenario.phases()[i].name + "); list the shapes to warm instead");
  }
  // Headroom for batches that add requests up: per combination of the other dims, the summing dim's buckets
  // above the largest drawn, up to twice it (a sum in between then runs on a larger warm plan, never waits).
  const std::string& sum_dim = workload.batch_dim();
  if (!sum_dim.empty()) {
    std::map<Dims, int64_t> largest;  // the other dims -> the largest summing bucket drawn with them
    for (const Dims& b : buckets) {
      Dims others = b;
      others.erase(sum_dim);
      largest[others] = std::max(largest[others], b.at(sum_dim));
    }
    for (const auto& [others, top] : largest) {
      Dims twice = others;
      twice[sum_dim] = top * 2;
      for (Dims& bucket : SummingBuckets(workload, others, top + 1, BucketDims(workload, twice).at(sum_dim)))
        buckets.insert(std::move(bucket));
    }
    if (buckets.size() > kMaxSupportShapes)
      return Status::InvalidArgument("--warmup-shapes support: scenario " + scenario.name() + " needs " +
                                     std::to_string(buckets.size()) + " plan buckets with headroom for batching "
                                     "(at most " + std::to_string(kMaxSupportShapes) +
                                     "); list the shapes to warm instead");
  }
  return std::vector<Dims>(buckets.begin(), buckets.end());
}

std::vector<serve::Warmup> DecidedPlanWarmups(const Workload& workload, const SearchSpace& space,
                                              serve::Decider& decider, const Dims& first) {
  const std::string& dim = workload.batch_dim();
  if (dim.empty()) return {};
  Dims dims = first.empty() ? workload.TypicalDims() : first;
  std::set<std::pair<std::string, Dims>> seen;  // (plan key, bucket)
  std::vector<serve::Warmup> warmups;
  for (int64_t value = workload.dims().at(dim).min; value <= workload.dims().at(dim).max; ++value) {
    dims[dim] = value;
    std::string config = decider.Decide(dims, 0).config;
    auto parsed = space.Parse(config);  // a config this space cannot read is its own plan (the executor says why)
    const std::string plan = parsed.ok() ? space.PlanKey(*parsed) : config;
    if (seen.insert({plan, BucketDims(workload, dims)}).second) warmups.push_back({dims, std::move(config)});
  }
  return warmups;
}

size_t PlanCacheSizeFor(size_t configured, size_t warmups, size_t executors) {
  if (warmups == 0) return configured;
  return std::max(configured, (warmups + 1) * executors);  // and one plan more each to run beside them
}

Status CheckServeTaskOptions(const ServeTaskOptions& o) {
  static const std::set<std::string> kModes = {"default", "triton", "static", "policy", "oracle"};
  if (!kModes.count(o.mode))
    return Status::InvalidArgument("--mode '" + o.mode + "' is unknown; allowed: default, triton, static, policy, "
                                   "oracle");
  if (!o.placement.empty() && o.placement != "shared" && o.placement != "per_core")
    return Status::InvalidArgument("--placement '" + o.placement + "' is unknown; allowed: shared, per_core");
  if (o.executor != "onednn" && o.executor != "libtorch")
    return Status::InvalidArgument("--executor '" + o.executor + "' is unknown; allowed: onednn, libtorch");
  if (o.executor == "libtorch" && o.placement == "per_core")
    return Status::InvalidArgument("--executor libtorch runs one executor on all cores (LibTorch's thread pool is "
                                   "per process); --placement per_core is for the onednn executor");
  if (o.timeout_action != "reject" && o.timeout_action != "delay")
    return Status::InvalidArgument("--timeout-action '" + o.timeout_action + "' is unknown; allowed: reject, delay");
  if (o.on_stop != "finish" && o.on_stop != "reject")
    return Status::InvalidArgument("--on-stop '" + o.on_stop + "' is unknown; allowed: finish, reject");
  if (o.mode == "policy" && o.policy.empty()) return Status::InvalidArgument("--mode policy needs --policy");
  if (o.mode == "oracle" && o.db.empty()) return Status::InvalidArgument("--mode oracle needs --db");
  if (o.mode == "static" && o.config.empty() && o.db.empty())
    return Status::InvalidArgument("--mode static needs --config or --db (whose static plan it then serves)");

  CRMAP_ASSIGN_OR_RETURN(Workload workload, LoadWorkload(o.workload));
  if (o.chunk < 0) return Status::InvalidArgument("--chunk must be >= 0");
  if (o.chunk > 0 && workload.batch_dim().empty())
    return Status::InvalidArgument("--chunk needs a summing dim; workload " + workload.name() +
                                   " declares none (\"batching\": \"sum\" in its workload file)");
  if (o.chunk > 0 && o.chunk > workload.dims().at(workload.batch_dim()).max)
    return Status::InvalidArgument("--chunk " + std::to_string(o.chunk) + " is beyond " + workload.batch_dim() +
                                   "'s range (at most " + std::to_string(workload.dims().at(workload.batch_dim()).max) +
                                   ")");
  if (o.warmup_shapes == "support") {
    if (EndsWith(o.requests, ".csv") || EndsWith(o.requests, ".jsonl"))
      return Status::InvalidArgument("--warmup-shapes support needs a scenario as --requests (its distributions "
                                     "say which shapes to expect); " + o.requests +
                                     " is a trace: list its shapes, or use buckets");
    CRMAP_ASSIGN_OR_RETURN(Scenario scenario, LoadScenario(o.requests, workload));
    CRMAP_RETURN_IF_ERROR(ScenarioSupportShapes(workload, scenario).status());
  } else if (!o.warmup_shapes.empty()) {
    CRMAP_RETURN_IF_ERROR(WarmupShapes(workload, o.warmup_shapes, {}).status());
  }
  return Status::Ok();
}

Result<ServeTaskReport> RunServeTask(const ServeTaskOptions& o) {
  CRMAP_RETURN_IF_ERROR(CheckServeTaskOptions(o));
  CRMAP_ASSIGN_OR_RETURN(Workload workload, LoadWorkload(o.workload));
  CRMAP_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Build(workload));
  CRMAP_ASSIGN_OR_RETURN(serve::RequestStream stream, LoadRequests(o, workload));
  if (o.priorities.size() > static_cast<size_t>(std::max(stream.report.streams, 1)))
    return Status::InvalidArgument("--priorities lists " + std::to_string(o.priorities.size()) +
                                   " streams, the requests have " + std::to_string(stream.report.streams));

  serve::LimitOverrides overrides;
  overrides.max_batch = o.max_batch;
  overrides.max_delay_us = o.queue_delay_us;
  if (!o.thread_wait.empty()) {
    overrides.keep_warm_us = serve::KeepWarmUs(o.thread_wait);
    if (!overrides.keep_warm_us)
      return Status::InvalidArgument("--thread-wait '" + o.thread_wait + "' is unknown; allowed: passive, spin, "
                                     "spin_<N>us or spin_<N>ms (N up to 10,000,000 us), e.g. spin_200us");
  }
  std::unique_ptr<serve::Decider> decider;
  std::unique_ptr<crmap_hook, HookCloser> hook;
  std::string decided_placement;  // the mode's placement knob, used when --placement is not given
  const std::string default_config = space.ToString(space.Default());
  if (o.mode == "default") {
    decider = std::make_unique<serve::FixedDecider>(default_config, overrides.Apply({1, 0}), "default");
  } else if (o.mode == "triton") {
    decider = std::make_unique<serve::FixedDecider>(default_config, overrides.Apply({16, 100}), "triton");
  } else if (o.mode == "static") {
    std::string config = o.config;
    if (config.empty()) {
      CRMAP_ASSIGN_OR_RETURN(std::vector<TuningRecord> records, DbRecords(o.db, workload, space));
      // The tuned shapes as `crmap train` counts them: those with a measured default config.
      config = space.ToString(ChooseStaticPlan(space, records, ReplayEvaluator(space, records).Shapes()));
    } else {
      CRMAP_ASSIGN_OR_RETURN(Config parsed, space.Parse(config));
      config = space.ToString(parsed);
    }
    decider = std::make_unique<serve::FixedDecider>(
        config, overrides.Apply(serve::LimitsFromConfig(config, serve::BatchLimits{})), "static");
    decided_placement = serve::KnobValueOf(config, "placement");
  } else if (o.mode == "oracle") {
    CRMAP_ASSIGN_OR_RETURN(std::vector<TuningRecord> records, DbRecords(o.db, workload, space));
    std::vector<Dims> shapes;
    std::vector<std::string> best;
    for (const auto& [dims, scores] : ScoreConfigs(space, records))
      if (const ConfigScore* top = scores.Best()) {
        shapes.push_back(dims);
        best.push_back(top->config);
      }
    if (best.empty()) return Status::InvalidArgument(o.db + ": no config ran ok at any shape");
    decider = std::make_unique<OracleDecider>(std::move(shapes), std::move(best), overrides);
  } else {
    crmap_open_options open{};
    open.expected_workload = workload.name().c_str();
    open.expected_space_fingerprint = space.fingerprint().c_str();
    open.fallback_config = o.fallback.empty() ? nullptr : o.fallback.c_str();
    crmap_hook* opened = nullptr;
    const crmap_status status = crmap_hook_open(o.policy.c_str(), &open, &opened);
    hook.reset(opened);
    if (status != CRMAP_OK) {
      if (!opened)
        return Status::InvalidArgument("--policy " + o.policy + ": " + crmap_hook_last_error() +
                                       " (--fallback CONFIG serves that config instead)");
      spdlog::warn("--policy {}: {}; serving the fallback {}", o.policy, crmap_hook_last_error(), o.fallback);
    }
    decider = std::make_unique<serve::HookDecider>(hook.get(), overrides);
    if (status == CRMAP_OK) decided_placement = PolicyPlacement(o.policy);
  }
  const std::string placement =
      !o.placement.empty() ? o.placement
      : (o.executor == "onednn" && decided_placement == "per_core") ? "per_core" : "shared";

  // Executors: one on all cores, or one pinned single-threaded executor per allowed cpu.
  // Warm-ups, decided before the cache is sized: every executor compiles its own plans of them.
  std::vector<serve::Warmup> warmups;
  const Dims first_dims = stream.requests.empty() ? Dims{} : stream.requests.front().dims;
  if (o.warmup_shapes == "buckets") {
    warmups = DecidedPlanWarmups(workload, space, *decider, first_dims);
  } else if (o.warmup_shapes == "support") {
    CRMAP_ASSIGN_OR_RETURN(Scenario scenario, LoadScenario(o.requests, workload));
    CRMAP_ASSIGN_OR_RETURN(std::vector<Dims> shapes, ScenarioSupportShapes(workload, scenario));
    for (Dims& dims : shapes) warmups.push_back({std::move(dims), ""});
  } else if (!o.warmup_shapes.empty()) {
    CRMAP_ASSIGN_OR_RETURN(std::vector<Dims> shapes, WarmupShapes(workload, o.warmup_shapes, first_dims));
    for (Dims& dims : shapes) warmups.push_back({std::move(dims), ""});
  }
  const std::vector<int> cpus = placement == "per_core" ? AllowedCpus() : std::vector<int>{};
  PlanCacheOptions plan_options = o.plans;
  plan_options.background_compile = o.background_compile;
  const size_t executors_of_plans = std::max<size_t>(cpus.size(), 1);
  plan_options.max_plans =
      PlanCacheSizeFor(plan_options.max_plans, warmups.size() + (o.warmup ? 1 : 0), executors_of_plans);
  PlanCache cache(workload, space, plan_options);
  std::vector<std::unique_ptr<serve::Executor>> executors;
  std::vector<serve::Executor*> executor_ptrs;
  if (o.executor == "libtorch") {
    executors.push_back(std::make_unique<TorchExecutor>(workload, space, DetectHost().cores));
  } else if (placement == "shared") {
    executors.push_back(std::make_unique<PlanExecutor>(space, workload, &cache, DetectHost().cores, -1));
  } else {
    for (int cpu : cpus) executors.push_back(std::make_unique<PlanExecutor>(space, workload, &cache, 1, cpu));
  }
  for (auto& e : executors) executor_ptrs.push_back(e.get());

  std::unique_ptr<serve::ServeMetrics> metrics;
  if (!o.metrics_address.empty() || !o.metrics_path.empty()) {
    serve::MetricsOptions metrics_options;
    metrics_options.labels = {{"workload", workload.name()}, {"mode", o.mode}, {"executor", o.executor}};
    metrics = std::make_unique<serve::ServeMetrics>(metrics_options);
    if (!o.metrics_address.empty()) {
      CRMAP_RETURN_IF_ERROR(metrics->Listen(o.metrics_address));
      const std::string host = o.metrics_address.substr(0, o.metrics_address.rfind(':'));
      spdlog::info("metrics on http://{}:{}/metrics", host, metrics->port());
    }
  }

  // Opened (and truncated) only once everything that can refuse the run has accepted it.
  std::unique_ptr<serve::TelemetryWriter> telemetry;
  if (!o.telemetry_path.empty()) {
    CRMAP_ASSIGN_OR_RETURN(telemetry, serve::TelemetryWriter::Open(o.telemetry_path));
  }

  serve::ServerOptions server;
  serve::StreamSettings settings;
  settings.policy.max_queue_size = o.max_queue_size;
  settings.policy.timeout_us = o.timeout_ms * 1000;
  settings.policy.timeout_action = o.timeout_action == "delay" ? serve::TimeoutAction::kDelay
                                                                : serve::TimeoutAction::kReject;
  server.streams.assign(static_cast<size_t>(std::max(stream.report.streams, 1)), settings);
  for (size_t i = 0; i < o.priorities.size(); ++i) server.streams[i].priority = o.priorities[i];
  if (!workload.batch_dim().empty())
    server.rule = serve::BatchRule{workload.batch_dim(), workload.dims().at(workload.batch_dim()).max, o.chunk};
  server.duration_us = o.duration_s * 1e6;
  server.warmup = o.warmup;
  server.warmups = warmups;
  server.on_stop = o.on_stop == "reject" ? serve::OnStop::kRejectQueued : serve::OnStop::kFinishQueued;
  server.stop = o.stop;
  server.on_progress = [&](const serve::ServeProgress& p) {
    if (metrics) metrics->SetQueueDepth(p.queue_depth);
    if (o.on_progress) o.on_progress(p);
  };
  server.keep_records = !o.trace_path.empty();  // the trace draws every request
  std::vector<double> served_latency_us;
  if (telemetry || metrics || o.collect_served_latencies)
    server.on_record = [&](const serve::RequestRecord& r) {
      if (telemetry) telemetry->Write(r);
      if (metrics) metrics->Record(r);
      if (o.collect_served_latencies && !serve::RejectedBySource(r))
        served_latency_us.push_back(r.outcome == serve::Outcome::kCompleted ? r.latency_us()
                                                                             : std::numeric_limits<double>::infinity());
    };
  if (metrics) server.on_batch = [&](const serve::BatchRecord& b) { metrics->RecordBatch(b); };

  // Policy reloads while serving, off the serving threads.
  std::atomic<bool> serving{true};
  std::atomic<int64_t> reloads{0}, reload_failures{0};
  std::thread reloader;
  if (hook && (o.reload_requested || o.reload_on_change)) {
    reloader = std::thread([&] {
      auto stamp = [&] {
        struct stat info {};
        return ::stat(o.policy.c_str(), &info) == 0 ? std::make_pair(info.st_mtim.tv_sec * 1000000000LL +
                                                                         info.st_mtim.tv_nsec,
                                                                     static_cast<long long>(info.st_size))
                                                    : std::make_pair(0LL, 0LL);
      };
      auto last = stamp();
      while (serving.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        bool asked = o.reload_requested && o.reload_requested->exchange(false);
        if (o.reload_on_change) {
          auto now = stamp();
          if (now != last) {
            last = now;
            asked = true;
          }
        }
        if (!asked) continue;
        if (crmap_hook_reload(hook.get(), o.policy.c_str()) == CRMAP_OK) {
          ++reloads;
          spdlog::info("reloaded the policy {}", o.policy);
        } else {
          ++reload_failures;
          spdlog::warn("policy reload failed, the current policy keeps answering: {}", crmap_hook_last_error());
        }
      }
    });
  }

  spdlog::log(o.quiet ? spdlog::level::debug : spdlog::level::info, "serving {} on {} ({} mode, {} executor{}): {}",
              workload.name(), DetectHost().isa, o.mode,
               executors.size(), executors.size() == 1 ? "" : "s", stream.report.description);
  Result<serve::ServeResult> served = serve::Serve(stream, *decider, executor_ptrs, server);
  serving = false;
  if (reloader.joinable()) reloader.join();
  CRMAP_ASSIGN_OR_RETURN(serve::ServeResult result, std::move(served));
  const double cpu_us = result.process_cpu_us;
  // Every output that can be written is, before any error is reported.
  Status trace_written, metrics_written;
  if (!o.trace_path.empty()) trace_written = serve::WriteChromeTrace(o.trace_path, result);
  if (metrics) metrics->SetQueueDepth(0);
  if (!o.metrics_path.empty()) metrics_written = metrics->WriteFile(o.metrics_path);
  if (telemetry) CRMAP_RETURN_IF_ERROR(telemetry->status());
  CRMAP_RETURN_IF_ERROR(trace_written);
  CRMAP_RETURN_IF_ERROR(metrics_written);

  ServeTaskReport report;
  report.summary = serve::Summarize(result, o.slo_ms);
  report.source = stream.report;
  report.plans = cache.stats();
  if (!warmups.empty() && report.plans.evictions > 0)
    spdlog::warn("the plan cache (at most {} plans, --plan-memory-mb {}) evicted {} plans in a run that warmed {} "
                 "per executor: warm plans may have been compiled again under traffic (the run compiled {} plans, "
                 "{} resident at the end)",
                 plan_options.max_plans, plan_options.memory_budget_bytes >> 20, report.plans.evictions,
                 warmups.size(), report.plans.compiles, HumanBytes(report.plans.bytes));
  report.served_latency_us = std::move(served_latency_us);
  const HostInfo& host = DetectHost();
  Json json = serve::SummaryJson(report.summary);
  json["mode"] = o.mode;
  json["workload"] = workload.name();
  json["placement"] = placement;
  json["chunk"] = o.chunk;
  json["executor"] = o.executor;
  json["executors"] = executors.size();
  const double wall_s = report.summary.wall_s;
  const double utilisation = wall_s > 0 ? cpu_us / 1e6 / (wall_s * host.cores) : 0.0;
  json["warmup_ms"] = result.warmup_us / 1e3;
  json["cpu"] = {{"process_s", cpu_us / 1e6},
                 {"utilisation", utilisation},
                 {"keep_warm_s", result.keep_warm_cpu_us / 1e6},
                 {"per_request_us", report.summary.completed > 0 ? cpu_us / report.summary.completed : 0.0}};
  json["host"] = {{"cpu", host.cpu}, {"isa", host.isa}, {"cores", host.cores}, {"onednn", host.onednn_version}};
  json["source"] = {{"description", stream.report.description}, {"requests", stream.report.requests},
                    {"adjusted", stream.report.adjusted}, {"out_of_range", stream.report.out_of_range},
                    {"streams", stream.report.streams}, {"duration_s", stream.report.duration_us / 1e6}};
  json["plans"] = {{"compiles", report.plans.compiles},       {"compile_failures", report.plans.compile_failures},
                   {"compile_ms", report.plans.compile_ms_total}, {"evictions", report.plans.evictions},
                   {"substitutions", report.plans.substitutions}, {"cached", report.plans.plans},
                   {"bytes", report.plans.bytes}};
  if (hook) {
    crmap_metrics metrics;
    if (crmap_hook_metrics(hook.get(), &metrics) == CRMAP_OK)
      json["hook"] = {{"decisions", metrics.decisions},
                      {"observations", metrics.observations},
                      {"policy_generation", metrics.policy_generation},
                      {"reloads", reloads.load()},
                      {"reload_failures", reload_failures.load()},
                      {"mean_abs_log_error", metrics.mean_abs_log_error}};
  }
  report.json = json;
  char line[512];
  std::snprintf(line, sizeof line, "%s, %s mode, %s executor, %s placement (%zu executor%s) on %s\n%s\n",
                workload.name().c_str(), o.mode.c_str(), o.executor.c_str(), placement.c_str(), executors.size(),
                executors.size() == 1 ? "" : "s", host.isa.c_str(), stream.report.description.c_str());
  report.text = line + serve::SummaryText(report.summary);
  std::snprintf(line, sizeof line, "plans: %lld compiled (%.0f ms), %lld failed, %lld substitutions, %lld evicted\n",
                static_cast<long long>(report.plans.compiles), report.plans.compile_ms_total,
                static_cast<long long>(report.plans.compile_failures),
                static_cast<long long>(report.plans.substitutions), static_cast<long long>(report.plans.evictions));
  report.text += line;
  std::snprintf(line, sizeof line, "cpu: %.2f s (%.0f%% of %d cores over the run), %.2f s of it keeping thread "
                "teams warm\n", cpu_us / 1e6, 100 * utilisation,
                host.cores, result.keep_warm_cpu_us / 1e6);
  report.text += line;
  return report;
}

ServeTaskOptions WithRuntimeSetting(ServeTaskOptions options, const RuntimeSetting& setting) {
  options.max_batch = setting.max_batch;
  options.queue_delay_us = setting.queue_delay_us;
  options.placement = setting.placement;
  options.chunk = setting.chunk;
  if (!setting.thread_wait.empty()) options.thread_wait = setting.thread_wait;
  return options;
}

RuntimeRunner ServeRuntimeRunner(ServeTaskOptions base) {
  return [base = std::move(base)](const RuntimeSetting& setting, int) -> Result<RuntimeRun> {
    ServeTaskOptions options = WithRuntimeSetting(base, setting);
    options.quiet = true;
    options.collect_served_latencies = true;
    CRMAP_ASSIGN_OR_RETURN(ServeTaskReport report, RunServeTask(options));
    RuntimeRun run;
    run.wall_s = report.summary.wall_s;
    run.within_slo = static_cast<int64_t>(std::llround(report.summary.goodput_rps * report.summary.wall_s));
    run.latency_us = std::move(report.served_latency_us);
    return run;
  };
}

}  // namespace crmap
