#include "backend/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace crmap {

LatencyStats ComputeLatencyStats(std::vector<double> samples) {
  LatencyStats stats;
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  stats.rounds = static_cast<int>(samples.size());
  stats.min_us = samples.front();
  stats.median_us = Percentile(samples, 0.5);
  stats.p90_us = Percentile(samples, 0.90);
  stats.p95_us = Percentile(samples, 0.95);
  stats.p99_us = Percentile(samples, 0.99);
  stats.mean_us = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  double variance = 0;
  for (double s : samples) variance += (s - stats.mean_us) * (s - stats.mean_us);
  variance /= static_cast<double>(samples.size());
  stats.cv = stats.mean_us > 0 ? std::sqrt(variance) / stats.mean_us : 0;
  return stats;
}

RatioStats ComputeRatioStats(std::vector<double> ratios) {
  RatioStats stats;
  if (ratios.empty()) return stats;
  std::sort(ratios.begin(), ratios.end());
  stats.rounds = static_cast<int>(ratios.size());
  stats.median = Percentile(ratios, 0.5);
  stats.p10 = Percentile(ratios, 0.10);
  stats.p90 = Percentile(ratios, 0.90);
  return stats;
}

}  // namespace crmap
