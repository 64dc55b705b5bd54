// CampaignSpec: a whole campaign — workloads x shape sets x agent x budget — as a JSON file
// (docs/campaign-spec.md), and the built-in default spec `crmap campaign` runs without arguments (it finishes
// within 3 minutes on 2 cores). Also resolves a task's shapes: a distribution to draw from, or a list.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/workload.h"

namespace crmap {

// How a task's shapes come from a distribution: kDraws samples them (distinct draws: the likely shapes, seldom
// the rare large ones); kCover chooses shapes that cover its support (CoveringShapes, datasets/shape_cover.h);
// kEdges takes each dim's smallest and largest shape of the support first, then covers (EdgesFirstShapes);
// kQuantiles takes one shape per equal share of the distribution's mass (QuantileShapes, datasets/shape_quantiles.h).
enum class ShapeChoice { kDraws, kCover, kEdges, kQuantiles };

// "draws", "cover", "edges" or "quantiles".
const char* ShapeChoiceName(ShapeChoice choice);
// kCover and kEdges: the choices that search a pool for a cover (k-medoids; at most kMaxCoveringShapes shapes).
inline bool UsesCoverSearch(ShapeChoice choice) {
  return choice == ShapeChoice::kCover || choice == ShapeChoice::kEdges;
}
// InvalidArgument names the text and what is allowed.
Result<ShapeChoice> ParseShapeChoice(const std::string& text);

struct TuneTask {
  std::string workload;   // built-in name or path
  std::string shapes;     // distribution name or path, or a list "tokens=1;tokens=64" (';' between shapes)
  size_t num_shapes = 8;  // shapes taken from a distribution
  ShapeChoice shape_choice = ShapeChoice::kDraws;
  std::string agent = "rl";
  size_t budget = 100;
};

struct CampaignSpec {
  std::string name = "default";
  std::string db = "crmap_tuning.jsonl";
  int rounds = 10;  // interleaved rounds per measured batch
  int warmup = 2;
  size_t batch = 8;
  uint64_t seed = 1;
  double time_limit_s = 0;  // per task; 0: none
  bool confirm = true;      // finish each task with a side-by-side run of default, best and LibTorch per shape
  std::vector<TuneTask> tasks;
};

// InvalidArgument names the offending field and what is allowed.
Result<CampaignSpec> ParseCampaignSpec(const std::string& text, const std::string& source);
const char* DefaultCampaignSpecText();

// The shapes of a task: a list is parsed and checked against the workload's ranges; from a distribution,
// `num_shapes` distinct shapes with `seed` (fewer if it has fewer), drawn, covering or at quantiles as `choice` says
// (kCover and kEdges take at most kMaxCoveringShapes: InvalidArgument above).
Result<std::vector<Dims>> ResolveShapes(const Workload& workload, const std::string& shapes, size_t num_shapes,
                                        uint64_t seed, ShapeChoice choice = ShapeChoice::kDraws);

}  // namespace crmap
