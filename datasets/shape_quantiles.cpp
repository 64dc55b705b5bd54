#include "datasets/shape_quantiles.h"

#include <algorithm>
#include <random>
#include <set>
#include <utility>

namespace crmap {

std::map<std::string, std::vector<int64_t>> DimQuantiles(const ShapeDistribution& distribution, size_t n,
                                                         uint64_t seed) {
  std::map<std::string, std::vector<int64_t>> quantiles;
  if (n == 0) return quantiles;
  std::mt19937_64 rng(seed);
  for (const auto& [name, spec] : distribution.dims()) {  // dims by name: the same draws for a seed everywhere
    std::vector<int64_t> draws(QuantilePoolDraws(n));
    for (int64_t& value : draws) value = spec.Sample(rng);
    std::sort(draws.begin(), draws.end());
    std::vector<int64_t>& values = quantiles[name];
    for (size_t i = 0; i < n; ++i) {
      // The draw at rank floor((i + 0.5) / n x draws), in integers: the midpoint of the i-th of n equal shares of
      // the mass.
      values.push_back(draws[(2 * i + 1) * draws.size() / (2 * n)]);
    }
  }
  return quantiles;
}

std::vector<Dims> QuantileShapes(const ShapeDistribution& distribution, size_t n, uint64_t seed) {
  if (n == 0) return {};
  std::map<std::string, std::vector<int64_t>> quantiles = DimQuantiles(distribution, n, seed);
  // The pairing: the first dim (by name) in quantile order, every other dim in a shuffled order (Fisher-Yates over
  // the portable UniformInt, so the same seed pairs alike on every platform).
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  bool first = true;
  for (auto& [name, values] : quantiles) {
    if (first) {
      first = false;
      continue;
    }
    for (size_t i = values.size(); i > 1; --i)
      std::swap(values[i - 1], values[static_cast<size_t>(UniformInt(rng, 0, static_cast<int64_t>(i) - 1))]);
  }
  std::vector<Dims> shapes;
  std::set<Dims> seen;
  for (size_t i = 0; i < n; ++i) {
    Dims dims;
    for (const auto& [name, values] : quantiles) dims[name] = values[i];
    if (seen.insert(dims).second) shapes.push_back(std::move(dims));
  }
  if (shapes.size() < n) {
    // Coinciding pairings: distinct draws fill the places (a distribution with fewer distinct shapes than n gives
    // what its draws find, as SampleDistinct does).
    // At most n are taken, so 2n distinct draws hold enough that are not taken yet (draw order as SampleDistinct's).
    for (Dims& dims : SampleDistinct(distribution, 2 * n, seed, n * 200)) {
      if (shapes.size() >= n) break;
      if (seen.insert(dims).second) shapes.push_back(std::move(dims));
    }
  }
  return shapes;
}

}  // namespace crmap
