#include "tuner/campaign_spec.h"

#include <sstream>

#include "common/json_fields.h"
#include "datasets/distribution.h"
#include "datasets/shape_cover.h"
#include "datasets/shape_quantiles.h"

namespace crmap {

namespace {

constexpr const char* kSpecFormat = "crmap.campaign/1";

// The default campaign: four workloads, four agents, small shapes; about 1 minute on 2 cores.
constexpr const char* kDefaultSpec = R"({
  "format": "crmap.campaign/1",
  "name": "default",
  "db": "crmap_tuning.jsonl",
  "rounds": 8,
  "batch": 8,
  "seed": 1,
  "tasks": [
    {"workload": "bert_ffn", "shapes": "bert_ffn_chat", "num_shapes": 4, "agent": "rl", "budget": 96},
    {"workload": "dlrm_mlp", "shapes": "dlrm_mlp_online", "num_shapes": 4, "agent": "bandit", "budget": 96},
    {"workload": "resnet_bottleneck", "shapes": "resnet_bottleneck_thumbnails", "num_shapes": 3,
     "agent": "evolution", "budget": 96},
    {"workload": "resnet_stem", "shapes": "resnet_stem_thumbnails", "num_shapes": 2, "agent": "model", "budget": 48}
  ]
})";

}  // namespace

const char* DefaultCampaignSpecText() { return kDefaultSpec; }

Result<CampaignSpec> ParseCampaignSpec(const std::string& text, const std::string& source) {
  CRMAP_ASSIGN_OR_RETURN(Json json, ParseJsonText(text, source));
  auto context = [&](const Status& s) { return s.WithContext(source); };
  Status known = CheckKnownFields(json, {"format", "name", "db", "rounds", "warmup", "batch", "seed",
                                         "time_limit_s", "confirm", "tasks"},
                                  "campaign");
  if (!known.ok()) return context(known);
  auto format = GetString(json, "format", "campaign");
  if (!format.ok()) return context(format.status());
  if (*format != kSpecFormat)
    return context(Status::InvalidArgument("unsupported format '" + *format + "'; this crmap reads '" + kSpecFormat + "'"));

  CampaignSpec spec;
  auto name = GetStringOr(json, "name", spec.name, "campaign");
  auto db = GetStringOr(json, "db", spec.db, "campaign");
  auto rounds = GetIntOr(json, "rounds", spec.rounds, "campaign");
  auto warmup = GetIntOr(json, "warmup", spec.warmup, "campaign");
  auto batch = GetIntOr(json, "batch", static_cast<int64_t>(spec.batch), "campaign");
  auto seed = GetIntOr(json, "seed", static_cast<int64_t>(spec.seed), "campaign");
  auto limit = GetNumberOr(json, "time_limit_s", spec.time_limit_s, "campaign");
  auto confirm = GetBoolOr(json, "confirm", spec.confirm, "campaign");
  for (const Status& s : {name.status(), db.status(), rounds.status(), warmup.status(), batch.status(), seed.status(),
                          limit.status(), confirm.status()})
    if (!s.ok()) return context(s);
  if (*rounds < 1 || *rounds > 10000) return context(Status::InvalidArgument("rounds must be in [1, 10000]"));
  if (*warmup < 0 || *warmup > 1000) return context(Status::InvalidArgument("warmup must be in [0, 1000]"));
  if (*batch < 1 || *batch > 256) return context(Status::InvalidArgument("batch must be in [1, 256]"));
  if (*seed < 0) return context(Status::InvalidArgument("seed must be >= 0"));
  if (*limit < 0) return context(Status::InvalidArgument("time_limit_s must be >= 0"));
  if (name->empty()) return context(Status::InvalidArgument("name must not be empty"));
  spec.name = *name;
  spec.db = *db;
  spec.rounds = static_cast<int>(*rounds);
  spec.warmup = static_cast<int>(*warmup);
  spec.batch = static_cast<size_t>(*batch);
  spec.seed = static_cast<uint64_t>(*seed);
  spec.time_limit_s = *limit;
  spec.confirm = *confirm;

  if (!json.contains("tasks") || !json["tasks"].is_array() || json["tasks"].empty())
    return context(Status::InvalidArgument("'tasks' must be a non-empty array of {workload, shapes, agent, budget}"));
  for (size_t i = 0; i < json["tasks"].size(); ++i) {
    const Json& t = json["tasks"][i];
    std::string where = "task #" + std::to_string(i);
    Status fields = CheckKnownFields(t, {"workload", "shapes", "num_shapes", "shape_choice", "agent", "budget"}, where);
    if (!fields.ok()) return context(fields);
    TuneTask task;
    auto workload = GetString(t, "workload", where);
    auto shapes = GetString(t, "shapes", where);
    auto num = GetIntOr(t, "num_shapes", static_cast<int64_t>(task.num_shapes), where);
    auto agent = GetStringOr(t, "agent", task.agent, where);
    auto budget = GetIntOr(t, "budget", static_cast<int64_t>(task.budget), where);
    auto choice_text = GetStringOr(t, "shape_choice", ShapeChoiceName(task.shape_choice), where);
    for (const Status& s : {workload.status(), shapes.status(), num.status(), agent.status(), budget.status(),
                            choice_text.status()})
      if (!s.ok()) return context(s);
    auto choice = ParseShapeChoice(*choice_text);
    if (!choice.ok()) return context(choice.status().WithContext(where + ": shape_choice"));
    if (*num < 1 || *num > 1000) return context(Status::InvalidArgument(where + ": num_shapes must be in [1, 1000]"));
    if (UsesCoverSearch(*choice) && *num > static_cast<int64_t>(kMaxCoveringShapes))
      return context(Status::InvalidArgument(where + ": num_shapes must be in [1, " +
                                             std::to_string(kMaxCoveringShapes) + "] with shape_choice " +
                                             ShapeChoiceName(*choice)));
    if (*budget < 1 || *budget > 1000000)
      return context(Status::InvalidArgument(where + ": budget must be in [1, 1000000]"));
    task.workload = *workload;
    task.shapes = *shapes;
    task.num_shapes = static_cast<size_t>(*num);
    task.shape_choice = *choice;
    task.agent = *agent;
    task.budget = static_cast<size_t>(*budget);
    spec.tasks.push_back(task);
  }
  return spec;
}

const char* ShapeChoiceName(ShapeChoice choice) {
  switch (choice) {
    case ShapeChoice::kCover: return "cover";
    case ShapeChoice::kEdges: return "edges";
    case ShapeChoice::kQuantiles: return "quantiles";
    case ShapeChoice::kDraws: break;
  }
  return "draws";
}

Result<ShapeChoice> ParseShapeChoice(const std::string& text) {
  if (text == "draws") return ShapeChoice::kDraws;
  if (text == "cover") return ShapeChoice::kCover;
  if (text == "edges") return ShapeChoice::kEdges;
  if (text == "quantiles") return ShapeChoice::kQuantiles;
  return Status::InvalidArgument("shape choice '" + text +
                                 "' is unknown; allowed: draws (distinct draws from the distribution), cover (shapes "
                                 "that cover its support), edges (each dim's extremes of the support, then a cover), "
                                 "quantiles (one shape per equal share of the distribution's mass)");
}

Result<std::vector<Dims>> ResolveShapes(const Workload& workload, const std::string& shapes, size_t num_shapes,
                                        uint64_t seed, ShapeChoice choice) {
  std::vector<Dims> out;
  if (shapes.find('=') != std::string::npos) {
    std::stringstream stream(shapes);
    std::string item;
    while (std::getline(stream, item, ';')) {
      if (item.find_first_not_of(" \t") == std::string::npos) continue;
      CRMAP_ASSIGN_OR_RETURN(Dims dims, ParseDimsText(item));
      CRMAP_RETURN_IF_ERROR(workload.CheckDims(dims).WithContext("shape '" + item + "'"));
      bool duplicate = false;
      for (const auto& d : out) duplicate |= d == dims;
      if (!duplicate) out.push_back(dims);
    }
    if (out.empty()) return Status::InvalidArgument("no shapes in '" + shapes + "'");
    return out;
  }
  CRMAP_ASSIGN_OR_RETURN(ShapeDistribution distribution, LoadDistribution(shapes, workload));
  if (choice == ShapeChoice::kQuantiles) {
    out = QuantileShapes(distribution, num_shapes, seed);
  } else if (UsesCoverSearch(choice)) {
    if (num_shapes > kMaxCoveringShapes)
      return Status::InvalidArgument("num_shapes (--num-shapes) " + std::to_string(num_shapes) + " with shape choice " +
                                     ShapeChoiceName(choice) + ": a cover takes at most " +
                                     std::to_string(kMaxCoveringShapes) +
                                     " shapes; ask for fewer, or choose draws or quantiles");
    out = choice == ShapeChoice::kCover ? CoveringShapes(distribution, num_shapes, seed)
                                        : EdgesFirstShapes(distribution, num_shapes, seed);
  } else {
    out = SampleDistinct(distribution, num_shapes, seed, num_shapes * 200);
  }
  if (out.empty()) return Status::InvalidArgument("distribution '" + shapes + "' produced no shapes");
  return out;
}

}  // namespace crmap
