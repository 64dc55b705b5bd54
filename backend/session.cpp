#include "backend/session.h"

#include "backend/host.h"
#include "backend/validator.h"

namespace crmap {

namespace {

class PlanRunnable : public Runnable {
 public:
  explicit PlanRunnable(Plan* plan) : plan_(plan) {}
  void Prepare() override { plan_->SetThreads(); }
  Status RunOnce() override { return plan_->Execute(); }

 private:
  Plan* plan_;
};

class TorchRunnable : public Runnable {
 public:
  explicit TorchRunnable(TorchReference* model) : model_(model) {}
  void Prepare() override { model_->SetThreads(); }
  Status RunOnce() override { return model_->Run(); }

 private:
  TorchReference* model_;
};

CandidateStatus StatusFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kUnsupported: return CandidateStatus::kUnsupported;
    case StatusCode::kResourceExhausted: return CandidateStatus::kOverMemory;
    default: return CandidateStatus::kError;
  }
}

}  // namespace

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

Result<const std::map<std::string, HostTensor>*> MeasurementSession::Reference(uint64_t data_seed) {
  if (!have_reference_) {
    if (!reference_model_) {
      CRMAP_ASSIGN_OR_RETURN(reference_model_,
                             TorchReference::Create(workload_, dims_, DetectHost().cores, data_seed));
    }
    CRMAP_RETURN_IF_ERROR(reference_model_->Run());
    CRMAP_ASSIGN_OR_RETURN(reference_, reference_model_->Outputs());
    have_reference_ = true;
  }
  return &reference_;
}

std::vector<CandidateResult> MeasurementSession::Compare(const std::vector<Config>& configs,
                                                         const SessionOptions& options) {
  std::vector<CandidateResult> results(configs.size());
  std::vector<std::unique_ptr<Plan>> plans(configs.size());
  const std::map<std::string, HostTensor>* reference = nullptr;
  if (options.validate || options.baseline_libtorch) {
    auto ref = Reference(options.compile.data_seed);
    if (!ref.ok()) {
      for (size_t i = 0; i < configs.size(); ++i) {
        results[i].label = space_.ToString(configs[i]);
        results[i].config = configs[i];
        results[i].status = CandidateStatus::kError;
        results[i].message = ref.status().ToString();
      }
      return results;
    }
    reference = *ref;
  }

  for (size_t i = 0; i < configs.size(); ++i) {
    CandidateResult& r = results[i];
    r.label = space_.ToString(configs[i]);
    r.config = configs[i];
    if (options.on_progress) options.on_progress("compile", static_cast<int>(i), static_cast<int>(configs.size()));
    Result<Plan> plan = CompilePlan(workload_, space_, dims_, configs[i], options.compile);
    if (!plan.ok()) {
      r.status = StatusFor(plan.status());
      r.message = plan.status().message();
      continue;
    }
    r.plan = plan->info();
    plans[i] = std::make_unique<Plan>(std::move(plan).value());
    if (!options.validate) continue;
    double budget = space_.ValueOf(configs[i], KnobKind::kPrecision) == "bf16" ? space_.constraints().accuracy.bf16
                                                                               : space_.constraints().accuracy.f32;
    Result<ValidationReport> report = ValidatePlan(*plans[i], *reference, budget);
    if (!report.ok()) {
      r.status = CandidateStatus::kError;
      r.message = report.status().message();
    } else {
      r.max_error = report->max_abs_error;
      if (!report->within_budget) {
        r.status = CandidateStatus::kWrongAnswer;
        r.message = "max abs error " + std::to_string(report->max_abs_error) + " in output '" + report->worst_output +
                    "' exceeds the accuracy budget " + std::to_string(budget);
      }
    }
    if (r.status != CandidateStatus::kOk) plans[i].reset();
  }

  std::vector<Runnable*> runnables;
  std::vector<size_t> owner;  // result index per runnable
  std::vector<std::unique_ptr<Runnable>> keep;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (!plans[i]) continue;
    keep.push_back(std::make_unique<PlanRunnable>(plans[i].get()));
    runnables.push_back(keep.back().get());
    owner.push_back(i);
  }
  if (options.baseline_libtorch) {
    CandidateResult baseline;
    baseline.label = "libtorch";
    baseline.is_baseline = true;
    results.push_back(baseline);
    int threads = options.baseline_threads > 0 ? options.baseline_threads : DetectHost().cores;
    auto model = TorchReference::Create(workload_, dims_, threads, options.compile.data_seed);
    if (!model.ok()) {
      results.back().status = CandidateStatus::kError;
      results.back().message = model.status().message();
    } else {
      reference_model_ = std::move(model).value();  // keep it alive for the measurement
      keep.push_back(std::make_unique<TorchRunnable>(reference_model_.get()));
      runnables.push_back(keep.back().get());
      owner.push_back(results.size() - 1);
    }
  }
  if (runnables.empty()) return results;

  MeasureOptions measure = options.measure;
  if (options.on_progress) {
    auto progress = options.on_progress;
    measure.on_round = [progress](int round, int rounds) { progress("measure", round, rounds); };
  }
  std::vector<MeasureOutcome> outcomes = MeasureInterleaved(runnables, measure);
  const std::string& anchor = results[owner[0]].label;
  for (size_t j = 0; j < outcomes.size(); ++j) {
    CandidateResult& r = results[owner[j]];
    if (outcomes[j].timed_out) {
      r.status = CandidateStatus::kTimeout;
      r.message = "a single run took longer than " + std::to_string(measure.timeout_ms) + " ms";
    } else if (!outcomes[j].status.ok()) {
      r.status = CandidateStatus::kError;
      r.message = outcomes[j].status.message();
    }
    r.latency = outcomes[j].latency;
    r.ratio_to_anchor = outcomes[j].ratio_to_anchor;
    r.anchor_label = anchor;
  }
  return results;
}

}  // namespace crmap
