// crmap replay: runs an agent against a recorded tuning database instead of the hardware — deterministic
// and instant — and reports best-found / oracle as a function of measurements (how agents are compared).
#include <cmath>
#include <cstdio>

#include "agents/rl_agent.h"
#include "datasets/catalog.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/measure_options.h"
#include "tuner/replay_evaluator.h"
#include "tuner/text_table.h"
#include "tuner/tuning_db.h"
#include "tuner/workload_resolver.h"

namespace crmap::cli {

namespace {

// Geometric mean over shapes of best-found / oracle speedup. A shape where nothing better than the default
// was found yet counts the default (speedup 1): what a user runs before tuning.
double GeoMeanOracleRatio(const std::vector<Dims>& shapes, const std::map<std::string, double>& best,
                          const ReplayEvaluator& replay) {
  double log_sum = 0;
  for (const Dims& dims : shapes) {
    auto it = best.find(DimsToText(dims));
    double found = std::max(1.0, it == best.end() ? 1.0 : it->second);
    log_sum += std::log(std::min(1.0, found / replay.OracleSpeedup(dims)));
  }
  return std::exp(log_sum / static_cast<double>(shapes.size()));
}

struct ReplayRun {
  std::vector<std::pair<size_t, double>> curve;  // (measurements, geo-mean oracle ratio)
  std::map<std::string, double> best;            // per shape
  size_t measured = 0;
};

ReplayRun RunOne(Agent& agent, ReplayEvaluator& replay, const std::vector<Dims>& shapes, size_t budget,
                 size_t batch) {
  ReplayRun run;
  run.curve.push_back({0, GeoMeanOracleRatio(shapes, run.best, replay)});
  while (run.measured < budget) {
    std::vector<Candidate> candidates = agent.Propose(std::min(batch, budget - run.measured));
    if (candidates.empty()) break;
    std::vector<Evaluation> evaluations = replay.Evaluate(candidates);
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!evaluations[i].ok()) continue;
      double& best = run.best[DimsToText(candidates[i].dims)];
      best = std::max(best, evaluations[i].speedup);
    }
    agent.Observe(candidates, evaluations);
    run.measured += candidates.size();
    run.curve.push_back({run.measured, GeoMeanOracleRatio(shapes, run.best, replay)});
  }
  return run;
}

}  // namespace

int RunReplay(int argc, char** argv) {
  cxxopts::Options options("crmap replay",
                           "Run agents against a recorded (ideally exhaustive, e.g. --agent grid) tuning database "
                           "and report best-found / oracle speedup versus measurements, per seed.");
  options.add_options()
      ("db", "tuning database to replay", cxxopts::value<std::string>())
      ("w,workload", "the workload the database measured (default: its only one, found as a built-in or at the "
                     "path its records name)", cxxopts::value<std::string>())
      ("agent", "agent(s) to replay, comma-separated", cxxopts::value<std::string>()->default_value("rl"))
      ("seeds", "seeds 1..N per agent", cxxopts::value<int>()->default_value("5"))
      ("budget", "measurements per run (default: 25% of the recorded plan space)", cxxopts::value<int>())
      ("batch", "candidates per step", cxxopts::value<int>()->default_value("8"))
      ("transfer", "rl only: train on all shapes but the last N, then rate its first proposal on those N",
       cxxopts::value<int>()->default_value("0"))
      ("json", "print JSON")
      ("o,out", "also write the JSON to this file", cxxopts::value<std::string>());
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (!args.count("db")) return Fail(Status::InvalidArgument("missing --db"));
  auto all = ReadTuningDb(args["db"].as<std::string>());
  if (!all.ok()) return Fail(all.status());
  auto workload = ResolveDbWorkload(all->records, args.count("workload") ? args["workload"].as<std::string>() : "",
                                    args["db"].as<std::string>());
  if (!workload.ok()) return Fail(workload.status());
  auto space = SearchSpace::Build(*workload);
  if (!space.ok()) return Fail(space.status());
  auto db = ReadTuningDb(args["db"].as<std::string>(), workload->fingerprint(), space->fingerprint());
  if (!db.ok()) return Fail(db.status());
  ReplayEvaluator replay(*space, db->records);
  std::vector<Dims> shapes = replay.Shapes();
  if (shapes.empty())
    return Fail(Status::InvalidArgument("no shape in " + args["db"].as<std::string>() + " has a measured default config "
                                        "of this workload and space (record one with crmap tune --agent grid)"));
  size_t recorded = 0;
  for (const Dims& dims : shapes) recorded += replay.ConfigsAt(dims);
  int seeds = args["seeds"].as<int>(), batch = args["batch"].as<int>(), transfer = args["transfer"].as<int>();
  size_t budget = args.count("budget") ? static_cast<size_t>(std::max(1, args["budget"].as<int>())) : recorded / 4;
  if (seeds < 1 || batch < 1 || transfer < 0 || transfer >= static_cast<int>(shapes.size()))
    return Fail(Status::InvalidArgument("need --seeds >= 1, --batch >= 1 and 0 <= --transfer < shapes (" +
                                        std::to_string(shapes.size()) + ")"));

  Json json = {{"workload", workload->name()}, {"db", args["db"].as<std::string>()}, {"shapes", shapes.size()},
               {"recorded", recorded}, {"plan_space", space->Size(KnobScope::kPlan)}, {"budget", budget}};
  for (const Dims& dims : shapes)
    json["oracle"][DimsToText(dims)] = {{"speedup", replay.OracleSpeedup(dims)},
                                        {"config", space->ToString(replay.OracleConfig(dims))}};
  std::string agents_text = args["agent"].as<std::string>();
  std::vector<std::string> agent_names;
  for (size_t start = 0; start <= agents_text.size();) {
    size_t comma = agents_text.find(',', start);
    if (comma == std::string::npos) comma = agents_text.size();
    if (comma > start) agent_names.push_back(agents_text.substr(start, comma - start));
    start = comma + 1;
  }

  TextTable table({"agent", ">seed", ">measured", ">final best/oracle", ">at 10% of recorded"});
  for (const auto& name : agent_names) {
    for (int seed = 1; seed <= seeds; ++seed) {
      std::vector<Dims> train = shapes;
      std::vector<Dims> held_out;
      if (transfer > 0) {
        held_out.assign(shapes.end() - transfer, shapes.end());
        train.resize(shapes.size() - static_cast<size_t>(transfer));
      }
      AgentContext context{&*workload, &*space, train, static_cast<uint64_t>(seed)};
      auto agent = MakeAgent(name, context);
      if (!agent.ok()) return Fail(agent.status());
      const size_t misses_before = replay.misses();
      ReplayRun run = RunOne(**agent, replay, train, budget, static_cast<size_t>(batch));
      Json entry = {{"agent", name}, {"seed", seed}, {"measured", run.measured}, {"curve", run.curve},
                    {"misses", replay.misses() - misses_before}};
      double at_tenth = run.curve.front().second;
      for (const auto& [measured, ratio] : run.curve)
        if (measured <= recorded / 10) at_tenth = ratio;
      if (transfer > 0) {
        auto* rl = dynamic_cast<RlAgent*>(agent->get());
        if (!rl) return Fail(Status::InvalidArgument("--transfer needs the rl agent (it recommends for unseen shapes)"));
        for (const Dims& dims : held_out) {
          Config pick = rl->Recommend(dims);
          Evaluation e = replay.Evaluate({{dims, pick}})[0];
          // The nearest trained shape's best config (TVM-style history-best dispatch) as the comparison.
          const Dims* nearest = &train[0];
          double nearest_distance = 1e300;
          for (const Dims& t : train) {
            double d = 0;
            for (const auto& [dim, value] : dims)
              d += std::pow(std::log2(static_cast<double>(value)) - std::log2(static_cast<double>(t.at(dim))), 2);
            if (d < nearest_distance) {
              nearest_distance = d;
              nearest = &t;
            }
          }
          Config nearest_best = replay.OracleConfig(*nearest);
          Evaluation n = replay.Evaluate({{dims, nearest_best}})[0];
          double oracle = replay.OracleSpeedup(dims);
          entry["transfer"].push_back({{"dims", DimsToText(dims)},
                                       {"rl_config", space->ToString(pick)},
                                       {"rl_ratio", e.ok() ? e.speedup / oracle : 0.0},
                                       {"nearest_shape", DimsToText(*nearest)},
                                       {"nearest_ratio", n.ok() ? n.speedup / oracle : 0.0},
                                       {"default_ratio", 1.0 / oracle}});
        }
      }
      json["runs"].push_back(entry);
      table.AddRow({name, std::to_string(seed), std::to_string(run.measured), Format("%.3f", run.curve.back().second),
                    Format("%.3f", at_tenth)});
    }
  }
  Status written = WriteOutOption(args, json);
  if (!written.ok()) return Fail(written);
  if (args.count("json")) {
    std::printf("%s\n", json.dump(2).c_str());
  } else {
    std::printf("replay of %s: %zu shapes, %zu recorded measurements (plan space %llu per shape), budget %zu\n%s",
                args["db"].as<std::string>().c_str(), shapes.size(), recorded,
                static_cast<unsigned long long>(space->Size(KnobScope::kPlan)), budget, table.Render().c_str());
  }
  return kExitOk;
}

}  // namespace crmap::cli
