#include "backend/session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

#include "backend/host.h"
#include "backend/peer_process.h"

namespace crmap {

namespace {

// 1 -> "1", 0.25 -> "0.25", 1500 -> "1500": no trailing zeros.
std::string FormatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string FormatError(const ErrorStats& error) {
  char text[128];
  std::snprintf(text, sizeof text, "scaled error %.3g (max abs %.3g, max rel %.3g)", error.scaled, error.max_abs,
                error.max_rel);
  return text;
}

class PlanRunnable : public Runnable {
 public:
  explicit PlanRunnable(Plan* plan) : plan_(plan) {}
  void Prepare() override { plan_->SetThreads(); }
  Status RunOnce() override { return plan_->Execute(); }

 private:
  Plan* plan_;
};

// Every run of `inner` is watched by the session's hang watchdog (which fires with `event`), each run against the
// limit — the watch is armed outside the timed region. A runnable that times itself elsewhere (`times_itself`:
// a peer in a child process, which enforces its own per-run timeout) is watched over its warm_calls + 1 runs.
class WatchedRunnable : public Runnable {
 public:
  WatchedRunnable(Runnable* inner, HangWatchdog* watchdog, HangEvent event, double limit_ms, bool times_itself)
      : inner_(inner), watchdog_(watchdog), event_(std::move(event)), limit_ms_(limit_ms),
        times_itself_(times_itself) {}
  void Prepare() override {
    auto scope = watchdog_->Watch(event_, limit_ms_);
    inner_->Prepare();
  }
  Status RunOnce() override {
    auto scope = watchdog_->Watch(event_, limit_ms_);
    return inner_->RunOnce();
  }
  Result<int64_t> TimedRun(Clock& clock, int warm_calls) override {
    if (times_itself_) {
      auto scope = watchdog_->Watch(event_, limit_ms_ * (warm_calls + 1));
      return inner_->TimedRun(clock, warm_calls);
    }
    for (int i = 0; i < warm_calls; ++i) CRMAP_RETURN_IF_ERROR(RunOnce());
    auto scope = watchdog_->Watch(event_, limit_ms_);
    const int64_t start = clock.NowNanos();
    CRMAP_RETURN_IF_ERROR(inner_->RunOnce());
    return clock.NowNanos() - start;
  }

 private:
  Runnable* inner_;
  HangWatchdog* watchdog_;
  HangEvent event_;
  double limit_ms_;
  bool times_itself_;
};

// The fault-injection point of the hang tests (docs/failure-behaviour.md): the config whose canonical string is
// CRMAP_FAILPOINT_HANG_CONFIG never returns from a run, as a hung kernel would. Unset (always, outside tests):
// nothing changes.
class NeverReturningRunnable : public Runnable {
 public:
  Status RunOnce() override {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
};

double HangLimitMs(const SessionOptions& options) {
  return options.hang_ms > 0 ? options.hang_ms : kDefaultHangFactor * options.measure.timeout_ms;
}

bool FailpointHangs(const std::string& label) {
  const char* hang = std::getenv("CRMAP_FAILPOINT_HANG_CONFIG");
  return hang && label == hang;
}


CandidateStatus StatusFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kUnsupported: return CandidateStatus::kUnsupported;
    case StatusCode::kResourceExhausted: return CandidateStatus::kOverMemory;
    default: return CandidateStatus::kError;
  }
}

}  // namespace

Status CheckTorchModelFits(const Workload& workload, const SearchSpace& space, const Dims& dims,
                           int64_t memory_budget_bytes) {
  CRMAP_ASSIGN_OR_RETURN(auto shapes, workload.InferShapes(dims));
  // In double: counts saturate at INT64_MAX, and four bytes each of several of them must not overflow.
  auto f32_bytes = [](int64_t count) { return 4.0 * static_cast<double>(count); };
  double bytes = 0;
  for (const auto& op : workload.ops()) bytes += f32_bytes(OpParameterCount(op, shapes.at(op.inputs[0])));
  for (const auto& input : workload.inputs()) bytes += f32_bytes(ElementCount(shapes.at(input.name)));
  for (const auto& output : workload.outputs()) bytes += f32_bytes(ElementCount(shapes.at(output)));
  const int64_t budget = std::max(memory_budget_bytes, space.constraints().memory_budget_bytes);
  if (bytes > static_cast<double>(budget)) {
    return Status::ResourceExhausted("the LibTorch model needs at least " + std::to_string(static_cast<uint64_t>(bytes)) +
                                     " bytes (f32 weights, inputs, outputs), over the memory budget of " +
                                     std::to_string(budget) + " bytes (dims " + DimsToText(dims) + ")");
  }
  return Status::Ok();
}


double RatioToAnchor(const CandidateResult& result, Objective objective) {
  if (result.status != CandidateStatus::kOk) return 0;
  switch (objective) {
    case Objective::kMedian: return result.ratio_to_anchor.rounds > 0 ? result.ratio_to_anchor.median : 0;
    case Objective::kP95: return result.p95_ratio_to_anchor;
    case Objective::kP99: return result.p99_ratio_to_anchor;
  }
  return 0;
}

const char* CandidateStatusName(CandidateStatus status) {
  switch (status) {
    case CandidateStatus::kOk: return "ok";
    case CandidateStatus::kUnsupported: return "unsupported";
    case CandidateStatus::kWrongAnswer: return "wrong_answer";
    case CandidateStatus::kOverMemory: return "over_memory";
    case CandidateStatus::kTimeout: return "timeout";
    case CandidateStatus::kError: return "error";
  }
  return "error";
}

MeasurementSession::MeasurementSession(const Workload& workload, const SearchSpace& space, Dims dims)
    : workload_(workload), space_(space), dims_(std::move(dims)) {}

Result<const std::map<std::string, HostTensor>*> MeasurementSession::Reference(uint64_t data_seed,
                                                                             int64_t memory_budget_bytes) {
  if (!have_reference_ || reference_seed_ != data_seed) {
    have_reference_ = false;
    CRMAP_RETURN_IF_ERROR(EnsureTorchModel(DetectHost().cores, data_seed, memory_budget_bytes));
    CRMAP_RETURN_IF_ERROR(torch_model_->Run());
    CRMAP_ASSIGN_OR_RETURN(reference_, torch_model_->Outputs());
    reference_seed_ = data_seed;
    have_reference_ = true;
  }
  return &reference_;
}

Status MeasurementSession::EnsureTorchModel(int threads, uint64_t data_seed, int64_t memory_budget_bytes) {
  if (torch_model_ && torch_threads_ == threads && torch_seed_ == data_seed) return Status::Ok();
  torch_model_.reset();
  CRMAP_RETURN_IF_ERROR(CheckTorchModelFits(workload_, space_, dims_, memory_budget_bytes));
  CRMAP_ASSIGN_OR_RETURN(torch_model_, TorchReference::Create(workload_, dims_, threads, data_seed));
  torch_threads_ = threads;
  torch_seed_ = data_seed;
  return Status::Ok();
}

CandidateResult MeasurementSession::CompileAndValidate(const Config& config, const SessionOptions& options,
                                                       const std::map<std::string, HostTensor>* reference,
                                                       std::unique_ptr<Plan>* plan_out) {
  CandidateResult r;
  r.config = config;
  Status valid = space_.Validate(config);
  if (!valid.ok()) {
    r.label = "invalid config";
    r.status = CandidateStatus::kError;
    r.message = valid.message();
    return r;
  }
  r.label = space_.ToString(config);
  Result<Plan> plan = CompilePlan(workload_, space_, dims_, config, options.compile);
  if (!plan.ok()) {
    r.status = StatusFor(plan.status());
    r.message = plan.status().message();
    return r;
  }
  r.plan = plan->info();
  auto owned = std::make_unique<Plan>(std::move(plan).value());
  if (reference) {
    double budget = space_.ValueOf(config, KnobKind::kPrecision) == "bf16" ? space_.constraints().accuracy.bf16
                                                                         : space_.constraints().accuracy.f32;
    std::optional<HangWatchdog::Scope> watched;
    if (options.watchdog) watched.emplace(options.watchdog->Watch({r.label, dims_, config, 0}, HangLimitMs(options)));
    Result<ValidationReport> report = ValidatePlan(*owned, *reference, budget);
    watched.reset();
    if (!report.ok()) {
      r.status = CandidateStatus::kError;
      r.message = report.status().message();
      return r;
    }
    r.validated = true;
    r.error = report->error;
    r.accuracy_budget = budget;
    if (!report->within_budget) {
      r.status = CandidateStatus::kWrongAnswer;
      r.message = FormatError(report->error) + " in output '" + report->error.worst_output +
                  "' exceeds the accuracy budget (scaled error " + FormatNumber(budget) + ")";
      return r;
    }
  }
  *plan_out = std::move(owned);
  return r;
}

std::vector<CandidateResult> MeasurementSession::Compare(const std::vector<Config>& configs,
                                                         const SessionOptions& options) {
  std::vector<CandidateResult> results(configs.size());
  std::vector<std::unique_ptr<Plan>> plans(configs.size());
  const std::map<std::string, HostTensor>* reference = nullptr;
  if (options.validate) {
    auto ref = Reference(options.compile.data_seed, options.compile.memory_budget_bytes);
    if (!ref.ok()) {
      for (size_t i = 0; i < configs.size(); ++i) {
        results[i].label = space_.Validate(configs[i]).ok() ? space_.ToString(configs[i]) : "invalid config";
        results[i].config = configs[i];
        results[i].status = ref.status().code() == StatusCode::kResourceExhausted ? CandidateStatus::kOverMemory
                                                                                  : CandidateStatus::kError;
        results[i].message = "LibTorch reference: " + ref.status().message();
      }
      return results;
    }
    reference = *ref;
  }

  for (size_t i = 0; i < configs.size(); ++i) {
    if (options.on_progress) options.on_progress("compile", static_cast<int>(i), static_cast<int>(configs.size()));
    results[i] = CompileAndValidate(configs[i], options, reference, &plans[i]);
    if (options.stop_on_over_memory && results[i].status == CandidateStatus::kOverMemory) return results;
  }

  std::vector<Runnable*> runnables;
  std::vector<size_t> owner;  // result index per runnable
  std::vector<std::unique_ptr<Runnable>> keep;
  auto watched = [&](Runnable* runnable, const CandidateResult& result, bool times_itself) -> Runnable* {
    if (!options.watchdog) return runnable;
    keep.push_back(std::make_unique<WatchedRunnable>(runnable, options.watchdog.get(),
                                                     HangEvent{result.label, dims_, result.config, 0},
                                                     HangLimitMs(options), times_itself));
    return keep.back().get();
  };
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!plans[i]) continue;
    if (FailpointHangs(results[i].label)) keep.push_back(std::make_unique<NeverReturningRunnable>());
    else keep.push_back(std::make_unique<PlanRunnable>(plans[i].get()));
    runnables.push_back(watched(keep.back().get(), results[i], false));
    owner.push_back(i);
  }
  std::vector<std::unique_ptr<TorchReference>> peer_models;
  std::vector<std::unique_ptr<PeerProcess>> peer_processes;
  const int peer_threads = options.baseline_threads > 0 ? options.baseline_threads : DetectHost().cores;
  for (const PeerBaseline& peer : options.baselines) {
    CandidateResult baseline;
    baseline.label = peer.Label();
    baseline.is_baseline = true;
    baseline.peer = peer;
    results.push_back(baseline);
    CandidateResult& r = results.back();
    Runnable* runnable = nullptr;
    Result<std::map<std::string, HostTensor>> outputs = Status::Internal("no outputs");
    if (!peer.in_process()) {
      auto process = PeerProcess::Start(options.peer_executable, workload_, dims_, peer_threads,
                                        options.compile.data_seed, peer, options.measure.timeout_ms);
      if (!process.ok()) {
        r.status = StatusFor(process.status());
        r.message = process.status().message();
        continue;
      }
      peer_processes.push_back(std::move(process).value());
      runnable = peer_processes.back().get();
      if (reference) outputs = peer_processes.back()->Outputs(*reference);
    } else {
      TorchReference* model = nullptr;
      if (peer.path == TorchPath::kEager) {
        Status built =
            EnsureTorchModel(peer_threads, options.compile.data_seed, options.compile.memory_budget_bytes);
        if (!built.ok()) {
          r.status = StatusFor(built);
          r.message = built.message();
          continue;
        }
        model = torch_model_.get();
      } else {
        Status fits = CheckTorchModelFits(workload_, space_, dims_, options.compile.memory_budget_bytes);
        auto built = fits.ok() ? TorchReference::Create(workload_, dims_, peer_threads, options.compile.data_seed,
                                                        peer.path)
                               : Result<std::unique_ptr<TorchReference>>(fits);
        if (!built.ok()) {
          r.status = StatusFor(built.status());
          r.message = built.status().message();
          continue;
        }
        peer_models.push_back(std::move(built).value());
        model = peer_models.back().get();
      }
      if (reference) {
        Status ran = model->Run();
        outputs = ran.ok() ? model->Outputs() : Result<std::map<std::string, HostTensor>>(ran);
      }
      keep.push_back(std::make_unique<TorchRunnable>(model));
      runnable = keep.back().get();
    }
    if (reference) {  // a peer is validated like a plan: a fast wrong answer is no baseline
      const double budget = space_.constraints().accuracy.f32;
      Result<ValidationReport> report =
          outputs.ok() ? CompareOutputs(*outputs, *reference, budget) : Result<ValidationReport>(outputs.status());
      if (!report.ok()) {
        r.status = CandidateStatus::kError;
        r.message = report.status().message();
        continue;
      }
      r.validated = true;
      r.error = report->error;
      r.accuracy_budget = budget;
      if (!report->within_budget) {
        r.status = CandidateStatus::kWrongAnswer;
        r.message = FormatError(report->error) + " exceeds the f32 accuracy budget";
        continue;
      }
    }
    runnables.push_back(watched(runnable, r, !peer.in_process()));
    owner.push_back(results.size() - 1);
  }
  if (runnables.empty()) return results;

  MeasureOptions measure = options.measure;
  if (options.on_progress) {
    auto progress = options.on_progress;
    measure.on_round = [progress](int round, int rounds) { progress("measure", round, rounds); };
  }
  std::vector<MeasureOutcome> outcomes = MeasureInterleaved(runnables, measure);
  // Ratios are to the first config. If it did not survive to be measured there is no anchor: the measurer's
  // ratios would silently refer to another candidate, so they are dropped.
  const bool anchored = owner[0] == 0;
  for (size_t j = 0; j < outcomes.size(); ++j) {
    CandidateResult& r = results[owner[j]];
    if (outcomes[j].timed_out) {
      r.status = CandidateStatus::kTimeout;
      r.message = "a single run took longer than " + FormatNumber(measure.timeout_ms) + " ms (--timeout-ms)";
    } else if (!outcomes[j].status.ok()) {
      r.status = CandidateStatus::kError;
      r.message = outcomes[j].status.message();
    }
    r.latency = outcomes[j].latency;
    r.cold_latency = outcomes[j].cold_latency;
    r.cold_not_idle = outcomes[j].cold_not_idle;
    if (anchored && outcomes[0].status.ok() && !outcomes[0].timed_out) {
      r.ratio_to_anchor = outcomes[j].ratio_to_anchor;
      r.anchor_label = results[0].label;
      const LatencyStats& anchor = outcomes[0].latency;
      const LatencyStats& mine = outcomes[j].latency;
      if (mine.rounds > 0 && anchor.p95_us > 0) r.p95_ratio_to_anchor = mine.p95_us / anchor.p95_us;
      if (mine.rounds > 0 && anchor.p99_us > 0) r.p99_ratio_to_anchor = mine.p99_us / anchor.p99_us;
    }
  }
  return results;
}

}  // namespace crmap
