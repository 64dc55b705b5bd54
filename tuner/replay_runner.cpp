#include "tuner/replay_runner.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <map>

#include "agents/rl_agent.h"
#include "common/numeric.h"
#include "tuner/agent_list.h"
#include "tuner/campaign.h"
#include "tuner/nearest_shape.h"
#include "tuner/text_table.h"
#include "tuner/tuning_db.h"
#include "tuner/workload_resolver.h"

namespace crmap {

namespace {

// Geometric mean over shapes of best-found / oracle speedup (see the header).
double GeoMeanOracleRatio(const std::vector<Dims>& shapes, const std::map<std::string, double>& best,
                          const ReplayEvaluator& replay) {
  std::vector<double> ratios;
  for (const Dims& dims : shapes) {
    auto it = best.find(DimsToText(dims));
    double found = std::max(1.0, it == best.end() ? 1.0 : it->second);
    ratios.push_back(std::min(1.0, found / replay.OracleSpeedup(dims)));
  }
  return GeometricMean(ratios);
}

}  // namespace

Result<ReplayRun> ReplayAgent(Agent& agent, ReplayEvaluator& replay, const SearchSpace& space,
                              const std::vector<Dims>& shapes, size_t budget, size_t batch) {
  ReplayRun run;
  std::map<std::string, double> best;
  run.curve.push_back({0, GeoMeanOracleRatio(shapes, best, replay)});
  const size_t misses_before = replay.misses();
  ResultSink sink = [&](const std::vector<Candidate>& candidates, const std::vector<Evaluation>& evaluations) {
    run.proposed.insert(run.proposed.end(), candidates.begin(), candidates.end());
    for (size_t i = 0; i < candidates.size(); ++i) {
      run.measured += evaluations[i].status != EvalStatus::kUnsupported;  // refusals are not charged (campaign.h)
      if (!evaluations[i].ok()) continue;
      double& b = best[DimsToText(candidates[i].dims)];
      b = std::max(b, evaluations[i].speedup);
    }
    run.curve.push_back({run.measured, GeoMeanOracleRatio(shapes, best, replay)});
    return Status::Ok();
  };
  CampaignOptions options;
  options.budget = budget;
  options.batch = batch;
  options.max_consecutive_failures = agent.name() == "grid" ? 0 : 48;  // as `crmap tune`
  CRMAP_RETURN_IF_ERROR(RunCampaign(space, shapes, agent, replay, sink, {}, options).status());
  run.misses = replay.misses() - misses_before;
  return run;
}

Result<ReplayReport> RunReplay(const ReplayRequest& request) {
  CRMAP_ASSIGN_OR_RETURN(std::vector<std::string> agent_names, SplitAgentList(request.agents, AgentNames()));
  CRMAP_ASSIGN_OR_RETURN(TuningDbContents all, ReadTuningDb(request.db_path));
  CRMAP_ASSIGN_OR_RETURN(Workload workload, ResolveDbWorkload(all.records, request.workload, request.db_path));
  CRMAP_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Build(workload));
  CRMAP_ASSIGN_OR_RETURN(TuningDbContents db,
                         ReadTuningDbFor(request.db_path, workload, space));
  for (const auto& warning : db.warnings) spdlog::warn("{}", warning);
  ReplayEvaluator replay(space, db.records);
  std::vector<Dims> shapes = replay.Shapes();
  if (shapes.empty())
    return Status::InvalidArgument("no shape in " + request.db_path + " has a measured default config of this "
                                   "workload and space (record one with crmap tune --agent grid)");
  size_t recorded = 0;
  for (const Dims& dims : shapes) recorded += replay.ConfigsAt(dims);
  const int transfer = request.transfer;
  if (request.seeds < 1 || request.batch < 1 || transfer < 0 || transfer >= static_cast<int>(shapes.size()))
    return Status::InvalidArgument("need --seeds >= 1, --batch >= 1 and 0 <= --transfer < shapes (" +
                                   std::to_string(shapes.size()) + ")");
  const size_t budget = request.budget > 0 ? static_cast<size_t>(request.budget) : recorded / 4;

  ReplayReport report;
  Json& json = report.json;
  json = {{"workload", workload.name()}, {"db", request.db_path}, {"shapes", shapes.size()},
          {"recorded", recorded}, {"plan_space", space.Size(KnobScope::kPlan)}, {"budget", budget}};
  for (const Dims& dims : shapes)
    json["oracle"][DimsToText(dims)] = {{"speedup", replay.OracleSpeedup(dims)},
                                        {"config", space.ToString(replay.OracleConfig(dims))}};
  TextTable table({"agent", ">seed", ">measured", ">final best/oracle", ">at 10% of recorded"});
  for (const auto& name : agent_names) {
    for (int seed = 1; seed <= request.seeds; ++seed) {
      std::vector<Dims> train = shapes;
      std::vector<Dims> held_out;
      if (transfer > 0) {
        held_out.assign(shapes.end() - transfer, shapes.end());
        train.resize(shapes.size() - static_cast<size_t>(transfer));
      }
      AgentContext context{&workload, &space, train, static_cast<uint64_t>(seed)};
      CRMAP_ASSIGN_OR_RETURN(std::unique_ptr<Agent> agent, MakeAgent(name, context));
      CRMAP_ASSIGN_OR_RETURN(ReplayRun run,
                             ReplayAgent(*agent, replay, space, train, budget, static_cast<size_t>(request.batch)));
      Json entry = {{"agent", name}, {"seed", seed}, {"measured", run.measured}, {"curve", run.curve},
                    {"misses", run.misses}};
      double at_tenth = run.curve.front().second;
      for (const auto& [measured, ratio] : run.curve)
        if (measured <= recorded / 10) at_tenth = ratio;
      if (transfer > 0) {
        auto* rl = dynamic_cast<RlAgent*>(agent.get());
        if (!rl) return Status::InvalidArgument("--transfer needs the rl agent (it recommends for unseen shapes)");
        const NearestShapes trained(train);
        for (const Dims& dims : held_out) {
          const Config pick = rl->Recommend(dims);
          Evaluation e = replay.Evaluate({{dims, pick}})[0];
          // The nearest trained shape's best config (TVM-style history-best dispatch) as the comparison.
          const Dims& nearest = train[trained.Nearest(dims)];
          Evaluation n = replay.Evaluate({{dims, replay.OracleConfig(nearest)}})[0];
          const double oracle = replay.OracleSpeedup(dims);
          entry["transfer"].push_back({{"dims", DimsToText(dims)},
                                       {"rl_config", space.ToString(pick)},
                                       {"rl_ratio", e.ok() ? e.speedup / oracle : 0.0},
                                       {"nearest_shape", DimsToText(nearest)},
                                       {"nearest_ratio", n.ok() ? n.speedup / oracle : 0.0},
                                       {"default_ratio", 1.0 / oracle}});
        }
      }
      json["runs"].push_back(entry);
      table.AddRow({name, std::to_string(seed), std::to_string(run.measured), Format("%.3f", run.curve.back().second),
                    Format("%.3f", at_tenth)});
    }
  }
  report.text = Format("replay of %s: %zu shapes, %zu recorded measurements (plan space %llu per shape), budget %zu\n",
                       request.db_path.c_str(), shapes.size(), recorded,
                       static_cast<unsigned long long>(space.Size(KnobScope::kPlan)), budget) +
                table.Render();
  return report;
}

}  // namespace crmap
