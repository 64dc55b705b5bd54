#include "tuner/runtime_tuning.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "common/numeric.h"
#include "tuner/text_table.h"

namespace crmap {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double ObjectiveQuantileOf(RuntimeObjective objective) {
  switch (objective) {
    case RuntimeObjective::kP50: return 0.5;
    case RuntimeObjective::kP95: return 0.95;
    case RuntimeObjective::kP99: return 0.99;
    case RuntimeObjective::kGoodput: return 0;
  }
  return 0;
}

// The objective's figure of some runs: a latency quantile (lower is better) or goodput (higher is better).
double FigureOf(RuntimeObjective objective, std::vector<double> latency_us, int64_t within_slo, double wall_s) {
  if (objective == RuntimeObjective::kGoodput) return wall_s > 0 ? static_cast<double>(within_slo) / wall_s : 0;
  std::sort(latency_us.begin(), latency_us.end());
  return NearestRank(latency_us, ObjectiveQuantileOf(objective));
}

// True when figure a is better than b.
bool Better(RuntimeObjective objective, double a, double b) {
  return objective == RuntimeObjective::kGoodput ? a > b : a < b;
}

Json Finite(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

std::string Ms(double us) { return std::isfinite(us) ? Format("%.2f", us / 1000) : "unserved"; }

}  // namespace

size_t RoundOrder(size_t k, int round, size_t n) {
  const size_t r = static_cast<size_t>(round) % n;
  return round % 2 == 0 ? (k + r) % n : (r + n - k % n) % n;
}

std::string RuntimeSetting::Label() const {
  std::string label = "batch=" + std::to_string(max_batch) + ";queue_delay_us=" + Format("%.10g", queue_delay_us) +
                      ";placement=" + placement;
  if (!thread_wait.empty()) label += ";thread_wait=" + thread_wait;
  if (chunk > 0) label += ";chunk=" + std::to_string(chunk);
  return label;
}

Result<RuntimeObjective> ParseRuntimeObjective(const std::string& text) {
  for (RuntimeObjective o : {RuntimeObjective::kP50, RuntimeObjective::kP95, RuntimeObjective::kP99,
                             RuntimeObjective::kGoodput})
    if (text == RuntimeObjectiveName(o)) return o;
  return Status::InvalidArgument("--objective '" + text + "' is unknown for tuning the runtime; allowed: p50, p95, "
                                 "p99, goodput (requests within --slo-ms per second)");
}

const char* RuntimeObjectiveName(RuntimeObjective objective) {
  switch (objective) {
    case RuntimeObjective::kP50: return "p50";
    case RuntimeObjective::kP95: return "p95";
    case RuntimeObjective::kP99: return "p99";
    case RuntimeObjective::kGoodput: return "goodput";
  }
  return "?";
}

std::vector<RuntimeSetting> RuntimeGrid(const std::vector<int>& max_batch, const std::vector<double>& queue_delay_us,
                                        const std::vector<std::string>& placement,
                                        const std::vector<std::string>& thread_wait,
                                        const std::vector<int64_t>& chunk) {
  std::vector<RuntimeSetting> grid;
  for (int batch : max_batch)
    for (double delay : queue_delay_us) {
      if (batch == 1 && delay != queue_delay_us.front()) continue;  // a batch of one never waits for company
      for (const std::string& where : placement)
        for (const std::string& wait : thread_wait)
          for (int64_t piece : chunk) grid.push_back({batch, delay, where, wait, piece});
    }
  return grid;
}

Result<RuntimeTuningResult> TuneRuntime(const std::vector<RuntimeSetting>& settings,
                                        const RuntimeTuningOptions& options, const RuntimeRunner& runner) {
  if (settings.empty()) return Status::InvalidArgument("no runtime setting to tune");
  if (options.rounds < 1) return Status::InvalidArgument("--rounds must be >= 1");
  std::set<std::string> labels;
  for (const RuntimeSetting& s : settings)
    if (!labels.insert(s.Label()).second)
      return Status::InvalidArgument("the setting " + s.Label() + " is listed twice");

  const size_t n = settings.size();
  std::vector<std::vector<RuntimeRun>> runs(n);
  const int total = options.rounds * static_cast<int>(n);
  int done = 0, rounds_done = 0;
  for (int round = 0; round < options.rounds; ++round) {
    bool complete = true;
    for (size_t k = 0; k < n; ++k) {
      if (options.stop && options.stop->load()) {
        complete = false;
        break;
      }
      const size_t i = RoundOrder(k, round, n);
      if (options.on_progress) options.on_progress(done, total, settings[i].Label());
      CRMAP_ASSIGN_OR_RETURN(RuntimeRun run, runner(settings[i], round));
      if (options.stop && options.stop->load()) {  // the run was cut short: its round does not count
        complete = false;
        break;
      }
      runs[i].push_back(std::move(run));
      ++done;
    }
    if (!complete) break;
    ++rounds_done;
  }
  if (rounds_done == 0) return Status::InvalidArgument("stopped before every setting ran once");
  for (auto& setting_runs : runs) setting_runs.resize(static_cast<size_t>(rounds_done));  // a partial round drops

  RuntimeTuningResult result;
  result.objective = options.objective;
  result.rounds_done = rounds_done;
  result.min_requests = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < n; ++i) {
    RuntimeSettingResult r;
    r.setting = settings[i];
    std::vector<double> pooled;
    int64_t within = 0;
    double wall = 0;
    for (const RuntimeRun& run : runs[i]) {
      pooled.insert(pooled.end(), run.latency_us.begin(), run.latency_us.end());
      within += run.within_slo;
      wall += run.wall_s;
      r.round_figures.push_back(FigureOf(options.objective, run.latency_us, run.within_slo, run.wall_s));
    }
    r.requests = static_cast<int64_t>(pooled.size());
    r.unserved = std::count_if(pooled.begin(), pooled.end(), [](double v) { return !std::isfinite(v); });
    r.goodput_rps = wall > 0 ? static_cast<double>(within) / wall : 0;
    r.figure = FigureOf(options.objective, pooled, within, wall);
    r.latency_us = serve::QuantilesOf(std::move(pooled), serve::QuantileRule::kNearestRank);
    result.min_requests = std::min(result.min_requests, r.requests);
    result.settings.push_back(std::move(r));
  }
  const double anchor = result.settings[0].figure;
  for (RuntimeSettingResult& r : result.settings) {
    const bool goodput = options.objective == RuntimeObjective::kGoodput;
    const double numerator = goodput ? r.figure : anchor, denominator = goodput ? anchor : r.figure;
    r.ratio_to_anchor = std::isfinite(numerator) && std::isfinite(denominator) && denominator > 0
                            ? numerator / denominator : 0;
  }
  for (size_t i = 1; i < n; ++i)
    if (Better(options.objective, result.settings[i].figure, result.settings[result.best].figure)) result.best = i;
  if (result.best != 0) {
    const auto& best = result.settings[result.best].round_figures;
    const auto& base = result.settings[0].round_figures;
    const bool goodput = options.objective == RuntimeObjective::kGoodput;
    const double best_worst = goodput ? *std::min_element(best.begin(), best.end())
                                      : *std::max_element(best.begin(), best.end());
    const double anchor_best = goodput ? *std::max_element(base.begin(), base.end())
                                       : *std::min_element(base.begin(), base.end());
    result.clear = Better(options.objective, best_worst, anchor_best);
  }
  const double q = ObjectiveQuantileOf(options.objective);
  result.too_few_requests =
      q > 0 && static_cast<double>(result.min_requests) < 5.0 / (1.0 - q) - 1e-9;
  return result;
}

Status SetPolicyRuntimeKnobs(const RuntimeSetting& setting, PolicyFile* policy, std::vector<std::string>* not_stored) {
  const std::vector<std::pair<std::string, std::string>> wanted = {
      {"batch", std::to_string(setting.max_batch)},
      {"queue_delay_us", Format("%.10g", setting.queue_delay_us)},
      {"placement", setting.placement}};
  std::vector<std::pair<size_t, uint32_t>> changes;  // (knob, value index), applied only when all are valid
  for (const auto& [name, value] : wanted) {
    auto knob = std::find_if(policy->knobs.begin(), policy->knobs.end(),
                             [&name = name](const PolicyKnob& k) { return k.name == name && !k.plan; });
    if (knob == policy->knobs.end()) {
      not_stored->push_back(name + "=" + value + " (the policy has no runtime knob " + name + ")");
      continue;
    }
    auto at = std::find(knob->values.begin(), knob->values.end(), value);
    if (at == knob->values.end()) {
      std::string values;
      for (const std::string& v : knob->values) values += (values.empty() ? "" : ", ") + v;
      return Status::InvalidArgument("the policy's knob " + name + " cannot hold " + value + "; its values: " + values);
    }
    changes.emplace_back(static_cast<size_t>(knob - policy->knobs.begin()),
                         static_cast<uint32_t>(at - knob->values.begin()));
  }
  for (const auto& [knob, index] : changes) {
    policy->knobs[knob].default_index = index;
    if (knob < policy->fallback.size()) policy->fallback[knob] = index;
    if (knob < policy->incumbent.size()) policy->incumbent[knob] = index;
  }
  if (!setting.thread_wait.empty())
    not_stored->push_back("thread_wait=" + setting.thread_wait + " (no knob of the policy: serve with --thread-wait " +
                          setting.thread_wait + ")");
  if (setting.chunk > 0)
    not_stored->push_back("chunk=" + std::to_string(setting.chunk) + " (no knob of the policy: serve with --chunk " +
                          std::to_string(setting.chunk) + ")");
  return Status::Ok();
}

std::string RuntimeTuningText(const RuntimeTuningResult& result) {
  const bool goodput = result.objective == RuntimeObjective::kGoodput;
  TextTable table({"", "setting", ">requests", ">unserved", ">p50 ms", ">p95 ms", ">p99 ms", ">goodput/s",
                   goodput ? ">goodput vs anchor" : std::string(">") + RuntimeObjectiveName(result.objective) +
                                                        " vs anchor",
                   ">rounds (min..max)"});
  for (size_t i = 0; i < result.settings.size(); ++i) {
    const RuntimeSettingResult& r = result.settings[i];
    const auto [lo, hi] = std::minmax_element(r.round_figures.begin(), r.round_figures.end());
    const std::string spread = goodput ? Format("%.1f..%.1f", *lo, *hi) : Ms(*lo) + ".." + Ms(*hi);
    table.AddRow({i == result.best ? "best" : (i == 0 ? "anchor" : ""), r.setting.Label(),
                  std::to_string(r.requests), std::to_string(r.unserved), Ms(r.latency_us.p50),
                  Ms(r.latency_us.p95), Ms(r.latency_us.p99), Format("%.1f", r.goodput_rps),
                  r.ratio_to_anchor > 0 ? Format("%.2fx", r.ratio_to_anchor) : "-", spread});
  }
  std::string text = table.Render();
  const RuntimeSettingResult& best = result.settings[result.best];
  if (result.best == 0) {
    text += "best: the anchor itself (" + best.setting.Label() + ")\n";
  } else {
    text += Format("best: %s, %.2fx the anchor at %s over %d interleaved rounds (%s)\n", best.setting.Label().c_str(),
                   best.ratio_to_anchor, RuntimeObjectiveName(result.objective), result.rounds_done,
                   result.clear ? "clear: its worst round beats the anchor's best"
                                : "within the rounds' spread of the anchor: not a clear win");
  }
  if (result.too_few_requests)
    text += Format("warning: %lld requests per setting read %s from fewer than 5 requests beyond it; serve a longer "
                   "stream or more rounds\n",
                   static_cast<long long>(result.min_requests), RuntimeObjectiveName(result.objective));
  return text;
}

Json RuntimeTuningJson(const RuntimeTuningResult& result) {
  Json settings = Json::array();
  for (const RuntimeSettingResult& r : result.settings) {
    Json rounds = Json::array();
    for (double f : r.round_figures) rounds.push_back(Finite(f));
    settings.push_back({{"setting", r.setting.Label()},
                        {"max_batch", r.setting.max_batch},
                        {"queue_delay_us", r.setting.queue_delay_us},
                        {"placement", r.setting.placement},
                        {"thread_wait", r.setting.thread_wait},
                        {"chunk", r.setting.chunk},
                        {"requests", r.requests},
                        {"unserved", r.unserved},
                        {"latency_ms", {{"p50", Finite(r.latency_us.p50 / 1000)},
                                        {"p95", Finite(r.latency_us.p95 / 1000)},
                                        {"p99", Finite(r.latency_us.p99 / 1000)},
                                        {"p99.9", Finite(r.latency_us.p999 / 1000)}}},
                        {"goodput_rps", r.goodput_rps},
                        {"figure", Finite(r.figure)},
                        {"round_figures", rounds},
                        {"ratio_to_anchor", r.ratio_to_anchor}});
  }
  return {{"objective", RuntimeObjectiveName(result.objective)},
          {"rounds", result.rounds_done},
          {"settings", settings},
          {"best", result.settings[result.best].setting.Label()},
          {"best_index", result.best},
          {"clear", result.clear},
          {"too_few_requests", result.too_few_requests}};
}

}  // namespace crmap
