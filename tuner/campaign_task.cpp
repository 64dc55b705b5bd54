#include "tuner/campaign_task.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "agents/rl_agent.h"
#include "backend/host.h"
#include "datasets/catalog.h"
#include "tuner/backend_evaluator.h"
#include "tuner/config_scores.h"
#include "tuner/leader_recheck.h"
#include "tuner/measurement_record.h"
#include "tuner/range_probe.h"
#include "tuner/replay_evaluator.h"
#include "tuner/text_table.h"

namespace crmap {

namespace {

// Installs a watchdog handler for a scope, then restores the previous one. With `chain`, the new handler runs
// before the previous one (which ends or restarts the process); without, it replaces it.
class HangRecording {
 public:
  HangRecording(std::shared_ptr<HangWatchdog> watchdog, std::function<void(const HangEvent&)> handler,
                bool chain = true)
      : watchdog_(std::move(watchdog)) {
    if (!watchdog_) return;
    previous_ = watchdog_->handler();
    if (!chain) {
      watchdog_->SetHandler(std::move(handler));
      return;
    }
    watchdog_->SetHandler([handler = std::move(handler), previous = previous_](const HangEvent& event) {
      handler(event);
      if (previous) previous(event);
    });
  }
  ~HangRecording() {
    if (watchdog_) watchdog_->SetHandler(previous_);
  }
  HangRecording(const HangRecording&) = delete;
  HangRecording& operator=(const HangRecording&) = delete;

 private:
  std::shared_ptr<HangWatchdog> watchdog_;
  HangWatchdog::Handler previous_;
};


std::string SpeedupText(double s) { return s > 0 ? Format("%.2fx", s) : "-"; }

// Whether a campaign's stored record is charged to its budget: all but an agent proposal the host refused
// (campaign.h); a recheck or range probe counts whatever its status, as it did when it was measured.
bool ChargedToBudget(const std::string& agent, const std::string& status) {
  return status != "unsupported" || agent == "recheck" || agent == "probe";
}

}  // namespace

Result<ResumeState> AccountForResume(const std::vector<TuningRecord>& records, const std::string& campaign,
                                     const std::vector<Dims>& shapes, const SearchSpace& space, bool resume,
                                     const std::string& what) {
  ResumeState state;
  std::set<std::string> task_shapes;
  for (const auto& dims : shapes) task_shapes.insert(DimsToText(dims));
  const std::string default_string = space.ToString(space.Default());
  for (const auto& r : records) {
    const bool probe = r.campaign == campaign && r.agent == "probe" && !r.baseline;
    const bool mine = r.campaign == campaign && task_shapes.count(DimsToText(r.dims)) && !probe;
    if (mine && r.agent == "confirm") state.confirmed_shapes.insert(DimsToText(r.dims));
    if (mine && r.agent != "anchor" && !r.baseline) {
      if (!ChargedToBudget(r.agent, r.status)) {
        ++state.refused;
      } else {
        ++state.already;
        if (r.agent == "recheck") ++state.rechecked;
        ++state.spent[DimsToText(r.dims)];
        if (r.status == "ok") ++state.spent_ok[DimsToText(r.dims)];
      }
    }
    if (probe) ++state.probed;
    else if (r.campaign == campaign && !mine && r.agent != "anchor" && !r.baseline) ++state.elsewhere;
    if (r.config == default_string) state.anchored.insert(DimsToText(r.dims));
  }

  if (state.already + state.refused > 0 && !resume) {
    return Status::InvalidArgument("campaign '" + campaign + "' already has " +
                                   std::to_string(state.already + state.refused) +
                                   " measurements of " + what +
                                   "; continue it with --resume or name a new one with --campaign NAME");
  }
  return state;
}

namespace {

// What a task's definition resolves to before anything is measured.
struct ResolvedTask {
  Workload workload;
  SearchSpace space;
  std::vector<Dims> shapes;
};

// Whether the agent the campaign built runs leader climbs (what the report states: the agent's own options, not the
// setting asked for).
bool LeaderClimbsOn(const Agent& agent) {
  const auto* rl = dynamic_cast<const RlAgent*>(&agent);
  return rl && rl->options().leader_climbs;
}

Result<ResolvedTask> ResolveTask(const TuneTask& task, uint64_t seed) {
  CRMAP_ASSIGN_OR_RETURN(Workload workload, LoadWorkload(task.workload));
  CRMAP_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Build(workload));
  CRMAP_ASSIGN_OR_RETURN(std::vector<Dims> shapes,
                         ResolveShapes(workload, task.shapes, task.num_shapes, seed, task.shape_choice));
  return ResolvedTask{std::move(workload), std::move(space), std::move(shapes)};
}

// ResolveTask, and the agent's name checked: everything a task needs before its first measurement.
Result<ResolvedTask> ResolveAndCheckTask(const TuneTask& task, uint64_t seed) {
  CRMAP_ASSIGN_OR_RETURN(ResolvedTask resolved, ResolveTask(task, seed));
  AgentContext context{&resolved.workload, &resolved.space, resolved.shapes, seed};
  CRMAP_RETURN_IF_ERROR(MakeAgent(task.agent, context).status());
  return resolved;
}

}  // namespace

Status CheckCampaignName(const std::string& name) {
  const bool printable = std::all_of(name.begin(), name.end(),
                                     [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; });
  if (name.empty() || name.size() > 200 || !printable)
    return Status::InvalidArgument("campaign name '" + name + "' must be 1 to 200 printable characters");
  return Status::Ok();
}

namespace {

// The best config of a shape as the report gives it: the campaign's, the rechecks' or the confirmation's.
struct ShapeBest {
  Config config;
  double median_us = 0;
  double p99_us = 0;
  double vs_default = 0;
  double vs_libtorch = 0;  // 0: not confirmed against LibTorch in this run
};

// One task's run over its resolved shapes, step by step over the state the steps share: what the database held
// (resume counts, history), the writer, the evaluator. The agent's campaign spends the budget less the rechecks'
// and the range probes' shares; the rechecks measure the leaders again; the range probes measure the labels above
// the tuned range; the confirmation round runs each shape's leaders beside the default and LibTorch; the report
// gives the best per shape. The watchdog handler it installs refers to it, so it
// is neither copied nor moved. Not thread-safe.
class TaskRun {
 public:
  TaskRun(const TuneTask& task, const ResolvedTask& resolved, const TaskSettings& settings)
      : task_(task), workload_(resolved.workload), space_(resolved.space), shapes_(resolved.shapes),
        settings_(settings) {}
  TaskRun(const TaskRun&) = delete;
  TaskRun& operator=(const TaskRun&) = delete;

  // The whole task; on success fills `report`. The statuses of RunTuneTask.
  Status Run(TaskReport* report);

 private:
  // Reads what the database knows of the workload and space, checks a resume, opens the writer and the evaluator,
  // and fills record_context_ (all but the agent's name).
  Status Open();
  // A kernel that never returns: the candidate in flight is stored as a timeout before the watchdog's own handler
  // ends or restarts the process, so a resumed campaign counts it against the budget and never runs it again.
  // Installs that handler before the watchdog's own (chained) until hang_recording_ is reset.
  void RecordHangs();
  // Appends every result of the batch just evaluated (with record_context_'s agent) and counts it; the anchors
  // of shapes whose default is not stored yet, once each. `appended` (if given) receives the results' records.
  Status Store(const std::vector<Candidate>& candidates, std::vector<TuningRecord>* appended);
  // The agent's campaign: the budget less the rechecks' and the range probes' shares (or less those already
  // stored, if a resume asks for a smaller share); rechecks and probes already stored are not the agent's.
  Result<CampaignOutcome> RunAgent(Agent& agent, size_t recheck_budget, size_t probe_budget);
  // The rechecks: the budget kept back measures the leaders again, one shape at a time (NextLeaderRecheck on the
  // scores of every record at these shapes, this run's included), until a stop or the time limit, never past the
  // budget whatever share an earlier run of the campaign spent it with; the time limit counts from start_, as the
  // agent's campaign does. Sets *scores to the scores after them
  // when any recheck is stored (the report's best where no confirmation runs).
  Status RunRechecks(size_t recheck_budget, CampaignOutcome* outcome, std::map<Dims, ShapeScores>* scores);
  // The range probes: the share kept back measures the tuned shapes' labels at every thread count at the pool's
  // shapes above the tuned range, the farthest first, at most kMaxRangeProbeShapes (tuner/range_probe.h), until a
  // stop, the time limit or the share is spent (less the probes an earlier run stored; what finds nothing to
  // measure stays unspent). Configs the database holds at a shape are not measured again.
  // `above`: the pool's shapes above the tuned range, farthest first (ShapesAboveRange).
  Status RunRangeProbes(size_t probe_budget, const std::vector<Dims>& above, CampaignOutcome* outcome);
  // The shape's leaders, the default and LibTorch in one interleaved run: the best of this run replaces *best.
  Status Confirm(const ShapeOutcome& shape, size_t shape_index, size_t shape_count, ShapeBest* best);
  // The task's time limit (settings_.time_limit_s) reached, counted from start_.
  bool OutOfTime() const {
    return settings_.time_limit_s > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >=
               settings_.time_limit_s;
  }
  // A stop was asked for (settings_.stop raised).
  bool Stopped() const { return settings_.stop && settings_.stop->load(); }
  // Whether a stop or the time limit ends the step in progress; if so, outcome->end says which.
  bool EndsHere(CampaignOutcome* outcome) const {
    if (Stopped()) outcome->end = CampaignEnd::kStopped;
    else if (OutOfTime()) outcome->end = CampaignEnd::kTimeLimit;
    else return false;
    return true;
  }
  // What is left of a share of `share_budget` measurements for a step run after the agent: less what an earlier
  // run of the campaign stored for it (`stored`), never past the budget (`spent`: everything stored or measured
  // so far), none once the agent's campaign was stopped or ran out of time.
  size_t LeftOfShare(size_t share_budget, size_t stored, size_t spent, const CampaignOutcome& outcome) const {
    if (outcome.end == CampaignEnd::kStopped || outcome.end == CampaignEnd::kTimeLimit) return 0;
    const size_t left = share_budget > stored ? share_budget - stored : 0;
    return std::min(left, task_.budget > spent ? task_.budget - spent : 0);
  }

  const TuneTask& task_;
  const Workload& workload_;
  const SearchSpace& space_;
  const std::vector<Dims>& shapes_;
  const TaskSettings& settings_;
  std::chrono::steady_clock::time_point start_;  // when the agent's campaign starts: its time limit's clock

  ResumeState state_;
  std::vector<std::pair<Candidate, Evaluation>> history_;
  std::optional<TuningDbWriter> writer_;
  std::optional<BackendEvaluator> evaluator_;
  RecordContext record_context_;
  std::optional<HangRecording> hang_recording_;
  size_t rechecks_now_ = 0;
  size_t probes_now_ = 0;
  std::vector<Dims> probed_shapes_;  // where this run's range probes measured
};

Status TaskRun::Open() {
  std::vector<TuningRecord> records;
  auto existing = ReadTuningDbFor(settings_.db, workload_, space_);
  if (existing.ok()) {
    for (const auto& warning : existing->warnings) spdlog::warn("{}", warning);
    records = std::move(existing->records);
  } else if (existing.status().code() != StatusCode::kNotFound) {
    return existing.status();
  }
  CRMAP_ASSIGN_OR_RETURN(state_, AccountForResume(records, settings_.campaign, shapes_, space_, settings_.resume,
                                                  workload_.name() + " in " + settings_.db));
  if (settings_.resume && state_.already + state_.refused == 0 && state_.elsewhere > 0)
    spdlog::warn("campaign '{}' has {} measurements of {} in {}, none at these shapes: this resume starts them "
                 "afresh (if it was meant to continue the campaign, give the --shapes, --num-shapes, --shape-choice "
                 "and --seed it ran with)",
                 settings_.campaign, state_.elsewhere, workload_.name(), settings_.db);
  history_ = ObservationsFromRecords(space_, records, settings_.objective);

  CRMAP_ASSIGN_OR_RETURN(TuningDbWriter writer, TuningDbWriter::Open(settings_.db));
  writer_.emplace(std::move(writer));
  BackendEvaluatorOptions evaluator_options;
  evaluator_options.session = settings_.session;
  evaluator_options.session.measure.rounds = settings_.rounds;
  evaluator_options.session.measure.warmup = settings_.warmup;
  evaluator_options.objective = settings_.objective;
  evaluator_.emplace(workload_, space_, evaluator_options);

  record_context_.campaign = settings_.campaign;
  record_context_.seed = settings_.seed;
  record_context_.data_seed = settings_.session.compile.data_seed;
  return Status::Ok();
}

void TaskRun::RecordHangs() {
  hang_recording_.emplace(settings_.session.watchdog, [this](const HangEvent& event) {
    if (event.config.values.empty()) return;  // a peer: not a measurement of the campaign
    CandidateResult result;
    result.label = event.label;
    result.config = event.config;
    result.status = CandidateStatus::kTimeout;
    result.message = DescribeHang(event);
    RecordContext context = record_context_;
    if (event.config == space_.Default()) context.agent = "anchor";
    Status stored = writer_->Append(MeasurementRecordJson(workload_, space_, event.dims, result, context));
    if (!stored.ok()) spdlog::error("could not record the hung candidate: {}", stored.message());
  });
}

Status TaskRun::Store(const std::vector<Candidate>& candidates, std::vector<TuningRecord>* appended) {
  const std::vector<CandidateResult>& results = evaluator_->last_results();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Json record = MeasurementRecordJson(workload_, space_, candidates[i].dims, results[i], record_context_);
    CRMAP_RETURN_IF_ERROR(writer_->Append(record));
    if (appended) {
      CRMAP_ASSIGN_OR_RETURN(TuningRecord parsed, ParseTuningRecord(record.dump()));
      appended->push_back(std::move(parsed));
    }
    const std::string key = DimsToText(candidates[i].dims);
    if (ChargedToBudget(record_context_.agent, CandidateStatusName(results[i].status))) ++state_.spent[key];
    if (results[i].status == CandidateStatus::kOk) ++state_.spent_ok[key];
    if (candidates[i].config == space_.Default()) state_.anchored.insert(key);
  }
  RecordContext anchor_context = record_context_;
  anchor_context.agent = "anchor";
  for (const auto& [dims, result] : evaluator_->last_anchors()) {
    if (!state_.anchored.insert(DimsToText(dims)).second) continue;  // measured before: stored once only
    CRMAP_RETURN_IF_ERROR(writer_->Append(MeasurementRecordJson(workload_, space_, dims, result, anchor_context)));
  }
  return Status::Ok();
}

Result<CampaignOutcome> TaskRun::RunAgent(Agent& agent, size_t recheck_budget, size_t probe_budget) {
  CampaignOptions options;
  const size_t kept_back = std::max(recheck_budget, state_.rechecked) + std::max(probe_budget, state_.probed);
  options.budget = task_.budget > kept_back ? task_.budget - kept_back : 0;
  options.batch = settings_.batch;
  options.time_limit_s = settings_.time_limit_s;
  options.already_measured = state_.already - state_.rechecked;
  // Exhaustive grid runs pass through long runs of unsupported configs (all of bf16 on AVX2) by design.
  options.max_consecutive_failures = settings_.max_failures >= 0 ? static_cast<size_t>(settings_.max_failures)
                                     : task_.agent == "grid"    ? 0
                                                                : 48;
  options.stop = settings_.stop;
  options.on_progress = [&](const CampaignProgress& p) {
    if (!settings_.on_progress) return;
    std::string stage = Format("%s %s", workload_.name().c_str(), agent.name().c_str());
    if (p.best_speedup > 0) stage += Format(" best %.2fx @ %s", p.best_speedup, p.best_shape.c_str());
    if (p.eta_s > 0) stage += Format(" ETA %.0fs", p.eta_s);
    settings_.on_progress(stage, static_cast<int>(p.measured), static_cast<int>(p.budget));
  };
  spdlog::info("campaign '{}': {} with agent {} over {} shapes, budget {}{}{}{}", settings_.campaign, workload_.name(),
               agent.name(), shapes_.size(), task_.budget,
               recheck_budget ? Format(" (%zu of it rechecks of the leaders)", recheck_budget) : std::string(),
               probe_budget ? Format(" (%zu of it probes above the tuned range)", probe_budget) : std::string(),
               state_.already + state_.refused
                   ? Format(" (%zu measured before%s, resuming)", state_.already,
                            state_.refused ? Format(", %zu refused", state_.refused).c_str() : "")
                   : std::string());
  ResultSink sink = [&](const std::vector<Candidate>& candidates, const std::vector<Evaluation>&) -> Status {
    return Store(candidates, nullptr);
  };
  return RunCampaign(space_, shapes_, agent, *evaluator_, sink, history_, options);
}

Status TaskRun::RunRechecks(size_t recheck_budget, CampaignOutcome* outcome,
                            std::map<Dims, ShapeScores>* scores) {
  size_t left = LeftOfShare(recheck_budget, state_.rechecked,
                             outcome->measured_total + state_.rechecked + state_.probed, *outcome);
  if (left == 0 && state_.rechecked == 0) return Status::Ok();

  const std::set<Dims> task_shapes(shapes_.begin(), shapes_.end());
  std::vector<TuningRecord> at_shapes;
  CRMAP_ASSIGN_OR_RETURN(TuningDbContents now, ReadTuningDbFor(settings_.db, workload_, space_));
  for (auto& r : now.records)
    if (task_shapes.count(r.dims)) at_shapes.push_back(std::move(r));
  const std::string agent_name = record_context_.agent;
  record_context_.agent = "recheck";
  while (left > 0 && !EndsHere(outcome)) {
    std::optional<LeaderRecheck> next =
        NextLeaderRecheck(ScoreConfigs(space_, at_shapes, settings_.objective), shapes_, left);
    if (!next) break;
    std::vector<Candidate> candidates;
    for (const std::string& config : next->configs) {
      CRMAP_ASSIGN_OR_RETURN(Config parsed, space_.Parse(config));
      candidates.push_back({next->dims, parsed});
    }
    if (settings_.on_progress)
      settings_.on_progress(Format("%s rechecking the leaders at %s", workload_.name().c_str(),
                                   DimsToText(next->dims).c_str()),
                            static_cast<int>(rechecks_now_), static_cast<int>(rechecks_now_ + left));
    evaluator_->Evaluate(candidates);
    CRMAP_RETURN_IF_ERROR(Store(candidates, &at_shapes));
    left -= candidates.size();
    rechecks_now_ += candidates.size();
  }
  record_context_.agent = agent_name;
  if (state_.rechecked + rechecks_now_ > 0) *scores = ScoreConfigs(space_, at_shapes, settings_.objective);
  return Status::Ok();
}

Status TaskRun::RunRangeProbes(size_t probe_budget, const std::vector<Dims>& above, CampaignOutcome* outcome) {
  size_t left = LeftOfShare(probe_budget, state_.probed,
                             outcome->measured_total + state_.rechecked + rechecks_now_ + state_.probed, *outcome);
  if (left == 0 || above.empty()) return Status::Ok();
  const std::set<Dims> task_shapes(shapes_.begin(), shapes_.end());
  CRMAP_ASSIGN_OR_RETURN(TuningDbContents now, ReadTuningDbFor(settings_.db, workload_, space_));
  std::vector<TuningRecord> at_shapes;
  std::set<std::pair<Dims, std::string>> stored;  // (dims, config) the database holds
  for (auto& r : now.records) {
    if (r.baseline) continue;
    stored.emplace(r.dims, r.config);
    if (task_shapes.count(r.dims)) at_shapes.push_back(std::move(r));
  }
  // The trainer's labels: scored at the median (as TrainPolicy scores), over the task's shapes.
  const std::vector<Config> configs = RangeProbeConfigs(space_, ScoreConfigs(space_, at_shapes), shapes_);
  const std::string agent_name = record_context_.agent;
  record_context_.agent = "probe";
  for (size_t s = 0; s < above.size() && s < kMaxRangeProbeShapes && left > 0; ++s) {
    std::vector<Candidate> todo;
    for (const Config& config : configs)
      if (!stored.count({above[s], space_.ToString(config)})) todo.push_back({above[s], config});
    for (size_t i = 0; i < todo.size() && left > 0;) {
      if (EndsHere(outcome)) {
        left = 0;
        break;
      }
      const size_t take = std::min({settings_.batch, left, todo.size() - i});
      std::vector<Candidate> batch(todo.begin() + static_cast<std::ptrdiff_t>(i),
                                   todo.begin() + static_cast<std::ptrdiff_t>(i + take));
      if (settings_.on_progress)
        settings_.on_progress(Format("%s probing the labels' thread counts above the tuned range at %s",
                                     workload_.name().c_str(), DimsToText(above[s]).c_str()),
                              static_cast<int>(probes_now_), static_cast<int>(probes_now_ + left));
      evaluator_->Evaluate(batch);
      CRMAP_RETURN_IF_ERROR(Store(batch, nullptr));
      if (probed_shapes_.empty() || probed_shapes_.back() != above[s]) probed_shapes_.push_back(above[s]);
      i += take;
      left -= take;
      probes_now_ += take;
    }
  }
  record_context_.agent = agent_name;
  return Status::Ok();
}

Status TaskRun::Confirm(const ShapeOutcome& shape, size_t shape_index, size_t shape_count, ShapeBest* best) {
  const std::string key = DimsToText(shape.dims);
  SessionOptions confirm = settings_.session;
  confirm.measure.rounds = std::max(20, settings_.rounds);
  confirm.measure.warmup = settings_.warmup;
  confirm.baselines = DefaultPeers(workload_);
  std::vector<Config> configs = {space_.Default()};
  for (const Config& c : shape.leaders)
    if (c != space_.Default()) configs.push_back(c);
  confirm.on_progress = [&](const std::string& stage, int done, int total) {
    if (settings_.on_progress)
      settings_.on_progress(Format("confirming %s (%zu/%zu shapes): %s", key.c_str(), shape_index, shape_count,
                                   stage.c_str()),
                            done, total);
  };
  std::vector<CandidateResult> confirmed = evaluator_->SessionFor(shape.dims).Compare(configs, confirm);
  // The LibTorch rows are peers, not configs of the space: storing them lets `crmap db best` compare. Claims are
  // made against the fastest peer.
  const CandidateResult* torch = nullptr;
  RecordContext peer_context = record_context_;
  peer_context.agent = "confirm";
  for (size_t i = configs.size(); i < confirmed.size(); ++i) {
    const CandidateResult& peer = confirmed[i];
    CRMAP_RETURN_IF_ERROR(writer_->Append(MeasurementRecordJson(workload_, space_, shape.dims, peer, peer_context)));
    if (peer.status != CandidateStatus::kOk) {
      spdlog::warn("{} at {}: {} ({}); 'vs LibTorch' is quoted against the other peers", peer.label, key,
                   CandidateStatusName(peer.status), peer.message);
      continue;
    }
    const double ratio = RatioToAnchor(peer, settings_.objective);
    if (ratio > 0 && (!torch || ratio < RatioToAnchor(*torch, settings_.objective))) torch = &peer;
  }
  const CandidateResult* fastest = nullptr;
  for (size_t i = 0; i < configs.size(); ++i) {
    const CandidateResult& r = confirmed[i];
    const double ratio = RatioToAnchor(r, settings_.objective);
    if (ratio > 0 && (!fastest || ratio < RatioToAnchor(*fastest, settings_.objective))) fastest = &r;
  }
  if (!fastest) return Status::Ok();
  best->config = fastest->config;
  best->median_us = fastest->latency.median_us;
  best->p99_us = fastest->latency.p99_us;
  best->vs_default = 1 / RatioToAnchor(*fastest, settings_.objective);
  if (torch)
    best->vs_libtorch = RatioToAnchor(*torch, settings_.objective) / RatioToAnchor(*fastest, settings_.objective);
  return Status::Ok();
}

Status TaskRun::Run(TaskReport* report) {
  if (settings_.rounds < MinimumRounds(settings_.objective))
    return Status::InvalidArgument(Format("objective %s needs >= %d rounds per candidate, got %d",
                                          ObjectiveName(settings_.objective), MinimumRounds(settings_.objective),
                                          settings_.rounds));
  const double recheck_share = settings_.recheck_share, probe_share = settings_.probe_share;
  if (!(recheck_share >= 0 && recheck_share < 1 && probe_share >= 0 && probe_share < 1 &&
        recheck_share + probe_share < 1))
    return Status::InvalidArgument(Format("the recheck share (%g) and the probe share (%g) must each be in [0, 1) "
                                          "and sum to below 1 (the agent's share); nothing was measured",
                                          recheck_share, probe_share));
  if (settings_.leader_climbs && task_.agent != "rl")
    return Status::InvalidArgument("leader climbs apply to the rl agent only, not '" + task_.agent +
                                   "'; nothing was measured");
  const size_t recheck_budget = ShareOfBudget(task_.budget, recheck_share);
  const size_t probe_budget = ShareOfBudget(task_.budget, probe_share);
  // Where the probes would measure is known before anything is: a list of shapes has no pool to probe above.
  std::vector<Dims> above_range;
  if (probe_budget > 0) {
    if (task_.shapes.find('=') != std::string::npos)
      return Status::InvalidArgument("a probe share needs --shapes to name a distribution (range probes measure "
                                     "its draws above the tuned range), not a list of shapes; nothing was measured");
    CRMAP_ASSIGN_OR_RETURN(std::vector<Dims> pool, ResolveShapes(workload_, task_.shapes, kRangeProbePool,
                                                                 settings_.seed, ShapeChoice::kDraws));
    above_range = ShapesAboveRange(shapes_, pool);
    if (above_range.empty())
      spdlog::warn("{}: none of the distribution's {} draws lies above the tuned shapes' range: the probe share ({} "
                   "measurements) stays unspent", workload_.name(), pool.size(), probe_budget);
  }
  AgentContext context{&workload_, &space_, shapes_, settings_.seed};
  context.leader_climbs = settings_.leader_climbs;
  CRMAP_ASSIGN_OR_RETURN(std::unique_ptr<Agent> agent, MakeAgent(task_.agent, context));
  CRMAP_RETURN_IF_ERROR(Open());
  record_context_.agent = agent->name();
  RecordHangs();
  start_ = std::chrono::steady_clock::now();  // RunCampaign's clock starts here too
  CRMAP_ASSIGN_OR_RETURN(CampaignOutcome outcome, RunAgent(*agent, recheck_budget, probe_budget));
  std::map<Dims, ShapeScores> rechecked_scores;
  CRMAP_RETURN_IF_ERROR(RunRechecks(recheck_budget, &outcome, &rechecked_scores));
  CRMAP_RETURN_IF_ERROR(RunRangeProbes(probe_budget, above_range, &outcome));
  // The confirmation round after the campaign is no measurement of its budget: a hang there ends the process (a
  // restart would only confirm the same config again).
  hang_recording_.reset();
  HangRecording end_on_hang(settings_.session.watchdog, HangWatchdog::EndProcessHandler(), /*chain=*/false);
  report->end = outcome.end;

  // Per shape: the best config, confirmed side by side against the default and LibTorch eager. A resumed
  // campaign that measured nothing new does not confirm again where its confirmation already ran.
  TextTable table({"dims", "best config", ">median us", ">p99 us", ">vs default", ">vs LibTorch", ">measured"});
  Json shapes_json = Json::array();
  size_t shape_index = 0, confirmed_now = 0, confirmed_earlier = 0;
  for (const auto& s : outcome.shapes) {
    ++shape_index;
    const std::string key = DimsToText(s.dims);
    const size_t measured_here = state_.spent[key];
    Json row = {{"dims", Json(s.dims)}, {"measurements", measured_here}, {"ok", state_.spent_ok[key]}};
    if (!s.found) {
      table.AddRow({key, "(nothing succeeded)", "", "", "", "", std::to_string(measured_here)});
      shapes_json.push_back(row);
      continue;
    }
    ShapeBest best{s.best, s.best_evaluation.median_us, s.best_evaluation.p99_us, s.best_evaluation.speedup, 0};
    if (auto it = rechecked_scores.find(s.dims); it != rechecked_scores.end() && it->second.Best()) {
      const ConfigScore& leader = *it->second.Best();  // the rechecks may have changed the leader
      if (auto parsed = space_.Parse(leader.config); parsed.ok())
        best = {*parsed, leader.median_us, leader.p99_us, leader.speedup, 0};
    }
    const bool confirm_again = outcome.charged_now() + rechecks_now_ > 0 || !state_.confirmed_shapes.count(key);
    if (settings_.confirm && !confirm_again) ++confirmed_earlier;
    if (settings_.confirm && confirm_again && !Stopped()) {
      ++confirmed_now;
      CRMAP_RETURN_IF_ERROR(Confirm(s, shape_index, outcome.shapes.size(), &best));
    }
    table.AddRow({key, ShortConfigLabel(space_, best.config), Format("%.1f", best.median_us),
                  Format("%.1f", best.p99_us), SpeedupText(best.vs_default), SpeedupText(best.vs_libtorch),
                  std::to_string(measured_here)});
    row["best"] = space_.ToString(best.config);
    row["median_us"] = best.median_us;
    row["p99_us"] = best.p99_us;
    row["speedup_vs_default"] = best.vs_default;
    if (best.vs_libtorch > 0) row["speedup_vs_libtorch"] = best.vs_libtorch;
    shapes_json.push_back(row);
  }
  const size_t measured_now = outcome.charged_now() + rechecks_now_ + probes_now_;
  const size_t refused_total = state_.refused + outcome.refused_now;
  const size_t measured_total =
      outcome.measured_total + state_.rechecked + rechecks_now_ + state_.probed + probes_now_;
  Json probed_json = Json::array();
  for (const Dims& dims : probed_shapes_) probed_json.push_back(Json(dims));
  report->json = {{"campaign", settings_.campaign}, {"workload", workload_.name()}, {"agent", agent->name()},
                  {"db", settings_.db}, {"measured_now", measured_now},
                  {"rechecks_now", rechecks_now_}, {"recheck_budget", recheck_budget},
                  {"range_probes_now", probes_now_}, {"range_probe_budget", probe_budget},
                  {"range_probe_shapes", probed_json},
                  {"probes_now", outcome.probes_now}, {"climbs_now", outcome.climbs_now},
                  {"leader_climbs", LeaderClimbsOn(*agent)},
                  {"shape_choice", ShapeChoiceName(task_.shape_choice)},
                  {"measured_total", measured_total},
                  {"refused_now", outcome.refused_now}, {"refused_total", refused_total},
                  {"end", CampaignEndName(outcome.end)},
                  {"objective", ObjectiveName(settings_.objective)}, {"shapes", shapes_json}};
  std::string range_probe_text;
  if (probe_budget > 0) {
    std::string where;
    for (const Dims& dims : probed_shapes_) where += (where.empty() ? " at " : " and ") + DimsToText(dims);
    range_probe_text = Format("range probes: %zu of the %zu kept back measured the labels' thread counts above the "
                              "tuned range%s%s%s\n", probes_now_, probe_budget, where.c_str(),
                              state_.probed ? Format(" (%zu stored before)", state_.probed).c_str() : "",
                              above_range.empty() ? ": no shape of the distribution lies above it" : "");
  }
  report->text = Format("\n%s: %s, agent %s, %zu measurements (%zu this run, %zu of them active-learning probes, "
                        "%zu climbs, %zu rechecks of the leaders, %zu range probes), ended: %s\n",
                        settings_.campaign.c_str(), workload_.name().c_str(), agent->name().c_str(), measured_total,
                        measured_now, outcome.probes_now, outcome.climbs_now, rechecks_now_, probes_now_,
                        CampaignEndName(outcome.end)) +
                 (refused_total ? Format("refused: %zu proposals this host cannot run (no oneDNN kernel on this CPU; "
                                         "%zu this run), stored and not charged to the budget\n",
                                         refused_total, outcome.refused_now)
                                : std::string()) +
                 table.Render() +
                 (confirmed_now ? "best: the fastest of the campaign's 3 leaders per shape in a final interleaved run "
                                  "with the default and LibTorch eager (the speedups are from that run)\n"
                                : "vs default: measured side by side during the campaign\n") +
                 (confirmed_earlier ? "nothing new was measured: the final confirmation that already ran is not "
                                      "repeated (see 'crmap db best')\n"
                                    : "") +
                 "measured: this campaign's measurements at the shape\n" + range_probe_text +
                 (settings_.objective == Objective::kMedian
                      ? std::string()
                      : Format("objective: %s latency (best and speedups compare %s latencies measured side by side, "
                               "%d rounds each)\n",
                               ObjectiveName(settings_.objective), ObjectiveName(settings_.objective),
                               settings_.rounds));
  return Status::Ok();
}

Status RunResolvedTask(const TuneTask& task, const ResolvedTask& resolved, const TaskSettings& settings,
                       TaskReport* report) {
  TaskRun run(task, resolved, settings);
  return run.Run(report);
}

}  // namespace

Status RunTuneTask(const TuneTask& task, const TaskSettings& settings, TaskReport* report) {
  CRMAP_ASSIGN_OR_RETURN(ResolvedTask resolved, ResolveTask(task, settings.seed));
  return RunResolvedTask(task, resolved, settings, report);
}

Status RunCampaignSpec(const CampaignSpec& spec, const TaskSettings& settings, std::vector<TaskReport>* reports) {
  // Every task is resolved before the first is measured: a bad second task must not leave the first half done.
  std::vector<ResolvedTask> resolved;
  resolved.reserve(spec.tasks.size());
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    const TuneTask& task = spec.tasks[i];
    Result<ResolvedTask> one = ResolveAndCheckTask(task, settings.seed);
    if (!one.ok())
      return one.status().WithContext("task " + std::to_string(i + 1) + " (" + task.workload + "/" + task.agent +
                                      ") of the spec; nothing was measured");
    resolved.push_back(std::move(one).value());
  }
  std::map<std::string, int> tasks_named;  // two tasks of one workload and agent get distinct campaign names
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    const TuneTask& task = spec.tasks[i];
    if (settings.stop && settings.stop->load()) break;
    TaskReport report;
    TaskSettings task_settings = settings;
    task_settings.campaign = spec.name + "/" + task.workload + "/" + task.agent;
    if (int earlier = tasks_named[task_settings.campaign]++) task_settings.campaign += "#" + std::to_string(earlier + 1);
    CRMAP_RETURN_IF_ERROR(RunResolvedTask(task, resolved[i], task_settings, &report)
                              .WithContext("task " + task.workload + "/" + task.agent));
    reports->push_back(std::move(report));
  }
  return Status::Ok();
}

}  // namespace crmap
