// Summary statistics shared by every layer that ranks or reports (db, replay, train, evaluate): one median and
// one geometric mean, so that two commands never summarise the same numbers by different rules. Pure;
// thread-safe.
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
