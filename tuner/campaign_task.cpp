#include "tuner/campaign_task.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "backend/host.h"
#include "datasets/catalog.h"
#include "tuner/backend_evaluator.h"
#include "tuner/config_scores.h"
#include "tuner/leader_recheck.h"
#include "tuner/measurement_record.h"
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

}  // namespace

Result<ResumeState> AccountForResume(const std::vector<TuningRecord>& records, const std::string& campaign,
                                     const std::vector<Dims>& shapes, const SearchSpace& space, bool resume,
                                     const std::string& what) {
  ResumeState state;
  std::set<std::string> task_shapes;
  for (const auto& dims : shapes) task_shapes.insert(DimsToText(dims));
  const std::string default_string = space.ToString(space.Default());
  for (const auto& r : records) {
    const bool mine = r.campaign == campaign && task_shapes.count(DimsToText(r.dims));
    if (mine && r.agent == "confirm") state.confirmed_shapes.insert(DimsToText(r.dims));
    if (mine && r.agent != "anchor" && !r.baseline) {
      ++state.already;
      if (r.agent == "recheck") ++state.rechecked;
      ++state.spent[DimsToText(r.dims)];
      if (r.status == "ok") ++state.spent_ok[DimsToText(r.dims)];
    }
    if (r.campaign == campaign && !mine && r.agent != "anchor" && !r.baseline) ++state.elsewhere;
    if (r.config == default_string) state.anchored.insert(DimsToText(r.dims));
  }

  if (state.already > 0 && !resume) {
    return Status::InvalidArgument("campaign '" + campaign + "' already has " + std::to_string(state.already) +
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

Status RunResolvedTask(const TuneTask& task, const ResolvedTask& resolved, const TaskSettings& settings,
                       TaskReport* report);

}  // namespace

Status CheckCampaignName(const std::string& name) {
  const bool printable = std::all_of(name.begin(), name.end(),
                                     [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; });
  if (name.empty() || name.size() > 200 || !printable)
    return Status::InvalidArgument("campaign name '" + name + "' must be 1 to 200 printable characters");
  return Status::Ok();
}

Status RunTuneTask(const TuneTask& task, const TaskSettings& settings, TaskReport* report) {
  CRMAP_ASSIGN_OR_RETURN(ResolvedTask resolved, ResolveTask(task, settings.seed));
  return RunResolvedTask(task, resolved, settings, report);
}

namespace {

Status RunResolvedTask(const TuneTask& task, const ResolvedTask& resolved, const TaskSettings& settings,
                       TaskReport* report) {
  if (settings.rounds < MinimumRounds(settings.objective))
    return Status::InvalidArgument(Format("objective %s needs >= %d rounds per candidate, got %d",
                                          ObjectiveName(settings.objective), MinimumRounds(settings.objective),
                                          settings.rounds));
  const Workload& workload = resolved.workload;
  const SearchSpace& space = resolved.space;
  const std::vector<Dims>& shapes = resolved.shapes;
  AgentContext context{&workload, &space, shapes, settings.seed};
  CRMAP_ASSIGN_OR_RETURN(std::unique_ptr<Agent> agent, MakeAgent(task.agent, context));

  // What the database already knows about this workload and space.
  std::vector<TuningRecord> records;
  auto existing = ReadTuningDbFor(settings.db, workload, space);
  if (existing.ok()) {
    for (const auto& warning : existing->warnings) spdlog::warn("{}", warning);
    records = std::move(existing->records);
  } else if (existing.status().code() != StatusCode::kNotFound) {
    return existing.status();
  }
  CRMAP_ASSIGN_OR_RETURN(ResumeState state, AccountForResume(records, settings.campaign, shapes, space, settings.resume,
                                                          workload.name() + " in " + settings.db));
  if (settings.resume && state.already == 0 && state.elsewhere > 0)
    spdlog::warn("campaign '{}' has {} measurements of {} in {}, none at these shapes: this resume starts them "
                 "afresh (if it was meant to continue the campaign, give the --shapes, --num-shapes, --shape-choice "
                 "and --seed it ran with)",
                 settings.campaign, state.elsewhere, workload.name(), settings.db);
  size_t already = state.already;
  std::map<std::string, size_t>& spent = state.spent;
  std::map<std::string, size_t>& spent_ok = state.spent_ok;
  std::set<std::string>& confirmed_shapes = state.confirmed_shapes;
  std::set<std::string>& anchored = state.anchored;
  std::vector<std::pair<Candidate, Evaluation>> history = ObservationsFromRecords(space, records, settings.objective);

  CRMAP_ASSIGN_OR_RETURN(TuningDbWriter writer, TuningDbWriter::Open(settings.db));
  BackendEvaluatorOptions evaluator_options;
  evaluator_options.session = settings.session;
  evaluator_options.session.measure.rounds = settings.rounds;
  evaluator_options.session.measure.warmup = settings.warmup;
  evaluator_options.objective = settings.objective;
  BackendEvaluator evaluator(workload, space, evaluator_options);

  RecordContext record_context;
  record_context.agent = agent->name();
  record_context.campaign = settings.campaign;
  record_context.seed = settings.seed;
  record_context.data_seed = settings.session.compile.data_seed;
  // A kernel that never returns: the candidate in flight is stored as a timeout before the watchdog's own handler
  // ends or restarts the process, so a resumed campaign counts it against the budget and never runs it again.
  // The confirmation round after the campaign is no measurement of its budget: hangs there end the process only.
  std::optional<HangRecording> hang_recording;
  hang_recording.emplace(settings.session.watchdog, [&](const HangEvent& event) {
    if (event.config.values.empty()) return;  // a peer: not a measurement of the campaign
    CandidateResult result;
    result.label = event.label;
    result.config = event.config;
    result.status = CandidateStatus::kTimeout;
    result.message = DescribeHang(event);
    RecordContext context = record_context;
    if (event.config == space.Default()) context.agent = "anchor";
    Status stored = writer.Append(MeasurementRecordJson(workload, space, event.dims, result, context));
    if (!stored.ok()) spdlog::error("could not record the hung candidate: {}", stored.message());
  });
  // Every result of a batch appended to the database (with `record_context`'s agent) and counted; the anchors of
  // shapes whose default is not stored yet, once each. `appended` (if given) receives the results' records.
  auto store = [&](const std::vector<Candidate>& candidates, std::vector<TuningRecord>* appended) -> Status {
    for (size_t i = 0; i < candidates.size(); ++i) {
      const Json record = MeasurementRecordJson(workload, space, candidates[i].dims, evaluator.last_results()[i],
                                                record_context);
      CRMAP_RETURN_IF_ERROR(writer.Append(record));
      if (appended) {
        CRMAP_ASSIGN_OR_RETURN(TuningRecord parsed, ParseTuningRecord(record.dump()));
        appended->push_back(std::move(parsed));
      }
      ++spent[DimsToText(candidates[i].dims)];
      if (evaluator.last_results()[i].status == CandidateStatus::kOk) ++spent_ok[DimsToText(candidates[i].dims)];
      if (candidates[i].config == space.Default()) anchored.insert(DimsToText(candidates[i].dims));
    }
    RecordContext anchor_context = record_context;
    anchor_context.agent = "anchor";
    for (const auto& [dims, result] : evaluator.last_anchors()) {
      if (!anchored.insert(DimsToText(dims)).second) continue;  // measured before: stored once only
      CRMAP_RETURN_IF_ERROR(writer.Append(MeasurementRecordJson(workload, space, dims, result, anchor_context)));
    }
    return Status::Ok();
  };
  ResultSink sink = [&](const std::vector<Candidate>& candidates, const std::vector<Evaluation>&) -> Status {
    return store(candidates, nullptr);
  };

  // The agent spends the budget less the rechecks' share (or less the rechecks already stored, if a resume asks
  // for a smaller share); rechecks already stored are not the agent's measurements.
  const auto task_start = std::chrono::steady_clock::now();
  const size_t recheck_budget = RecheckBudget(task.budget, settings.recheck_share);
  CampaignOptions options;
  options.budget = task.budget - std::max(recheck_budget, state.rechecked);
  options.batch = settings.batch;
  options.time_limit_s = settings.time_limit_s;
  options.already_measured = already - state.rechecked;
  // Exhaustive grid runs pass through long runs of unsupported configs (all of bf16 on AVX2) by design.
  options.max_consecutive_failures = settings.max_failures >= 0 ? static_cast<size_t>(settings.max_failures)
                                     : task.agent == "grid"   ? 0
                                                              : 48;
  options.stop = settings.stop;
  options.on_progress = [&](const CampaignProgress& p) {
    if (!settings.on_progress) return;
    std::string stage = Format("%s %s", workload.name().c_str(), agent->name().c_str());
    if (p.best_speedup > 0) stage += Format(" best %.2fx @ %s", p.best_speedup, p.best_shape.c_str());
    if (p.eta_s > 0) stage += Format(" ETA %.0fs", p.eta_s);
    settings.on_progress(stage, static_cast<int>(p.measured), static_cast<int>(p.budget));
  };
  spdlog::info("campaign '{}': {} with agent {} over {} shapes, budget {}{}{}", settings.campaign, workload.name(),
                 agent->name(), shapes.size(), task.budget,
                 recheck_budget ? Format(" (%zu of it rechecks of the leaders)", recheck_budget) : std::string(),
                 already ? Format(" (%zu measured before, resuming)", already) : std::string());
  CRMAP_ASSIGN_OR_RETURN(CampaignOutcome outcome,
                         RunCampaign(space, shapes, *agent, evaluator, sink, history, options));
  // The rechecks: the budget kept back measures the leaders again, one shape at a time (NextLeaderRecheck on the
  // scores of every record at these shapes, this run's included), until a stop or the time limit.
  // Never past the budget, whatever share an earlier run of the campaign (a resume) spent it with.
  const size_t spent_so_far = outcome.measured_total + state.rechecked;
  size_t left = recheck_budget > state.rechecked ? recheck_budget - state.rechecked : 0;
  left = std::min(left, task.budget > spent_so_far ? task.budget - spent_so_far : 0);
  if (outcome.end == CampaignEnd::kStopped || outcome.end == CampaignEnd::kTimeLimit) left = 0;
  auto out_of_time = [&] {
    return settings.time_limit_s > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                                      task_start).count() >= settings.time_limit_s;
  };
  size_t rechecks_now = 0;
  std::map<Dims, ShapeScores> rechecked_scores;  // with rechecks stored: the report's best where none confirms
  if (left > 0 || state.rechecked > 0) {
    std::set<Dims> task_shapes(shapes.begin(), shapes.end());
    std::vector<TuningRecord> at_shapes;
    CRMAP_ASSIGN_OR_RETURN(TuningDbContents now, ReadTuningDbFor(settings.db, workload, space));
    for (auto& r : now.records)
      if (task_shapes.count(r.dims)) at_shapes.push_back(std::move(r));
    record_context.agent = "recheck";
    while (left > 0) {
      if (settings.stop && settings.stop->load()) {
        outcome.end = CampaignEnd::kStopped;
        break;
      }
      if (out_of_time()) {
        outcome.end = CampaignEnd::kTimeLimit;
        break;
      }
      std::optional<LeaderRecheck> next =
          NextLeaderRecheck(ScoreConfigs(space, at_shapes, settings.objective), shapes, left);
      if (!next) break;
      std::vector<Candidate> candidates;
      for (const std::string& config : next->configs) {
        CRMAP_ASSIGN_OR_RETURN(Config parsed, space.Parse(config));
        candidates.push_back({next->dims, parsed});
      }
      if (settings.on_progress)
        settings.on_progress(Format("%s rechecking the leaders at %s", workload.name().c_str(),
                                    DimsToText(next->dims).c_str()),
                             static_cast<int>(rechecks_now), static_cast<int>(rechecks_now + left));
      evaluator.Evaluate(candidates);
      CRMAP_RETURN_IF_ERROR(store(candidates, &at_shapes));
      left -= candidates.size();
      rechecks_now += candidates.size();
    }
    if (state.rechecked + rechecks_now > 0) rechecked_scores = ScoreConfigs(space, at_shapes, settings.objective);
    record_context.agent = agent->name();
  }
  hang_recording.reset();
  // A hang in the confirmation round (no measurement of the budget) ends the process: a restart would only
  // confirm the same config again.
  HangRecording end_on_hang(settings.session.watchdog, HangWatchdog::EndProcessHandler(), /*chain=*/false);
  report->end = outcome.end;

  // Per shape: the best config, confirmed side by side against the default and LibTorch eager. A resumed
  // campaign that measured nothing new does not confirm again where its confirmation already ran.
  TextTable table({"dims", "best config", ">median us", ">p99 us", ">vs default", ">vs LibTorch", ">measured"});
  Json shapes_json = Json::array();
  size_t shape_index = 0, confirmed_now = 0, confirmed_earlier = 0;
  for (const auto& s : outcome.shapes) {
    ++shape_index;
    const std::string key = DimsToText(s.dims);
    const size_t measured_here = spent[key];
    Json row = {{"dims", Json(s.dims)}, {"measurements", measured_here}, {"ok", spent_ok[key]}};
    if (!s.found) {
      table.AddRow({key, "(nothing succeeded)", "", "", "", "", std::to_string(measured_here)});
      shapes_json.push_back(row);
      continue;
    }
    Config best_config = s.best;
    double median = s.best_evaluation.median_us, p99 = s.best_evaluation.p99_us;
    double vs_default = s.best_evaluation.speedup, vs_libtorch = 0;
    if (auto it = rechecked_scores.find(s.dims); it != rechecked_scores.end() && it->second.Best()) {
      const ConfigScore& best = *it->second.Best();  // the rechecks may have changed the leader
      if (auto parsed = space.Parse(best.config); parsed.ok()) {
        best_config = *parsed;
        median = best.median_us;
        p99 = best.p99_us;
        vs_default = best.speedup;
      }
    }
    const bool confirm_again = outcome.measured_now + rechecks_now > 0 || !confirmed_shapes.count(key);
    if (settings.confirm && !confirm_again) ++confirmed_earlier;
    if (settings.confirm && confirm_again && !(settings.stop && settings.stop->load())) {
      ++confirmed_now;
      // The campaign's leaders, the default and LibTorch in one interleaved run: the best of this run wins.
      SessionOptions confirm = settings.session;
      confirm.measure.rounds = std::max(20, settings.rounds);
      confirm.measure.warmup = settings.warmup;
      confirm.baselines = DefaultPeers(workload);
      std::vector<Config> configs = {space.Default()};
      for (const Config& c : s.leaders)
        if (c != space.Default()) configs.push_back(c);
      confirm.on_progress = [&](const std::string& stage, int done, int total) {
        if (settings.on_progress)
          settings.on_progress(Format("confirming %s (%zu/%zu shapes): %s", key.c_str(), shape_index,
                                      outcome.shapes.size(), stage.c_str()),
                               done, total);
      };
      std::vector<CandidateResult> confirmed = evaluator.SessionFor(s.dims).Compare(configs, confirm);
      // The LibTorch rows are peers, not configs of the space: storing them lets `crmap db best` compare.
      // Claims are made against the fastest peer.
      const CandidateResult* torch = nullptr;
      for (size_t i = configs.size(); i < confirmed.size(); ++i) {
        const CandidateResult& peer = confirmed[i];
        RecordContext baseline_context = record_context;
        baseline_context.agent = "confirm";
        CRMAP_RETURN_IF_ERROR(writer.Append(MeasurementRecordJson(workload, space, s.dims, peer, baseline_context)));
        if (peer.status != CandidateStatus::kOk) {
          spdlog::warn("{} at {}: {} ({}); 'vs LibTorch' is quoted against the other peers", peer.label, key,
                       CandidateStatusName(peer.status), peer.message);
          continue;
        }
        const double ratio = RatioToAnchor(peer, settings.objective);
        if (ratio > 0 && (!torch || ratio < RatioToAnchor(*torch, settings.objective))) torch = &peer;
      }
      const CandidateResult* best = nullptr;
      for (size_t i = 0; i < configs.size(); ++i) {
        const CandidateResult& r = confirmed[i];
        const double ratio = RatioToAnchor(r, settings.objective);
        if (ratio > 0 && (!best || ratio < RatioToAnchor(*best, settings.objective))) best = &r;
      }
      if (best) {
        best_config = best->config;
        median = best->latency.median_us;
        p99 = best->latency.p99_us;
        vs_default = 1 / RatioToAnchor(*best, settings.objective);
        if (torch) vs_libtorch = RatioToAnchor(*torch, settings.objective) / RatioToAnchor(*best, settings.objective);
      }
    }
    table.AddRow({key, ShortConfigLabel(space, best_config), Format("%.1f", median), Format("%.1f", p99),
                  SpeedupText(vs_default), SpeedupText(vs_libtorch), std::to_string(measured_here)});
    row["best"] = space.ToString(best_config);
    row["median_us"] = median;
    row["p99_us"] = p99;
    row["speedup_vs_default"] = vs_default;
    if (vs_libtorch > 0) row["speedup_vs_libtorch"] = vs_libtorch;
    shapes_json.push_back(row);
  }
  report->json = {{"campaign", settings.campaign}, {"workload", workload.name()}, {"agent", agent->name()},
                  {"db", settings.db}, {"measured_now", outcome.measured_now + rechecks_now},
                  {"rechecks_now", rechecks_now}, {"recheck_budget", recheck_budget},
                  {"probes_now", outcome.probes_now}, {"climbs_now", outcome.climbs_now},
                  {"shape_choice", ShapeChoiceName(task.shape_choice)},
                  {"measured_total", outcome.measured_total + state.rechecked + rechecks_now},
                  {"end", CampaignEndName(outcome.end)},
                  {"objective", ObjectiveName(settings.objective)}, {"shapes", shapes_json}};
  report->text = Format("\n%s: %s, agent %s, %zu measurements (%zu this run, %zu of them active-learning probes, "
                        "%zu climbs, %zu rechecks of the leaders), ended: %s\n", settings.campaign.c_str(),
                        workload.name().c_str(), agent->name().c_str(),
                        outcome.measured_total + state.rechecked + rechecks_now, outcome.measured_now + rechecks_now,
                        outcome.probes_now, outcome.climbs_now, rechecks_now, CampaignEndName(outcome.end)) +
                 table.Render() +
                 (confirmed_now ? "best: the fastest of the campaign's 3 leaders per shape in a final interleaved run "
                                  "with the default and LibTorch eager (the speedups are from that run)\n"
                                : "vs default: measured side by side during the campaign\n") +
                 (confirmed_earlier ? "nothing new was measured: the final confirmation that already ran is not "
                                      "repeated (see 'crmap db best')\n"
                                    : "") +
                 "measured: this campaign's measurements at the shape\n" +
                 (settings.objective == Objective::kMedian
                      ? std::string()
                      : Format("objective: %s latency (best and speedups compare %s latencies measured side by side, "
                               "%d rounds each)\n",
                               ObjectiveName(settings.objective), ObjectiveName(settings.objective),
                               settings.rounds));
  return Status::Ok();
}

}  // namespace

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
