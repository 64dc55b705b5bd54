// crmap tune / crmap campaign: tuning campaigns on the real backend, stored in a tuning database.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "backend/host.h"
#include "datasets/catalog.h"
#include "tuner/backend_evaluator.h"
#include "tuner/campaign.h"
#include "tuner/campaign_spec.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/measure_options.h"
#include "tuner/measurement_record.h"
#include "tuner/replay_evaluator.h"
#include "tuner/text_table.h"
#include "tuner/tuning_db.h"

namespace crmap::cli {

namespace {

// Ctrl-C: the first one asks the campaign to stop after the batch in flight; a second one kills the process
// (the database then holds every batch completed before it).
std::atomic<bool> g_stop{false};

void OnInterrupt(int) {
  if (g_stop.exchange(true)) {
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}

struct TaskSettings {
  std::string campaign;
  std::string db;
  int rounds = 10;
  int warmup = 2;
  size_t batch = 8;
  uint64_t seed = 1;
  double time_limit_s = 0;
  bool resume = false;
  bool confirm = true;
  bool json = false;
  int max_failures = -1;  // consecutive failures before the agent is stopped; -1: 48, none for grid
  SessionOptions session;  // compile options, validation, timeout
  std::string resume_hint;  // the command that continues this campaign
};

struct TaskReport {
  Json json;
  std::string text;
  CampaignEnd end = CampaignEnd::kBudget;
};

std::string SpeedupText(double s) { return s > 0 ? Format("%.2fx", s) : "-"; }

// Runs one task; on success fills `report`. Errors are bad input (exit 2) or failures.
Status RunTask(const TuneTask& task, const TaskSettings& settings, TaskReport* report) {
  CRMAP_ASSIGN_OR_RETURN(Workload workload, LoadWorkload(task.workload));
  CRMAP_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Build(workload));
  CRMAP_ASSIGN_OR_RETURN(std::vector<Dims> shapes,
                         ResolveShapes(workload, task.shapes, task.num_shapes, settings.seed));
  AgentContext context{&workload, &space, shapes, settings.seed};
  CRMAP_ASSIGN_OR_RETURN(std::unique_ptr<Agent> agent, MakeAgent(task.agent, context));

  // What the database already knows about this workload and space.
  std::vector<TuningRecord> records;
  auto existing = ReadTuningDb(settings.db, workload.fingerprint(), space.fingerprint());
  if (existing.ok()) {
    for (const auto& warning : existing->warnings) spdlog::warn("{}", warning);
    records = std::move(existing->records);
  } else if (existing.status().code() != StatusCode::kNotFound) {
    return existing.status();
  }
  // The budget is spent over this task's shapes: a campaign's records at other shapes (a resumed campaign given
  // new shapes) do not count against it.
  std::set<std::string> task_shapes;
  for (const auto& dims : shapes) task_shapes.insert(DimsToText(dims));
  size_t already = 0;
  std::map<std::string, size_t> spent;     // per shape: this campaign's measurements (of agent proposals)
  std::map<std::string, size_t> spent_ok;  // ... of them, those that ran and validated
  std::set<std::string> confirmed_shapes;  // where this campaign's final confirmation already ran
  std::set<std::string> anchored;          // shapes whose default config is in the database
  const std::string default_string = space.ToString(space.Default());
  for (const auto& r : records) {
    const bool mine = r.campaign == settings.campaign && task_shapes.count(DimsToText(r.dims));
    if (mine && r.agent == "confirm") confirmed_shapes.insert(DimsToText(r.dims));
    if (mine && r.agent != "anchor" && !r.baseline) {
      ++already;
      ++spent[DimsToText(r.dims)];
      if (r.status == "ok") ++spent_ok[DimsToText(r.dims)];
    }
    if (r.config == default_string) anchored.insert(DimsToText(r.dims));
  }
  if (already > 0 && !settings.resume) {
    return Status::InvalidArgument("campaign '" + settings.campaign + "' already has " + std::to_string(already) +
                                   " measurements of " + workload.name() + " in " + settings.db +
                                   "; continue it with --resume or name a new one with --campaign NAME");
  }
  std::vector<std::pair<Candidate, Evaluation>> history = ObservationsFromRecords(space, records);

  CRMAP_ASSIGN_OR_RETURN(TuningDbWriter writer, TuningDbWriter::Open(settings.db));
  BackendEvaluatorOptions evaluator_options;
  evaluator_options.session = settings.session;
  evaluator_options.session.measure.rounds = settings.rounds;
  evaluator_options.session.measure.warmup = settings.warmup;
  BackendEvaluator evaluator(workload, space, evaluator_options);

  RecordContext record_context;
  record_context.agent = agent->name();
  record_context.campaign = settings.campaign;
  record_context.seed = settings.seed;
  record_context.data_seed = settings.session.compile.data_seed;
  ResultSink sink = [&](const std::vector<Candidate>& candidates, const std::vector<Evaluation>&) -> Status {
    for (size_t i = 0; i < candidates.size(); ++i) {
      CRMAP_RETURN_IF_ERROR(writer.Append(MeasurementRecordJson(workload, space, candidates[i].dims,
                                                                evaluator.last_results()[i], record_context)));
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

  CampaignOptions options;
  options.budget = task.budget;
  options.batch = settings.batch;
  options.time_limit_s = settings.time_limit_s;
  options.already_measured = already;
  // Exhaustive grid runs pass through long runs of unsupported configs (all of bf16 on AVX2) by design.
  options.max_consecutive_failures = settings.max_failures >= 0 ? static_cast<size_t>(settings.max_failures)
                                     : task.agent == "grid"   ? 0
                                                              : 48;
  options.stop = &g_stop;
  ProgressLine progress(!settings.json);
  options.on_progress = [&](const CampaignProgress& p) {
    std::string stage = Format("%s %s", workload.name().c_str(), agent->name().c_str());
    if (p.best_speedup > 0) stage += Format(" best %.2fx @ %s", p.best_speedup, p.best_shape.c_str());
    if (p.eta_s > 0) stage += Format(" ETA %.0fs", p.eta_s);
    progress.Update(stage, static_cast<int>(p.measured), static_cast<int>(p.budget));
  };
  if (!settings.json)
    spdlog::info("campaign '{}': {} with agent {} over {} shapes, budget {}{}", settings.campaign, workload.name(),
                 agent->name(), shapes.size(), task.budget,
                 already ? Format(" (%zu measured before, resuming)", already) : std::string());
  CRMAP_ASSIGN_OR_RETURN(CampaignOutcome outcome,
                         RunCampaign(space, shapes, *agent, evaluator, sink, history, options));
  progress.Finish();
  report->end = outcome.end;

  // Per shape: the best config, confirmed side by side against the default and LibTorch eager. A resumed
  // campaign that measured nothing new does not confirm again where its confirmation already ran.
  TextTable table({"dims", "best config", ">median us", ">p99 us", ">vs default", ">vs LibTorch", ">measured"});
  Json shapes_json = Json::array();
  ProgressLine confirm_progress(settings.confirm && !settings.json);
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
    const bool confirm_again = outcome.measured_now > 0 || !confirmed_shapes.count(key);
    if (settings.confirm && !confirm_again) ++confirmed_earlier;
    if (settings.confirm && confirm_again && !g_stop.load()) {
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
        confirm_progress.Update(Format("confirming %s (%zu/%zu shapes): %s", key.c_str(), shape_index,
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
        if (peer.ratio_to_anchor.rounds > 0 &&
            (!torch || peer.ratio_to_anchor.median < torch->ratio_to_anchor.median))
          torch = &peer;
      }
      const CandidateResult* best = nullptr;
      for (size_t i = 0; i < configs.size(); ++i) {
        const CandidateResult& r = confirmed[i];
        if (r.status != CandidateStatus::kOk || r.ratio_to_anchor.rounds == 0) continue;
        if (!best || r.ratio_to_anchor.median < best->ratio_to_anchor.median) best = &r;
      }
      if (best) {
        best_config = best->config;
        median = best->latency.median_us;
        p99 = best->latency.p99_us;
        vs_default = 1 / best->ratio_to_anchor.median;
        if (torch) vs_libtorch = torch->ratio_to_anchor.median / best->ratio_to_anchor.median;
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
  confirm_progress.Finish();
  report->json = {{"campaign", settings.campaign}, {"workload", workload.name()}, {"agent", agent->name()},
                  {"db", settings.db}, {"measured_now", outcome.measured_now},
                  {"measured_total", outcome.measured_total}, {"end", CampaignEndName(outcome.end)},
                  {"shapes", shapes_json}};
  report->text = Format("\n%s: %s, agent %s, %zu measurements (%zu this run), ended: %s\n", settings.campaign.c_str(),
                        workload.name().c_str(), agent->name().c_str(), outcome.measured_total, outcome.measured_now,
                        CampaignEndName(outcome.end)) +
                 table.Render() +
                 (confirmed_now ? "best: the fastest of the campaign's 3 leaders per shape in a final interleaved run "
                                  "with the default and LibTorch eager (the speedups are from that run)\n"
                                : "vs default: measured side by side during the campaign\n") +
                 (confirmed_earlier ? "nothing new was measured: the final confirmation that already ran is not "
                                      "repeated (see 'crmap db best')\n"
                                    : "") +
                 "measured: this campaign's measurements at the shape\n";
  return Status::Ok();
}

void AddTaskSettingsOptions(cxxopts::Options& options) {
  options.add_options("campaign")
      ("db", "tuning database (JSON Lines), appended to", cxxopts::value<std::string>())
      ("resume", "continue the campaign already in the database without re-measuring")
      ("seed", "seed of the agent and of the shapes drawn", cxxopts::value<uint64_t>()->default_value("1"))
      ("time-limit", "stop after this many seconds (per task)", cxxopts::value<double>()->default_value("0"))
      ("batch", "candidates measured together (interleaved) per step", cxxopts::value<int>()->default_value("8"))
      ("no-confirm", "skip the final side-by-side run with the default and LibTorch")
      ("max-failures", "stop the agent after this many consecutive failed measurements (0: never; default 48, "
                       "none for grid)", cxxopts::value<int>());
}

int Finish(const std::vector<TaskReport>& reports, const TaskSettings& settings, const cxxopts::ParseResult& args) {
  Json all = Json::array();
  for (const auto& r : reports) all.push_back(r.json);
  Json summary = all.size() == 1 ? all[0] : all;
  Status written = WriteOutOption(args, summary);
  if (!written.ok()) return Fail(written);
  WarnIfMachineBusy();
  if (settings.json) {
    std::printf("%s\n", summary.dump(2).c_str());
  } else {
    for (const auto& r : reports) std::printf("%s", r.text.c_str());
  }
  if (g_stop.load()) {
    std::fprintf(stderr, "crmap: stopped after the batch in flight; every completed measurement is in %s.\n"
                         "continue with: %s\n", settings.db.c_str(), settings.resume_hint.c_str());
    return 130;
  }
  return kExitOk;
}

std::string ResumeHint(int argc, char** argv) {
  std::string hint = "crmap";
  bool has_resume = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    has_resume |= arg == "--resume";
    hint += " " + (arg.find_first_of(" ;'\"") == std::string::npos ? arg : "'" + arg + "'");
  }
  return has_resume ? hint : hint + " --resume";
}

}  // namespace

int RunTune(int argc, char** argv) {
  cxxopts::Options options("crmap tune",
                           "Run a tuning campaign: an agent spends --budget measurements over shapes drawn from a "
                           "distribution (or listed), every result appended to --db.");
  options.add_options()
      ("w,workload", "built-in workload name or path", cxxopts::value<std::string>())
      ("shapes", "distribution name or path, or a list like 'tokens=1;tokens=64'", cxxopts::value<std::string>())
      ("num-shapes", "shapes drawn from a distribution", cxxopts::value<int>()->default_value("8"))
      ("agent", "random, grid, evolution, bandit, model or rl", cxxopts::value<std::string>()->default_value("rl"))
      ("budget", "measurements the agent may spend", cxxopts::value<int>()->default_value("100"))
      ("campaign", "name recorded with every measurement", cxxopts::value<std::string>());
  AddTaskSettingsOptions(options);
  AddMeasureOptions(options, 10, /*default_cold_samples=*/1);
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  for (const char* required : {"workload", "shapes", "db"})
    if (!args.count(required)) return Fail(Status::InvalidArgument(std::string("missing --") + required));
  auto session = ReadMeasureOptions(args);
  if (!session.ok()) return Fail(session.status());

  TuneTask task;
  task.workload = args["workload"].as<std::string>();
  task.shapes = args["shapes"].as<std::string>();
  int num_shapes = args["num-shapes"].as<int>(), budget = args["budget"].as<int>();
  if (num_shapes < 1 || budget < 1) return Fail(Status::InvalidArgument("--num-shapes and --budget must be >= 1"));
  task.num_shapes = static_cast<size_t>(num_shapes);
  task.budget = static_cast<size_t>(budget);
  task.agent = args["agent"].as<std::string>();

  TaskSettings settings;
  settings.db = args["db"].as<std::string>();
  settings.resume = args.count("resume") > 0;
  settings.seed = args["seed"].as<uint64_t>();
  settings.time_limit_s = args["time-limit"].as<double>();
  settings.batch = static_cast<size_t>(std::max(1, args["batch"].as<int>()));
  settings.rounds = session->measure.rounds;
  settings.warmup = session->measure.warmup;
  settings.confirm = args.count("no-confirm") == 0;
  settings.json = args.count("json") > 0;
  settings.session = *session;
  if (args.count("max-failures")) settings.max_failures = std::max(0, args["max-failures"].as<int>());
  settings.campaign = args.count("campaign") ? args["campaign"].as<std::string>()
                                             : "tune-" + task.agent + "-" + std::to_string(settings.seed);
  settings.resume_hint = ResumeHint(argc, argv);
  if (settings.time_limit_s < 0) return Fail(Status::InvalidArgument("--time-limit must be >= 0"));

  std::signal(SIGINT, OnInterrupt);
  TaskReport report;
  Status status = RunTask(task, settings, &report);
  if (!status.ok()) return Fail(status);
  return Finish({report}, settings, args);
}

int RunCampaign(int argc, char** argv) {
  cxxopts::Options options("crmap campaign",
                           "Run a whole campaign from a spec file: workloads x shape sets x agent x budget, one "
                           "tuning database. Without --spec, runs the built-in default spec (about 2 minutes).");
  options.add_options()
      ("spec", "campaign spec (docs/campaign-spec.md); default: the built-in spec", cxxopts::value<std::string>())
      ("print-default-spec", "print the built-in spec and exit");
  AddTaskSettingsOptions(options);
  AddMeasureOptions(options, 10, /*default_cold_samples=*/1);
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (args.count("print-default-spec")) {
    std::printf("%s\n", DefaultCampaignSpecText());
    return kExitOk;
  }
  std::string text = DefaultCampaignSpecText(), source = "built-in default spec";
  if (args.count("spec")) {
    source = args["spec"].as<std::string>();
    auto file = ReadFileText(source);
    if (!file.ok()) return Fail(file.status());
    text = *file;
  }
  auto spec = ParseCampaignSpec(text, source);
  if (!spec.ok()) return Fail(spec.status());
  auto session = ReadMeasureOptions(args);
  if (!session.ok()) return Fail(session.status());

  TaskSettings settings;
  settings.campaign = spec->name;
  settings.db = args.count("db") ? args["db"].as<std::string>() : spec->db;
  settings.resume = args.count("resume") > 0;
  // Flags given on the command line override the spec.
  settings.seed = args.count("seed") ? args["seed"].as<uint64_t>() : spec->seed;
  settings.time_limit_s = args.count("time-limit") ? args["time-limit"].as<double>() : spec->time_limit_s;
  settings.batch = args.count("batch") ? static_cast<size_t>(std::max(1, args["batch"].as<int>())) : spec->batch;
  settings.rounds = args.count("rounds") ? session->measure.rounds : spec->rounds;
  settings.warmup = args.count("warmup") ? session->measure.warmup : spec->warmup;
  settings.confirm = spec->confirm && args.count("no-confirm") == 0;
  settings.json = args.count("json") > 0;
  settings.session = *session;
  if (args.count("max-failures")) settings.max_failures = std::max(0, args["max-failures"].as<int>());
  settings.resume_hint = ResumeHint(argc, argv);

  std::signal(SIGINT, OnInterrupt);
  std::vector<TaskReport> reports;
  std::map<std::string, int> tasks_named;  // two tasks of one workload and agent get distinct campaign names
  for (const auto& task : spec->tasks) {
    if (g_stop.load()) break;
    TaskReport report;
    TaskSettings task_settings = settings;
    task_settings.campaign = spec->name + "/" + task.workload + "/" + task.agent;
    if (int earlier = tasks_named[task_settings.campaign]++) task_settings.campaign += "#" + std::to_string(earlier + 1);
    Status status = RunTask(task, task_settings, &report);
    if (!status.ok()) return Fail(status.WithContext("task " + task.workload + "/" + task.agent));
    reports.push_back(report);
  }
  return Finish(reports, settings, args);
}

}  // namespace crmap::cli
