#include "tuner/range_probe.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "tuner/nearest_shape.h"

namespace crmap {

std::vector<Dims> ShapesAboveRange(const std::vector<Dims>& tuned, const std::vector<Dims>& pool) {
  if (tuned.empty()) return {};
  const NearestShapes nearest(tuned);
  std::vector<std::tuple<double, size_t, Dims>> above;  // (-distance, pool index, shape)
  std::set<Dims> seen;
  for (size_t i = 0; i < pool.size(); ++i) {
    if (!seen.insert(pool[i]).second || !AboveRangeOf(pool[i], tuned)) continue;
    above.emplace_back(-nearest.SquaredDistance(nearest.Nearest(pool[i]), pool[i]), i, pool[i]);
  }
  std::sort(above.begin(), above.end());
  std::vector<Dims> ordered;
  for (auto& entry : above) ordered.push_back(std::move(std::get<2>(entry)));
  return ordered;
}

std::vector<Config> RangeProbeConfigs(const SearchSpace& space, const std::map<Dims, ShapeScores>& scores,
                                      const std::vector<Dims>& tuned) {
  const double record_noise = EstimateRecordNoise(scores);
  std::map<std::string, size_t> labelled;  // config string -> tuned shapes it labels
  for (const Dims& dims : tuned)
    if (const ConfigScore* label = NoiseAwareLabel(scores, dims, kNoiseBand, record_noise, &space))
      ++labelled[label->config];
  std::vector<std::pair<std::string, size_t>> labels(labelled.begin(), labelled.end());
  std::stable_sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) { return a.second > b.second; });

  const int threads = space.FindKnobOfKind(KnobKind::kThreads);
  const Config default_config = space.Default();
  std::vector<Config> configs;
  std::set<Config> chosen;
  for (const auto& [text, count] : labels) {
    Result<Config> label = space.Parse(text);
    if (!label.ok()) continue;
    const size_t values = threads < 0 ? 1 : space.knobs()[static_cast<size_t>(threads)].values.size();
    for (size_t v = 0; v < values; ++v) {
      Config config = *label;
      if (threads >= 0) config.values[static_cast<size_t>(threads)] = static_cast<int>(v);
      if (config == default_config || !chosen.insert(config).second) continue;
      configs.push_back(std::move(config));
    }
  }
  return configs;
}

}  // namespace crmap
