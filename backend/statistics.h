// Latency statistics over the samples of one candidate, and ratio statistics against an anchor.
//
// Percentiles interpolate linearly between closest ranks (numpy's default), so p99 of 30 samples is a
// blend of the two largest. Pure functions; thread-safe.
#pragma once

#include <vector>

#include "common/numeric.h"

namespace crmap {

struct LatencyStats {
  double min_us = 0;
  double median_us = 0;
  double p90_us = 0;
  double p95_us = 0;
  double p99_us = 0;
  double mean_us = 0;
  double cv = 0;  // standard deviation / mean
  int rounds = 0;
};

// Per-round ratios candidate / anchor (below 1: the candidate is faster). The p10..p90 band is the noise
// band quoted next to the median; median_low..median_high is a distribution-free confidence interval of at least
// 95% for the median itself (order statistics of the binomial(rounds, 1/2)); both 0 (unknown) below 6 rounds,
// where even the whole range covers the median with less than 95%.
struct RatioStats {
  double median = 0;
  double p10 = 0;
  double p90 = 0;
  int rounds = 0;
  double median_low = 0;  // after rounds: {median, p10, p90, rounds} still initialises the first four
  double median_high = 0;
};

// The 1-based rank j of the lower end of the order-statistic interval [x(j), x(n+1-j)] of the median of n
// samples: the largest j with P(binomial(n, 1/2) < j) <= (1 - level) / 2; 0 when none is (n too small for the
// level: below 6 samples for 95%).
int MedianIntervalRank(int n, double level = 0.95);

LatencyStats ComputeLatencyStats(std::vector<double> samples_us);
RatioStats ComputeRatioStats(std::vector<double> ratios);

}  // namespace crmap
