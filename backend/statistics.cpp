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

int MedianIntervalRank(int n, double level) {
  // P(B < j) for B ~ binomial(n, 1/2), summed term by term in logs (no overflow for any round count).
  const double tail = (1 - level) / 2;
  const double log_total = std::lgamma(n + 1.0) - n * std::log(2.0);
  double below = 0;  // P(B < j)
  int rank = 0;
  for (int j = 1; j <= n / 2; ++j) {
    below += std::exp(log_total - std::lgamma(j) - std::lgamma(n - j + 2.0));
    if (below > tail) break;
    rank = j;  // [x(j), x(n+1-j)] misses the median with probability 2 P(B < j) <= 1 - level
  }
  return rank;
}

RatioStats ComputeRatioStats(std::vector<double> ratios) {
  RatioStats stats;
  if (ratios.empty()) return stats;
  std::sort(ratios.begin(), ratios.end());
  stats.rounds = static_cast<int>(ratios.size());
  stats.median = Percentile(ratios, 0.5);
  stats.p10 = Percentile(ratios, 0.10);
  stats.p90 = Percentile(ratios, 0.90);
  if (const int rank = MedianIntervalRank(stats.rounds); rank > 0) {
    stats.median_low = ratios[static_cast<size_t>(rank - 1)];
    stats.median_high = ratios[static_cast<size_t>(stats.rounds - rank)];
  }
  return stats;
}

}  // namespace crmap
