// Summary statistics shared by every layer that ranks or reports (db, replay, train, evaluate, serve): one
// median, one percentile rule and one geometric mean, so that two commands never summarise the same numbers by
// different rules. Pure; thread-safe.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace crmap {

// The median of the finite values (the mean of the two middle ones for an even count); NaN when there is none.
inline double Median(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }),
               values.end());
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// The q-quantile (q in [0, 1], clamped) of ascending `sorted`, interpolating linearly between the closest ranks
// (numpy's default), so p99 of 30 samples is between the two largest; 0 for an empty list.
inline double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const double position = q * static_cast<double>(sorted.size() - 1);
  const size_t lower = static_cast<size_t>(std::floor(position));
  const size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

// The q-quantile of ascending `sorted` by the nearest-rank rule: the smallest value with at least q of the values
// at or below it (no interpolation, so an infinite latency — a request never served — stays infinite rather
// than turning a quantile into NaN or infinity's neighbour); 0 for an empty list.
inline double NearestRank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size()));
  const size_t index = rank < 1 ? 0 : std::min(sorted.size() - 1, static_cast<size_t>(rank) - 1);
  return sorted[index];
}

// exp(mean(log v)); NaN for an empty list or any value that is not positive and finite.
inline double GeometricMean(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  double log_sum = 0;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
    log_sum += std::log(v);
  }
  return std::exp(log_sum / static_cast<double>(values.size()));
}

}  // namespace crmap
